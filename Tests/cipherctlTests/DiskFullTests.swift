import Foundation
import XCTest

/// A write that runs out of room (a file-size limit, `ulimit -f`, everywhere; a full tmpfs
/// where this process may mount one) ends with one clear error and exit 5, the original
/// exactly as it was, and nothing left beside it.
final class DiskFullTests: CLITestCase {
    private let keys = ["K": "disk full key", "K2": "disk full key two"]

    /// A database of about 3 MB with the shell.
    private func makeLargeDatabase(_ name: String = "big.db") throws -> String {
        try makeShellDatabase(name, key: keys["K"]!, rows: 2000, extraSQL: """
            CREATE TABLE filler(id INTEGER PRIMARY KEY, data BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 9000)
            INSERT INTO filler(data) SELECT randomblob(300) FROM n;
            """)
    }

    /// Runs cipherctl under a file-size limit of `kilobytes`.
    private func cipherctlLimited(kilobytes: Int, _ arguments: [String]) throws -> CommandResult {
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try run("/bin/bash", ["-c", "ulimit -f \(kilobytes) && exec \"$CIPHERCTL\" \(quoted)"], stdin: nil,
                       environment: keys.merging(["CIPHERCTL": Self.binary]) { $1 })
    }

    private func assertOutOfSpace(_ result: CommandResult, naming file: String, line: UInt = #line) {
        XCTAssertFalse(result.signaled, "killed by a signal (SIGXFSZ?)", line: line)
        XCTAssertEqual(result.code, 5, result.stderr, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: ran out of space writing '\(file)'"), result.stderr, line: line)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 2, "one error line and one hint: \(result.stderr)", line: line)
    }

    /// The file's bytes (and, with `modificationTime`, its modification time) are as `before`.
    private func assertUnchanged(_ path: String, since before: (Data, Date), modificationTime: Bool = false, line: UInt = #line) throws {
        let after = try fingerprint(path)
        XCTAssertEqual(after.0, before.0, "\(path) changed", line: line)
        if modificationTime { XCTAssertEqual(after.1, before.1, "\(path) was written", line: line) }
    }

    private func assertOnlyFiles(_ names: Set<String>, line: UInt = #line) throws {
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        XCTAssertEqual(present, names, "files left behind", line: line)
    }

    func testExportThatRunsOutOfSpaceLeavesNoDestinationAndTheSourceAsItWas() throws {
        let source = try makeLargeDatabase()
        let before = try fingerprint(source)
        let result = try cipherctlLimited(kilobytes: 1024, ["export", source, path("copy.db"), "--key-env", "K", "--to-key-env", "K2"])
        assertOutOfSpace(result, naming: path("copy.db"))
        try assertUnchanged(source, since: before, modificationTime: true)
        try assertOnlyFiles(["big.db"])
    }

    func testDecryptingExportThatRunsOutOfSpaceLeavesNothingBehind() throws {
        let source = try makeLargeDatabase()
        let before = try fingerprint(source)
        let result = try cipherctlLimited(kilobytes: 1024, ["export", source, path("plain.db"), "--key-env", "K", "--plaintext", "--quiet"])
        assertOutOfSpace(result, naming: path("plain.db"))
        try assertUnchanged(source, since: before)
        try assertOnlyFiles(["big.db"])
    }

    func testSettingsChangingRekeyThatRunsOutOfSpaceKeepsTheOldKeyAndContent() throws {
        let database = try makeLargeDatabase()
        let checksum = try contentChecksum(database, keySQL: "PRAGMA key = '\(keys["K"]!)';")
        let before = try fingerprint(database)
        let result = try cipherctlLimited(kilobytes: 1024, ["rekey", database, "--key-env", "K", "--new-key-env", "K2", "--new-page-size", "8192"])
        assertOutOfSpace(result, naming: database)
        try assertUnchanged(database, since: before)
        XCTAssertEqual(try contentChecksum(database, keySQL: "PRAGMA key = '\(keys["K"]!)';"), checksum)
        try assertOnlyFiles(["big.db"])
    }

    func testKeyOnlyRekeyThatRunsOutOfSpaceKeepsTheOldKeyAndContent() throws {
        let database = try makeLargeDatabase()
        let checksum = try contentChecksum(database, keySQL: "PRAGMA key = '\(keys["K"]!)';")
        let before = try fingerprint(database)
        let result = try cipherctlLimited(kilobytes: 1024, ["rekey", database, "--key-env", "K", "--new-key-env", "K2"])
        assertOutOfSpace(result, naming: database)
        try assertUnchanged(database, since: before)
        XCTAssertEqual(try contentChecksum(database, keySQL: "PRAGMA key = '\(keys["K"]!)';"), checksum)
        try assertOnlyFiles(["big.db"])
    }

    func testInPlaceRekeyUnderAFileSizeLimitBelowTheDatabaseIsRefusedBeforeAnyWrite() throws {
        // sqlite3_rekey_v2 answers OK when its WAL cannot be written, so the limit is checked first.
        let database = try makeLargeDatabase()
        let before = try fingerprint(database)
        let result = try cipherctlLimited(kilobytes: 1024, ["rekey", database, "--key-env", "K", "--new-key-env", "K2", "--in-place"])
        assertOutOfSpace(result, naming: database + "-wal")
        try assertUnchanged(database, since: before, modificationTime: true)
        try assertOnlyFiles(["big.db"])
    }

    func testPlaintextHeaderMoveThatRunsOutOfSpaceLeavesTheDatabaseAsItWas() throws {
        let database = try makeLargeDatabase()
        let before = try fingerprint(database)
        let result = try cipherctlLimited(kilobytes: 1024, ["plaintext-header", database, "--size", "32", "--key-env", "K", "--salt-output", database + ".salt"])
        assertOutOfSpace(result, naming: database)
        try assertUnchanged(database, since: before)
        try assertOnlyFiles(["big.db"])
    }

    /// About 8 MB of csv rows for `filler(id, data)`, beyond any limit these tests set.
    private func writeFillerRows() throws -> String {
        let rows = (20_000..<40_000).map { "\($0),\(String(repeating: "y", count: 400))" }
        let file = path("rows.csv")
        try Data(("id,data\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// After a write that ran out of space: no journal, so a command that only reads opens
    /// it (looked at before anything opens it read-write, which would roll a journal back),
    /// and the content as before.
    private func assertRolledBack(_ database: String, checksum: String?, line: UInt = #line) throws {
        XCTAssertFalse(FileManager.default.fileExists(atPath: database + "-journal"), "a journal was left", line: line)
        let reader = try cipherctl(["open", database, "--key-env", "K", "--check"], environment: keys)
        XCTAssertEqual(reader.code, 0, "a reader refuses it: \(reader.stderr)", line: line)
        XCTAssertEqual(try contentChecksum(database, keySQL: "PRAGMA key = '\(keys["K"]!)';"), checksum, "the content changed", line: line)
    }

    /// The writes of import and query that need more room than a file-size limit leaves.
    private func writesThatOverflow(_ database: String, rows: String) -> [[String]] {
        [
            ["import", database, "filler", rows, "--key-env", "K"],
            ["import", database, "other", rows, "--key-env", "K", "--format", "csv", "--batch-size", "50"],
            ["query", database, "--key-env", "K", "--write", "UPDATE filler SET data = randomblob(900)"],
            ["query", database, "--key-env", "K", "--write", "--format", "jsonl", "INSERT INTO filler(data) SELECT randomblob(900) FROM filler RETURNING id"],
        ]
    }

    func testImportAndQueryWriteThatRunOutOfSpaceAreRolledBackWithNoJournalLeft() throws {
        let database = try makeLargeDatabase()
        let rows = try writeFillerRows()
        let checksum = try contentChecksum(database, keySQL: "PRAGMA key = '\(keys["K"]!)';")
        let size = try XCTUnwrap(FileManager.default.fileSizeOfItem(database))
        // Room for the file and a little more: a page spilled from the cache in the middle of
        // a statement fails (SQLite's pager error state, which leaves the journal hot), or the
        // commit does, and the rollback writes only below the limit.
        for arguments in writesThatOverflow(database, rows: rows) {
            let result = try cipherctlLimited(kilobytes: size / 1024 + 512, arguments)
            assertOutOfSpace(result, naming: database)
            try assertRolledBack(database, checksum: checksum)
            try assertOnlyFiles(["big.db", "rows.csv"])
        }
    }

    func testImportAndQueryWriteUnderAFileSizeLimitBelowTheDatabaseAreRefusedBeforeAnyWrite() throws {
        // A rollback would have to write pages past the limit, which no write can.
        let database = try makeLargeDatabase()
        let rows = try writeFillerRows()
        let before = try fingerprint(database)
        for arguments in writesThatOverflow(database, rows: rows) {
            let result = try cipherctlLimited(kilobytes: 1024, arguments)
            assertOutOfSpace(result, naming: database)
            try assertUnchanged(database, since: before, modificationTime: true)
            try assertOnlyFiles(["big.db", "rows.csv"])
        }
    }

    func testImportAndQueryWriteOnAFullFileSystemAreRolledBackWithNoJournalLeft() throws {
        guard getuid() == 0 else { throw XCTSkip("mounting a small tmpfs needs root") }
        let mount = path("small-fs")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mount], stdin: nil, environment: [:])
        guard mounted.code == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(mounted.stderr)") }
        defer { _ = try? run("/bin/umount", [mount], stdin: nil, environment: [:]) }
        let database = mount + "/full.db"
        try sqlcipherOK(database, """
            PRAGMA key = '\(keys["K"]!)';
            CREATE TABLE filler(id INTEGER PRIMARY KEY, data BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
            INSERT INTO filler(data) SELECT randomblob(300) FROM n;
            """)
        let rows = try writeFillerRows()
        let checksum = try contentChecksum(database, keySQL: "PRAGMA key = '\(keys["K"]!)';")
        for arguments in [
            ["import", database, "filler", rows, "--key-env", "K"],
            ["query", database, "--key-env", "K", "--write", "UPDATE filler SET data = randomblob(900)"],
            ["query", database, "--key-env", "K", "--write", "INSERT INTO filler(data) SELECT randomblob(900) FROM filler"],
        ] {
            let result = try cipherctl(arguments, environment: keys)
            assertOutOfSpace(result, naming: database)
            try assertRolledBack(database, checksum: checksum)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mount), ["full.db"], "\(arguments[0]) left a file")
        }
    }

