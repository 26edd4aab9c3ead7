/// The columns an import writes, in order, matched by name as SQLite matches names (ASCII
/// letters in either case): a csv or tsv header's names, or the keys of a JSON batch in the
/// order they first appear.
struct ImportColumns {
    private(set) var names: [String] = []
    private var indexes: [String: Int] = [:]

    /// A header's names.
    ///
    /// - Throws: `ImportError.malformed` (line 1) for a name given twice.
    init(header: [String]) throws {
        for name in header where !add(name) {
            throw ImportError.malformed(line: 1, reason: "the header names column '\(name)' twice")
        }
    }

    /// Every key of the rows, in the order each first appears.
    init(keysOf rows: [ImportRow]) throws {
        for row in rows {
            try checkKeys(of: row)
            for key in row.keys where index(of: key) == nil { add(key) }
        }
    }

    /// The column `name` stands for.
    func index(of name: String) -> Int? {
        indexes[Self.folded(name)]
    }

    /// Adds a column; false when one of that name is there.
    @discardableResult
    mutating func add(_ name: String) -> Bool {
        let key = Self.folded(name)
        guard indexes[key] == nil else { return false }
        indexes[key] = names.count
        names.append(name)
        return true
    }

    /// The first key of a JSON row that names no column.
    func unknownKey(in row: ImportRow) -> String? {
        row.keys.first { index(of: $0) == nil }
    }

    /// A JSON row whose keys all name columns, with its values in column order (NULL for a
    /// key it leaves out).
    ///
    /// - Throws: `ImportError.malformed` for two keys that name one column.
    func arrange(_ row: ImportRow) throws -> ImportRow {
        try checkKeys(of: row)
        var values = [ImportValue](repeating: .null, count: names.count)
        for (key, value) in zip(row.keys, row.values) {
            guard let index = index(of: key) else { preconditionFailure("arrange(_:) needs every key to name a column (unknownKey(in:))") }
            values[index] = value
        }
        return ImportRow(line: row.line, keys: names, values: values)
    }

    /// Two keys of one object that SQLite takes for one column name are refused.
    private func checkKeys(of row: ImportRow) throws {
        guard row.keys.count > 1 else { return }
        var seen: [String: String] = [:]
        for key in row.keys {
            if let other = seen.updateValue(key, forKey: Self.folded(key)) {
                throw ImportError.malformed(line: row.line, reason: "keys '\(other)' and '\(key)' name the same column (SQLite's names ignore the case of ASCII letters)")
            }
        }
    }

    /// The name as SQLite compares names: ASCII letters in lower case.
    private static func folded(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
