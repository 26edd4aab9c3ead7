import Foundation
import XCTest

/// As a user who is not root: a read-only file, a read-only folder, a read-only WAL, and a
/// read-only WAL database with no -wal beside it (cleanly closed) or a killed writer's -wal
/// without its -shm, and that -wal in a read-only folder. The dry run must end with the code the real run ends with, and no write
/// (rekey, `query --write`, `import`, `plaintext-header`) changes a file or leaves a new one, not even a -wal or
/// -shm of its open. Under root (as CI runs) cipherctl is started as `nobody` with setpriv,
/// since root writes anything.
final class PermissionAgreementTests: CLITestCase {
    private let keys = ["K": "permission key", "K2": "permission new key"]

    private enum Denial: CaseIterable {
        case readOnlyFile, readOnlyFolder, readOnlyWAL, readOnlyClosedWALDatabase, readOnlyDatabaseBesideAKilledWritersWAL
        case readOnlyFolderBesideAKilledWritersWAL
    }

    func testDryRunAndRealRunAgreeOnEveryReadOnlyCase() throws {
        let base = try makeShellDatabase("base.db", key: keys["K"]!, rows: 100)
        for denial in Denial.allCases {
            for command in [["rekey", "db.db", "--key-env", "K", "--new-key-env", "K2"],
                            ["rekey", "db.db", "--key-env", "K", "--new-key-env", "K2", "--new-page-size", "8192"]] {
                let dry = try attempt(command + ["--dry-run"], base: base, denial: denial)
                let real = try attempt(command, base: base, denial: denial)
                XCTAssertEqual(dry.code, real.code, "\(denial) \(command): dry run \(dry.stderr) / real run \(real.stderr)")
                XCTAssertEqual(real.code, 5, "\(denial) \(command): \(real.stderr)")
                XCTAssertTrue(real.stderr.contains("not writable"), "\(denial): \(real.stderr)")
            }
            try "name,price\nimported,1\n".write(toFile: path("rows.csv"), atomically: true, encoding: .utf8)
            for command in [["query", "db.db", "--key-env", "K", "--write", "UPDATE items SET price = price + 1"],
                            ["import", "db.db", "items", path("rows.csv"), "--key-env", "K"],
                            ["plaintext-header", "db.db", "--size", "32", "--key-env", "K", "--salt-output", path("db.salt")]] {
                let result = try attempt(command, base: base, denial: denial)
                XCTAssertEqual(result.code, 5, "\(denial) \(command): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("not writable"), "\(denial) \(command): \(result.stderr)")
            }
        }
    }

    /// export only reads its source: from a source this user cannot write beside (a -wal
    /// without its -shm in a read-only folder among them) it copies the committed state, by
    /// each way a copy is written (pages, `sqlcipher_export()`, decrypted), and leaves every
    /// file beside the source as it was (no -shm, no empty -wal).
    func testExportOfASourceThisUserCannotWriteBesideCopiesTheCommittedStateAndChangesNothing() throws {
        let base = try makeShellDatabase("base.db", key: keys["K"]!, rows: 100)
        let outputs = path("outputs")
        try FileManager.default.createDirectory(atPath: outputs, withIntermediateDirectories: true)
        chmod(outputs, 0o777)
        for denial in Denial.allCases {
            // The -wal's commit adds 1 to each of the 100 prices (2,525 before).
            let expected = [.readOnlyWAL, .readOnlyDatabaseBesideAKilledWritersWAL, .readOnlyFolderBesideAKilledWritersWAL].contains(denial) ? "2625.0" : "2525.0"
            for (way, options) in [("pages", ["--to-key-env", "K2"]), ("sqlcipher_export", ["--to-key-env", "K2", "--to-compat", "3"]),
                                   ("decrypted", ["--plaintext"])] {
                let copy = outputs + "/\(denial)-\(way).db"
                let result = try attempt(["export", "db.db", copy, "--key-env", "K"] + options, base: base, denial: denial)
                XCTAssertEqual(result.code, 0, "\(denial) \(way): \(result.stderr)")
                let key = way == "decrypted" ? "" : "PRAGMA key = '\(keys["K2"]!)';" + (way == "sqlcipher_export" ? " PRAGMA cipher_compatibility = 3;" : "")
                let sum = try sqlcipherOK(copy, key + " SELECT sum(price) FROM items;").split(separator: "\n").last
                XCTAssertEqual(sum.map(String.init), expected, "\(denial) \(way): the committed rows")
            }
        }
    }

    /// Runs `command` as an unprivileged user in a fresh folder made read-only as `denial` says;
    /// fails the test if any file changed.
    private func attempt(_ command: [String], base: String, denial: Denial) throws -> CommandResult {
        let folder = path("case-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer {
            chmod(folder, 0o755)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let db = folder + "/db.db"
        try FileManager.default.copyItem(atPath: base, toPath: db)
        if denial == .readOnlyClosedWALDatabase {
            try sqlcipherOK(db, "PRAGMA key = '\(keys["K"]!)'; PRAGMA journal_mode = WAL;")
        }
        if [.readOnlyWAL, .readOnlyDatabaseBesideAKilledWritersWAL, .readOnlyFolderBesideAKilledWritersWAL].contains(denial) {
            // A WAL database whose -wal holds frames: a reader keeps it open while it is written.
            try sqlcipherOK(db, "PRAGMA key = '\(keys["K"]!)'; PRAGMA journal_mode = WAL;")
            let (holder, input) = try startShellHolding(db, "PRAGMA key = '\(keys["K"]!)'; SELECT count(*) FROM items;")
            try sqlcipherOK(db, "PRAGMA key = '\(keys["K"]!)'; PRAGMA wal_autocheckpoint = 0; UPDATE items SET price = price + 1;")
            try FileManager.default.copyItem(atPath: db + "-wal", toPath: folder + "/kept-wal")
            try input.fileHandleForWriting.close()
            holder.waitUntilExit()
            try? FileManager.default.removeItem(atPath: db + "-wal")
            try? FileManager.default.removeItem(atPath: db + "-shm")
            try FileManager.default.moveItem(atPath: folder + "/kept-wal", toPath: db + "-wal")
        }
        let unprivileged = getuid() == 0
        if unprivileged {
            for file in [folder, db, db + "-wal"] where FileManager.default.fileExists(atPath: file) { chown(file, 65534, 65534) }
        }
        switch denial {
        case .readOnlyFile: chmod(db, 0o444)
        case .readOnlyFolder, .readOnlyFolderBesideAKilledWritersWAL: chmod(folder, 0o555)
        case .readOnlyWAL: chmod(db + "-wal", 0o444)
        case .readOnlyClosedWALDatabase, .readOnlyDatabaseBesideAKilledWritersWAL: chmod(db, 0o444)
        }
        let before = try state(folder)
        let prefix = unprivileged ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] : []
        let executable = prefix.first ?? Self.binary
        let arguments = Array(prefix.dropFirst()) + (unprivileged ? [Self.binary] : []) + command
        let result = try run(executable, arguments, stdin: nil, environment: keys, directory: folder)
        XCTAssertEqual(try state(folder), before, "\(denial) \(command): every file as it was")
        return result
    }

    private func state(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            files[name] = FileManager.default.contents(atPath: folder + "/" + name) ?? Data()
        }
        return files
    }
}
