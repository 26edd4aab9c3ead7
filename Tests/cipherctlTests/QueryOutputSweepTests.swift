import Foundation
import TestSupport
import XCTest

/// `query --format csv`, `json` and `jsonl` over random tables of every storage class, checked
/// against the sqlcipher shell: csv byte for byte with the shell's own csv (`.mode csv`), and
/// json and jsonl against documents built here from what the shell says of each value (its
/// type, its digits by SQLite's printf, the bytes of text and blobs in hex) by the rules of
/// `JSONResultWriter`. Values: NULL, integers at the edges and at random, reals from random
/// bits and decimal fractions, infinities, text with commas, quotes, CR, LF, tabs, control
/// characters, unicode and bytes that are not UTF-8, blobs empty, small and larger than the
/// writers' 64 KiB chunks, in tables large enough to cross the batches the rows are passed
/// between threads in. A seed is printed to replay a run (`CIPHERCTL_OUTPUT_SEED`);
/// `CIPHERCTL_OUTPUT_CASES` widens it.
final class QueryOutputSweepTests: CLITestCase {
    private let key = ["K": "output sweep key"]
    private let keySQL = "PRAGMA key = 'output sweep key';"
    private let columns = ["a", "b", "c", "d", "e"]

    func testCSVAndJSONOfEveryTypeAreWhatTheShellSays() throws {
        let (generator, seed) = SeededGenerator.forSweep("query output sweep", variable: "CIPHERCTL_OUTPUT_SEED")
        var random = generator
        for trial in 0..<sweepCases("CIPHERCTL_OUTPUT_CASES", quick: 3) {
            let label = "seed \(seed) trial \(trial)"
            let db = path("sweep-\(trial).db")
            let rows = Int.random(in: 1...(trial == 0 ? 40 : 4000), using: &random)
            let literals = (0..<rows).map { _ in columns.map { _ in Self.literal(&random) } }
            let inserts = literals.map { "INSERT INTO t VALUES (\($0.joined(separator: ", ")));" }.joined(separator: "\n")
            try sqlcipherOK(db, keySQL + "\nCREATE TABLE t(\(columns.joined(separator: ", ")));\nBEGIN;\n\(inserts)\nCOMMIT;")

            let shellCSV = path("shell-\(trial).csv"), ourCSV = path("ours-\(trial).csv")
            try sqlcipherOK(db, keySQL + "\n.headers on\n.mode csv\n.output \(shellCSV)\nSELECT * FROM t;")
            let csv = try run("/bin/sh", ["-c", "\"$0\" query \"$1\" 'SELECT * FROM t' --key-env K --format csv > \"$2\"", Self.binary, db, ourCSV],
                              stdin: nil, environment: key)
            XCTAssertEqual(csv.code, 0, "\(label): \(csv.stderr)")
            XCTAssertTrue(try Data(contentsOf: URL(fileURLWithPath: ourCSV)) == Data(contentsOf: URL(fileURLWithPath: shellCSV)), "\(label): csv differs from the shell's")

            let objects = try expectedObjects(db)
            let json = try cipherctl(["query", db, "SELECT * FROM t", "--key-env", "K", "--format", "json"], environment: key)
            XCTAssertEqual(json.code, 0, "\(label): \(json.stderr)")
            Self.assertSame(json.stdout, "[" + objects.map { "\n" + $0 }.joined(separator: ",") + "\n]\n", label + " json")
            let lines = try cipherctl(["query", db, "SELECT * FROM t", "--key-env", "K", "--format", "jsonl"], environment: key)
            XCTAssertEqual(lines.code, 0, "\(label): \(lines.stderr)")
            Self.assertSame(lines.stdout, objects.map { $0 + "\n" }.joined(), label + " jsonl")
        }
    }

    /// Reports the first line that differs rather than two whole documents.
    private static func assertSame(_ ours: String, _ expected: String, _ label: String) {
        guard ours != expected else { return }
        let a = ours.split(separator: "\n", omittingEmptySubsequences: false), b = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        XCTFail("\(label): line \(line + 1) is \(line < a.count ? String(a[line].prefix(300)) : "missing"), expected \(line < b.count ? String(b[line].prefix(300)) : "nothing")")
    }

