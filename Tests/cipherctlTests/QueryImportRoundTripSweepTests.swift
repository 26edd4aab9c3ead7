import Foundation
@testable import cipherctl
import TestSupport
import XCTest

/// `cipherctl query --format F "SELECT * FROM t" | cipherctl import --format F` for every
/// format import reads, over random tables made by the sqlcipher shell: column names with
/// keywords, quotes, spaces and unicode, declared types of every affinity, and values from
/// the corners of every storage class (NULL, extreme integers, -0.0, infinities, reals from
/// random bits, text with NUL, CR, LF, tabs, quotes, commas and bytes that are not UTF-8,
/// text that looks like numbers or like a tagged blob, blobs empty or larger than a page).
/// The shell reads both tables back, and the promise of the man page's VALUES section
/// (`CommandCatalog+Manual.swift`) is checked value by value:
/// json and jsonl give back every value and its storage class (infinities come back NULL,
/// which JSON cannot write otherwise), and type new columns by its rule; csv and tsv give
/// back every value's text, typed by the rule. A seed is printed to replay a run
/// (`CIPHERCTL_ROUNDTRIP_SEED`); `CIPHERCTL_ROUNDTRIP_CASES` widens it (Scripts/soak).
final class QueryImportRoundTripSweepTests: CLITestCase {
    private let sourceKey = "3a" + String(repeating: "c5", count: 31)
    private let targetKey = "7e" + String(repeating: "19", count: 31)
    private var keys: [String: String] { ["K": sourceKey, "K2": targetKey] }
    /// Round trips in small batches that the rule refused at a later value, as it should.
    private var refusals = 0

    /// One generated table: its columns (name, declared type) and rows of SQL literals.
    private struct Table {
        var columns: [(name: String, type: String)]
        var rows: [[String]]
    }

    /// One value as the shell sees it: its storage class and exact content (a real's eight
    /// bytes, anything else's bytes in hex), and the hex of its text (`CAST(… AS TEXT)`,
    /// empty for NULL), which is what csv and tsv carry.
    private struct Value: Equatable, CustomStringConvertible {
        let type: String
        let content: String
        let text: String
        var description: String { "\(type):\(content)" }
    }

    func testEveryFormatThatImportReadsGivesBackWhatItsRulesPromise() throws {
        let (generator, seed) = SeededGenerator.forSweep("round trip sweep", variable: "CIPHERCTL_ROUNDTRIP_SEED")
        var random = generator
        var compared = 0, disagreements: [String] = []
        let cases = sweepCases("CIPHERCTL_ROUNDTRIP_CASES", quick: 10)
        for trial in 0..<cases {
            let table = makeTable(&random)
            let source = path("source-\(trial).db"), target = path("target-\(trial).db")
            try sqlcipherOK(source, "PRAGMA key = \"x'\(sourceKey)'\";\n" + createSQL(table))
            try sqlcipherOK(target, "PRAGMA key = \"x'\(targetKey)'\"; CREATE TABLE anchor(x); DROP TABLE anchor;")
            let expected = try values(of: "t", in: source, key: sourceKey, names: table.columns.map(\.name))
            let batch = Int.random(in: 1...table.rows.count, using: &random)
            for (format, extra) in [("json", []), ("jsonl", []), ("csv", []), ("tsv", []), ("jsonl", ["--batch-size", String(batch)])] {
                let name = "t_\(format)\(extra.isEmpty ? "" : "_batch")"
                let label = "seed \(seed) trial \(trial) \(format)\(extra.isEmpty ? "" : " --batch-size \(batch)")"
                let result = try roundTrip(source: source, target: target, table: name, format: format, extra: extra)
                compared += table.rows.count * table.columns.count
                let found: [String]
                if format.hasPrefix("json") {
                    found = try checkJSON(table, expected: expected, result: result, target: target, name: name, batch: extra.isEmpty ? nil : batch)
                } else {
                    found = try checkText(table, expected: expected, result: result, target: target, name: name)
                }
                disagreements += found.map { "\(label): \($0)" }
            }
        }
        print("round trip sweep: \(cases) tables, \(compared) values compared over json, jsonl, csv, tsv and jsonl in small batches "
              + "(\(refusals) of those refused a later value that did not fit); \(disagreements.count) disagreements")
        XCTAssertEqual(disagreements, [], "replay with CIPHERCTL_ROUNDTRIP_SEED=\(seed)")
    }

    // MARK: - The round trip

