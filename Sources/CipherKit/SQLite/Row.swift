/// One result row: its values by index and by column name, typed on request.
public struct Row: Equatable, Sendable {
    /// The column names, in order, as SQLite gives them.
    public let columns: [String]
    public let values: [DatabaseValue]

    public init(columns: [String], values: [DatabaseValue]) {
        precondition(columns.count == values.count, "a row has one value per column")
        self.columns = columns
        self.values = values
    }

    /// The value of column `index` (0-based).
    public subscript(index: Int) -> DatabaseValue { values[index] }

    /// The value of the first column called `column` (compared without case, as SQLite
    /// compares names), or nil when there is none.
    public subscript(column: String) -> DatabaseValue? {
        index(of: column).map { values[$0] }
    }

    /// The index of the first column called `column`, without regard to case.
    public func index(of column: String) -> Int? {
        columns.firstIndex { $0 == column } ?? columns.firstIndex { $0.lowercased() == column.lowercased() }
    }

    /// Column `index` as `T`.
    ///
    /// - Throws: `ValueConversionError` when the value does not fit `T`.
    public func get<T: DatabaseValueConvertible>(_ index: Int, as type: T.Type = T.self) throws -> T {
        do {
            return try T.fromDatabaseValue(values[index])
        } catch var error as ValueConversionError {
            error.column = columns[index]
            throw error
        }
    }

    /// Column `column` as `T`.
    ///
    /// - Throws: `RowDecodingError.noSuchColumn`, or `ValueConversionError`.
    public func get<T: DatabaseValueConvertible>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let index = index(of: column) else { throw RowDecodingError.noSuchColumn(column) }
        return try get(index, as: type)
    }

    /// The row decoded into a `Decodable` type whose coding keys are column names.
    ///
    /// - Throws: `RowDecodingError` or `ValueConversionError`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try T(from: RowDecoder(row: self))
    }
}
