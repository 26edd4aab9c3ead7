import Foundation
import XCTest

/// A page 1 whose first 16 bytes, where SQLCipher keeps the salt a passphrase needs, are
/// zeros (the page wiped whole, or only its salt): no key can open such a file, so it is
/// damage to name, not a wrong key to search settings for. Swept over formats, the extent
/// wiped and every command that takes a key: each exits 3 naming the lost salt and leaves
/// every file as it was; with the salt given, `recover` salvages the rows past page 1.
final class LostSaltTests: CLITestCase {
    private let keys = ["K": "lost salt key", "K2": "lost salt new key"]

    private var commands: [[String]] {
        [
            ["open", "db.db", "--key-env", "K"],
            ["open", "db.db", "--key-env", "K", "--check"],
            ["query", "db.db", "--key-env", "K", "SELECT count(*) FROM items"],
            ["query", "db.db", "--key-env", "K", "--write", "DELETE FROM items"],
            ["dump", "db.db", "--key-env", "K"],
            ["diff", "db.db", "db.db", "--key-env", "K", "--other-key-env", "K"],
            ["export", "db.db", "copy.db", "--key-env", "K", "--to-key-env", "K2"],
            ["rekey", "db.db", "--key-env", "K", "--new-key-env", "K2"],
            ["rekey", "db.db", "--key-env", "K", "--new-key-env", "K2", "--in-place"],
            ["plaintext-header", "db.db", "--size", "32", "--key-env", "K", "--salt-output", "db.salt"],
            ["recover", "db.db", "saved.db", "--key-env", "K", "--to-key-env", "K2"],
            ["salt", "db.db", "--key-env", "K"],
        ]
    }

    func testAFileWhoseSaltIsZerosIsALostSaltToEveryCommandThatTakesItsKey() throws {
        for (format, pageSize) in [("", 4096), ("PRAGMA cipher_compatibility = 3;", 1024)] {
            let base = try makeBase(format: format)
            for wiped in [16, pageSize] {
                for command in commands {
                    let folder = try wipedCopy(of: base, bytes: wiped)
                    let before = try folderListing(folder)
                    let result = try run(Self.binary, command, stdin: nil, environment: keys, directory: folder)
                    let label = "\(format.isEmpty ? "v4" : "v3"), \(wiped) bytes wiped: \(command.prefix(5).joined(separator: " "))"
                    XCTAssertEqual(result.code, 3, "\(label): \(result.stderr)")
                    XCTAssertTrue(result.stderr.contains("its salt (the first 16 bytes of page 1) is damaged"), "\(label): \(result.stderr)")
                    XCTAssertEqual(result.stderr.components(separatedBy: "error:").count - 1, 1, "\(label): one error line: \(result.stderr)")
                    XCTAssertFalse(result.stderr.contains("wrong key"), "\(label): \(result.stderr)")
                    XCTAssertEqual(try folderListing(folder), before, "\(label): every file as it was, and no new one")
                }
            }
        }
    }

    /// The other side: a whole file given a salt other than its own, which the key opens it
    /// with. SQLCipher reads the file's salt, so only cipherctl's own derivations would take the
    /// given one, and every page would read as damage: each command refuses the salt (exit 2)
    /// and changes nothing; the file's own salt given opens it.
    func testASaltOtherThanTheOneTheKeyOpensTheFileWithIsRefusedByEveryCommand() throws {
        let wrong = "00112233445566778899aabbccddeeff"
        for format in ["", "PRAGMA cipher_compatibility = 3;"] {
            let base = try makeBase(format: format)
            for command in commands {
                let folder = try wipedCopy(of: base, bytes: 0)
                let before = try folderListing(folder)
                let result = try run(Self.binary, command + ["--salt", wrong], stdin: nil, environment: keys, directory: folder)
                let label = "\(format.isEmpty ? "v4" : "v3"): \(command.prefix(5).joined(separator: " "))"
                XCTAssertEqual(result.code, 2, "\(label): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("the salt given is not the file's"), "\(label): \(result.stderr)")
                XCTAssertEqual(result.stderr.components(separatedBy: "error:").count - 1, 1, "\(label): one error line: \(result.stderr)")
                XCTAssertEqual(try folderListing(folder), before, "\(label): every file as it was, and no new one")
            }
            let own = try XCTUnwrap(FileHandle(forReadingAtPath: base)?.readData(ofLength: 16)).map { String(format: "%02x", $0) }.joined()
            let opened = try cipherctl(["open", base, "--key-env", "K", "--salt", own], environment: keys)
            XCTAssertEqual(opened.code, 0, opened.stderr)
        }
    }

    func testSaltWithoutAKeySaysTheSaltIsZerosRatherThanPrintingThem() throws {
        let folder = try wipedCopy(of: try makeBase(format: ""), bytes: 16)
        let result = try run(Self.binary, ["salt", "db.db"], stdin: nil, environment: [:], directory: folder)
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains("'db.db' has no salt to read: its first 16 bytes, where SQLCipher keeps the salt, are zeros"), result.stderr)
    }