    /// Pipes query into import; the exit codes of both and import's standard error.
    private func roundTrip(source: String, target: String, table: String, format: String, extra: [String]) throws -> (query: Int32, import: Int32, stderr: String) {
        let script = """
            "$CIPHERCTL" query "$SOURCE" 'SELECT * FROM t' --format "$FORMAT" --key-env K --raw-key |
              "$CIPHERCTL" import "$TARGET" "$TABLE" - --format "$FORMAT" --key-env K2 --raw-key "$@"
            echo "${PIPESTATUS[0]} ${PIPESTATUS[1]}"
            """
        let result = try run("/bin/bash", ["-c", script, "bash"] + extra, stdin: nil, environment: keys.merging([
            "CIPHERCTL": Self.binary, "SOURCE": source, "TARGET": target, "TABLE": table, "FORMAT": format,
        ]) { $1 })
        let status = result.stdout.split(separator: "\n").last ?? ""
        let codes = status.split(separator: " ").compactMap { Int32($0) }
        return (codes.first ?? -1, codes.last ?? -1, result.stderr)
    }

    /// json and jsonl: every value and its class, but infinities as NULL; the new columns
    /// typed by the rule. With a small batch, the first later value that does not fit its
    /// column's type is refused by line instead.
    private func checkJSON(_ table: Table, expected: [[Value]], result: (query: Int32, import: Int32, stderr: String), target: String, name: String,
                           batch: Int?) throws -> [String] {
        let carried = expected.map { row in row.map { $0.type == "real" && ($0.content == "7FF0000000000000" || $0.content == "FFF0000000000000") ? Value(type: "null", content: "", text: "") : $0 } }
        let types = table.columns.indices.map { column in jsonType(carried.prefix(batch ?? carried.count).map { $0[column] }) }
        if let batch, let (line, column) = firstMisfit(carried, types: types, after: batch) {
            // The error line shows control characters in a name as escapes (VisibleText).
            let wanted = "line \(line) of the input: column '\(VisibleText.escaped(table.columns[column].name))' was made \(types[column])"
            guard result.import == 2, result.stderr.contains(wanted) else {
                return ["wanted exit 2 and '\(wanted)', got exit \(result.import): \(result.stderr)"]
            }
            refusals += 1
            return []
        }
        guard result.query == 0, result.import == 0 else { return ["query exit \(result.query), import exit \(result.import): \(result.stderr)"] }
        return try compare(table, expected: carried, target: target, name: name, types: types, textual: false)
    }

    /// csv and tsv: every value's text (NULL as the empty string), a number only in a column
    /// the rule makes INTEGER or REAL.
    private func checkText(_ table: Table, expected: [[Value]], result: (query: Int32, import: Int32, stderr: String), target: String, name: String) throws -> [String] {
        guard result.query == 0, result.import == 0 else { return ["query exit \(result.query), import exit \(result.import): \(result.stderr)"] }
        let types = table.columns.indices.map { column in textType(expected.map { $0[column].text }) }
        return try compare(table, expected: expected.map { row in row.map { Value(type: "text", content: $0.text, text: $0.text) } },
                           target: target, name: name, types: types, textual: true)
    }

    /// The target table's column names, declared types and values against the expected
    /// ones; with `textual` (csv, tsv), a field in a numeric column compares by its text, and
    /// its class by the column's type.
    private func compare(_ table: Table, expected: [[Value]], target: String, name: String, types: [String], textual: Bool) throws -> [String] {
        var found: [String] = []
        let columns = try sqlcipherOK(target, "PRAGMA key = \"x'\(targetKey)'\";\nSELECT hex(name) || ':' || type FROM pragma_table_info('\(name)');")
            .split(separator: "\n").dropFirst().map(String.init)
        let wanted = zip(table.columns, types).map { Self.hex($0.0.name) + ":" + $0.1 }
        if columns != wanted { found.append("columns \(columns), wanted \(wanted) (names in hex: declared type by the rule)") }
        let back = try values(of: name, in: target, key: targetKey, names: table.columns.map(\.name))
        guard back.count == expected.count else { return found + ["\(back.count) rows, wanted \(expected.count)"] }
        for (row, (got, want)) in zip(back, expected).enumerated() {
            for (column, (value, source)) in zip(got, want).enumerated() {
                var wanted = source
                if textual, value.type != "text" {
                    // A csv or tsv field in a numeric column: its text, and the column's class.
                    let numeric = types[column] == "INTEGER" ? "integer" : types[column] == "REAL" ? "real" : "text"
                    guard value.text == wanted.text, value.type == numeric, !wanted.text.isEmpty else {
                        found.append("row \(row + 1) column \(column + 1): got \(value) (text \(value.text)), wanted text \(wanted.text) in a \(types[column]) column")
                        continue
                    }
                    wanted = value
                }
                if value != wanted { found.append("row \(row + 1) column \(column + 1) (\(table.rows[row][column])): got \(value), wanted \(wanted)") }
            }
        }
        return found
    }

