/// JSON results: with `lines`, one object a line (JSON Lines), the result sets one after
/// another. Otherwise one JSON document: a result set is an array of objects (one object a
/// line, `[]` without rows); the input's only statement prints its array, several
/// statements an array of their result sets' arrays; and a run that writes opens an object
/// whose `results` are always such an array of arrays, `{"results": [...]`, which the caller
/// closes with the statement and change counts once the transaction is committed. Integers
/// and reals are numbers (in as many digits as read back to the same double, `-0.0` kept;
/// infinities null), text a string, NULL null; a blob, and text that is not UTF-8, the
/// tagged objects of `JSONTag` (given a blob encoding, `ResultOptions.blobEncoding`, a blob
/// is a plain string in it instead). Column names that repeat get a suffix: `a`, `a_2`, `a_3`.
final class JSONResultWriter: BufferedResultWriter {
    private let lines: Bool
    /// Each key, quoted and followed by a colon, ready to copy, with what else the row writer needs.
    private var layout = RowLayout(columns: 0, nullText: "", blobEncoding: nil)
    /// Whether the result sets go into an array of their own (several statements, or a write).
    private var nested = false
    /// Whether the document is the `{"results": …` object of a run that writes.
    private var writes = false
    private var resultSets = 0

    init(output: OutputBuffer, options: ResultOptions, lines: Bool) {
        self.lines = lines
        super.init(output: output, options: options)
    }

    override func start(statements: Int, write: Bool) throws {
        guard !lines else { return }
        writes = write
        nested = statements > 1 || write
        try output.write(write ? #"{"results":["# : nested ? "[" : "")
    }

    override func begin(columns: [String]) throws {
        try super.begin(columns: columns)
        if nested { try output.write(resultSets > 0 ? ",\n" : "\n") }
        resultSets += 1
        let keys = Self.distinct(columns).map { name in
            var key: [UInt8] = []
            JSONString.append(name.utf8, to: &key)
            key.append(UInt8(ascii: ":"))
            return key
        }
        layout = RowLayout(columns: columns.count, keys: keys, nullText: "", blobEncoding: options.blobEncoding, lines: lines)
        if !lines { try output.write("[") }
    }

    override func writeRows(of statement: Statement) throws -> Int {
        guard try statement.step() else { return 0 }
        // The values go from SQLite to the output through C, formatted on a second thread.
        let written = try RowPipe.run(statement, layout: layout, json: true, output: output)
        rows += written
        return written
    }

    override func end() throws {
        if !lines { try output.write((rows == 0 ? "]" : "\n]") + (nested ? "" : "\n")) }
    }

    override func finish() throws {
        if nested { try output.write((resultSets == 0 ? "]" : "\n]") + (writes ? "" : "\n")) }
        nested = false
        try super.finish()
    }

    /// The names with repeats made distinct: `a`, `a_2`, `a_3`, skipping names already taken.
    static func distinct(_ names: [String]) -> [String] {
        var taken = Set<String>()
        var result: [String] = []
        for name in names {
            var candidate = name
            var number = 2
            while taken.contains(candidate) {
                candidate = "\(name)_\(number)"
                number += 1
            }
            taken.insert(candidate)
            result.append(candidate)
        }
        return result
    }
}