    func testRecoverWithTheSaltFromACopySalvagesTheRowsBeyondAWipedPageOne() throws {
        let base = try makeBase(format: "")
        let salt = try XCTUnwrap(FileHandle(forReadingAtPath: base)?.readData(ofLength: 16)).map { String(format: "%02x", $0) }.joined()
        let folder = try wipedCopy(of: base, bytes: 4096)
        let result = try run(
            Self.binary, ["recover", "db.db", "saved.db", "--key-env", "K", "--to-key-env", "K2", "--salt", salt],
            stdin: nil, environment: keys, directory: folder)
        XCTAssertEqual(result.code, 0, result.stderr)
        let rows = try sqlcipherOK(folder + "/saved.db", "PRAGMA key = '\(keys["K2"]!)';\nSELECT count(*) FROM sqlite_master WHERE name LIKE 'lost_and_found%' OR name = 'items';")
        XCTAssertNotEqual(rows.trimmingCharacters(in: .whitespacesAndNewlines), "0", "rows past page 1 are salvaged: \(result.stdout)")
    }

    /// With the salt given, a later page that passes its HMAC proves the key: page 1 wiped,
    /// or damaged with its IV (its first block no longer decrypts), is damage to page 1, and
    /// a file whose own salt bytes are not the salt given fails `open --check`.
    func testWithTheSaltGivenAWipedPageOneIsDamageAndWipedSaltBytesFailTheCheck() throws {
        let base = try makeBase(format: "")
        let salt = try XCTUnwrap(FileHandle(forReadingAtPath: base)?.readData(ofLength: 16)).map { String(format: "%02x", $0) }.joined()
        for (label, range, given) in [("page 1 wiped", 0..<4096, [ "--salt", salt]), ("page 1 past its header, IV included", 100..<4096, [])] {
            let folder = try wipedCopy(of: base, bytes: 0)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/db.db"))
            bytes.replaceSubrange(range, with: Data(count: range.count))
            try bytes.write(to: URL(fileURLWithPath: folder + "/db.db"))
            for command in [["open", "db.db"], ["open", "db.db", "--check"], ["rekey", "db.db", "--new-key-env", "K2"]] {
                let result = try run(Self.binary, command + ["--key-env", "K"] + given, stdin: nil, environment: keys, directory: folder)
                XCTAssertEqual(result.code, 4, "\(label): \(command): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("page 1 (the schema): fails its HMAC"), "\(label): \(command): \(result.stderr)")
            }
        }
        let folder = try wipedCopy(of: base, bytes: 16)
        let checked = try run(Self.binary, ["open", "db.db", "--key-env", "K", "--salt", salt, "--check"], stdin: nil, environment: keys, directory: folder)
        XCTAssertEqual(checked.code, 4, checked.stderr)
        XCTAssertTrue(checked.stdout.contains("page 1 (the schema): its first 16 bytes are not the salt"), checked.stdout)
    }

    /// A database of a table and its index, with overflow pages, under `format`.
    private func makeBase(format: String) throws -> String {
        let base = path("base-\(UUID().uuidString).db")
        try sqlcipherOK(base, """
            PRAGMA key = '\(keys["K"]!)';
            \(format)
            CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, body TEXT);
            CREATE INDEX items_name ON items(name);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO items(name, body) SELECT 'item ' || i, CASE WHEN i % 50 = 0 THEN hex(randomblob(3000)) ELSE 'short' END FROM n;
            """)
        return base
    }

    /// A new folder holding `base` as db.db with its first `bytes` bytes zeros.
    private func wipedCopy(of base: String, bytes: Int) throws -> String {
        let folder = path("case-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: base, toPath: folder + "/db.db")
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: folder + "/db.db"))
        try handle.write(contentsOf: Data(count: bytes))
        try handle.close()
        return folder
    }
}
