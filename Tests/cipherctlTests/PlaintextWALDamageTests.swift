import Foundation
import TestSupport
import XCTest

/// A plaintext database's -wal in which a frame fails SQLite's test (a byte of its page, so
/// its checksum fails, or of its salts) before a later commit: SQLite's recovery would drop
/// that frame and every commit after it. Every command that reads or writes it, `open
/// --check` as well, exits 4 naming the frame, and leaves every file as it was, with no -shm
/// beside it or a stale one. The frames, bytes and -shm are drawn from a printed seed
/// (CIPHERCTL_PLAIN_WAL_SEED replays it, CIPHERCTL_PLAIN_WAL_CASES widens it).
final class PlaintextWALDamageTests: CLITestCase {
    private var commands: [[String]] {
        [
            ["open", "p.db"],
            ["open", "p.db", "--check"],
            ["dump", "p.db"],
            ["query", "p.db", "--format", "value", "SELECT count(*) FROM t"],
            ["query", "p.db", "--write", "INSERT INTO t VALUES ('one more')"],
            ["export", "p.db", "enc.db", "--to-key-env", "K"],
        ]
    }

    func testEveryCommandOnAPlaintextWALWhoseCommitsSQLiteWouldDropExits4AndChangesNothing() throws {
        var (generator, seed) = SeededGenerator.forSweep("plaintext WAL damage", variable: "CIPHERCTL_PLAIN_WAL_SEED")
        let cases = sweepCases("CIPHERCTL_PLAIN_WAL_CASES", quick: 3)
        let (frames, pageSize) = try makeBase()
        // The first frame's page with no -shm, the last frame before the commit's salts
        // beside a stale -shm, and random ones.
        var chosen = [(1, false, false), (frames - 1, true, true)]
        chosen += (0..<cases).map { _ in (Int.random(in: 1...(frames - 1), using: &generator), Bool.random(using: &generator), Bool.random(using: &generator)) }
        for (frame, salts, staleShm) in chosen {
            let start = 32 + (frame - 1) * (24 + pageSize)
            let offset = start + (salts ? 8 + Int.random(in: 0...7, using: &generator) : 24 + Int.random(in: 0..<pageSize, using: &generator))
            for command in commands {
                let label = "seed \(seed): frame \(frame) byte \(offset)\(staleShm ? " with a stale -shm" : ""): \(command.joined(separator: " "))"
                try check(command, damagingByteAt: offset, staleShm: staleShm, label: label)
            }
        }
    }

    /// A plaintext WAL database whose -wal holds a commit per frame (one page each), and the
    /// -shm of the shell that wrote it, copied while it held them; returns the frames and page size.
    private func makeBase() throws -> (frames: Int, pageSize: Int) {
        let live = path("live.db")
        try sqlcipherOK(live, "PRAGMA page_size = 1024; PRAGMA journal_mode = WAL; CREATE TABLE t(a TEXT);")
        let inserts = (1...8).map { "INSERT INTO t VALUES ('row \($0)');" }.joined(separator: " ")
        let (holder, input) = try startShellHolding(live, "PRAGMA wal_autocheckpoint = 0; " + inserts)
        for suffix in ["", "-wal", "-shm"] { try FileManager.default.copyItem(atPath: live + suffix, toPath: path("base.db") + suffix) }
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        let frames = ((try FileManager.default.attributesOfItem(atPath: path("base.db-wal"))[.size] as? Int ?? 0) - 32) / (24 + 1024)
        XCTAssertGreaterThanOrEqual(frames, 8, "a frame for each commit")
        return (frames, 1024)
    }

    private func check(_ command: [String], damagingByteAt offset: Int, staleShm: Bool, label: String) throws {
        let folder = path("case-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for suffix in ["", "-wal"] + (staleShm ? ["-shm"] : []) {
            try FileManager.default.copyItem(atPath: path("base.db") + suffix, toPath: folder + "/p.db" + suffix)
        }
        let wal = try FileHandle(forUpdating: URL(fileURLWithPath: folder + "/p.db-wal"))
        try wal.seek(toOffset: UInt64(offset))
        let byte = try wal.read(upToCount: 1) ?? Data([0])
        try wal.seek(toOffset: UInt64(offset))
        try wal.write(contentsOf: Data([byte[0] ^ 0x41]))
        try wal.close()
        let before = try contents(of: folder)
        let result = try run(Self.binary, command, stdin: nil, environment: ["K": "plaintext wal key"], directory: folder)
        XCTAssertEqual(result.code, 4, "\(label): \(result.stdout) \(result.stderr)")
        XCTAssertEqual(result.stderr.components(separatedBy: "error:").count - 1, 1, "\(label): one error line: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains("WAL frame"), "\(label): names the frame: \(result.stderr)")
        XCTAssertEqual(try contents(of: folder), before, "\(label): every file as it was, and no new one")
    }

    private func contents(of folder: String) throws -> [String: Data] {
        var state: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            state[name] = FileManager.default.contents(atPath: folder + "/" + name) ?? Data()
        }
        return state
    }
}
