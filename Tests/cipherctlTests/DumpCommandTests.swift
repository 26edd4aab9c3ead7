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

    func testOnATerminalTheDumpIsWarnedAboutAsPlaintext() throws {
        let db = try makeShellDatabase("a.db", key: "dump key", rows: 3)
        let (code, screen) = try cipherctlOnTerminal(["dump", db, "--key-env", "K"], answers: [], environment: keys)
        XCTAssertEqual(code, 0, screen)
        XCTAssertTrue(screen.contains("warning: the dump is plaintext"), screen)
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
