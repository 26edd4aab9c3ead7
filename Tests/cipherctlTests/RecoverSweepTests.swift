import Foundation
import TestSupport
import XCTest

/// `cipherctl recover` against an oracle that shares none of its code: for each damaged or
/// truncated copy of a small database, what must survive is worked out from the undamaged
/// copy by the `sqlcipher` shell (`dbstat` says which table owns each page, which leaf holds
/// how many rows and which cell each overflow page continues), and recover's report and
/// the rows of the new file (read by the shell) must agree with it: the lost pages are the
/// damaged ones, every row is kept, in `lost_and_found`, or on a lost leaf (its rowid in a
/// reported range), rows kept equal the source's but for the values reported cut short,
/// and nothing is left beside the files.
final class RecoverSweepTests: CLITestCase {
    private let keys = ["K": "recover key", "K2": "recovered key"]
    private let marker = "SWEEP-PLAINTEXT"
    /// Each table's columns after the rowid, which tells its rows apart in `lost_and_found` (`nfield`).
    private let tables = [("a", ["v", "big"]), ("b", ["w", "n1", "n2"])]

    private var casesRun = 0
    private var disagreements: [String] = []

    func testTruncationAtEveryPageBoundaryLosesExactlyThePagesPastTheEnd() throws {
        let (generator, seed) = SeededGenerator.forSweep("recover truncation sweep", variable: "CIPHERCTL_RECOVER_SWEEP_SEED")
        var random = generator
        // Scripts/soak widens it to more databases, each of another size.
        for base in 0..<max(1, sweepCases("CIPHERCTL_RECOVER_SWEEP_CASES", quick: 6) / 6) {
            let pristine = try makeSource("pristine-\(base).db", random: &random)
            let layout = try pages(of: pristine)
            for kept in 1..<layout.count {
                let damaged = path("cut-\(base)-\(kept).db")
                try FileManager.default.copyItem(atPath: pristine, toPath: damaged)
                try FileHandle(forUpdatingAtPath: damaged).map { try $0.truncate(atOffset: UInt64(kept * 4096)); try $0.close() }
                try check("seed \(seed), database \(base), cut after page \(kept)", source: damaged, oracle: pristine, layout: layout,
                          lost: Set(kept + 1...layout.count))
            }
        }
        report("truncation")
    }

    func testDamageToAPageOfEveryKindLosesExactlyWhatThatPageHeld() throws {
        let (generator, seed) = SeededGenerator.forSweep("recover damage sweep", variable: "CIPHERCTL_RECOVER_SWEEP_SEED")
        var random = generator
        let pristine = try makeSource("pristine.db", random: &random)
        let layout = try pages(of: pristine)
        let kinds = Dictionary(grouping: layout.values, by: \.kind)
        print("page kinds: " + kinds.map { "\($0.key): \($0.value.count)" }.sorted().joined(separator: ", "))
        var chosen = kinds.keys.sorted().map { [kinds[$0]!.randomElement(using: &random)!.number] }
        chosen += (0..<sweepCases("CIPHERCTL_RECOVER_SWEEP_CASES", quick: 6)).map { _ in
            (0..<Int.random(in: 1...3, using: &random)).map { _ in Int.random(in: 1...layout.count, using: &random) }
        }
        for (trial, numbers) in chosen.enumerated() {
            let damaged = path("damaged-\(trial).db"), zeroed = Bool.random(using: &random)
            try FileManager.default.copyItem(atPath: pristine, toPath: damaged)
            for number in numbers { try damage(damaged, page: number, zeroed: zeroed, random: &random) }
            let label = "seed \(seed), pages \(numbers.map { "\($0) (\(layout[$0]!.kind))" }.joined(separator: ", ")) \(zeroed ? "zeroed" : "random bytes")"
            try check(label, source: damaged, oracle: pristine, layout: layout, lost: Set(numbers))
        }
        report("damage")
    }