    func testEncryptingExportToAFullFileSystemLeavesItEmpty() throws {
        guard getuid() == 0 else { throw XCTSkip("mounting a small tmpfs needs root") }
        // A plaintext source: its encrypted copy is larger (80 bytes of every page go to the
        // IV and HMAC), so it passes the free-space check and then fills the file system.
        let source = path("plain.db")
        try sqlcipherOK(source, """
            CREATE TABLE filler(id INTEGER PRIMARY KEY, data BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 9000)
            INSERT INTO filler(data) SELECT randomblob(300) FROM n;
            """)
        let mount = path("small-fs")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let size = try XCTUnwrap(FileManager.default.fileSizeOfItem(source)) + 8192
        let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", mount], stdin: nil, environment: [:])
        guard mounted.code == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(mounted.stderr)") }
        defer { _ = try? run("/bin/umount", [mount], stdin: nil, environment: [:]) }
        let before = try fingerprint(source)
        let destination = mount + "/copy.db"
        let result = try cipherctl(["export", source, destination, "--to-key-env", "K"], environment: keys)
        assertOutOfSpace(result, naming: destination)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mount), [])
        try assertUnchanged(source, since: before)
    }

    func testVacuumIntoAFullFileSystemLeavesNoFileAndNamesItAndANewOneIsPrivate() throws {
        guard getuid() == 0 else { throw XCTSkip("mounting a small tmpfs needs root") }
        let source = try makeLargeDatabase()
        let mount = path("small-fs")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount], stdin: nil, environment: [:])
        guard mounted.code == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(mounted.stderr)") }
        defer { _ = try? run("/bin/umount", [mount], stdin: nil, environment: [:]) }
        let before = try fingerprint(source)
        let target = mount + "/vacuumed.db"
        let full = try cipherctl(["query", source, "--key-env", "K", "--write", "VACUUM INTO '\(target)'"], environment: keys)
        assertOutOfSpace(full, naming: target)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mount), [], "the failed VACUUM INTO left its file")
        try assertUnchanged(source, since: before)
        let made = try cipherctl(["query", source, "--key-env", "K", "--write", "VACUUM INTO '\(path("copy.db"))'"], environment: keys)
        XCTAssertEqual(made.code, 0, made.stderr)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path("copy.db"))[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600, "a file cipherctl creates is private")
    }
}

private extension FileManager {
    func fileSizeOfItem(_ path: String) -> Int? {
        (try? attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }
}