    // MARK: - The rules, as the man page's VALUES section states them

    /// A new column's type from JSON values: INTEGER, REAL or TEXT when every value that is
    /// not NULL is of that class (a -0.0 leaves it untyped), untyped otherwise.
    private func jsonType(_ values: [Value]) -> String {
        let classes = Set(values.filter { $0.type != "null" }.map { $0.type == "real" && $0.content == "8000000000000000" ? "mixed" : $0.type })
        guard classes.count == 1, let only = classes.first else { return "" }
        return ["integer": "INTEGER", "real": "REAL", "text": "TEXT"][only] ?? ""
    }

    /// The first row after the batch whose value does not fit its column's type; its line
    /// (jsonl: one object a line) and column.
    private func firstMisfit(_ rows: [[Value]], types: [String], after batch: Int) -> (Int, Int)? {
        for (index, row) in rows.enumerated().dropFirst(batch) {
            for (column, value) in row.enumerated() where !types[column].isEmpty && value.type != "null" {
                if jsonType([value]) != types[column] { return (index + 1, column) }
            }
        }
        return nil
    }

    /// A new column's type from csv or tsv fields: INTEGER when every field that is not
    /// empty is an integer as SQLite writes one, REAL when every one is a real as SQLite
    /// writes one, TEXT when every one is other text, untyped otherwise.
    private func textType(_ texts: [String]) -> String {
        let classes = Set(texts.filter { !$0.isEmpty }.map { hexText -> String in
            let text = String(decoding: HexBytes.decode(hexText), as: UTF8.self)
            if let value = Int64(text), String(value) == text { return "INTEGER" }
            return Self.isWrittenAsSQLiteWritesAReal(text) ? "REAL" : "TEXT"
        })
        return classes.count == 1 ? classes.first! : ""
    }

    /// SQLite's `%!.15g` (or `%!.17g`, when 15 digits do not read back), emulated with C's
    /// printf: a point always, `1.0e+20` for `1e+20`.
    private static func isWrittenAsSQLiteWritesAReal(_ text: String) -> Bool {
        guard text.contains("."), let value = Double(text), value.isFinite, !(value == 0 && value.sign == .minus) else { return false }
        func written(_ digits: Int) -> String {
            let c = String(format: "%.\(digits)g", value)
            let parts = c.split(separator: "e", maxSplits: 1).map(String.init)
            let mantissa = parts[0].contains(".") ? parts[0] : parts[0] + ".0"
            return parts.count == 2 ? mantissa + "e" + parts[1] : mantissa
        }
        let short = written(15)
        return (Double(short) == value ? short : written(17)) == text
    }

    // MARK: - Tables

    private static let names = [
        "id", "select", "order", "group", "from", "table", "a\"b", "it's", "two words", " lead", "trail ", "naïve", "日本語", "[x]", "a,b",
        "tab\there", "$base64", "encoded", "Ünï", "emoji 🎉", "-", "0", "NULL", "key",
    ]
    private static let types = ["", "", "", "INTEGER", "REAL", "TEXT", "BLOB", "NUMERIC", "ANY", "VARCHAR(10)"]

    private func makeTable(_ random: inout SeededGenerator) -> Table {
        var names: [String] = []
        while names.count < Int.random(in: 1...6, using: &random) {
            let name = Self.names.randomElement(using: &random)!
            if !names.contains(where: { $0.lowercased() == name.lowercased() }) { names.append(name) }
        }
        let columns = names.map { ($0, Self.types.randomElement(using: &random)!) }
        let rows = (0..<Int.random(in: 1...30, using: &random)).map { _ in columns.map { _ in value(&random) } }
        return Table(columns: columns, rows: rows)
    }

    private func createSQL(_ table: Table) -> String {
        let definitions = table.columns.map { Self.quoted($0.name) + ($0.type.isEmpty ? "" : " " + $0.type) }
        let rows = table.rows.map { "(" + $0.joined(separator: ", ") + ")" }
        return "CREATE TABLE t(\(definitions.joined(separator: ", ")));\nINSERT INTO t VALUES \(rows.joined(separator: ",\n"));\n"
    }

