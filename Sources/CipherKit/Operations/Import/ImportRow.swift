/// One row of an import's input: where it starts, and its values in column order: a
/// delimited row's fields as one run of bytes with the end of each (text, which the
/// column's affinity types), or a JSON row's typed values.
struct ImportRow {
    let line: Int
    /// A delimited row's fields, end to end.
    var bytes: [UInt8] = []
    /// Where each field of `bytes` ends.
    var ends: [Int] = []
    /// A JSON row's values.
    var values: [DatabaseValue] = []

    /// A delimited row.
    init(line: Int, bytes: [UInt8], ends: [Int]) {
        self.line = line
        self.bytes = bytes
        self.ends = ends
    }

    /// A JSON row.
    init(line: Int, values: [DatabaseValue]) {
        self.line = line
        self.values = values
    }

    var isDelimited: Bool { values.isEmpty }

    var count: Int { isDelimited ? ends.count : values.count }

    /// Field `index` of a delimited row.
    func field(_ index: Int) -> ArraySlice<UInt8> {
        bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
    }
}

/// Where an import's rows come from: the columns first (a header, or the first object's
/// keys), then one row at a time.
protocol ImportRowSource {
    mutating func columns() throws -> [String]
    mutating func next() throws -> ImportRow?
}
