/// Puts an import's rows into the table, in column order: a JSON row's keys are matched to
/// the columns written so far, then to the table's other columns (a key the table lacks is
/// an error, or under `alter` a new untyped column); in a table the import created, a value
/// after the first batch must fit the type its column was given (`ImportColumnType.admits`),
/// or the import stops at its line.
struct RowLoader {
    private let connection: Connection
    private let request: ImportRequest
    /// The columns the INSERT names.
    private(set) var columns: ImportColumns
    /// Every column of the table that takes a value.
    private var tableColumns: ImportColumns
    /// The types of the columns of a table this import created; nil for an existing table,
    /// whose own types decide.
    var types: [ImportColumnType]? {
        didSet { checked = (types ?? []).indices.filter { types![$0] != .none } }
    }
    /// The columns whose type later values must fit.
    private var checked: [Int] = []
    private var insert: ChunkedInsert
    private(set) var rows = 0

    init(connection: Connection, request: ImportRequest, columns: ImportColumns, tableColumns: ImportColumns) {
        self.connection = connection
        self.request = request
        self.columns = columns
        self.tableColumns = tableColumns
        insert = ChunkedInsert(connection: connection, table: request.table, columns: columns.names, conflict: request.conflict)
    }

    /// Inserts `row`; `checked` for a row after the first batch.
    ///
    /// - Throws: `ImportError` naming the row's line, and what `ChunkedInsert` throws.
    mutating func add(_ row: ImportRow, checked later: Bool) throws {
        let row = row.isDelimited ? row : try arranged(row)
        if later {
            for column in checked where !types![column].admits(row, column: column) {
                throw ImportError.doesNotFit(line: row.line, column: columns.names[column], type: types![column].declaration ?? "")
            }
        }
        try insert.add(row)
        rows += 1
    }

    mutating func finish() throws {
        try insert.flush()
    }

    /// A JSON row in column order; a key the INSERT does not name yet is added to it (and
    /// first to the table, untyped, under `alter`).
    private mutating func arranged(_ row: ImportRow) throws -> ImportRow {
        while let unknown = columns.unknownKey(in: row) {
            if tableColumns.index(of: unknown) == nil {
                guard request.alter else { throw ImportError.unknownColumn(unknown, line: row.line) }
                try connection.execute(ImportSchema.addColumn(request.table, column: unknown))
                tableColumns.add(unknown)
            }
            try write(unknown)
        }
        return try columns.arrange(row)
    }

    /// Makes the INSERT name `column` too, once the rows so far are in. A column the import
    /// did not type from the first batch takes any value.
    private mutating func write(_ column: String) throws {
        try insert.flush()
        columns.add(column)
        types?.append(.none)
        insert = ChunkedInsert(connection: connection, table: request.table, columns: columns.names, conflict: request.conflict)
    }
}
