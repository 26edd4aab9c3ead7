/// Where an import's rows come from: a header that names the columns (csv, tsv), or none
/// (JSON, whose rows carry their keys), then one row at a time.
protocol ImportRowSource {
    /// The column names of the header line; nil for a format without one.
    mutating func header() throws -> [String]?
    mutating func next() throws -> ImportRow?
}
