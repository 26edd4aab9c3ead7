import Foundation
import TestSupport
import XCTest

/// `cipherctl dump`: SQL text that rebuilds the same content, in the sqlcipher shell and in
/// `cipherctl query --write`, over a seeded sweep of awkward values and every kind of table.
final class DumpCommandTests: CLITestCase {
    private let keys = ["K": "dump key", "K2": "restore key"]

    func testDumpThenRestoreRebuildsTheSameRowsSchemaAndHeaderForASweepOfAwkwardValues() throws {
        let (generator, seed) = SeededGenerator.forSweep("dump sweep", variable: "CIPHERCTL_DUMP_SEED")
        var random = generator
        let source = path("source.db")
        try sqlcipherOK(source, "PRAGMA key = 'dump key';\n" + schemaSQL + (0..<sweepCases("CIPHERCTL_DUMP_CASES", quick: 300)).map { _ in insert(&random) }.joined(separator: "\n") + """

            DELETE FROM plain WHERE rowid % 7 = 3;
            INSERT INTO fts SELECT v FROM plain WHERE typeof(v) = 'text';
            PRAGMA user_version = 314; PRAGMA application_id = 2718;
            """)
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let dump = try cipherctl(["dump", source, "--key-env", "K"], environment: keys)
        XCTAssertEqual(dump.code, 0, "seed \(seed): \(dump.stderr)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), before, "nothing new beside the database")
        let sql = path("dump.sql")
        try Data(dump.stdout.utf8).write(to: URL(fileURLWithPath: sql))

        let byShell = path("shell.db")
        let shell = try run("/usr/bin/env", ["sqlcipher", "-batch", "-bail", byShell], stdin: "PRAGMA key = 'restore key';\n" + dump.stdout, environment: [:])
        XCTAssertEqual(shell.code, 0, "seed \(seed): \(shell.stderr)")
        let byQuery = path("query.db")
        XCTAssertEqual(try cipherctl(["open", byQuery, "--create", "--key-env", "K2"], environment: keys).code, 0)
        let load = try cipherctl(["query", byQuery, "--write", "--file", sql, "--key-env", "K2"], environment: keys)
        XCTAssertEqual(load.code, 0, "seed \(seed): \(load.stderr)")

        let original = try content(source, key: "dump key")
        XCTAssertEqual(try content(byShell, key: "restore key"), original, "seed \(seed): the shell's rebuild")
        XCTAssertEqual(try content(byQuery, key: "restore key", withAutoVacuum: false), try content(source, key: "dump key", withAutoVacuum: false),
                       "seed \(seed): query's rebuild")
    }

    func testATableAloneAndAMissingTable() throws {
        let db = try makeShellDatabase("a.db", key: "dump key", rows: 20)
        let one = try cipherctl(["dump", db, "--key-env", "K", "--table", "odd \"name"], environment: keys)
        XCTAssertEqual(one.code, 0, one.stderr)
        XCTAssertTrue(one.stdout.contains("CREATE TABLE [odd \"name](x);"), one.stdout)
        XCTAssertFalse(one.stdout.contains("items"), "only the table asked for")
        let missing = try cipherctl(["dump", db, "--key-env", "K", "--table", "nope", "--json"], environment: keys)
        XCTAssertEqual(missing.code, 2, missing.stderr)
        XCTAssertEqual(missing.stdout, "")
        let wrong = try cipherctl(["dump", db, "--key-env", "K2"], environment: keys)
        XCTAssertEqual(wrong.code, 3, wrong.stderr)
        XCTAssertEqual(wrong.stdout, "")
    }

    func testDumpOfColumnsNamedRowidOidAndRowidRestoresTheirValuesAndKeepsTheRowid() throws {
        let source = path("source.db")
        try sqlcipherOK(source, """
            PRAGMA key = 'dump key';
            CREATE TABLE r(rowid TEXT, x);
            CREATE TABLE s(ROWID, Oid, x);
            CREATE TABLE d(x INTEGER PRIMARY KEY DESC, y);
            CREATE TABLE all3(rowid, oid, _ROWID_);
            INSERT INTO r(oid, rowid, x) VALUES (5, 'a', 1), (9, 'b', 2);
            INSERT INTO s(_rowid_, rowid, oid, x) VALUES (4, 'c', 'd', 3), (8, 'e', 'f', 4);
            INSERT INTO d(rowid, x, y) VALUES (3, 10, 'p'), (7, 20, 'q');
            INSERT INTO all3 VALUES (1, 2, 3), (4, 5, 6);
            """)
        let dump = try cipherctl(["dump", source, "--key-env", "K"], environment: keys)
        XCTAssertEqual(dump.code, 0, dump.stderr)
        XCTAssertTrue(dump.stdout.contains(#"INSERT INTO "r"(oid,"rowid","x") VALUES(5,'a',1);"#), dump.stdout)
        XCTAssertTrue(dump.stdout.contains(#"INSERT INTO "s"(_rowid_,"ROWID","Oid","x") VALUES(4,'c','d',3);"#), dump.stdout)
        XCTAssertTrue(dump.stdout.contains(#"INSERT INTO "d"(rowid,"x","y") VALUES(3,10,'p');"#), "a DESC key is not the rowid")
        XCTAssertTrue(dump.stdout.contains(#"INSERT INTO "all3"("rowid","oid","_ROWID_") VALUES(1,2,3);"#), "no alias left: no rowid")
        let rows = """
            SELECT oid, * FROM r ORDER BY oid; SELECT _rowid_, * FROM s ORDER BY 1; SELECT rowid, * FROM d ORDER BY 1;
            SELECT * FROM all3 ORDER BY 1;
            """
        let expected = try sqlcipherOK(source, "PRAGMA key = 'dump key';\n" + rows)
        XCTAssertEqual(expected, "ok\n5|a|1\n9|b|2\n4|c|d|3\n8|e|f|4\n3|10|p\n7|20|q\n1|2|3\n4|5|6\n")
        for restored in try restoreBothWays(dump.stdout) {
            XCTAssertEqual(try sqlcipherOK(restored, "PRAGMA key = 'restore key';\n" + rows), expected, restored)
        }
    }

    func testTextWithCRLFNulControlCharactersAndInvalidUTF8ComesBackByteForByte() throws {
        let source = path("source.db")
        let controls = (1...31).map(String.init).joined(separator: ",") + ",127"
        try sqlcipherOK(source, """
            PRAGMA key = 'dump key';
            CREATE TABLE t(v TEXT, w);
            INSERT INTO t VALUES ('a' || char(13, 10) || 'b', char(13, 10)), (char(13), char(10, 13, 13, 10)),
              ('x\\ry' || char(13, 10), 'it''s' || char(13)), (char(\(controls)), 'nul' || char(0) || char(13, 10)),
              (CAST(X'FF0D0AC3' AS TEXT), CAST(X'0D0A00FE' AS TEXT)), ('\\r' || char(13), '');
            """)
        let dump = try cipherctl(["dump", source, "--key-env", "K"], environment: keys)
        XCTAssertEqual(dump.code, 0, dump.stderr)
        XCTAssertFalse(dump.stdout.utf8.contains(13), "no CR is written raw")
        XCTAssertTrue(dump.stdout.contains(#"replace('a\r"#), dump.stdout)
        let bytes = "SELECT rowid, typeof(v), hex(CAST(v AS BLOB)), typeof(w), hex(CAST(w AS BLOB)) FROM t ORDER BY rowid;"
        let expected = try sqlcipherOK(source, "PRAGMA key = 'dump key';\n" + bytes)
        XCTAssertTrue(expected.contains("|text|610D0A62|text|0D0A\n"), expected)
        for restored in try restoreBothWays(dump.stdout) {
            XCTAssertEqual(try sqlcipherOK(restored, "PRAGMA key = 'restore key';\n" + bytes), expected, restored)
        }
    }

    func testNegativeZeroComesBackWithItsSign() throws {
        let source = path("source.db")
        try sqlcipherOK(source, """
            PRAGMA key = 'dump key';
            CREATE TABLE z(a, b REAL, c);
            INSERT INTO z VALUES (-0.0, -0.0, 0.0), (0.0, 1.5, -1e-400);
            """)
        let dump = try cipherctl(["dump", source, "--key-env", "K"], environment: keys)
        XCTAssertEqual(dump.code, 0, dump.stderr)
        XCTAssertTrue(dump.stdout.contains(#"VALUES(1,-0.0,0.0,0.0);"#), "a REAL column keeps no negative zero: \(dump.stdout)")
        let bits = "SELECT hex(ieee754_to_blob(a)), hex(ieee754_to_blob(b)), hex(ieee754_to_blob(c)) FROM z ORDER BY rowid;"
        let expected = try sqlcipherOK(source, "PRAGMA key = 'dump key';\n" + bits)
        XCTAssertEqual(expected, "ok\n8000000000000000|0000000000000000|0000000000000000\n0000000000000000|3FF8000000000000|8000000000000000\n")
        for restored in try restoreBothWays(dump.stdout) {
            XCTAssertEqual(try sqlcipherOK(restored, "PRAGMA key = 'restore key';\n" + bits), expected, restored)
        }
    }

    func testDumpOfOneAutoincrementTableCarriesItsSequenceAndFindsItsNameInAnyCase() throws {
        let source = path("source.db")
        try sqlcipherOK(source, """
            PRAGMA key = 'dump key';
            CREATE TABLE other(id INTEGER PRIMARY KEY AUTOINCREMENT, v);
            INSERT INTO other(v) VALUES (1), (2), (3);
            CREATE TABLE t1(id INTEGER PRIMARY KEY AUTOINCREMENT, v);
            INSERT INTO t1(v) VALUES ('a'), ('b'), ('c'), ('d');
            DELETE FROM t1 WHERE id > 2;
            CREATE TRIGGER t1_log AFTER UPDATE ON T1 BEGIN SELECT 1; END;
            CREATE INDEX t1_v ON "T1"(v);
            CREATE TABLE kv(x);
            """)
        let dump = try cipherctl(["dump", source, "--key-env", "K", "--table", "T1"], environment: keys)
        XCTAssertEqual(dump.code, 0, dump.stderr)
        XCTAssertTrue(dump.stdout.contains("INSERT INTO sqlite_sequence(name,seq) VALUES('t1',4);"), dump.stdout)
        XCTAssertTrue(dump.stdout.contains("CREATE TRIGGER t1_log"), "a trigger that spells its table T1")
        XCTAssertTrue(dump.stdout.contains("CREATE INDEX t1_v"))
        XCTAssertFalse(dump.stdout.contains("other"), "only the table asked for")
        for restored in try restoreBothWays(dump.stdout) {
            XCTAssertEqual(try sqlcipherOK(restored, """
                PRAGMA key = 'restore key';
                SELECT name, seq FROM sqlite_sequence; INSERT INTO t1(v) VALUES ('e'); SELECT max(id) FROM t1;
                """), "ok\nt1|4\n5\n", restored)
        }
        // The Kelvin sign lowercases to k in Unicode, but SQLite folds only ASCII letters.
        let unknown = try cipherctl(["dump", source, "--key-env", "K", "--table", "\u{212A}V"], environment: keys)
        XCTAssertEqual(unknown.code, 2, "only ASCII letters match in any case: \(unknown.stderr)")
    }

    func testASequenceThatOutlivedItsAutoincrementTablesIsRestored() throws {
        let source = path("source.db")
        try sqlcipherOK(source, """
            PRAGMA key = 'dump key';
            CREATE TABLE gone(id INTEGER PRIMARY KEY AUTOINCREMENT, v);
            INSERT INTO gone(v) VALUES (1);
            DROP TABLE gone;
            CREATE TABLE "AUTOINCREMENT"(v DEFAULT 'INTEGER PRIMARY KEY AUTOINCREMENT');
            INSERT INTO "AUTOINCREMENT" DEFAULT VALUES;
            """)
        let dump = try cipherctl(["dump", source, "--key-env", "K"], environment: keys)
        XCTAssertEqual(dump.code, 0, dump.stderr)
        let schema = "SELECT type, name, sql FROM sqlite_schema ORDER BY name; SELECT count(*) FROM sqlite_sequence;"
        let expected = try sqlcipherOK(source, "PRAGMA key = 'dump key';\n" + schema)
        XCTAssertTrue(expected.contains("table|sqlite_sequence|CREATE TABLE sqlite_sequence(name,seq)"), expected)
        for restored in try restoreBothWays(dump.stdout) {
            XCTAssertEqual(try sqlcipherOK(restored, "PRAGMA key = 'restore key';\n" + schema), expected, restored)
        }
    }

    func testOnATerminalTheDumpIsWarnedAboutAsPlaintext() throws {
        let db = try makeShellDatabase("a.db", key: "dump key", rows: 3)
        let (code, screen) = try cipherctlOnTerminal(["dump", db, "--key-env", "K"], answers: [], environment: keys)
        XCTAssertEqual(code, 0, screen)
        XCTAssertTrue(screen.contains("warning: the dump is plaintext"), screen)
    }

    /// The dump loaded into a new database by the sqlcipher shell and by `cipherctl query
    /// --write` (into a file made with `open --create`), both keyed 'restore key'.
    private func restoreBothWays(_ dump: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let byShell = path("shell-\(UUID().uuidString).db")
        let shell = try run("/usr/bin/env", ["sqlcipher", "-batch", "-bail", byShell], stdin: "PRAGMA key = 'restore key';\n" + dump, environment: [:])
        XCTAssertEqual(shell.code, 0, shell.stderr, file: file, line: line)
        let byQuery = path("query-\(UUID().uuidString).db")
        XCTAssertEqual(try cipherctl(["open", byQuery, "--create", "--key-env", "K2"], environment: keys).code, 0, file: file, line: line)
        let load = try cipherctl(["query", byQuery, "--write", "-", "--key-env", "K2"], stdin: dump, environment: keys)
        XCTAssertEqual(load.code, 0, load.stderr, file: file, line: line)
        return [byShell, byQuery]
    }

    // MARK: - The sweep's database

    private let schemaSQL = """
        PRAGMA auto_vacuum = FULL;
        CREATE TABLE plain(v);
        CREATE TABLE keyed(id INTEGER PRIMARY KEY, v, w TEXT);
        CREATE TABLE counted(id INTEGER PRIMARY KEY AUTOINCREMENT, v);
        CREATE TABLE bare(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
        CREATE TABLE made(v, twice AS (v || v), stored AS (typeof(v)) STORED);
        CREATE TABLE [it's "odd"]([a b], "c""d");
        CREATE INDEX keyed_w ON keyed(w);
        CREATE VIEW texts AS SELECT v FROM plain WHERE typeof(v) = 'text';
        CREATE TRIGGER counted_log AFTER INSERT ON counted BEGIN INSERT INTO plain VALUES ('trigger ' || new.id); END;
        CREATE VIRTUAL TABLE fts USING fts5(body);

        """

    /// One INSERT of a random value into a random table.
    private func insert(_ random: inout SeededGenerator) -> String {
        let value = literal(&random)
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return "INSERT INTO plain VALUES (\(value));"
        case 1: return "INSERT INTO keyed(v, w) VALUES (\(value), \(literal(&random)));"
        case 2: return "INSERT INTO counted(v) VALUES (\(value));"
        case 3: return "INSERT OR REPLACE INTO bare VALUES ('k\(Int.random(in: 0..<1000, using: &random))', \(value));"
        case 4: return "INSERT INTO made(v) VALUES (\(value));"
        default: return "INSERT INTO [it's \"odd\"] VALUES (\(value), \(literal(&random)));"
        }
    }

    /// A value as SQL the shell stores exactly: extreme integers, reals from random bits,
    /// text with quotes, NUL, control characters, unicode or bytes that are not UTF-8, blobs, NULL.
    private func literal(_ random: inout SeededGenerator) -> String {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return ["9223372036854775807", "-9223372036854775808", "0", "-1"].randomElement(using: &random)!
        case 1: return String(Int64.random(in: .min ... .max, using: &random))
        case 2:
            var value: Double
            repeat { value = Double(bitPattern: random.next()) } while !value.isFinite
            // Hex of the bits through a blob, so the source holds exactly this double.
            return "CAST(\(value.sign == .minus ? "-" : "")\(String(format: "%.17g", abs(value))) AS REAL)"
        case 3: return ["'NaN'", "'it''s'", "'\"q\"'", "'ünïcödé ✓ 日本'", "''", "'1e999'"].randomElement(using: &random)!
        case 4: return "CAST(X'\(hex(bytes(Int.random(in: 0..<40, using: &random))))' AS TEXT)"
        case 5: return "X'\(hex(bytes(Int.random(in: 0..<200, using: &random))))'"
        case 6: return "'line one' || char(10) || 'two' || char(13) || char(9) || char(0) || 'after nul'"
        case 7: return ["1e308", "-1e308", "4.9e-324", "0.1", "100.0", "1e999", "-1e999"].randomElement(using: &random)!
        default: return "NULL"
        }
    }

    /// Every table's rows in rowid (or key) order with their types, through sha3_query, the
    /// schema, the FTS index answering a query, the header fields and both integrity checks.
    private func content(_ db: String, key: String, withAutoVacuum: Bool = true) throws -> String {
        let tables = ["plain", "keyed", "counted", "made", "[it's \"odd\"]", "sqlite_sequence"]
        let hashes = tables.enumerated().map { index, table in
            "SELECT \(index), hex(sha3_query('SELECT rowid, * FROM \(table.replacingOccurrences(of: "'", with: "''")) ORDER BY rowid'));"
        }
        return try sqlcipherOK(db, """
            PRAGMA key = '\(key)';
            \(hashes.joined(separator: "\n"))
            SELECT 'bare', hex(sha3_query('SELECT * FROM bare ORDER BY k'));
            SELECT 'fts', count(*) FROM fts WHERE fts MATCH 'trigger OR line';
            SELECT type, name, sql FROM sqlite_schema ORDER BY name;
            PRAGMA user_version; PRAGMA application_id; \(withAutoVacuum ? "PRAGMA auto_vacuum;" : "")
            PRAGMA integrity_check; PRAGMA cipher_integrity_check;
            """)
    }
}
