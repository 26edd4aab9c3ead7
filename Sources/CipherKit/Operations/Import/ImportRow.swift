/// One row of an import's input: the line it starts on, and its values: a delimited row's
/// fields as one run of bytes with the end of each (text, bound as it is), or a JSON row's
/// typed values with their keys (in the order written until the importer puts them in
/// column order).
struct ImportRow {
    let line: Int
    let isDelimited: Bool
    /// A delimited row's fields, end to end.
    var bytes: [UInt8] = []
    /// Where each field of `bytes` ends.
    var ends: [Int] = []
    /// A JSON row's keys, one for each value.
    var keys: [String] = []
    /// A JSON row's values.
    var values: [ImportValue] = []

    /// A delimited row.
    init(line: Int, bytes: [UInt8], ends: [Int]) {
        self.line = line
        isDelimited = true
        self.bytes = bytes
        self.ends = ends
    }

    /// A JSON row.
    init(line: Int, keys: [String], values: [ImportValue]) {
        self.line = line
        isDelimited = false
        self.keys = keys
        self.values = values
    }

    var count: Int { isDelimited ? ends.count : values.count }

    /// Field `index` of a delimited row.
    func field(_ index: Int) -> ArraySlice<UInt8> {
        bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
    }
}