    /// One row's objects as `JSONResultWriter` writes them, from the shell's view of each value.
    private func expectedObjects(_ db: String) throws -> [String] {
        let described = columns.map { column in
            "typeof(\(column)) || ':' || CASE typeof(\(column)) WHEN 'integer' THEN \(column) " +
                "WHEN 'real' THEN (CASE WHEN abs(\(column)) = 9e999 THEN 'inf' ELSE printf('%!.15g|%!.17g|%!.20g', \(column), \(column), \(column)) END) " +
                "WHEN 'null' THEN '' ELSE hex(\(column)) END"
        }
        let output = try sqlcipherOK(db, keySQL + "\n.mode list\n.separator ' '\nSELECT \(described.joined(separator: ", ")) FROM t;")
        return output.split(separator: "\n").dropFirst().map { line in
            let values = line.split(separator: " ", omittingEmptySubsequences: false).map { Self.json(String($0)) }
            return "{" + zip(columns, values).map { "\"\($0)\":\($1)" }.joined(separator: ",") + "}"
        }
    }

    /// A value as json, from `type:detail` (`expectedObjects`).
    private static func json(_ described: String) -> String {
        let parts = described.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let type = parts[0], detail = parts.count > 1 ? String(parts[1]) : ""
        switch type {
        case "integer": return detail
        case "real":
            guard detail != "inf" else { return "null" }
            let digits = detail.split(separator: "|").map(String.init)
            let value = Double(digits[2])!
            return Double(digits[0]) == value ? digits[0] : digits[1]
        case "text":
            let bytes = HexBytes.decode(detail)
            guard let text = String(validatingUTF8: bytes.map { CChar(bitPattern: $0) } + [0]), text.utf8.count == bytes.count else {
                return tag(bytes, text: true)
            }
            return string(bytes)
        case "blob": return tag(HexBytes.decode(detail), text: false)
        default: return "null"
        }
    }

    private static func string(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = [0x22]
        for byte in bytes {
            switch byte {
            case 0x22: out += Array("\\\"".utf8)
            case 0x5C: out += Array("\\\\".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0x08: out += Array("\\b".utf8)
            case 0x0C: out += Array("\\f".utf8)
            case 0..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out + [0x22], as: UTF8.self)
    }

    private static func tag(_ bytes: [UInt8], text: Bool) -> String {
        "{\"$base64\":true,\"encoded\":\"\(Data(bytes).base64EncodedString())\"" + (text ? ",\"type\":\"text\"" : "") + "}"
    }


    /// An SQL literal of a random storage class and shape.
    private static func literal(_ random: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return "NULL"
        case 1: return ["-9223372036854775808", "9223372036854775807", "0", "-1"].randomElement(using: &random)!
        case 2: return String(Int64.random(in: .min ... .max, using: &random))
        case 3: return String(Int.random(in: -1000...1_000_000, using: &random))
        case 4: return ["9e999", "-9e999", "1e20", "1e-7", "0.1", "100.0", "1.5e300"].randomElement(using: &random)!
        case 5:
            let value = Double(bitPattern: random.next())
            return value.isFinite ? String(format: "%.17g", value) : "0.5"
        case 6: return String(format: "%.*f", Int.random(in: 0...6, using: &random), Double.random(in: -1e6...1e6, using: &random))
        case 7: return "x'\(hex(count: Int.random(in: 0...40, using: &random), &random))'"
        // Larger than a chunk: a blob, or text that csv quotes (no NUL: the shell stops there).
        case 8 where Int.random(in: 0..<40, using: &random) == 0:
            return "CAST(printf('%.*c', \(Int.random(in: 65_536...140_000, using: &random)), \(Bool.random(using: &random) ? "'q'" : "','")) AS \(Bool.random(using: &random) ? "BLOB" : "TEXT"))"
        case 9: return "CAST(x'\(hex(count: Int.random(in: 1...30, using: &random), &random))' AS TEXT)"
        default: return "'" + text(&random).replacingOccurrences(of: "'", with: "''") + "'"
        }
    }

    /// Text from pieces that csv must quote and json must escape, and unicode.
    private static func text(_ random: inout SeededGenerator) -> String {
        let pieces = ["a", "plain", " ", ",", "\"", "'", "\\", "\n", "\r\n", "\t", "\u{1}", "\u{1F}", "\u{7F}", "é", "日本", "✓", "😀", "1.5", "{}", "null"]
        return (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    private static func hex(count: Int, _ random: inout SeededGenerator) -> String {
        // No NUL: the shell's csv stops a value at one.
        (0..<count).map { _ in String(format: "%02x", UInt8.random(in: 1...255, using: &random)) }.joined()
    }
}
