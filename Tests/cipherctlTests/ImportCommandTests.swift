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

    func testNumbersBecomeNumbersOnlyWhenWrittenAsSQLiteWritesThem() throws {
        let db = try emptyDatabase()
        let csv = "int,real,zip,exp,spaced,plus,mixed,trailing\n-12,10.5,007,1e5, 12 ,+1,1,2.50\n0,1.0e+20,12,1.5,13,2,2.5,3.0\n,,,,,,,\n"
        let result = try importing(csv, into: db, table: "t", format: "csv")
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try shell(db, "SELECT group_concat(name || ':' || type, ' ') FROM pragma_table_info('t');"),
                       "int:INTEGER real:REAL zip: exp: spaced: plus: mixed: trailing:\n", "a column holding any other form keeps its text")
        XCTAssertEqual(try shell(db, "SELECT typeof(int), int, typeof(real), real, quote(zip), quote(exp), quote(spaced), quote(plus), quote(mixed), quote(trailing) FROM t WHERE rowid = 1;"),
                       "integer|-12|real|10.5|'007'|'1e5'|' 12 '|'+1'|'1'|'2.50'\n")
        XCTAssertEqual(try shell(db, "SELECT quote(int), quote(real) FROM t WHERE rowid = 3;"), "''|''\n", "an empty field is the empty string")
    }

    func testALaterValueThatDoesNotFitItsColumnIsRefusedNamingItsLine() throws {
        let db = try emptyDatabase()
        let (generator, seed) = SeededGenerator.forSweep("import late value", variable: "CIPHERCTL_IMPORT_SEED")
        var random = generator
        for trial in 0..<sweepCases("CIPHERCTL_IMPORT_CASES", quick: 8) {
            let batch = Int.random(in: 1...40, using: &random), count = batch + Int.random(in: 1...300, using: &random)
            let bad = Int.random(in: (batch + 1)...count, using: &random)
            let json = trial % 2 == 0
            let misfit = json ? ["\"7\"", "7.5", "-0.0", "{\"$base64\": true, \"encoded\": \"AA==\"}"].randomElement(using: &random)!
                : ["007", "7.0", "1e3", " 7"].randomElement(using: &random)!
            var lines = json ? [] : ["n"]
            for row in 1...count { lines.append(json ? "{\"n\": \(row == bad ? misfit : String(row))}" : row == bad ? misfit : String(row)) }
            let result = try importing(lines.joined(separator: "\n") + "\n", into: db, table: "t\(trial)", format: json ? "jsonl" : "csv",
                                       extra: ["--batch-size", String(batch)])
            let label = "seed \(seed) trial \(trial): \(misfit) on row \(bad) of \(count), batch \(batch)"
            XCTAssertEqual(result.code, 2, "\(label): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("line \(bad + (json ? 0 : 1)) of the input: column 'n' was made INTEGER"), "\(label): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--batch-size"), "the hint says how to let it in: \(result.stderr)")
        }
        XCTAssertEqual(try shell(db, "SELECT count(*) FROM sqlite_master;"), "0\n", "no table was left")
    }

    func testAByteOrderMarkIsSkippedWhereverTheInputIsCut() throws {
        let db = try emptyDatabase()
        for (format, body) in [("csv", "id,name\n1,a\n"), ("tsv", "id\tname\n1\ta\n"), ("jsonl", "{\"id\": 1, \"name\": \"a\"}\n"), ("json", "[{\"id\": 1, \"name\": \"a\"}]")] {
            // A pipe may hand the mark over a byte at a time: the shell writes it in pieces.
            let script = "{ printf '\\357'; sleep 0.05; printf '\\273'; sleep 0.05; printf '\\277%s' \"$BODY\"; } | \"$CIPHERCTL\" import \"$DB\" t_\(format) - --format \(format) --key-env K"
            let result = try sh(script, environment: keys.merging(["BODY": body, "DB": db]) { $1 })
            XCTAssertEqual(result.code, 0, "\(format): \(result.stderr)")
            XCTAssertEqual(try shell(db, "SELECT group_concat(hex(name), ' ') FROM pragma_table_info('t_\(format)');"), "6964 6E616D65\n", format)
        }
    }

    func testTextAfterAQuotedFieldAnArrayOrAnObjectIsRefusedNamingItsLine() throws {
        let db = try emptyDatabase()
        let cases: [(String, String, Int, String)] = [
            ("csv", "a,b\n1,x\n2,\"x\"y\n", 3, "text after the closing quote"),
            ("csv", "a,b\n1,\"multi\nline\" \n", 3, "text after the closing quote"),
            ("json", "[\n{\"a\": 1},\n{\"a\": 2}\n]\n\ngarbage\n", 6, "text after the end of the JSON array"),
            ("json", "[{\"a\": 1}]]", 1, "text after the end of the JSON array"),
            ("json", "[{\"a\": 1}, {\"a\": 007}]", 1, "leading zero"),
            ("jsonl", "{\"a\": 1}\n{\"a\": 2} {\"a\": 3}\n", 2, "text after the object"),
            ("jsonl", "{\"a\": 1}\n{\"a\": \"tab\there\"}\n", 2, "raw control character"),
            ("jsonl", "{\"a\": 1, \"a\": 2}\n", 1, "appears twice"),
            ("jsonl", "{\"a\": 1, \"A\": 2}\n", 1, "name the same column"),
            ("jsonl", "{\"a\": {\"$base64\": true, \"encoded\": \"%%%\"}}\n", 1, "base64"),
        ]
        for (format, input, line, reason) in cases {
            let result = try importing(input, into: db, table: "t", format: format)
            XCTAssertEqual(result.code, 2, "\(input): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("line \(line) of the input: ") && result.stderr.contains(reason), "\(input): \(result.stderr)")
        }
        XCTAssertEqual(try shell(db, "SELECT count(*) FROM sqlite_master;"), "0\n")
    }

    func testColumnsComeFromEveryObjectOfTheFirstBatchAndOthersNeedAlter() throws {
        let db = try emptyDatabase()
        let first = try importing("{\"id\": 1}\n{\"id\": 2, \"name\": \"b\"}\n{\"id\": 3, \"ZIP\": \"007\"}\n", into: db, table: "t", format: "jsonl", extra: ["--json"])
        XCTAssertEqual(first.code, 0, first.stderr)
        XCTAssertEqual(try jsonObject(first.stdout)["columns"] as? [String], ["id", "name", "ZIP"], "in the order each key first appears")
        let late = try importing("{\"id\": 4}\n{\"id\": 5, \"zip\": \"x\"}\n{\"id\": 6, \"extra\": 1.5}\n", into: db, table: "t", format: "jsonl",
                                 extra: ["--batch-size", "1"])
        XCTAssertEqual(late.code, 2, "a key the table lacks: \(late.stderr)")
        XCTAssertTrue(late.stderr.contains("line 3 of the input: the table has no column 'extra'"), late.stderr)
        XCTAssertTrue(late.stderr.contains("--alter"), late.stderr)
        XCTAssertEqual(try shell(db, "SELECT count(*) FROM t;"), "3\n", "nothing of it was written")
        let altered = try importing("{\"id\": 4}\n{\"id\": 5, \"zip\": \"x\"}\n{\"id\": 6, \"extra\": 1.5}\n", into: db, table: "t", format: "jsonl",
                                    extra: ["--batch-size", "1", "--alter"])
        XCTAssertEqual(altered.code, 0, altered.stderr)
        XCTAssertEqual(try shell(db, "SELECT id, quote(name), quote(ZIP), quote(extra), typeof(extra) FROM t ORDER BY id;"),
                       "1|NULL|NULL|NULL|null\n2|'b'|NULL|NULL|null\n3|NULL|'007'|NULL|null\n4|NULL|NULL|NULL|null\n5|NULL|'x'|NULL|null\n6|NULL|NULL|1.5|real\n")
        let header = try importing("id,other\n7,x\n", into: db, table: "t", format: "csv")
        XCTAssertTrue(header.code == 2 && header.stderr.contains("line 1 of the input: the table has no column 'other'"), header.stderr)
        XCTAssertEqual(try importing("id,other\n7,x\n", into: db, table: "t", format: "csv", extra: ["--alter"]).code, 0)
        XCTAssertEqual(try importing("", into: db, table: "t", format: "jsonl").code, 0, "an empty input adds no row to a table")
        XCTAssertEqual(try importing("", into: db, table: "new", format: "csv").code, 2, "but makes no table")
    }

    func testAKeyConflictNamesTheLineOfTheConflictingRow() throws {
        let (generator, seed) = SeededGenerator.forSweep("import conflict", variable: "CIPHERCTL_IMPORT_SEED")
        var random = generator
        let db = try emptyDatabase()
        XCTAssertEqual(try importing("id,v\n5000,taken\n", into: db, table: "t", format: "csv", extra: ["--pk", "id"]).code, 0)
        let pristine = try contentChecksum(db, keySQL: "PRAGMA key = 'import key';")
        for trial in 0..<sweepCases("CIPHERCTL_IMPORT_CASES", quick: 8) {
            let count = Int.random(in: 2...700, using: &random)
            let bad = Int.random(in: 2...count, using: &random)
            // Against a row already there, or against an earlier row of the same input.
            let key = trial % 2 == 0 ? 5000 : Int.random(in: 1..<bad, using: &random)
            let json = trial % 4 >= 2
            var lines = json ? ["["] : ["id,v"]
            for row in 1...count {
                let id = row == bad ? key : row
                lines.append(json ? "{\"id\": \(id),\n \"v\": \"row \(row)\"}" + (row < count ? "," : "") : "\(id),\"row\n\(row)\"")
            }
            if json { lines.append("]") }
            let result = try importing(lines.joined(separator: "\n") + "\n", into: db, table: "t", format: json ? "json" : "csv",
                                       extra: ["--batch-size", String(Int.random(in: 1...300, using: &random))])
            // Each row takes two lines; its first is the one named.
            let line = 2 * bad
            let label = "seed \(seed) trial \(trial): row \(bad) of \(count) takes key \(key)"
            XCTAssertEqual(result.code, 2, "\(label): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("line \(line) of the input: UNIQUE constraint failed: t.id"), "\(label): \(result.stderr)")
        }
        XCTAssertEqual(try contentChecksum(db, keySQL: "PRAGMA key = 'import key';"), pristine, "nothing was imported")
    }

    // MARK: - Inputs

    private func emptyDatabase() throws -> String {
        let db = path("empty-\(UUID().uuidString.prefix(8)).db")
        XCTAssertEqual(try cipherctl(["open", db, "--create", "--key-env", "K"], environment: keys).code, 0)
        return db
    }

    private func importing(_ input: String, into db: String, table: String, format: String, extra: [String] = []) throws -> CommandResult {
        try cipherctl(["import", db, table, "-", "--format", format, "--key-env", "K"] + extra, stdin: input, environment: keys)
    }

    private func shell(_ db: String, _ sql: String) throws -> String {
        String(try sqlcipherOK(db, "PRAGMA key = 'import key';\n" + sql).dropFirst("ok\n".count))
    }

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
            default: lines.append(broken ? (row % 2 == 0 ? "{\"id\": \(row), \"name\": }" : "{\"id\": \(row), \"name\": 'n'}") : "{\"id\": \(row), \"name\": \"n\(row)\"}")
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
