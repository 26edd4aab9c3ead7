import Foundation
import TestSupport
import XCTest

/// Each of the 32 bytes of a -wal's header damaged in turn, beside no -shm or a stale one (a
/// writer killed): SQLite drops a -wal whose header it does not take (magic, version, page
/// size, checksum) and reads the file alone, and a look must read what the shell reads, exit
/// 0, and change no byte. It failed with "locking protocol" (exit 1). The seed is printed;
/// `CIPHERCTL_WAL_HEADER_SEED` replays a run.
final class WALHeaderDamageTests: CLITestCase {
    private let key = "wal header key"

    func testALookReadsWhatTheShellReadsWhicheverHeaderByteIsDamaged() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["CIPHERCTL_WAL_HEADER_SEED"] ?? "") ?? UInt64.random(in: 1...999_999)
        print("WALHeaderDamageTests: seed \(seed) (CIPHERCTL_WAL_HEADER_SEED=\(seed) replays it)")
        var generator = SeededGenerator(seed: seed)
        let base = path("base.db"), keySQL = "PRAGMA key = '\(key)';"
        try sqlcipherOK(base, keySQL + "PRAGMA journal_mode = WAL; CREATE TABLE t(a); INSERT INTO t VALUES (1);")
        try leaveAsKilledWALWriter(base, keySQL: keySQL, sql: "INSERT INTO t VALUES (2); INSERT INTO t VALUES (3);", staleSharedMemory: true)
        for byte in 0..<32 {
            let staleShm = Bool.random(using: &generator), mask = UInt8.random(in: 1...255, using: &generator)
            let label = "header byte \(byte) ^ \(mask)" + (staleShm ? " with a stale -shm" : "")
            let folder = path("case\(byte)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for suffix in ["", "-wal"] + (staleShm ? ["-shm"] : []) { try FileManager.default.copyItem(atPath: base + suffix, toPath: folder + "/d.db" + suffix) }
            let wal = try FileHandle(forUpdating: URL(fileURLWithPath: folder + "/d.db-wal"))
            try wal.seek(toOffset: UInt64(byte))
            let original = try XCTUnwrap(wal.read(upToCount: 1))
            try wal.seek(toOffset: UInt64(byte))
            try wal.write(contentsOf: Data([original[0] ^ mask]))
            try wal.close()
            let before = try state(folder)
            let ours = try cipherctl(["query", folder + "/d.db", "SELECT count(*) FROM t", "--key-env", "K", "--format", "csv", "--no-header"], environment: ["K": key])
            XCTAssertEqual(try state(folder), before, "\(label): every file as it was")
            let copy = path("copy\(byte)")
            try FileManager.default.copyItem(atPath: folder, toPath: copy)
            let shell = try sqlcipherOK(copy + "/d.db", keySQL + "SELECT count(*) FROM t;")
            XCTAssertEqual(ours.code, 0, "\(label): \(ours.stderr)")
            XCTAssertEqual("ok\n" + ours.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "\n", shell, "\(label): the rows the shell reads")
        }
    }

    private func state(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) { files[name] = FileManager.default.contents(atPath: folder + "/" + name) }
        return files
    }
}
