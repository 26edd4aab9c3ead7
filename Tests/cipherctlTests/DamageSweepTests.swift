import Foundation
import TestSupport
import XCTest

/// Damage swept over page positions, formats and journal modes: every writing command and its
/// dry run must exit 4 with one line naming the damage, and leave every file in the folder
/// byte-identical, with no new file. The seed is printed; `CIPHERCTL_DAMAGE_SEED` replays a
/// run and `CIPHERCTL_DAMAGE_CASES` widens it (Scripts/soak runs more).
final class DamageSweepTests: CLITestCase {
    private let key = "damage sweep key"
    private var environment: [String: String] { ["K": key, "K2": "damage sweep new key"] }

    /// A base database: its file name and the layout of its pages.
    private struct Base {
        let name: String
        /// What the shell needs after the key to read it.
        let formatSQL: String
        let pageSize: Int
        let reserve: Int
        let hmacSize: Int
        let wal: Bool

        /// The last byte SQLCipher uses in a page: the reserve ends with padding that nothing
        /// reads, where a changed byte is no damage.
        var usedBytes: Int { pageSize - reserve + 16 + hmacSize }
    }

    private var commands: [[String]] {
        [
            ["rekey", "db.db", "--key-env", "K", "--new-key-env", "K2"],
            ["rekey", "db.db", "--key-env", "K", "--new-key-env", "K2", "--dry-run"],
            ["rekey", "db.db", "--key-env", "K", "--new-key-env", "K2", "--in-place"],
            ["rekey", "db.db", "--key-env", "K", "--new-key-env", "K2", "--low-space"],
            ["rekey", "db.db", "--key-env", "K", "--new-key-env", "K", "--new-page-size", "8192"],
            ["rekey", "db.db", "--key-env", "K", "--new-key-env", "K2", "--new-kdf-iter", "2000"],
            ["export", "db.db", "copy.db", "--key-env", "K", "--to-key-env", "K2"],
            ["export", "db.db", "plain.db", "--key-env", "K", "--plaintext", "--quiet"],
            ["plaintext-header", "db.db", "--size", "32", "--key-env", "K", "--salt-output", "db.salt"],
            ["open", "db.db", "--key-env", "K", "--check"],
        ]
    }

    /// Beside a -wal whose commits SQLite would drop, a write that reads no damaged page
    /// must stop too: its connection's recovery would lose them for good.
    private let walCommands = [["query", "db.db", "--key-env", "K", "--write", "INSERT INTO items(name, body) VALUES ('one more', 'row')"]]

    /// A write that reads every page of the schema, the table and its index: on any of them
    /// it fails, and its rollback must leave no journal beside the file.
    private let deleteEverything = [["query", "db.db", "--key-env", "K", "--write", "DELETE FROM items"]]

    /// `deleteEverything` when it reads a page of `owner`'s (a free page it may not read).
    private func writesReading(_ owner: String?) -> [[String]] {
        owner.map { $0 != "the freelist" } == true ? deleteEverything : []
    }

