import Foundation
import TestSupport
import XCTest

/// Every command run on a file system that is already full, beside a database in each state
/// a writer leaves: a write ends with exit 5 and one error line, a read answers, and either
/// way every file is as it was, byte for byte, with nothing made beside it. The space is
/// small enough to sweep whole: states × commands.
final class FullDiskStateTests: CLITestCase {
    private let keys = ["K": "full disk key", "N": "full disk new key"]

    private enum State: String, CaseIterable {
        case rollbackJournal, closedWAL, killedWALWriter, killedWALWriterStaleShm
    }

    func testEveryCommandOnAFullFileSystemLeavesEachStateAsItFoundIt() throws {
        guard getuid() == 0 else { throw XCTSkip("mounting a small tmpfs needs root") }
        let mount = try mountTmpfs("full-fs", size: "1m")
        let rows = try writeFile("rows.csv", "a,b\n1,one\n2,two\n")
        for state in State.allCases {
            let source = path(state.rawValue)
            try make(state, in: source)
            for (name, arguments, writes) in commands(on: mount + "/f.db", rows: rows) {
                let context = "\(state) \(name)"
                try fill(mount, from: source)
                let before = try snapshot(mount)
                let result = try cipherctl(arguments, environment: keys)
                XCTAssertFalse(result.signaled, context)
                if writes {
                    XCTAssertEqual(result.code, 5, "\(context): \(result.stderr)")
                    XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: "), "\(context): \(result.stderr)")
                    XCTAssertLessThanOrEqual(result.stderr.split(separator: "\n").count, 2, "\(context): \(result.stderr)")
                } else {
                    XCTAssertEqual(result.code, 0, "\(context): \(result.stderr)")
                }
                XCTAssertEqual(try snapshot(mount), before, "\(context): the files changed")
            }
        }
    }

    /// Whatever room is left, a rekey either finishes (the new key opens the same rows) or
    /// is refused before it writes (exit 5, every file as it was): the check counts the
    /// pages only the -wal holds, the checkpoint that moves them into the file, and the -shm.
    /// The room left is drawn with a printed seed.
    func testARekeyWithLittleRoomFinishesOrIsRefusedBeforeItWritesWhateverRoomIsLeft() throws {
        guard getuid() == 0 else { throw XCTSkip("mounting a small tmpfs needs root") }
        var (generator, seed) = SeededGenerator.forSweep("rekey room", variable: "CIPHERCTL_ROOM_SEED")
        let mount = try mountTmpfs("room-fs", size: "1400k")
        let database = mount + "/f.db", oldKey = "PRAGMA key = '\(keys["K"]!)';", newKey = "PRAGMA key = '\(keys["N"]!)';"
        for state in [State.rollbackJournal, .closedWAL, .killedWALWriter, .killedWALWriterStaleShm] {
            let source = path("room-" + state.rawValue)
            try make(state, in: source, rows: 700)
            let (rows, bytes) = try contentAndSize(of: source, keySQL: oldKey)
            for _ in 0..<sweepCases("CIPHERCTL_ROOM_CASES", quick: 3) {
                let inPlace = Bool.random(using: &generator), left = Int.random(in: 0...700_000, using: &generator)
                let context = "seed \(seed) \(state)\(inPlace ? " --in-place" : ""), \(left) bytes left"
                try fill(mount, from: source, leaving: left)
                let before = try snapshot(mount)
                let result = try cipherctl(["rekey", database, "--key-env", "K", "--new-key-env", "N"] + (inPlace ? ["--in-place"] : []), environment: keys)
                if result.code == 0 {
                    XCTAssertEqual(try contentChecksum(database, keySQL: newKey), rows, context)
                } else {
                    // Room for the file twice over and a little more is enough by any route.
                    XCTAssertLessThan(left, 2 * bytes + 160_000, "\(context): refused with room enough: \(result.stderr)")
                    XCTAssertEqual(result.code, 5, "\(context): \(result.stderr)")
                    // Refused by the check, or, with next to no room, by the open's own -shm (removed again).
                    let refusals = ["cipherctl: error: not enough free space", "cipherctl: error: ran out of space writing"]
                    XCTAssertTrue(refusals.contains { result.stderr.hasPrefix($0) }, "\(context): \(result.stderr)")
                    XCTAssertEqual(try snapshot(mount), before, "\(context): the files changed")
                }
            }
        }
    }

    /// The rows of the database in `folder` and its size with every page in the file, read
    /// from a copy (the shell's close would checkpoint the original).
    private func contentAndSize(of folder: String, keySQL: String) throws -> (String, Int) {
        let scratch = path("scratch-" + UUID().uuidString)
        try FileManager.default.copyItem(atPath: folder, toPath: scratch)
        let rows = try XCTUnwrap(contentChecksum(scratch + "/f.db", keySQL: keySQL))
        let pages = try sqlcipherOK(scratch + "/f.db", keySQL + " PRAGMA page_count;").split(separator: "\n").last.flatMap { Int($0) } ?? 0
        return (rows, pages * 4096)
    }

