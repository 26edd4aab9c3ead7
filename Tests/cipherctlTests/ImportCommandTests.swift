import Foundation
import TestSupport
import XCTest

/// `cipherctl import`: rows written by `query` in each format come back the same, a defect on
/// any line is exit 2 naming it with nothing written, and keys and conflicts do what they say.
final class ImportCommandTests: CLITestCase {
    private let keys = ["K": "import key", "K2": "import target key"]

    func testRowsQueryWritesInEachFormatImportBackTheSame() throws {
        let (generator, seed) = SeededGenerator.forSweep("import sweep", variable: "CIPHERCTL_IMPORT_SEED")
        var random = generator
        let source = path("source.db")
        let rows = (1...400).map { id in
            "(\(id), \(text(&random)), \(Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &random)), \(Double(Int.random(in: -999_999...999_999, using: &random)) / 1000))"
        }
        try sqlcipherOK(source, "PRAGMA key = 'import key'; CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, amount INTEGER, ratio REAL); INSERT INTO t VALUES \(rows.joined(separator: ",\n"));")
        let expected = try checksum(source, key: "import key")
        for format in ["csv", "tsv", "json", "jsonl"] {
            // sha3_query hashes the query's text too: the same table name in a database of its own.
            let target = path("target-\(format).db")
            XCTAssertEqual(try cipherctl(["open", target, "--create", "--key-env", "K2"], environment: keys).code, 0)
            let exported = try cipherctl(["query", source, "SELECT * FROM t", "--format", format, "--key-env", "K"], environment: keys)
            XCTAssertEqual(exported.code, 0, exported.stderr)
            let file = path("rows.\(format)")
            try Data(exported.stdout.utf8).write(to: URL(fileURLWithPath: file))
            let result = try cipherctl(["import", target, "t", file, "--key-env", "K2", "--pk", "id", "--batch-size", "50", "--json"], environment: keys)
            XCTAssertEqual(result.code, 0, "seed \(seed) \(format): \(result.stderr)")
            XCTAssertEqual(try jsonObject(result.stdout)["rows"] as? Int, 400, format)
            XCTAssertEqual(try checksum(target, key: "import target key"), expected, "seed \(seed): \(format) round trip")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("target") }.count, 4, "no file beside them")
    }

    func testADefectOnAnyLineIsExit2NamingItAndWritesNothing() throws {
        let (generator, seed) = SeededGenerator.forSweep("import defect", variable: "CIPHERCTL_IMPORT_SEED")
        var random = generator
        let db = path("a.db")
        XCTAssertEqual(try cipherctl(["open", db, "--create", "--key-env", "K"], environment: keys).code, 0)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: db))
        for trial in 0..<sweepCases("CIPHERCTL_IMPORT_CASES", quick: 24) {
            let format = ["csv", "tsv", "jsonl", "json"][trial % 4]
            let count = Int.random(in: 2...300, using: &random)
            let bad = Int.random(in: 1...count, using: &random)
            let (input, line) = defective(format: format, rows: count, bad: bad)
            let result = try cipherctl(["import", db, "t", "-", "--format", format, "--key-env", "K", "--batch-size", "7"], stdin: input, environment: keys)
            let label = "seed \(seed) trial \(trial) \(format), row \(bad) of \(count)"
            XCTAssertEqual(result.code, 2, "\(label): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("line \(line) of the input"), "\(label): \(result.stderr)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), pristine, "\(label): nothing written")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["a.db"])
    }

    func testExistingTablesMatchByNameAndConflictsFailReplaceOrAreIgnored() throws {
        let db = try makeShellDatabase("a.db", key: "import key", rows: 3)
        let csv = "price,name,id\n9.5,replaced,1\n1.0,new,1000\n"
        let failing = try cipherctl(["import", db, "items", "-", "--format", "csv", "--key-env", "K"], stdin: csv, environment: keys)
        XCTAssertEqual(failing.code, 2, failing.stderr)
        XCTAssertTrue(failing.stderr.contains("UNIQUE constraint failed"), failing.stderr)
        let ignored = try cipherctl(["import", db, "items", "-", "--format", "csv", "--key-env", "K", "--ignore", "--json"], stdin: csv, environment: keys)
        XCTAssertEqual(ignored.code, 0, ignored.stderr)
        XCTAssertEqual(try jsonObject(ignored.stdout)["changes"] as? Int, 1)
        let replaced = try cipherctl(["import", db, "items", "-", "--format", "csv", "--key-env", "K", "--replace"], stdin: csv, environment: keys)
        XCTAssertEqual(replaced.code, 0, replaced.stderr)
        XCTAssertEqual(try sqlcipherOK(db, "PRAGMA key = 'import key'; SELECT name, price FROM items WHERE id IN (1, 1000) ORDER BY id;"), "ok\nreplaced|9.5\nnew|1.0\n")
        let unknown = try cipherctl(["import", db, "items", "-", "--format", "csv", "--key-env", "K"], stdin: "id,nope\n5,x\n", environment: keys)
        XCTAssertEqual(unknown.code, 2, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("no column 'nope'"), unknown.stderr)
        let shared = try cipherctl(["import", db, "items", "--format", "csv", "--key-stdin"], stdin: "import key\nid\n7\n", environment: keys)
        XCTAssertEqual(shared.code, 2, "standard input cannot carry both: \(shared.stderr)")
    }

    // MARK: - Inputs

    /// Text that stresses each format: quotes, separators, line breaks, backslashes, unicode.
    private func text(_ random: inout SeededGenerator) -> String {
        let pieces = ["plain", "a,b", "say \"hi\"", "it's", "line\nbreak", "cr\r\nlf", "tab\there", "back\\slash", "ünïcödé ✓", " spaced ", "\\n", "1e5", "007", "-"]
        let joined = (0..<Int.random(in: 1...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined(separator: " ")
        return "'" + joined.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `rows` good rows in `format` with a defect in row `bad`; the input and the defect's line.
    private func defective(format: String, rows: Int, bad: Int) -> (String, Int) {
        var lines: [String] = format == "csv" ? ["id,name"] : format == "tsv" ? ["id\tname"] : []
        for row in 1...rows {
            let broken = row == bad
            switch format {
            case "csv": lines.append(broken ? (row % 2 == 0 ? "\(row),x,extra" : "\(row),\"open quote") : "\(row),name \(row)")
            case "tsv": lines.append(broken ? "\(row)" : "\(row)\tname \(row)")
            default: lines.append(broken ? (row % 2 == 0 ? "{\"id\": \(row), \"name\": }" : "{\"id\": \(row), \"other\": 1}") : "{\"id\": \(row), \"name\": \"n\(row)\"}")
            }
        }
        let header = format == "csv" || format == "tsv" ? 1 : 0
        // The first object decides the columns: a defect there is in its syntax alone.
        if format.hasPrefix("json"), bad == 1 { lines[0] = "{\"id\": 1, \"name\": }" }
        if format == "json" {
            return ("[\n" + lines.joined(separator: ",\n") + "\n]\n", bad + 1)
        }
        return (lines.joined(separator: "\n") + "\n", bad + header)
    }

    private func checksum(_ db: String, key: String) throws -> String {
        try sqlcipherOK(db, "PRAGMA key = '\(key)'; SELECT count(*), hex(sha3_query('SELECT id, name, amount, ratio FROM t ORDER BY id')) FROM t;")
    }
}
