import Foundation
import XCTest

extension CLITestCase {
    /// Leaves `db` as a writer killed in WAL mode leaves it: `sql` run on a live copy (one
    /// that held `db`'s commits so far) with its transaction committed but not checkpointed,
    /// the main file and its -wal copied while the writer holds them, and the writer's -shm
    /// only when `staleSharedMemory` (no process holds it afterwards). The live copy's files
    /// are removed.
    func leaveAsKilledWALWriter(_ db: String, keySQL: String, sql: String, staleSharedMemory: Bool) throws {
        let live = (db as NSString).deletingLastPathComponent + "/live.db"
        try FileManager.default.moveItem(atPath: db, toPath: live)
        let (holder, input) = try startShellHolding(live, keySQL + " PRAGMA wal_autocheckpoint = 0; " + sql)
        try FileManager.default.copyItem(atPath: live, toPath: db)
        try FileManager.default.copyItem(atPath: live + "-wal", toPath: db + "-wal")
        if staleSharedMemory { try FileManager.default.copyItem(atPath: live + "-shm", toPath: db + "-shm") }
        try? input.fileHandleForWriting.close()
        holder.waitUntilExit()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: live + suffix) }
    }
}