    /// A value from the corners of a random storage class, as an SQL literal.
    private func value(_ random: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            return "NULL"
        case 1, 2:
            let corners: [Int64] = [0, 1, -1, 7, .max, .min, 9_007_199_254_740_993, -9_007_199_254_740_993, 1_000_000]
            let value = Bool.random(using: &random) ? corners.randomElement(using: &random)! : Int64.random(in: .min ... .max, using: &random)
            return value == .min ? "(-9223372036854775807 - 1)" : String(value)
        case 3, 4:
            let corners: [UInt64] = [0, 0x8000_0000_0000_0000, 0x3FF0_0000_0000_0000, 0x3FB9_9999_9999_999A, 0x3FD3_3333_3333_3334, 0x40F8_6A00_0000_0000,
                                     0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000, 0x0000_0000_0000_0001, 0x0010_0000_0000_0000, 0x7FEF_FFFF_FFFF_FFFF,
                                     0x4330_0000_0000_0001, 0x430C_6BF5_2634_0000, 0xC3E0_0000_0000_0000]
            var bits: UInt64
            repeat {
                bits = Bool.random(using: &random) ? corners.randomElement(using: &random)! : random.next()
            } while Double(bitPattern: bits).isNaN
            return "ieee754_from_blob(X'\(String(format: "%016llX", bits))')"
        case 5, 6, 7:
            return "CAST(X'\(Self.hex(bytes: text(&random)))' AS TEXT)"
        default:
            let kind = Int.random(in: 0..<4, using: &random)
            let count = [0, 1, Int.random(in: 2...40, using: &random), Int.random(in: 4097...9000, using: &random)][kind]
            return "X'" + Self.hex(bytes: (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }) + "'"
        }
    }

    /// Text from the corners: empty, numbers' look-alikes, separators and line ends, NUL,
    /// bytes that are not UTF-8, a tagged blob's look-alike, longer than a page; joined.
    private func text(_ random: inout SeededGenerator) -> [UInt8] {
        let pieces: [[UInt8]] = [
            [], Array("007".utf8), Array("1e5".utf8), Array(" 12 ".utf8), Array("true".utf8), Array("null".utf8), Array("1.0".utf8), Array("-0".utf8),
            Array("-0.0".utf8), Array("12".utf8), Array("2.5".utf8), Array("NaN".utf8), Array("a,b".utf8), Array("say \"hi\"".utf8), Array("it's".utf8),
            [0x0D], [0x0A], [0x0D, 0x0A], [0x09], [0x00], Array("\\n".utf8), Array("\\".utf8), Array("ünïcödé ✓".utf8), [0xFF], [0xC0, 0xAF],
            [0xED, 0xA0, 0x80], [0xE2, 0x82], Array(#"{"$base64": true, "encoded": "AA=="}"#.utf8), Array("[1,2]".utf8), Array("\u{FEFF}bom".utf8),
            Array(String(repeating: "long text ", count: 500).utf8),
        ]
        let count = Int.random(in: 0...3, using: &random)
        // A lone piece is most of the corners (`007` alone looks like a number, `12 x` does not).
        return (0..<count).flatMap { _ in pieces.randomElement(using: &random)! }
    }

    // MARK: - Reading back through the shell

    /// Every value of `table`, row by row in rowid order, each column by name.
    private func values(of table: String, in database: String, key: String, names: [String]) throws -> [[Value]] {
        let renders = names.map { name -> String in
            let column = Self.quoted(name)
            return "typeof(\(column)) || ':' || CASE typeof(\(column)) WHEN 'real' THEN hex(ieee754_to_blob(\(column))) ELSE hex(\(column)) END"
                + " || ':' || CASE WHEN \(column) IS NULL THEN '' ELSE hex(CAST(\(column) AS TEXT)) END"
        }
        let output = try sqlcipherOK(database, "PRAGMA key = \"x'\(key)'\";\n.mode list\n.separator \" \"\nSELECT \(renders.joined(separator: ", ")) FROM \(Self.quoted(table)) ORDER BY rowid;")
        return output.split(separator: "\n").dropFirst().map { line in
            line.split(separator: " ", omittingEmptySubsequences: false).map { field in
                let parts = field.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                return Value(type: parts[0], content: parts[1], text: parts[2])
            }
        }
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func hex(_ text: String) -> String {
        hex(bytes: Array(text.utf8))
    }

    private static func hex(bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02X", $0) }.joined()
    }
}
