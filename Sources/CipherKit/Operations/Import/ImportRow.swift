/// One row of an import's input: where it starts, and its values in column order.
struct ImportRow {
    /// One value as read.
    enum Value {
        /// Text from a delimited file, as its bytes (the column's affinity types it).
        case text([UInt8])
        /// A typed value from JSON.
        case value(DatabaseValue)
    }

    let line: Int
    var values: [Value]
}

/// Where an import's rows come from: the columns first (a header, or the first object's
/// keys), then one row at a time.
protocol ImportRowSource {
    mutating func columns() throws -> [String]
    mutating func next() throws -> ImportRow?
}
