import Foundation
import XCTest

final class QueryCommandTests: CLITestCase {
    private let key = ["K": "query key 9"]
    private let keySQL = "PRAGMA key = 'query key 9';"

    /// A table with every storage class and awkward text.
    private func makeEdgeDatabase() throws -> String {
        let db = path("edge.db")
        let long = String(repeating: "long text ", count: 2000)
        try sqlcipherOK(db, keySQL + """
            CREATE TABLE t(id INTEGER PRIMARY KEY, i, r, s, b);
            INSERT INTO t(i, r, s, b) VALUES
              (0, 0.1, '', x'DEADBEEF'),
              (-9223372036854775808, 1e20, 'comma, "quote"', x'41'),
              (42, -2.5, 'line1
            line2' || char(13) || char(10) || 'crlf', NULL),
              (NULL, 3.141592653589793, 'tab' || char(9) || 'x', x'7f80'),
              (7, NULL, 'ünïcödé ✓ 日本', x'0102'),
              (8, 1.0, '\(long)', NULL),
              (9, 100.0, NULL, NULL);
            """)
        return db
    }

    /// While a WAL writer commits to two tables in one transaction after another, each read of
    /// both (as several statements, after setting pragmas, with pragmas between) sees one
    /// committed state: the two values are equal every time.
    func testTheStatementsOfOneReadSeeOneCommittedStateWhileAWriterCommits() throws {
        let db = path("busy.db")
        try sqlcipherOK(db, keySQL + "PRAGMA journal_mode = WAL; CREATE TABLE a(v); CREATE TABLE b(v); INSERT INTO a VALUES (0); INSERT INTO b VALUES (0);")
        let script = path("writer.sql")
        let commit = "BEGIN; UPDATE a SET v = v + 1; UPDATE b SET v = v + 1; COMMIT;\n"
        try (keySQL + " PRAGMA synchronous = OFF; PRAGMA busy_timeout = 10000;\n" + String(repeating: commit, count: 200_000))
            .write(toFile: script, atomically: true, encoding: .utf8)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        writer.arguments = ["sqlcipher", "-batch", db]
        writer.standardInput = FileHandle(forReadingAtPath: script)
        writer.standardOutput = FileHandle.nullDevice
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        defer { writer.terminate(); writer.waitUntilExit() }
        // A read that began before the writer's -shm existed takes no lock the writer heeds.
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: db + "-shm"), Date() < deadline { usleep(5_000) }
        let inputs = [["SELECT v FROM a", "SELECT v FROM b"], ["PRAGMA cache_size = 100", "SELECT v FROM a", "PRAGMA table_info(b)", "SELECT v FROM b"],
                      ["SELECT v FROM a", "PRAGMA busy_timeout = 100", "PRAGMA foreign_keys = ON", "SELECT v FROM b"]]
        var moved = Set<String>()
        for round in 0..<24 {
            let input = inputs[round % inputs.count]
            let result = try cipherctl(["query", db, "--key-env", "K", "--format", "jsonl"] + input, environment: key)
            XCTAssertEqual(result.code, 0, "round \(round), \(input): \(result.stderr)")
            let values = result.stdout.split(separator: "\n").filter { $0.hasPrefix("{\"v\":") }
            XCTAssertEqual(values.count, 2, result.stdout)
            XCTAssertEqual(values.first, values.last, "round \(round), \(input): both tables read at one commit")
            moved.insert(String(values.first ?? ""))
        }
        XCTAssertTrue(writer.isRunning, "the writer committed throughout")
        XCTAssertGreaterThan(moved.count, 1, "the writer's commits were seen")
    }

    func testCSVIsByteIdenticalToTheShell() throws {
        let db = try makeEdgeDatabase()
        let query = "SELECT i, r, s, b, typeof(b) FROM t ORDER BY id"
        let ours = try cipherctl(["query", db, query, "--key-env", "K", "--format", "csv"], environment: key)
        XCTAssertEqual(ours.code, 0, ours.stderr)
        let shell = try sqlcipherOK(db, keySQL + "\n.headers on\n.mode csv\n" + query + ";")
        XCTAssertEqual(ours.stdout, String(shell.dropFirst("ok\r\n".count)))
        XCTAssertTrue(ours.stdout.hasPrefix("i,r,s,b,typeof(b)\r\n0,0.1,\"\","), ours.stdout)
    }

    func testJSONFormatsKeepTypesAndParse() throws {
        let db = try makeEdgeDatabase()
        let result = try cipherctl(["query", db, "SELECT i, r, s, b, i AS i FROM t ORDER BY id", "--key-env", "K", "--format", "json"], environment: key)
        XCTAssertEqual(result.code, 0, result.stderr)
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.count, 7)
        XCTAssertEqual(rows[0]["i"] as? Int, 0)
        XCTAssertEqual(rows[0]["r"] as? Double, 0.1)
        XCTAssertEqual(rows[0]["s"] as? String, "")
        let blob = try XCTUnwrap(rows[0]["b"] as? [String: Any], "a blob is an object that says it is one")
        XCTAssertEqual(blob["$base64"] as? Bool, true)
        XCTAssertEqual(blob["encoded"] as? String, "3q2+7w==")
        XCTAssertEqual(rows[0]["i_2"] as? Int, 0)
        XCTAssertEqual(rows[1]["i"] as? Int64, Int64.min)
        XCTAssertEqual(rows[1]["s"] as? String, "comma, \"quote\"")
        XCTAssertEqual(rows[2]["s"] as? String, "line1\nline2\r\ncrlf")
        XCTAssertTrue(rows[2]["b"] is NSNull)
        XCTAssertTrue(rows[3]["i"] is NSNull)
        XCTAssertEqual(rows[3]["r"] as? Double, 3.141592653589793)
        XCTAssertEqual(rows[4]["s"] as? String, "ünïcödé ✓ 日本")
        XCTAssertEqual((rows[5]["s"] as? String)?.count, 20_000)

        let hex = try cipherctl(["query", db, "SELECT b FROM t WHERE id = 1", "--key-env", "K", "--format", "jsonl", "--blob", "hex"], environment: key)
        XCTAssertEqual(hex.stdout, "{\"b\":\"deadbeef\"}\n")
        let lines = try cipherctl(["query", db, "SELECT * FROM t", "--key-env", "K", "--format", "jsonl"], environment: key)
        let objects = lines.stdout.split(separator: "\n")
        XCTAssertEqual(objects.count, 7)
        for line in objects { XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8))) }
        let infinite = try cipherctl(["query", db, "SELECT 1e999 AS x", "--key-env", "K", "--format", "jsonl"], environment: key)
        XCTAssertEqual(infinite.stdout, "{\"x\":null}\n")
    }

    func testTextFormatsShowEveryRow() throws {
        let db = try makeEdgeDatabase()
        func run(_ format: String, _ extra: [String] = []) throws -> String {
            let result = try cipherctl(["query", db, "SELECT id, i, s FROM t WHERE id <= 5 ORDER BY id", "--key-env", "K", "--format", format] + extra, environment: key)
            XCTAssertEqual(result.code, 0, "\(format): \(result.stderr)")
            return result.stdout
        }
        let tsv = try run("tsv", ["--null", "\\N"])
        XCTAssertEqual(tsv.split(separator: "\n", omittingEmptySubsequences: false).count, 7)
        XCTAssertTrue(tsv.contains("3\t42\tline1\\nline2\\r\\ncrlf\n"), tsv)
        XCTAssertTrue(tsv.contains("4\t\\N\ttab\\tx\n"), tsv)
        let table = try run("table", ["--null", "(null)"])
        XCTAssertTrue(table.contains("| id | i                    | s                    |\n"), table)
        XCTAssertTrue(table.contains("|  4 | (null)               | tab\\tx               |\n"), table)
        let markdown = try run("markdown")
        XCTAssertTrue(markdown.hasPrefix("| id | i | s |\n| --- | --- | --- |\n| 1 | 0 |  |\n"), markdown)
        let line = try run("line")
        XCTAssertTrue(line.hasPrefix("id = 1\n i = 0\n s = \n\nid = 2\n"), line)
        let value = try cipherctl(["query", db, "SELECT id FROM t WHERE id <= 5 ORDER BY id", "--key-env", "K", "--format", "value"], environment: key)
        XCTAssertEqual(value.stdout, "1\n2\n3\n4\n5\n", value.stderr)
        XCTAssertFalse(try run("csv", ["--no-header"]).hasPrefix("id"))
    }

    /// As json.md says: the rows so far stay on standard output, the json array unclosed.
    func testAStatementFailingMidStreamLeavesItsRowsAnUnclosedJSONArrayAndExits1() throws {
        let db = path("overflow.db")
        try sqlcipherOK(db, keySQL + """
            CREATE TABLE t(x);
            WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 3000) INSERT INTO t SELECT i FROM s;
            INSERT INTO t VALUES (-9223372036854775808);
            """)
        for format in ["json", "jsonl", "csv"] {
            let result = try cipherctl(["query", db, "SELECT abs(x) AS a FROM t", "--key-env", "K", "--format", format], environment: key)
            XCTAssertEqual(result.code, 1, "\(format): \(result.stderr)")
            XCTAssertEqual(result.stderr, "cipherctl: error: statement 1 (SELECT abs(x) AS a FROM t): integer overflow\n")
            let last = format == "csv" ? "3000" : "{\"a\":3000}"
            XCTAssertTrue(result.stdout.split(whereSeparator: \.isNewline).contains { $0.hasPrefix(last) }, "\(format): the rows before the failure")
            let end = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertFalse(end.hasSuffix("]"), "\(format): no closing bracket")
            if format == "json" {
                XCTAssertTrue(end.hasPrefix("["))
                XCTAssertThrowsError(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)), "an incomplete result must not parse")
            }
        }
    }

    func testWriteRollsBackEverythingWhenALaterStatementFails() throws {
        let db = try makeEdgeDatabase()
        let result = try cipherctl(["query", db, "--write", "--key-env", "K", "UPDATE t SET s = 'changed' WHERE id = 1", "INSERT INTO missing VALUES (1)"], environment: key)
        XCTAssertEqual(result.code, 1)
        XCTAssertTrue(result.stderr.contains("statement 2 (INSERT INTO missing VALUES (1)): no such table: missing"), result.stderr)
        XCTAssertEqual(try sqlcipherOK(db, keySQL + "SELECT s FROM t WHERE id = 1;"), "ok\n\n")

        let applied = try cipherctl(["query", db, "--write", "--key-env", "K", "UPDATE t SET s = 'changed' WHERE id <= 2"], environment: key)
        XCTAssertEqual(applied.code, 0, applied.stderr)
        XCTAssertEqual(applied.stderr, "cipherctl: 2 rows changed by 1 statement\n")
        let json = try cipherctl(["query", db, "--write", "--json", "--format", "json", "--key-env", "K", "DELETE FROM t WHERE id = 7"], environment: key)
        XCTAssertEqual(json.stdout, "{\"results\":[],\"statements\":1,\"changes\":1}\n")
        XCTAssertEqual(try sqlcipherOK(db, keySQL + "SELECT count(*) FROM t WHERE s = 'changed';"), "ok\n2\n")
    }

    func testJSONIsOneDocumentWhateverTheStatementsAndJSONLinesOneObjectALine() throws {
        let db = try makeEdgeDatabase()
        let inputs: [([String], Bool)] = [
            (["SELECT id FROM t"], false), (["SELECT id FROM t", "SELECT s FROM t WHERE 0"], false),
            (["SELECT 1 AS a; SELECT 2 AS b; SELECT 3 AS c"], false), (["PRAGMA table_info(t)", "SELECT count(*) FROM t"], false),
            (["UPDATE t SET s = s"], true), (["INSERT INTO t(id) VALUES (100) RETURNING id", "DELETE FROM t WHERE id = 100 RETURNING id"], true),
            (["VACUUM"], true),
        ]
        for (sql, write) in inputs {
            let result = try cipherctl(["query", db, "--json", "--format", "json", "--key-env", "K"] + (write ? ["--write"] : []) + sql, environment: key)
            XCTAssertEqual(result.code, 0, "\(sql): \(result.stderr)")
            let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
            if write {
                let object = try XCTUnwrap(document as? [String: Any], "\(sql): \(result.stdout)")
                XCTAssertNotNil(object["results"] as? [[Any]], "\(sql)")
                XCTAssertNotNil(object["changes"] as? Int, "\(sql)")
            } else if sql.joined(separator: ";").contains(";") {
                XCTAssertNotNil(document as? [[Any]], "several statements: an array of result sets: \(result.stdout)")
            } else {
                XCTAssertNotNil(document as? [[String: Any]], "one statement: its rows: \(result.stdout)")
            }
            let lines = try cipherctl(["query", db, "--format", "jsonl", "--key-env", "K"] + (write ? ["--write", "--json"] : []) + sql, environment: key)
            for line in lines.stdout.split(separator: "\n") {
                XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(sql): \(line)")
            }
        }
    }

    func testValueIsRawAndTakesNoHeaderWhileCSVEndsLinesWithCRLF() throws {
        let db = try makeEdgeDatabase()
        let value = try cipherctl(["query", db, "SELECT 'a' || char(10) || 'b\\c'", "--format", "value", "--no-header", "--key-env", "K"], environment: key)
        XCTAssertEqual(value.code, 0, value.stderr)
        XCTAssertEqual(value.stdout, "a\nb\\c\n", "raw: not escaped")
        let csv = try cipherctl(["query", db, "SELECT 1 AS x", "--format", "csv", "--key-env", "K"], environment: key)
        XCTAssertEqual(csv.stdout, "x\r\n1\r\n")
        XCTAssertEqual(try cipherctl(["query", db, "SELECT 1", "--format", "json", "--no-header", "--key-env", "K"], environment: key).code, 2)
    }

    /// The value format prints one column: a result set of more is refused before it runs
    /// (exit 2, with a hint), rolled back under --write, where it dropped every column but the first.
    func testValueRefusesAResultSetOfSeveralColumnsInsteadOfDroppingThem() throws {
        let db = try makeEdgeDatabase()
        let several = try cipherctl(["query", db, "SELECT i FROM t LIMIT 1", "SELECT i, r FROM t", "--key-env", "K", "--format", "value"], environment: key)
        XCTAssertEqual(several.code, 2, several.stderr)
        XCTAssertTrue(several.stderr.hasPrefix("cipherctl: error: statement 2 (SELECT i, r FROM t) returns 2 columns, and the format prints one\n"), several.stderr)
        XCTAssertTrue(several.stderr.contains("hint: "), several.stderr)
        let write = try cipherctl(["query", db, "--write", "DELETE FROM t", "SELECT 1, 2", "--key-env", "K", "--format", "value"], environment: key)
        XCTAssertEqual(write.code, 2, write.stderr)
        XCTAssertEqual(try sqlcipherOK(db, keySQL + "SELECT count(*) FROM t;").split(separator: "\n").last, "7", "rolled back")
        let one = try cipherctl(["query", db, "--table", "t", "--columns", "s", "--format", "value", "--limit", "1", "--key-env", "K"], environment: key)
        XCTAssertEqual(one.code, 0, one.stderr)
        XCTAssertEqual(one.stdout, "\n", "the first row's empty text")
    }

    func testReadOnlyByDefaultSaysToAddWrite() throws {
        let db = try makeEdgeDatabase()
        let before = try fingerprint(db)
        let result = try cipherctl(["query", db, "DELETE FROM t", "--key-env", "K"], environment: key)
        XCTAssertEqual(result.code, 2)
        XCTAssertTrue(result.stderr.contains("statement 1 (DELETE FROM t) changes the database"), result.stderr)
        XCTAssertTrue(result.stderr.contains("add --write"), result.stderr)
        XCTAssertEqual(try fingerprint(db).0, before.0)
    }

    func testParametersOfEveryTypeAreBoundAndMisuseIsExit2() throws {
        let db = try makeEdgeDatabase()
        let result = try cipherctl([
            "query", db, "--key-env", "K", "--format", "csv",
            "SELECT typeof(:a), :a, typeof(@b), @b, typeof($c), $c, typeof(:n)", "SELECT typeof(?1), ?1, typeof(?2), ?2, typeof(?3), hex(?3)",
            "--param", "a=42", "--param", "b=text:007", "--param", "c=1.5",
            "--arg", "int:8", "--arg", "real:2", "--arg", "blob:CAFE", "--param", "n=null",
        ], environment: key)
        XCTAssertEqual(result.code, 0, result.stderr)
        let lines = result.stdout.split(separator: "\r\n")
        XCTAssertEqual(lines.count, 4, result.stdout)
        XCTAssertEqual(lines[1], "integer,42,text,007,real,1.5,null")
        XCTAssertEqual(lines[3], "integer,8,real,2.0,blob,CAFE")
        let noInjection = try cipherctl(["query", db, "--key-env", "K", "--format", "value", "SELECT count(*) FROM t WHERE s = :s", "--param", "s=x' OR '1'='1"], environment: key)
        XCTAssertEqual(noInjection.stdout, "0\n")

        let cases: [([String], String)] = [
            (["SELECT :missing"], "no value for placeholder :missing"),
            (["SELECT 1", "--param", "x=1"], "no statement uses the parameter 'x'"),
            (["SELECT ?", "--arg", "1", "--arg", "2"], "2 positional values given"),
            (["SELECT ?", "--arg", "int:x"], "invalid value"),
            (["SELECT 1", "--format", "yaml"], "--format must be one of"),
            (["SELECT 1", "--format", "json", "--no-header"], "--no-header applies"),
            (["SELECT 1", "--format", "json", "--blob", "raw"], "JSON cannot hold raw bytes"),
            (["--table", "t", "SELECT 1"], "--table reads a table without SQL"),
            (["--where", "1"], "--where goes with --table"),
            ([], "no SQL given"),
        ]
        for (arguments, message) in cases {
            let failed = try cipherctl(["query", db, "--key-env", "K"] + arguments, environment: key)
            XCTAssertEqual(failed.code, 2, "\(arguments): \(failed.stderr)")
            XCTAssertTrue(failed.stderr.contains(message), "\(arguments): \(failed.stderr)")
        }
    }

    func testErrorsNameTheStatementTableOrColumnAndKey() throws {
        let db = try makeEdgeDatabase()
        let syntax = try cipherctl(["query", db, "--key-env", "K", "SELECT 1; SELEC * FROM t"], environment: key)
        XCTAssertEqual(syntax.code, 1)
        XCTAssertTrue(syntax.stderr.contains("statement 2 (SELEC * FROM t): near \"SELEC\": syntax error"), syntax.stderr)
        XCTAssertEqual(syntax.stdout, "1\r\n1\r\n", "the first statement's result is still printed")
        let table = try cipherctl(["query", db, "--key-env", "K", "SELECT * FROM nowhere"], environment: key)
        XCTAssertTrue(table.stderr.contains("no such table: nowhere"), table.stderr)
        let column = try cipherctl(["query", db, "--key-env", "K", "--table", "t", "--columns", "id,ghost"], environment: key)
        XCTAssertEqual(column.code, 1)
        XCTAssertTrue(column.stderr.contains("no such column: \"ghost\""), column.stderr)
        let wrongKey = try cipherctl(["query", db, "--key-env", "K", "SELECT 1"], environment: ["K": "wrong"])
        XCTAssertEqual(wrongKey.code, 3)
    }

    func testTableReadsQuoteHostileNamesAndTakeOptions() throws {
        let db = path("hostile.db")
        try sqlcipherOK(db, keySQL + """
            CREATE TABLE "we""ird; DROP TABLE x" ("na""me" TEXT, "order" INTEGER);
            INSERT INTO "we""ird; DROP TABLE x" VALUES ('a', 1), ('b', 2), ('c', 3), ('d', 4);
            CREATE TABLE x(y);
            """)
        let result = try cipherctl([
            "query", db, "--key-env", "K", "--format", "csv", "--table", "we\"ird; DROP TABLE x", "--columns", "order,na\"me",
            "--where", "\"order\" >= :min AND \"order\" < ?", "--param", "min=2", "--arg", "4", "--order", "order desc", "--limit", "5", "--offset", "0",
        ], environment: key)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(result.stdout, "order,\"na\"\"me\"\r\n3,c\r\n2,b\r\n")
        XCTAssertEqual(try sqlcipherOK(db, keySQL + "SELECT count(*) FROM sqlite_master WHERE name = 'x';"), "ok\n1\n")
    }

    func testSQLFromFileAndStandardInput() throws {
        let db = try makeEdgeDatabase()
        let file = try writeFile("q.sql", "-- counts\nSELECT count(*) FROM t;\n/* again */ SELECT count(*) FROM t WHERE i IS NULL;\n")
        let fromFile = try cipherctl(["query", db, "--file", file, "--key-env", "K", "--format", "value"], environment: key)
        XCTAssertEqual(fromFile.stdout, "7\n1\n")
        let fromStdin = try cipherctl(["query", db, "-", "--key-env", "K", "--format", "value"], stdin: "SELECT 40 + 2", environment: key)
        XCTAssertEqual(fromStdin.stdout, "42\n")
    }

    func testBrokenPipeEndsQuietlyWithExit0() throws {
        let db = try makeEdgeDatabase()
        let result = try run("/bin/bash", ["-c", """
            "$CIPHERCTL" query "$DB" --key-env K --format csv \
              "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000) SELECT i, 'row ' || i FROM n" | head -n 2
            echo "status=${PIPESTATUS[0]}"
            """], stdin: nil, environment: key.merging(["CIPHERCTL": Self.binary, "DB": db]) { $1 })
        XCTAssertEqual(result.stdout, "i,\"'row ' || i\"\r\n1,\"row 1\"\r\nstatus=0\n")
        XCTAssertEqual(result.stderr, "")
    }

    func testKeyAndCipherPragmasAreRefusedBeforeAnythingRunsAndNoMessageShowsAKey() throws {
        let db = try makeEdgeDatabase()
        let before = try fingerprint(db)
        let secret = "Hunter2-never-shown", hex = String(repeating: "5eC7", count: 16)
        let refused = [
            "PRAGMA rekey = '\(secret)'", "pragma main.REKEY='\(secret)'", "PRAGMA key = '\(secret)'", "PRAGMA textrekey = '\(secret)'",
            "PRAGMA hexrekey = '\(hex)'", "PRAGMA \"main\".hexkey('\(hex)')", "EXPLAIN PRAGMA rekey = '\(secret)'", "explain query plan pragma key = '\(secret)'",
            "PRAGMA cipher_page_size = 1024", "PRAGMA kdf_iter = 1000", "PRAGMA cipher_salt = \"x'\(hex.prefix(32))'\"",
            "PRAGMA cipher_plaintext_header_size = 32", "PRAGMA cipher_hmac_algorithm = HMAC_SHA1", "PRAGMA cipher_use_hmac = OFF",
            "PRAGMA cipher_compatibility(3)", "PRAGMA cipher_migrate",
        ]
        for sql in refused {
            for write in [false, true] {
                let result = try cipherctl(["query", db, "--key-env", "K", "SELECT 1", sql] + (write ? ["--write"] : []), environment: key)
                let label = "\(sql)\(write ? " --write" : ""): \(result.stderr)"
                XCTAssertEqual(result.code, 2, label)
                XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: statement 2 is PRAGMA "), label)
                XCTAssertTrue(result.stderr.contains("cipherctl rekey"), "the hint names the command that changes keys: \(label)")
                XCTAssertEqual(result.stdout, "", "nothing ran, not even the statement before it: \(label)")
                XCTAssertFalse(result.allOutput.contains(secret) || result.allOutput.lowercased().contains(hex.lowercased()), label)
            }
        }
        XCTAssertEqual(try fingerprint(db).0, before.0)
        XCTAssertEqual(try fingerprint(db).1, before.1)
        for sql in ["PRAGMA cipher_version", "PRAGMA cipher_settings", "PRAGMA cipher_page_size", "PRAGMA cipher_integrity_check"] {
            XCTAssertEqual(try cipherctl(["query", db, "--key-env", "K", sql], environment: key).code, 0, "\(sql) only reads")
        }
        for sql in ["ATTACH '\(path("other.db"))' AS o KEY '\(secret)' \(secret)", "ATTACH '\(path("nowhere/other.db"))' AS o KEY '\(secret)'"] {
            let attach = try cipherctl(["query", db, "--write", "--key-env", "K", sql], environment: key)
            XCTAssertNotEqual(attach.code, 0, attach.stderr)
            XCTAssertFalse(attach.allOutput.contains(secret), "an ATTACH's key is never shown: \(attach.stderr)")
        }
    }

    func testPlaintextDatabaseNeedsNoKey() throws {
        let db = path("plain.db")
        try sqlcipherOK(db, "CREATE TABLE t(x); INSERT INTO t VALUES ('hello');")
        let result = try cipherctl(["query", db, "SELECT x FROM t", "--format", "value"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(result.stdout, "hello\n")
    }

    func testSQLFromAPipeGivenAsTheFileIsRead() throws {
        let db = try makeShellDatabase("p.db", key: "query key 9", rows: 3)
        // A named pipe, as bash's <(…) gives: the file cannot be mapped or sized, only read.
        let result = try sh("mkfifo \"$DIR/sql\" && (echo 'SELECT 40 + 2 AS answer;' > \"$DIR/sql\" &) && \"$CIPHERCTL\" query \"$DB\" --key-env K --file \"$DIR/sql\"",
                            environment: ["DIR": path(""), "DB": db, "K": "query key 9"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(result.stdout, "answer\r\n42\r\n")
    }
}