    func testAWALAndASQLCipher3SourceAreReadWholeAndTheirDamageReportedLikeAnyOther() throws {
        let (generator, seed) = SeededGenerator.forSweep("recover WAL and SQLCipher 3 sweep", variable: "CIPHERCTL_RECOVER_SWEEP_SEED")
        var random = generator
        // A WAL with committed frames that no checkpoint has copied, as a killed writer leaves it.
        let live = try makeSource("live.db", random: &random, extraSQL: "PRAGMA journal_mode = WAL;")
        let (holder, input) = try startShellHolding(live, """
            PRAGMA key = 'recover key'; PRAGMA wal_autocheckpoint = 0; PRAGMA secure_delete = ON;
            UPDATE a SET v = v || ' in the WAL' WHERE id % 7 = 0;
            INSERT INTO b(w, n1, n2) SELECT w || ' again', n1, n2 FROM b WHERE id % 3 = 0;
            DELETE FROM a WHERE id % 11 = 0;
            """)
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        try? input.fileHandleForWriting.close()
        // The oracle reads the WAL's content from a checkpointed copy, page numbers unchanged.
        let merged = path("merged.db")
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: live + suffix, toPath: merged + suffix) }
        try sqlcipherOK(merged, "PRAGMA key = 'recover key'; PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;")
        let walLayout = try pages(of: merged)
        let inWAL = try walPages(live)
        for (trial, withSHM) in [true, false].enumerated() {
            let source = path("wal-\(trial).db")
            for suffix in withSHM ? ["", "-wal", "-shm"] : ["", "-wal"] { try FileManager.default.copyItem(atPath: live + suffix, toPath: source + suffix) }
            try check("seed \(seed), WAL source\(withSHM ? "" : " without -shm")", source: source, oracle: merged, layout: walLayout, lost: [])
        }
        // A damaged page of the main file that a WAL frame replaces is not lost; one it does not, is.
        let filePages = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: live)[.size] as? Int) / 4096
        let replaced = try XCTUnwrap(inWAL.filter { $0 > 1 && $0 <= filePages }.randomElement(using: &random))
        let kept = try XCTUnwrap(Set(walLayout.keys).subtracting(inWAL).filter { $0 > 1 }.randomElement(using: &random))
        let source = path("wal-damaged.db")
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: live + suffix, toPath: source + suffix) }
        for number in [replaced, kept] { try damage(source, page: number, zeroed: false, random: &random) }
        try check("seed \(seed), WAL source, main-file pages \(replaced) (in the WAL) and \(kept) damaged", source: source, oracle: merged,
                  layout: walLayout, lost: [kept])

        let v3 = try makeSource("v3.db", random: &random, compatibility: 3)
        let v3Layout = try pages(of: v3, compatibility: 3)
        try check("seed \(seed), SQLCipher 3 source", source: v3, oracle: v3, layout: v3Layout, lost: [], compatibility: 3)
        let leaves = v3Layout.values.filter { $0.kind == "a leaf" || $0.kind == "b leaf" }.map(\.number)
        for numbers in [[1], [try XCTUnwrap(leaves.randomElement(using: &random))], [1, Int.random(in: 2...v3Layout.count, using: &random)]] {
            let damaged = path("v3-damaged-\(numbers.map(String.init).joined(separator: "-")).db")
            try FileManager.default.copyItem(atPath: v3, toPath: damaged)
            for number in numbers { try damage(damaged, page: number, zeroed: true, random: &random, pageSize: 1024) }
            if numbers.contains(1) { try checkRefusalWithoutSalt("seed \(seed), SQLCipher 3 source, pages \(numbers) zeroed", source: damaged) }
            try check("seed \(seed), SQLCipher 3 source, pages \(numbers) zeroed", source: damaged, oracle: v3, layout: v3Layout, lost: Set(numbers),
                      compatibility: 3)
        }
        report("WAL and SQLCipher 3")
    }

    // MARK: - The source and its pages

    /// One page as the shell's `dbstat` shows it in the undamaged source.
    private struct Page {
        let number: Int
        let table: String
        /// `a leaf`, `b internal`, `a overflow`, `a_v leaf`, `sqlite_schema leaf`, `free`.
        let kind: String
        let rows: Int
        /// For an overflow page: the leaf page's path and the cell whose value it continues.
        let cell: String?
        let path: String
    }

    /// Two tables (one with values long enough to overflow), an index, and free pages,
    /// zeroed when freed (`secure_delete`) so that no deleted row can come back.
    private func makeSource(_ name: String, random: inout SeededGenerator, compatibility: Int = 4, extraSQL: String = "") throws -> String {
        let database = path(name)
        let rows = Int.random(in: 400...700, using: &random), every = Int.random(in: 30...60, using: &random)
        try sqlcipherOK(database, """
            PRAGMA key = 'recover key';\(compatibility == 3 ? " PRAGMA cipher_compatibility = 3;" : "")
            PRAGMA secure_delete = ON;
            CREATE TABLE a(id INTEGER PRIMARY KEY, v TEXT, big BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO a(v, big) SELECT '\(marker) ' || i, CASE WHEN i % \(every) = 0 THEN randomblob(5000 + i) END FROM n;
            CREATE INDEX a_v ON a(v);
            CREATE TABLE b(id INTEGER PRIMARY KEY, w TEXT, n1, n2);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows / 2))
            INSERT INTO b(w, n1, n2) SELECT printf('%.*c', 40 + i % 50, 'w'), i, i * 0.5 FROM n;
            CREATE TABLE junk(x); INSERT INTO junk SELECT randomblob(3000) FROM a LIMIT 8; DROP TABLE junk;
            \(extraSQL)
            """)
        return database
    }

    private func keySQL(_ compatibility: Int) -> String {
        "PRAGMA key = 'recover key';" + (compatibility == 3 ? " PRAGMA cipher_compatibility = 3;" : "")
    }

    /// Every page of `database`, by number (free pages are those `dbstat` does not list).
    private func pages(of database: String, compatibility: Int = 4) throws -> [Int: Page] {
        let lines = try sqlcipherOK(database, keySQL(compatibility) + " SELECT name, path, pageno, pagetype, ncell FROM dbstat; PRAGMA page_count;")
            .split(separator: "\n").map(String.init).filter { $0 != "ok" }
        var layout: [Int: Page] = [:]
        for line in lines.dropLast() {
            let field = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let cell = field[3] == "overflow" ? String(field[1].split(separator: "+")[0]) : nil
            layout[Int(field[2])!] = Page(number: Int(field[2])!, table: field[0], kind: "\(field[0]) \(field[3])", rows: Int(field[4])!, cell: cell, path: field[1])
        }
        for number in 1...Int(lines.last!)! where layout[number] == nil {
            layout[number] = Page(number: number, table: "", kind: "free", rows: 0, cell: nil, path: "")
        }
        return layout
    }

    /// The pages whose current version is a committed frame of `database`'s WAL, read from
    /// the frames' headers (a frame is 24 bytes of header and a page).
    private func walPages(_ database: String) throws -> Set<Int> {
        let wal = [UInt8](try Data(contentsOf: URL(fileURLWithPath: database + "-wal")))
        var numbers: Set<Int> = [], offset = 32
        while offset + 24 + 4096 <= wal.count {
            numbers.insert(wal[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) })
            offset += 24 + 4096
        }
        return numbers
    }

    private func damage(_ database: String, page number: Int, zeroed: Bool, random: inout SeededGenerator, pageSize: Int = 4096) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: database))
        defer { try? handle.close() }
        // Bytes changed only within page 1's salt would fail no HMAC once --salt gives it: the damage reaches past it.
        let start = Int.random(in: (number == 1 ? 16 : 0)..<pageSize / 2, using: &random), length = Int.random(in: 1...pageSize - start, using: &random)
        try handle.seek(toOffset: UInt64((number - 1) * pageSize + (zeroed ? 0 : start)))
        handle.write(Data(zeroed ? [UInt8](repeating: 0, count: pageSize) : (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }))
    }

    // MARK: - The oracle

    /// Runs recover on `source` and holds its report and the new file against what the
    /// undamaged `oracle` says must survive when the pages `lost` are lost.
    private func check(_ label: String, source: String, oracle: String, layout: [Int: Page], lost: Set<Int>, compatibility: Int = 4) throws {
        casesRun += 1
        let saved = source + ".saved"
        let besideBefore = try beside(source)
        // Damage to page 1 can take the salt with it; a user gives it from a backup, as the sweep does.
        let salt = lost.contains(1) ? ["--salt", try saltHex(oracle)] : []
        let result = try cipherctl(["recover", source, saved, "--key-env", "K", "--to-key-env", "K2", "--json"] + salt, environment: keys)
        guard result.code == 0 else { return disagree(label, "exit \(result.code): \(result.stderr)") }
        let report = try jsonObject(result.stdout)
        if Set(report["lost_pages"] as? [Int] ?? [-1]) != lost { disagree(label, "lost pages \(report["lost_pages"] ?? "none"), damaged \(lost.sorted())") }
        if try beside(source) != besideBefore { disagree(label, "files beside the source changed") }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".saved") && !$0.hasSuffix(".saved") }
        if !leftovers.isEmpty { disagree(label, "left beside the new file: \(leftovers)") }
        if try Data(contentsOf: URL(fileURLWithPath: saved)).range(of: Data(marker.utf8)) != nil { disagree(label, "the new file holds plaintext") }

        // Rows on a lost leaf are lost; the rows of a kept leaf whose overflow chain lost a page are cut short.
        let lostLeafRows = Dictionary(grouping: lost.compactMap { layout[$0] }.filter { $0.kind.hasSuffix(" leaf") }, by: \.table).mapValues { $0.reduce(0) { $0 + $1.rows } }
        let leafByPath = Dictionary(layout.values.filter { $0.kind.hasSuffix(" leaf") }.map { ("\($0.table) \($0.path)", $0.number) }) { first, _ in first }
        let cutCells = Set(lost.compactMap { layout[$0] }.compactMap { page in page.cell.map { "\(page.table) \($0)" } })
            .filter { cell in leafByPath["\(cell.dropLast(3))"].map { !lost.contains($0) } ?? false }
        let reportedCut = report["rows_cut_short"] as? Int ?? -1
        if reportedCut != cutCells.count { disagree(label, "\(reportedCut) rows reported cut short, \(cutCells.count) expected") }
        let ranges = (report["losses"] as? [[String: Any]] ?? []).flatMap { $0["rowids"] as? [[String: Any]] ?? [] }
            .map { (from: $0["from"] as? Int ?? Int.min, to: $0["to"] as? Int ?? Int.max) }

        let counts = try rowCheck(oracle: oracle, saved: saved, compatibility: compatibility)
        var mismatched = 0
        for (table, _) in tables {
            guard let found = counts[table] else { return disagree(label, "no counts for \(table)") }
            mismatched += found.mismatched
            if found.missing.count != lostLeafRows[table] ?? 0 {
                disagree(label, "\(table): \(found.missing.count) rows missing, \(lostLeafRows[table] ?? 0) were on lost leaves")
            }
            if let outside = found.missing.first(where: { id in !ranges.contains { $0.from <= id && id <= $0.to } }) {
                disagree(label, "\(table): rowid \(outside) is missing but in no reported range")
            }
            let reported = (report["tables"] as? [String: Int])?[table] ?? 0
            if reported != found.kept { disagree(label, "\(table): \(reported) rows reported, \(found.kept) in the file") }
        }
        if mismatched != cutCells.count { disagree(label, "\(mismatched) rows differ from the source, \(cutCells.count) were cut short") }
        let redundant = try redundantIndexEntries(saved)
        if redundant > 0 { disagree(label, "lost_and_found holds \(redundant) entries of index a_v whose rows a kept") }
    }

    /// Entries of the index `a_v` (no id, `v` and the rowid) in `lost_and_found` whose row `a`
    /// kept with the same `v`: the index is made again, so they hold nothing that was lost.
    private func redundantIndexEntries(_ saved: String) throws -> Int {
        let columns = try sqlcipherOK(saved, """
            PRAGMA key = 'recovered key'; SELECT name FROM pragma_table_info('lost_and_found') WHERE EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'a');
            """).split(separator: "\n")
        // Without the table (its schema lost) every row is in lost_and_found, and nothing is matched.
        guard columns.contains("c1"), columns.contains("id") else { return 0 }
        let count = try sqlcipherOK(saved, """
            PRAGMA key = 'recovered key';
            SELECT count(*) FROM lost_and_found l JOIN a ON a.id = l.c1 AND a.v = l.c0 WHERE l.id IS NULL AND l.nfield = 2;
            """).split(separator: "\n").last
        return Int(count ?? "") ?? -1
    }

    /// The database's salt, its first 16 bytes, in hex.
    private func saltHex(_ database: String) throws -> String {
        try FileHandle(forReadingFrom: URL(fileURLWithPath: database)).readData(ofLength: 16).map { String(format: "%02x", $0) }.joined()
    }

    /// A page 1 of zeros has lost the salt: without it recover refuses, says so, and leaves nothing.
    private func checkRefusalWithoutSalt(_ label: String, source: String) throws {
        casesRun += 1
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let result = try cipherctl(["recover", source, source + ".refused", "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        if result.code != 3 || !result.stderr.contains("salt") { disagree(label, "without the salt: exit \(result.code): \(result.stderr)") }
        if try FileManager.default.contentsOfDirectory(atPath: directory.path) != before { disagree(label, "a refusal left files") }
    }

    /// Per table: rows in the new file's table, rows missing from it and from `lost_and_found`
    /// (by rowid), and rows kept in either that differ from the source's.
    private func rowCheck(oracle: String, saved: String, compatibility: Int) throws -> [String: (kept: Int, missing: [Int], mismatched: Int)] {
        let schema = try sqlcipherOK(saved, "PRAGMA key = 'recovered key'; SELECT name FROM sqlite_schema WHERE type = 'table';")
        let present = Set(schema.split(separator: "\n").map(String.init))
        let lostColumns = present.contains("lost_and_found")
            ? Set(try sqlcipherOK(saved, "PRAGMA key = 'recovered key'; SELECT name FROM pragma_table_info('lost_and_found');").split(separator: "\n").map(String.init))
            : []
        var result: [String: (kept: Int, missing: [Int], mismatched: Int)] = [:]
        for (table, columns) in tables {
            let inTable = present.contains(table) ? "SELECT id FROM d.\(table)" : "SELECT NULL WHERE 0"
            // lost_and_found holds a row as nfield values after its rowid (c0 is the rowid's NULL).
            let found = lostColumns.contains("c\(columns.count)")
            let inLost = found ? "SELECT id FROM d.lost_and_found WHERE nfield = \(columns.count + 1)" : "SELECT NULL WHERE 0"
            let differs = columns.enumerated().map { "l.c\($0.offset + 1) IS NOT s.\($0.element)" }.joined(separator: " OR ")
            let tableDiffers = columns.map { "t.\($0) IS NOT s.\($0)" }.joined(separator: " OR ")
            let sql = keySQL(compatibility) + """
                 ATTACH '\(saved)' AS d KEY 'recovered key';
                SELECT 'kept', \(present.contains(table) ? "(SELECT count(*) FROM d.\(table))" : "0");
                SELECT 'missing', id FROM main.\(table) WHERE id NOT IN (\(inTable)) AND id NOT IN (\(inLost));
                SELECT 'differs', \(present.contains(table) ? "(SELECT count(*) FROM d.\(table) t LEFT JOIN main.\(table) s USING (id) WHERE s.id IS NULL OR \(tableDiffers))" : "0")
                  + \(found ? "(SELECT count(*) FROM d.lost_and_found l LEFT JOIN main.\(table) s ON s.id = l.id WHERE l.nfield = \(columns.count + 1) AND (s.id IS NULL OR \(differs)))" : "0");
                """
            let lines = try sqlcipherOK(oracle, sql).split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
            result[table] = (
                kept: lines.first { $0.first == "kept" }.flatMap { Int($0[1]) } ?? -1,
                missing: lines.filter { $0.first == "missing" }.compactMap { Int($0[1]) },
                mismatched: lines.first { $0.first == "differs" }.flatMap { Int($0[1]) } ?? -1)
        }
        return result
    }

    /// The files beside `source` (its -wal and -shm) with their bytes.
    private func beside(_ source: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: source + suffix) {
            files[suffix] = try Data(contentsOf: URL(fileURLWithPath: source + suffix))
        }
        return files
    }

    private func disagree(_ label: String, _ what: String) {
        disagreements.append("\(label): \(what)")
        XCTFail("\(label): \(what)")
    }

    private func report(_ sweep: String) {
        print("RecoverSweepTests: \(sweep) sweep: \(casesRun) cases, \(disagreements.count) disagreements")
    }
}
