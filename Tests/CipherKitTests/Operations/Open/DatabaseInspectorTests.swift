import CipherKit
import XCTest

final class DatabaseInspectorTests: CipherKitTestCase {
    private let schema = """
        CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE "we""ird"(x);
        CREATE INDEX users_name ON users(name);
        CREATE VIEW names AS SELECT name FROM users;
        CREATE TRIGGER t AFTER INSERT ON users BEGIN SELECT 1; END;
        INSERT INTO users(name) VALUES ('a'), ('b'), ('c');
        INSERT INTO "we""ird" VALUES (1);
        PRAGMA user_version = 7;
        PRAGMA application_id = 1234;
        """

    func testProfileDescribesSettingsHeaderAndSchema() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: schema)
        let profile = try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k")), options: InspectOptions(countRows: true))
        XCTAssertTrue(profile.encrypted)
        XCTAssertEqual(profile.cipher?.compatibility, 4)
        XCTAssertEqual(profile.cipher?.pageSize, 4096)
        XCTAssertEqual(profile.cipher?.kdfIterations, 256_000)
        XCTAssertEqual(profile.cipher?.salt?.count, 16)
        XCTAssertEqual(profile.userVersion, 7)
        XCTAssertEqual(profile.applicationID, 1234)
        XCTAssertEqual([profile.tableCount, profile.indexCount, profile.viewCount, profile.triggerCount], [2, 1, 1, 1])
        XCTAssertEqual(profile.rowCounts, [TableRowCount(table: "users", rows: 3), TableRowCount(table: "we\"ird", rows: 1)])
        XCTAssertEqual(profile.journalMode, "delete")
        XCTAssertEqual(profile.encoding, "UTF-8")
    }

    func testCustomSettingsAreReportedAsCustom() throws {
        let settings = CipherSettings(pageSize: 8192, kdfIterations: 12_345, hmacAlgorithm: .sha256, kdfAlgorithm: .pbkdf2SHA256)
        let target = try makeEncryptedDatabase("a.db", key: "k", settings: settings, sql: "CREATE TABLE t(x)")
        let profile = try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k"), settings: settings))
        XCTAssertNil(profile.cipher?.compatibility)
        XCTAssertEqual(profile.cipher?.pageSize, 8192)
        XCTAssertEqual(profile.cipher?.kdfIterations, 12_345)
        XCTAssertEqual(profile.cipher?.hmacAlgorithm, .sha256)
        XCTAssertEqual(profile.cipher?.kdfAlgorithm, .pbkdf2SHA256)
        XCTAssertEqual(profile.formatDescription, "SQLCipher custom format: page size 8192, KDF iterations 12345, HMAC-SHA256, PBKDF2-HMAC-SHA256")
    }

    func testSQLCipher3DatabaseIsFoundWithoutSettingsAndRefusedWithWrongOnes() throws {
        let target = try makeEncryptedDatabase("v3.db", key: "k", settings: CipherSettings(compatibility: 3), sql: "CREATE TABLE t(x)")
        let found = try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k")))
        XCTAssertEqual(found.detectedFormat, CipherFormat(version: 3))
        XCTAssertEqual(found.formatAttempts, 2)
        XCTAssertEqual(found.formatDescription, "SQLCipher 3 format: page size 1024, KDF iterations 64000, HMAC-SHA1, PBKDF2-HMAC-SHA1")
        assertThrows(.cannotDecrypt(path: target, failure: .wrongKeyOrSettings)) {
            try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(compatibility: 4)))
        }
        let profile = try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(compatibility: 3)))
        XCTAssertEqual(profile.cipher?.compatibility, 3)
        XCTAssertEqual(profile.cipher?.pageSize, 1024)
    }

    func testWrongKeyFailsAndLeavesFileUntouched() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(x)")
        let before = try fingerprint(target)
        assertThrows(.cannotDecrypt(path: target, failure: .noFormatMatched)) {
            try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("nope")))
        }
        let after = try fingerprint(target)
        XCTAssertEqual(before.0, after.0)
        XCTAssertEqual(before.1, after.1)
    }

    func testPlaintextDatabaseOpensWithoutKeyAndRefusesOne() throws {
        let target = try makePlaintextDatabase("plain.db", sql: "CREATE TABLE t(x)")
        let profile = try DatabaseInspector.inspect(OpenRequest(path: target, key: nil))
        XCTAssertFalse(profile.encrypted)
        XCTAssertNil(profile.cipher)
        assertThrows(.cannotDecrypt(path: target, failure: .plaintextDatabase)) {
            try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k")))
        }
    }

    func testPlaintextHeaderDatabaseNeedsItsSaltAndAssumesSize32() throws {
        let salt: [UInt8] = Array(0..<16)
        let settings = CipherSettings(plaintextHeaderSize: 32, salt: salt)
        let target = try makeEncryptedDatabase("ph.db", key: "k", settings: settings, sql: "CREATE TABLE t(x)")
        assertThrows(.cannotDecrypt(path: target, failure: .plaintextHeader)) {
            try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k")))
        }
        assertThrows(.cannotDecrypt(path: target, failure: .plaintextHeader)) {
            try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(plaintextHeaderSize: 32)))
        }
        assertThrows(.cannotDecrypt(path: target, failure: .wrongKeySettingsOrSalt)) {
            try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(salt: Array(repeating: 7, count: 16))))
        }
        let assumed = try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k"), settings: CipherSettings(salt: salt)))
        XCTAssertEqual(assumed.cipher?.plaintextHeaderSize, 32)
        let profile = try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k"), settings: settings))
        XCTAssertEqual(profile.cipher?.plaintextHeaderSize, 32)
        XCTAssertEqual(profile.cipher?.salt, salt)
    }

    func testEmptyShortMissingAndDirectoryAreNamed() throws {
        let empty = path("empty.db")
        FileManager.default.createFile(atPath: empty, contents: Data())
        let short = path("short.db")
        FileManager.default.createFile(atPath: short, contents: Data(repeating: 1, count: 300))
        let key = try passphrase("k")
        assertThrows(.cannotDecrypt(path: empty, failure: .emptyFile)) { try DatabaseInspector.inspect(OpenRequest(path: empty, key: key)) }
        assertThrows(.cannotDecrypt(path: short, failure: .tooShort(bytes: 300))) { try DatabaseInspector.inspect(OpenRequest(path: short, key: key)) }
        assertThrows(.fileNotFound(path: path("none.db"))) { try DatabaseInspector.inspect(OpenRequest(path: path("none.db"), key: key)) }
        assertThrows(.notARegularFile(path: directory.path)) { try DatabaseInspector.inspect(OpenRequest(path: directory.path, key: key)) }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: empty)).count, 0)
    }

    func testIntegrityCheckPassesOnAHealthyDatabase() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: schema)
        let profile = try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k")), options: InspectOptions(checkIntegrity: true))
        XCTAssertEqual(profile.integrity?.isOK, true)
    }

    func testIntegrityCheckNamesTheDamagedPage() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: """
            CREATE TABLE t(x);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 500) INSERT INTO t SELECT randomblob(100) FROM c;
            """)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: target))
        try handle.seek(toOffset: 4096 * 2 + 200)
        let original = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: 4096 * 2 + 200)
        handle.write(Data([original ^ 0xFF]))
        try handle.close()

        let profile = try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k")), options: InspectOptions(checkIntegrity: true))
        let integrity = try XCTUnwrap(profile.integrity)
        XCTAssertFalse(integrity.isOK)
        XCTAssertEqual(integrity.failedPages, [3])
    }

    func testBusyDatabaseIsReportedAsBusy() throws {
        let target = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(x)")
        let holder = try Connection(path: target, mode: .readWrite)
        try holder.key(try passphrase("k"))
        try holder.execute("BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)")
        assertThrows(.busy(path: target)) {
            try DatabaseInspector.inspect(OpenRequest(path: target, key: try passphrase("k"), busyTimeoutMilliseconds: 50))
        }
        try holder.execute("ROLLBACK")
    }
}
