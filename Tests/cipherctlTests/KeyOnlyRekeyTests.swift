import Foundation
import XCTest

/// A key-only rekey: a page-engine copy renamed over the file when the copy is the same file
/// to everyone who names it, else in place through SQLite (hard links, symbolic links,
/// extended attributes, `--in-place`).
final class KeyOnlyRekeyTests: CLITestCase {
    private let keys = ["OLD": "old key 1", "NEW": "new key 2"]
    private let oldSQL = "PRAGMA key = 'old key 1';"
    private let newSQL = "PRAGMA key = 'new key 2';"

    private func rekey(_ arguments: [String]) throws -> CommandResult {
        try cipherctl(["rekey"] + arguments + ["--key-env", "OLD", "--new-key-env", "NEW", "--json"], environment: keys)
    }

    private func inode(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
    }

    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    /// The rows are the same under the new key, the old key is refused, and nothing is left beside it.
    private func assertRotated(_ db: String, checksum: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try contentChecksum(db, keySQL: newSQL), checksum, "the new key opens the same rows", file: file, line: line)
        XCTAssertNil(try contentChecksum(db, keySQL: oldSQL), "the old key must no longer open it", file: file, line: line)
        XCTAssertEqual(try temporaryLeftovers(), [], file: file, line: line)
    }

    func testKeyOnlyRekeyIsAPageEngineCopyKeepingSaltModeHeaderAndRows() throws {
        for journal in ["delete", "wal"] {
            let db = try makeShellDatabase("\(journal).db", key: "old key 1", rows: 1500, extraSQL: "PRAGMA journal_mode = \(journal);")
            chmod(db, 0o640)
            let checksum = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
            let salt = try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16)
            let result = try rekey([db])
            XCTAssertEqual(result.code, 0, result.stderr)
            let report = try jsonObject(result.stdout)
            XCTAssertEqual(report["action"] as? String, "export-and-replace", journal)
            XCTAssertEqual(report["method"] as? String, "page-engine", journal)
            XCTAssertEqual((report["verification"] as? [String: Any])?["proof"] as? String, "pages", journal)
            try assertRotated(db, checksum: checksum)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)).prefix(16), salt, "\(journal): the salt stays, as PRAGMA rekey keeps it")
            XCTAssertEqual(try mode(db), 0o640, journal)
            XCTAssertEqual(try sqlcipherOK(db, newSQL + "PRAGMA journal_mode; PRAGMA user_version; PRAGMA application_id;"), "ok\n\(journal)\n12\n4242\n")
        }
    }

    func testAProcessStillHoldingTheReplacedFileFailsInsteadOfWritingIntoIt() throws {
        let db = try makeShellDatabase("held.db", key: "old key 1", rows: 300)
        let (holder, input) = try startShellHolding(db, oldSQL + " SELECT count(*) FROM items;")
        let output = holder.standardOutput as? Pipe
        let result = try rekey([db])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try jsonObject(result.stdout)["action"] as? String, "export-and-replace")
        // The shell's next statement reads its old, unlinked file: it must fail, not succeed there.
        input.fileHandleForWriting.write(Data("INSERT INTO items(name) VALUES ('lost?');\nSELECT 'inserted ' || changes();\n".utf8))
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        let said = String(decoding: output.map { CLITestCase.readToEnd($0.fileHandleForReading) } ?? Data(), as: UTF8.self)
        XCTAssertFalse(said.contains("inserted 1"), "the write went into the replaced file: \(said)")
        XCTAssertEqual(try sqlcipherOK(db, newSQL + "SELECT count(*) FROM items;"), "ok\n300\n")
    }

    func testAHardLinkedDatabaseIsRekeyedInPlaceAndBothNamesOpenWithTheNewKey() throws {
        let db = try makeShellDatabase("linked.db", key: "old key 1", rows: 400)
        try FileManager.default.linkItem(atPath: db, toPath: path("other-name.db"))
        let checksum = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        let before = try inode(db)
        let result = try rekey([db])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try jsonObject(result.stdout)["action"] as? String, "in-place")
        XCTAssertEqual(try inode(db), before)
        XCTAssertEqual(try inode(path("other-name.db")), before)
        try assertRotated(db, checksum: checksum)
        XCTAssertEqual(try contentChecksum(path("other-name.db"), keySQL: newSQL), checksum)
        XCTAssertTrue(result.stderr.contains("has 2 names (hard links)"), "a rerun must go through the same name: \(result.stderr)")
    }

    func testASymbolicLinkIsRekeyedInPlaceAndStaysALink() throws {
        let db = try makeShellDatabase("real.db", key: "old key 1", rows: 200)
        try FileManager.default.createSymbolicLink(atPath: path("link.db"), withDestinationPath: db)
        let checksum = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        let result = try rekey([path("link.db")])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try jsonObject(result.stdout)["action"] as? String, "in-place")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: path("link.db")), db)
        try assertRotated(db, checksum: checksum)
    }

    func testADatabaseWithAnExtendedAttributeIsRekeyedInPlaceAndKeepsIt() throws {
        let db = try makeShellDatabase("labelled.db", key: "old key 1", rows: 200)
        // Swift's Glibc module has no xattr calls; Python's os module has them.
        let set = try sh("python3 -c 'import os, sys; os.setxattr(sys.argv[1], \"user.cipherctl-test\", b\"kept\")' \"$DB\"", environment: ["DB": db])
        guard set.code == 0 else { throw XCTSkip("this file system keeps no user extended attributes: \(set.stderr)") }
        let checksum = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        let result = try rekey([db])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try jsonObject(result.stdout)["action"] as? String, "in-place")
        let kept = try sh("python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], \"user.cipherctl-test\").decode())' \"$DB\"", environment: ["DB": db])
        XCTAssertEqual(kept.stdout, "kept\n", "the attribute is still there: \(kept.stderr)")
        try assertRotated(db, checksum: checksum)
    }

    func testInPlaceKeepsTheInodeAndRefusesASettingsChangeWithExit2() throws {
        let db = try makeShellDatabase("keep.db", key: "old key 1", rows: 300)
        let checksum = try XCTUnwrap(contentChecksum(db, keySQL: oldSQL))
        let before = try inode(db)
        let refused = try rekey([db, "--in-place", "--new-kdf-iter", "1000"])
        XCTAssertEqual(refused.code, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("never in place"), refused.stderr)
        XCTAssertEqual(try contentChecksum(db, keySQL: oldSQL), checksum, "the refused run changed nothing")

        let result = try rekey([db, "--in-place"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let report = try jsonObject(result.stdout)
        XCTAssertEqual(report["action"] as? String, "in-place")
        XCTAssertTrue(report["method"] is NSNull)
        XCTAssertEqual(try inode(db), before)
        try assertRotated(db, checksum: checksum)
    }

    /// SQLCipher logs each HMAC failure; the old key's expected refusal at the end of a
    /// verified rekey is no news, so `--verbose` shows cipherctl's own lines only.
    func testAVerboseRekeyInEveryFormatPrintsNoSQLCipherLogLines() throws {
        for compatibility in 1...4 {
            for extra in [[], ["--new-kdf-iter", "5000"]] {
                let db = try makeShellDatabase("v\(compatibility)\(extra.count).db", key: "old key 1", rows: 20,
                                               extraSQL: "PRAGMA cipher_compatibility = \(compatibility);")
                let result = try cipherctl(["rekey", db, "--key-env", "OLD", "--new-key-env", "NEW", "--verbose"] + extra, environment: keys)
                XCTAssertEqual(result.code, 0, result.stderr)
                let foreign = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("cipherctl: ") }
                XCTAssertEqual(foreign, [], "SQLCipher \(compatibility) \(extra)")
            }
        }
    }
}
