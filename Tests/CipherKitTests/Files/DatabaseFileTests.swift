import CipherKit
import XCTest

final class DatabaseFileTests: CipherKitTestCase {
    func testMissingFileIsReportedAndNotCreated() throws {
        let target = path("none.db")
        XCTAssertEqual(try DatabaseFile.probe(target).kind, .missing)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
    }

    func testDirectoryIsNotARegularFile() throws {
        XCTAssertEqual(try DatabaseFile.probe(directory.path).kind, .notRegularFile)
    }

    func testEmptyAndShortFilesAreRecognised() throws {
        let empty = path("empty.db")
        FileManager.default.createFile(atPath: empty, contents: Data())
        XCTAssertEqual(try DatabaseFile.probe(empty).kind, .empty)
        let short = path("short.db")
        FileManager.default.createFile(atPath: short, contents: Data(repeating: 7, count: 100))
        let probed = try DatabaseFile.probe(short)
        XCTAssertEqual(probed.kind, .tooShort)
        XCTAssertEqual(probed.size, 100)
    }

    func testPlaintextDatabaseIsRecognised() throws {
        let target = try makePlaintextDatabase("plain.db", sql: "CREATE TABLE t(x)")
        XCTAssertEqual(try DatabaseFile.probe(target).kind, .plaintext)
    }

    func testEncryptedDatabaseIsOpaqueAndItsFirstBytesAreTheSalt() throws {
        let salt: [UInt8] = Array(100..<116)
        let target = try makeEncryptedDatabase("enc.db", key: "k", settings: CipherSettings(salt: salt), sql: "CREATE TABLE t(x)")
        let probed = try DatabaseFile.probe(target)
        XCTAssertEqual(probed.kind, .opaque)
        XCTAssertEqual(probed.firstBytes, salt)
    }

    func testPlaintextHeaderDatabaseIsRecognised() throws {
        let settings = CipherSettings(plaintextHeaderSize: 32, salt: Array(0..<16))
        let target = try makeEncryptedDatabase("ph.db", key: "k", settings: settings, sql: "CREATE TABLE t(x)")
        XCTAssertEqual(try DatabaseFile.probe(target).kind, .plaintextHeader)
    }

    /// A 16-byte plaintext header encrypts bytes 16 on: the reserved count (byte 20) is then 0
    /// once in 256 files, which must not make the file read as a damaged SQLite header.
    func testASixteenBytePlaintextHeaderWhoseReservedByteIsZeroIsRecognised() throws {
        let settings = CipherSettings(plaintextHeaderSize: 16, salt: Array(0..<16))
        let target = try makeEncryptedDatabase("ph16.db", key: "k", settings: settings, sql: "CREATE TABLE t(x)")
        XCTAssertEqual(try DatabaseFile.probe(target).kind, .plaintextHeader)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: target))
        bytes[20] = 0
        try bytes.write(to: URL(fileURLWithPath: target))
        XCTAssertEqual(try DatabaseFile.probe(target).kind, .plaintextHeader)
    }

    func testProbeLeavesBytesAndModificationTimeUnchanged() throws {
        let encrypted = try makeEncryptedDatabase("enc.db", key: "k", sql: "CREATE TABLE t(x)")
        let plain = try makePlaintextDatabase("plain.db", sql: "CREATE TABLE t(x)")
        for target in [encrypted, plain] {
            let before = try fingerprint(target)
            Thread.sleep(forTimeInterval: 0.01)
            _ = try DatabaseFile.probe(target)
            let after = try fingerprint(target)
            XCTAssertEqual(before.0, after.0)
            XCTAssertEqual(before.1, after.1)
        }
    }

    func testTextFileIsNotADatabase() throws {
        let target = path("notes.txt")
        try Data(String(repeating: "select * from users; -- not a database\n", count: 40).utf8).write(to: URL(fileURLWithPath: target))
        let file = try DatabaseFile.probe(target)
        XCTAssertEqual(file.kind, .notADatabase)
        XCTAssertEqual(file.foreignReason, "it holds text")
        assertThrows(.cannotDecrypt(path: target, failure: .notADatabase(reason: "it holds text"))) { try file.requireDatabase() }
    }

    func testASizeUnderTwoSmallestPagesThatIsNotWholePagesIsNotADatabaseAndALargerOneMayBe() throws {
        let source = try makeEncryptedDatabase("a.db", key: "k", sql: "CREATE TABLE t(x)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let truncated = path("truncated.db"), cut = path("cut.db")
        try Data(bytes.prefix(1000)).write(to: URL(fileURLWithPath: truncated))
        let file = try DatabaseFile.probe(truncated)
        XCTAssertEqual(file.kind, .notADatabase)
        XCTAssertEqual(file.foreignReason, "its size (1000 bytes) is not a whole number of pages; a truncated copy?")
        // Cut mid-page past the first page: only a key tells, and then the partial page is damage.
        try Data(bytes.prefix(5000)).write(to: URL(fileURLWithPath: cut))
        XCTAssertEqual(try DatabaseFile.probe(cut).kind, .opaque)
    }

    func testDamagedSQLiteHeaderIsNotTakenForAPlaintextHeader() throws {
        let target = try makePlaintextDatabase("plain.db", sql: "CREATE TABLE t(x)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: target))
        bytes[16] = 0x00
        bytes[17] = 0x03  // page size 3: impossible
        try bytes.write(to: URL(fileURLWithPath: target))
        let file = try DatabaseFile.probe(target)
        XCTAssertEqual(file.kind, .notADatabase)
        XCTAssertEqual(file.foreignReason, "it begins like a SQLite database, but its header is damaged")
    }

    func testRandomBytesOfWholePagesStayOpaque() throws {
        let target = path("random.bin")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: target))
        XCTAssertEqual(try DatabaseFile.probe(target).kind, .opaque)
    }
}