    func testEveryWritingCommandOnADamagedPageExits4AndLeavesEveryFileAsItWas() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["CIPHERCTL_DAMAGE_SEED"] ?? "") ?? UInt64.random(in: 1...999_999)
        let cases = Int(ProcessInfo.processInfo.environment["CIPHERCTL_DAMAGE_CASES"] ?? "") ?? 3
        print("DamageSweepTests: seed \(seed), \(cases) random pages per base (CIPHERCTL_DAMAGE_SEED=\(seed) replays it)")
        var generator = SeededGenerator(seed: seed)
        var tried = 0
        for base in try makeBases() {
            let pages = (fileSize(path(base.name)) ?? 0) / base.pageSize
            let owners = base.wal ? [:] : try pageOwners(base)
            // One page of every class (each tree's interior, leaf and overflow pages, the
            // freelist), the first, second and last, and random ones.
            var positions = Dictionary(grouping: owners.keys.sorted()) { owners[$0]!.class }.values.compactMap { $0.randomElement(using: &generator) }
            positions += [1, 2, pages] + (0..<cases).map { _ in Int.random(in: 1...pages, using: &generator) }
            // In the WAL base the current version of most pages is a WAL frame: its frames are damaged instead.
            for page in base.wal ? [] : positions.sorted() {
                // Page 1 is damaged past its salt and first cipher block (damage there reads as a wrong key).
                let low = page == 1 ? 32 : 0, high = page == 1 ? base.pageSize - base.reserve - 8 : base.usedBytes - 8
                let offset = (page - 1) * base.pageSize + Int.random(in: low...high, using: &generator)
                try sweepCommands(
                    base: base, file: base.name, offset: offset, label: "\(base.name) page \(page) byte \(offset)", owner: owners[page]?.owner)
                tried += commands.count + writesReading(owners[page]?.owner).count
            }
            if base.wal {
                // Frames before the last commit frame: each is followed by a commit. A byte of
                // the frame's page (its checksum fails) or of its salts, with no -shm or a
                // stale one (no process holds it): the first frame's page without, the last
                // frame's salts with, and random ones.
                let frames = ((fileSize(path(base.name) + "-wal") ?? 0) - 32) / (24 + base.pageSize)
                let chosen = (0..<cases).map { _ in (Int.random(in: 1...(frames - 1), using: &generator), Bool.random(using: &generator), Bool.random(using: &generator)) }
                for (frame, salts, staleShm) in [(1, false, false), (frames - 1, true, true)] + chosen {
                    let start = 32 + (frame - 1) * (24 + base.pageSize)
                    let offset = start + (salts ? 8 + Int.random(in: 0...7, using: &generator) : 24 + Int.random(in: 0...(base.usedBytes - 8), using: &generator))
                    // A page's bytes with the checksums made again: SQLite takes the frame, only its HMAC fails.
                    let resealed = !salts && Bool.random(using: &generator)
                    let label = "\(base.name) WAL frame \(frame) byte \(offset)" + (staleShm ? " with a stale -shm" : "") + (resealed ? ", checksums made again" : "")
                    try sweepCommands(base: base, file: base.name + "-wal", offset: offset, label: label, staleShm: staleShm, resealed: resealed)
                    tried += commands.count + walCommands.count
                }
            }
        }
        let disagreed = testRun?.failureCount ?? 0
        print("DamageSweepTests: \(tried) command runs, \(disagreed) checks disagreed with the file")
    }

    func testATruncatedDatabaseIsNamedAsDamageByEveryWritingCommand() throws {
        let base = try makeBases()[0]
        let size = fileSize(path(base.name)) ?? 0
        for pages in [2, size / base.pageSize - 1] {
            try withCase(base: base) { folder in
                try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/db.db")).truncate(atOffset: UInt64(pages * base.pageSize))
            } check: { result, label in
                XCTAssertTrue(result.stderr.contains("truncated"), "\(label): \(result.stderr)")
            }
        }
    }

    /// A page of zeros, which SQLCipher's pager reads as zeros and its cipher_integrity_check
    /// fails, on one page of every class of each base (and the last): damage to every writing
    /// command, never laundered into a copy that passes every check; and, on a table's page,
    /// to the looks that read every row (`dump`, `diff`; they read no index or free page).
    func testAPageOfZerosIsDamageToEveryCommandThatReadsIt() throws {
        var generator = SeededGenerator(seed: 7)
        for base in try makeBases() where !base.wal {
            let pages = (fileSize(path(base.name)) ?? 0) / base.pageSize
            let owners = try pageOwners(base)
            var positions = Dictionary(grouping: owners.keys.sorted().filter { $0 > 1 }) { owners[$0]!.class }.values.compactMap { $0.randomElement(using: &generator) }
            positions.append(pages)
            let looks = [["dump", "db.db", "--key-env", "K"], ["diff", "db.db", "db.db", "--key-env", "K", "--other-key-env", "K"]]
            for page in Set(positions).sorted() {
                let readByLooks = owners[page].map { $0.owner.hasPrefix("table ") || $0.owner == "the schema" } ?? false
                try withCase(base: base, also: (readByLooks ? looks : []) + writesReading(owners[page]?.owner)) { folder in
                    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: folder + "/db.db"))
                    try handle.seek(toOffset: UInt64((page - 1) * base.pageSize))
                    try handle.write(contentsOf: Data(count: base.pageSize))
                    try handle.close()
                } check: { result, label in
                    XCTAssertTrue(["damaged", "fails its"].contains { result.stderr.contains($0) }, "\(base.name) page \(page) of zeros, \(label): \(result.stderr)")
                }
            }
        }
    }

    // MARK: - Cases

    /// `owner`, when known, is what the error must name the damaged page's owner.
    private func sweepCommands(
        base: Base, file: String, offset: Int, label: String, owner: String? = nil, staleShm: Bool = false, resealed: Bool = false
    ) throws {
        try withCase(base: base, staleShm: staleShm, also: file.hasSuffix("-wal") ? walCommands : writesReading(owner)) { folder in
            let target = folder + "/" + (file.hasSuffix("-wal") ? "db.db-wal" : "db.db")
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: target))
            try handle.seek(toOffset: UInt64(offset))
            let original = try handle.read(upToCount: 8) ?? Data()
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: Data(original.map { $0 ^ 0x5A }))
            try handle.close()
            if resealed {
                var wal = [UInt8](try Data(contentsOf: URL(fileURLWithPath: target)))
                WALChecksums.reseal(&wal, pageSize: base.pageSize)
                try Data(wal).write(to: URL(fileURLWithPath: target))
            }
        } check: { result, label2 in
            XCTAssertTrue(["damaged", "fails its", "WAL's salts"].contains { result.stderr.contains($0) }, "\(label) \(label2): \(result.stderr)")
            if let owner { XCTAssertTrue(result.stderr.contains("(\(owner))"), "\(label) \(label2): names \(owner): \(result.stderr)") }
        }
    }

    /// Copies `base` into a fresh folder, damages it with `damage`, runs every command there
    /// and checks the exit code, the one error line and every file's bytes. `also` adds commands. `staleShm` puts the
    /// -shm of the writer that wrote the WAL base beside it, as a writer killed leaves it.
    private func withCase(
        base: Base, staleShm: Bool = false, also: [[String]] = [], damage: (String) throws -> Void, check: (CommandResult, String) -> Void
    ) throws {
        for command in commands + also {
            let folder = path("case-\(UUID().uuidString)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try FileManager.default.copyItem(atPath: path(base.name), toPath: folder + "/db.db")
            if base.wal { try FileManager.default.copyItem(atPath: path(base.name) + "-wal", toPath: folder + "/db.db-wal") }
            if staleShm { try FileManager.default.copyItem(atPath: path(base.name) + "-shm", toPath: folder + "/db.db-shm") }
            try damage(folder)
            let before = try folderState(folder)
            let result = try run(Self.binary, command, stdin: nil, environment: environment, directory: folder)
            let label = command.prefix(8).joined(separator: " ")
            XCTAssertEqual(result.code, 4, "\(label): \(result.stderr)")
            XCTAssertEqual(result.stderr.components(separatedBy: "error:").count - 1, 1, "\(label): one error line: \(result.stderr)")
            XCTAssertEqual(try folderState(folder), before, "\(label): every file as it was, and no new one")
            check(result, label)
        }
    }

    /// Every file's bytes. Beside a -wal without a -shm none may appear: a damaged frame is
    /// found before any connection, whose open would make one.
    private func folderState(_ folder: String) throws -> [String: Data] {
        var state: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            state[name] = FileManager.default.contents(atPath: folder + "/" + name) ?? Data()
        }
        return state
    }

    /// Each page's owner as the error names it, and its class, from the shell's dbstat (the
    /// oracle for the b-tree walk): `table items` / `index items_name` / `the schema`, and
    /// `the freelist` for the pages no tree holds.
    private func pageOwners(_ base: Base) throws -> [Int: (owner: String, class: String)] {
        let rows = try sqlcipherOK(path(base.name), """
            PRAGMA key = '\(key)';
            \(base.formatSQL)
            SELECT s.pageno, coalesce(m.type, ''), s.name, s.pagetype FROM dbstat s LEFT JOIN sqlite_master m ON m.name = s.name;
            """)
        var owners: [Int: (owner: String, class: String)] = [:]
        for row in rows.split(separator: "\n").map({ $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }) where row.count == 4 {
            guard let page = Int(row[0]) else { continue }
            let owner = row[2] == "sqlite_schema" ? "the schema" : "\(row[1]) \(row[2])"
            owners[page] = (owner, owner + " " + row[3])
        }
        let pages = (fileSize(path(base.name)) ?? 0) / base.pageSize
        for page in 1...pages where owners[page] == nil { owners[page] = ("the freelist", "the freelist") }
        return owners
    }

    // MARK: - Bases

    /// A SQLCipher 4 database in DELETE mode, a SQLCipher 3 one, a SQLCipher 4 one in WAL mode
    /// whose WAL holds two committed transactions, and the same closed (no -wal: a writer that
    /// opens it makes a -wal and a -shm); each with an index, overflow pages and free pages.
    private func makeBases() throws -> [Base] {
        let content = """
            CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, body TEXT);
            CREATE INDEX items_name ON items(name);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
            INSERT INTO items(name, body) SELECT 'item ' || i, CASE WHEN i % 50 = 0 THEN hex(randomblob(3000)) ELSE 'short' END FROM n;
            DELETE FROM items WHERE id BETWEEN 100 AND 140;
            """
        try sqlcipherOK(path("v4.db"), "PRAGMA key = '\(key)';\n" + content)
        try sqlcipherOK(path("v3.db"), "PRAGMA key = '\(key)';\nPRAGMA cipher_compatibility = 3;\n" + content)
        try sqlcipherOK(path("wal.db"), "PRAGMA key = '\(key)';\nPRAGMA journal_mode = WAL;\n" + content)
        // A reader holding the database open keeps the WAL when the writer closes.
        let (holder, input) = try startShellHolding(path("wal.db"), "PRAGMA key = '\(key)';\nSELECT count(*) FROM items;")
        try sqlcipherOK(path("wal.db"), """
            PRAGMA key = '\(key)';
            PRAGMA wal_autocheckpoint = 0;
            UPDATE items SET name = name || ' changed' WHERE id % 3 = 0;
            INSERT INTO items(name, body) VALUES ('late', 'row');
            """)
        try FileManager.default.copyItem(atPath: path("wal.db"), toPath: path("wal-copy.db"))
        try FileManager.default.copyItem(atPath: path("wal.db") + "-wal", toPath: path("wal-copy.db") + "-wal")
        // Its -shm, which no process holds once copied: a stale one, for the cases that ask.
        try FileManager.default.copyItem(atPath: path("wal.db") + "-shm", toPath: path("wal-copy.db") + "-shm")
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        XCTAssertGreaterThan(fileSize(path("wal-copy.db") + "-wal") ?? 0, 32, "the WAL base holds frames")
        XCTAssertNil(fileSize(path("wal.db") + "-wal"), "the last connection's close removed the WAL of the closed base")
        return [
            Base(name: "v4.db", formatSQL: "", pageSize: 4096, reserve: 80, hmacSize: 64, wal: false),
            Base(name: "v3.db", formatSQL: "PRAGMA cipher_compatibility = 3;", pageSize: 1024, reserve: 48, hmacSize: 20, wal: false),
            Base(name: "wal-copy.db", formatSQL: "", pageSize: 4096, reserve: 80, hmacSize: 64, wal: true),
            Base(name: "wal.db", formatSQL: "", pageSize: 4096, reserve: 80, hmacSize: 64, wal: false),
        ]
    }
}

private func fileSize(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
}