    /// The room a rekey asks for grows with the database: a small one on a small file system
    /// (no room for a megabyte more) is rotated by a copy and in place.
    func testASmallDatabaseOnASmallFileSystemIsRekeyedByACopyAndInPlace() throws {
        guard getuid() == 0 else { throw XCTSkip("mounting a small tmpfs needs root") }
        let mount = try mountTmpfs("small-fs", size: "400k")
        try make(.closedWAL, in: path("small"))
        try FileManager.default.copyItem(atPath: path("small") + "/f.db", toPath: mount + "/f.db")
        let database = mount + "/f.db"
        let before = try XCTUnwrap(contentChecksum(database, keySQL: "PRAGMA key = '\(keys["K"]!)';"))
        let copied = try cipherctl(["rekey", database, "--key-env", "K", "--new-key-env", "N"], environment: keys)
        XCTAssertEqual(copied.code, 0, copied.stderr)
        let inPlace = try cipherctl(["rekey", database, "--key-env", "N", "--new-key-env", "K", "--in-place"], environment: keys)
        XCTAssertEqual(inPlace.code, 0, inPlace.stderr)
        XCTAssertEqual(try contentChecksum(database, keySQL: "PRAGMA key = '\(keys["K"]!)';"), before)
    }

    /// A tmpfs of `size` mounted at `name` in the test's folder, unmounted when the test ends.
    private func mountTmpfs(_ name: String, size: String) throws -> String {
        let mount = path(name)
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let mounted = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", mount], stdin: nil, environment: [:])
        guard mounted.code == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(mounted.stderr)") }
        addTeardownBlock { [self] in _ = try? run("/bin/umount", [mount], stdin: nil, environment: [:]) }
        return mount
    }

    /// The commands, each named, with whether it writes (beside the file, or to the full disk).
    private func commands(on database: String, rows: String) -> [(name: String, arguments: [String], writes: Bool)] {
        let key = ["--key-env", "K"], rotate = ["--key-env", "K", "--new-key-env", "N"]
        return [
            ("query --write", ["query", database, "--write", "INSERT INTO t(b) VALUES ('new')"] + key, true),
            ("import", ["import", database, "t2", rows] + key, true),
            ("rekey", ["rekey", database] + rotate, true),
            ("rekey --in-place", ["rekey", database, "--in-place"] + rotate, true),
            ("rekey --low-space", ["rekey", database, "--low-space"] + rotate, true),
            ("export", ["export", database, database + ".copy", "--to-key-env", "N"] + key, true),
            ("query", ["query", database, "SELECT count(*) FROM t"] + key, false),
            ("dump", ["dump", database] + key, false),
            ("open --check", ["open", database, "--check"] + key, false),
        ]
    }

    /// The database of `state` in `folder`, made where there is room: table t with rows, in
    /// the state's journal mode, its -wal holding commits and its -shm as a killed writer
    /// left them.
    private func make(_ state: State, in folder: String, rows: Int = 40) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let db = folder + "/f.db", keySQL = "PRAGMA key = '\(keys["K"]!)';"
        let insert = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) INSERT INTO t(b) SELECT hex(randomblob(40 + i % 90)) FROM n;"
        try sqlcipherOK(db, keySQL + (state == .rollbackJournal ? "" : " PRAGMA journal_mode = WAL;") + " CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT); " + insert)
        guard state == .killedWALWriter || state == .killedWALWriterStaleShm else { return }
        try leaveAsKilledWALWriter(db, keySQL: keySQL, sql: insert, staleSharedMemory: state == .killedWALWriterStaleShm)
    }

    /// `mount` emptied, the files of `source` copied in, and the rest of it filled but for
    /// about `leaving` bytes.
    private func fill(_ mount: String, from source: String, leaving: Int = 0) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: mount) { try FileManager.default.removeItem(atPath: mount + "/" + name) }
        for name in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: mount + "/" + name)
        }
        FileManager.default.createFile(atPath: mount + "/filler", contents: nil)
        let filler = try XCTUnwrap(FileHandle(forWritingAtPath: mount + "/filler"))
        defer { try? filler.close() }
        let page = Data(count: 4096)
        var info = statvfs()
        guard statvfs(mount, &info) == 0 else { throw XCTSkip("statvfs failed") }
        var left = Int(info.f_bavail) * Int(info.f_frsize) - leaving
        while left > 0, (try? filler.write(contentsOf: page)) != nil { left -= page.count }
    }

    /// Every file in `folder` by name, with its bytes.
    private func snapshot(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name != "filler" {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return files
    }
}
