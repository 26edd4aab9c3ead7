import Foundation
import TestSupport
import XCTest

/// The on-disk states `ReadingStateSweepTests` reads, made with the sqlcipher shell.
extension ReadingStateSweepTests {
    func make(_ state: DiskState, in folder: String, using generator: inout SeededGenerator) throws -> MadeState {
        let db = folder + "/s.db"
        let compatibility = Int.random(in: 3...4, using: &generator)
        let pageSize = compatibility == 3 ? 1024 : 4096
        keySQL = "PRAGMA key = '\(key)'; PRAGMA cipher_compatibility = \(compatibility);"
        let rows = Int.random(in: 100...1500, using: &generator)
        let wal = [.closedWAL, .walWithoutShm, .walWithStaleShm, .walHeaderOnly, .liveWALWriter, .readOnlyFolder].contains(state) || state.dropsCommits
        try makeDatabase(db, rows: rows, wal: wal)
        // A last commit after the first frame, which the states that drop commits damage.
        let changes = randomChanges(using: &generator, rows: rows) + (state.dropsCommits ? " INSERT INTO [odd \"name] VALUES ('last');" : "")
        var made = MadeState(database: db)
        switch state {
        case .closedWAL:
            // The header says WAL, and the last connection's close took the -wal and -shm away.
            try sqlcipherOK(db, keySQL + changes)
            XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"), "the shell's close removes the -wal")
        case .walWithoutShm, .walWithStaleShm, .walHeaderOnly, .walDroppedCommits, .walDroppedCommitsStaleShm, .readOnlyFolder:
            // A writer's files copied while it holds them: committed frames in the -wal (or, as
            // a writer killed before its first frame leaves it, the -wal's header alone).
            let live = path("live-\(state.rawValue).db")
            // An earlier case of the same state (a widened sweep) left its live copy's files.
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: live + suffix) }
            try FileManager.default.moveItem(atPath: db, toPath: live)
            let holder = try startShellHolding(live, keySQL + " PRAGMA wal_autocheckpoint = 0; " + changes)
            try FileManager.default.copyItem(atPath: live, toPath: db)
            try FileManager.default.copyItem(atPath: live + "-wal", toPath: db + "-wal")
            if [.walWithStaleShm, .walDroppedCommitsStaleShm].contains(state) { try FileManager.default.copyItem(atPath: live + "-shm", toPath: db + "-shm") }
            if state == .walHeaderOnly { try FileHandle(forWritingTo: URL(fileURLWithPath: db + "-wal")).truncate(atOffset: 32) }
            // A byte of the first frame's page (its checksum fails) or of its salts, before the last commit.
            if state.dropsCommits {
                let offset = Bool.random(using: &generator) ? 32 + 8 + Int.random(in: 0..<8, using: &generator) : 32 + 24 + Int.random(in: 0..<pageSize, using: &generator)
                try flipByte(db + "-wal", at: offset, using: &generator)
            }
            var ended = MadeState(database: live, holder: holder)
            release(&ended)
        case .liveWALWriter:
            made.holder = try startShellHolding(db, keySQL + " PRAGMA wal_autocheckpoint = 0; " + changes)
        case .liveRollbackWriter:
            made.holder = try startShellHolding(db, keySQL + changes + " BEGIN; UPDATE items SET name = 'uncommitted' WHERE rowid % 3 = 0;")
        case .hotJournal:
            // Enough new rows that the small cache spills into the file: the journal is synced,
            // its header written, and it is hot.
            let torn = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) INSERT INTO items(name, payload) SELECT 'torn', randomblob(500) FROM n;"
            let holder = try startShellHolding(db, keySQL + changes + " PRAGMA cache_size = 5; BEGIN; UPDATE items SET name = name || ' torn'; " + torn)
            kill(holder.0.processIdentifier, SIGKILL)
            var ended = MadeState(database: db, holder: holder)
            release(&ended)
            XCTAssertTrue(FileManager.default.fileExists(atPath: db + "-journal"), "the killed writer leaves a hot journal")
        case .damagedPage:
            try sqlcipherOK(db, keySQL + changes)
            let pages = (try FileManager.default.attributesOfItem(atPath: db)[.size] as? Int ?? 0) / pageSize
            try overwrite(db, at: Int.random(in: 1..<max(2, pages), using: &generator) * pageSize, count: 16, using: &generator)
        case .truncated:
            try sqlcipherOK(db, keySQL + changes)
            let pages = (try FileManager.default.attributesOfItem(atPath: db)[.size] as? Int ?? 0) / pageSize
            try FileHandle(forWritingTo: URL(fileURLWithPath: db)).truncate(atOffset: UInt64(Int.random(in: 1..<max(2, pages), using: &generator) * pageSize))
        }
        if state.isReadable { made.expected = try committedState(folder, database: db) }
        if state == .readOnlyFolder {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
            made.runAsNobody = true
        }
        return made
    }

    func makeDatabase(_ db: String, rows: Int, wal: Bool) throws {
        try sqlcipherOK(db, """
            \(keySQL)
            \(wal ? "PRAGMA journal_mode = WAL;" : "")
            CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, price REAL, payload BLOB);
            CREATE INDEX items_name ON items(name);
            CREATE TABLE [odd "name](x);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO items(name, price, payload) SELECT 'item ' || i, i * 0.5, randomblob(40 + i % 300) FROM n;
            INSERT INTO [odd "name] VALUES ('x'), (NULL), (-0.5);
            """)
    }

    /// One to four committed transactions: inserts, updates and deletes.
    func randomChanges(using generator: inout SeededGenerator, rows: Int) -> String {
        (0..<Int.random(in: 1...4, using: &generator)).map { step in
            let pick = Int.random(in: 1...rows, using: &generator)
            switch Int.random(in: 0...2, using: &generator) {
            case 0: return "INSERT INTO items(name, price, payload) VALUES ('added \(step)', \(pick), randomblob(\(pick % 2000)));"
            case 1: return "UPDATE items SET name = 'changed \(step)' WHERE id % \(pick % 7 + 2) = 0;"
            default: return "DELETE FROM items WHERE id > \(pick); INSERT INTO [odd \"name] VALUES (\(step));"
            }
        }.joined(separator: " ")
    }

    func overwrite(_ file: String, at offset: Int, count: Int, using generator: inout SeededGenerator) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        handle.write(Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    /// Changes the byte at `offset` to another value.
    func flipByte(_ file: String, at offset: Int, using generator: inout SeededGenerator) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let byte = try handle.read(upToCount: 1)?.first ?? 0
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: [byte ^ UInt8.random(in: 1...255, using: &generator)])
    }

    func release(_ made: inout MadeState) {
        guard let (process, input) = made.holder else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        made.holder = nil
    }
}
