import Foundation
import TestSupport
import XCTest

/// `cipherctl recover` over a seeded sweep of damaged pages of every kind: a damaged leaf page
/// loses exactly its rows, other pages lose none, the new file is encrypted with the new key,
/// and no plaintext is left anywhere beside it.
final class RecoverCommandTests: CLITestCase {
    private let keys = ["K": "recover key", "K2": "recovered key"]
    private let marker = "PLAINTEXT-MARKER"

    func testADamagedPageOfAnyKindLosesOnlyTheRowsOnThatLeaf() throws {
        let (generator, seed) = SeededGenerator.forSweep("recover sweep", variable: "CIPHERCTL_RECOVER_SEED")
        var random = generator
        let pristine = path("pristine.db")
        try sqlcipherOK(pristine, """
            PRAGMA key = 'recover key';
            CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, big BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO t(v, big) SELECT '\(marker) ' || i, CASE WHEN i % 500 = 0 THEN randomblob(9000) END FROM n;
            CREATE INDEX t_v ON t(v);
            """)
        let pages = try sqlcipherOK(pristine, "PRAGMA key = 'recover key'; SELECT pageno, name, pagetype, ncell FROM dbstat ORDER BY pageno;")
            .split(separator: "\n").dropFirst().map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        let kinds = Dictionary(grouping: pages, by: { "\($0[1]) \($0[2])" })
        print("page kinds: " + kinds.map { "\($0.key): \($0.value.count)" }.sorted().joined(separator: ", "))
        var chosen = kinds.values.map { $0.randomElement(using: &random)! }
        chosen += (0..<sweepCases("CIPHERCTL_RECOVER_CASES", quick: 4)).map { _ in pages.randomElement(using: &random)! }
        for (trial, page) in chosen.enumerated() {
            let number = Int(page[0])!, leafOfT = page[1] == "t" && page[2] == "leaf"
            let damaged = path("damaged-\(trial).db"), saved = path("saved-\(trial).db")
            try FileManager.default.copyItem(atPath: pristine, toPath: damaged)
            try flip(damaged, page: number, random: &random)
            let result = try cipherctl(["recover", damaged, saved, "--key-env", "K", "--to-key-env", "K2", "--json"], environment: keys)
            let label = "seed \(seed), page \(number) (\(page[1]) \(page[2]))"
            XCTAssertEqual(result.code, 0, "\(label): \(result.stderr)")
            let report = try jsonObject(result.stdout)
            XCTAssertEqual(report["lost_pages"] as? [Int], [number], label)
            let counts = try rows(saved)
            if leafOfT {
                XCTAssertEqual(counts.t, 3000 - Int(page[3])!, "\(label): exactly the leaf's rows are lost")
            } else if number != 1 {
                XCTAssertGreaterThanOrEqual(counts.t + counts.lost, 3000, "\(label): no row lost")
            }
            XCTAssertNil(try Data(contentsOf: URL(fileURLWithPath: saved)).range(of: Data(marker.utf8)), "\(label): the new file is encrypted")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasSuffix(".db") }, [], "nothing but databases")
    }

    func testAnExistingDestinationOrAWrongKeyChangesNothing() throws {
        let source = try makeShellDatabase("a.db", key: "recover key", rows: 20)
        let existing = try writeFile("exists.db", "keep me")
        let taken = try cipherctl(["recover", source, existing, "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        XCTAssertEqual(taken.code, 5, taken.stderr)
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "keep me")
        let wrong = try cipherctl(["recover", source, path("new.db"), "--key-env", "K2", "--to-key-env", "K2"], environment: keys)
        XCTAssertEqual(wrong.code, 3, wrong.stderr)
        // A destination folder that does not exist is named, not the temporary copy's name.
        let nowhere = try cipherctl(["recover", source, path("none/new.db"), "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        XCTAssertEqual(nowhere.code, 5, nowhere.stderr)
        XCTAssertTrue(nowhere.stderr.hasPrefix("cipherctl: error: cannot access '\(path("none"))': the directory is not writable"), nowhere.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["a.db", "exists.db"])
    }

    func testVirtualTablesComeBackWithTheirRowsAndADamagedFullTextIndexIsRebuilt() throws {
        let source = path("virtual.db")
        try sqlcipherOK(source, """
            PRAGMA key = 'recover key';
            CREATE VIRTUAL TABLE f USING fts5(body);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
            INSERT INTO f SELECT 'doc ' || i || ' word' || (i % 97) || ' ' || hex(randomblob(20)) FROM n;
            CREATE VIRTUAL TABLE r USING rtree(id, x0, x1, y0, y1);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500) INSERT INTO r SELECT i, i, i + 1, i * 2, i * 2 + 1 FROM n;
            CREATE TABLE t(x); INSERT INTO t VALUES (1);
            """)
        let whole = path("whole.db")
        let result = try cipherctl(["recover", source, whole, "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("no page lost"), result.stdout)
        XCTAssertEqual(try contentChecksum(whole, keySQL: "PRAGMA key = 'recovered key';"), try contentChecksum(source, keySQL: "PRAGMA key = 'recover key';"))
        let checks = "SELECT count(*) FROM f WHERE f MATCH 'word5'; SELECT count(*) FROM r WHERE x0 > 100 AND x1 < 200; SELECT rtreecheck('r'); INSERT INTO f(f) VALUES ('integrity-check');"
        XCTAssertEqual(try sqlcipherOK(whole, "PRAGMA key = 'recovered key'; " + checks), try sqlcipherOK(source, "PRAGMA key = 'recover key'; " + checks))

        // A lost leaf of the FTS table's content: its index is made again from the rows kept.
        let leaf = try XCTUnwrap(Int(try sqlcipherOK(source, "PRAGMA key = 'recover key'; SELECT pageno FROM dbstat WHERE name = 'f_content' AND pagetype = 'leaf' LIMIT 1 OFFSET 3;")
            .split(separator: "\n").last ?? ""))
        let damaged = path("virtual-damaged.db"), saved = path("virtual-saved.db")
        try FileManager.default.copyItem(atPath: source, toPath: damaged)
        var random = SeededGenerator(seed: 1)
        try flip(damaged, page: leaf, random: &random)
        let repaired = try cipherctl(["recover", damaged, saved, "--key-env", "K", "--to-key-env", "K2", "--json"], environment: keys)
        XCTAssertEqual(repaired.code, 0, repaired.stderr)
        XCTAssertEqual(try jsonObject(repaired.stdout)["rebuilt_indexes"] as? [String], ["f"])
        let kept = try sqlcipherOK(saved, """
            PRAGMA key = 'recovered key';
            INSERT INTO f(f) VALUES ('integrity-check');
            SELECT (SELECT count(*) FROM f WHERE f MATCH 'word5') = (SELECT count(*) FROM f_content WHERE c0 LIKE '% word5 %'), (SELECT count(*) FROM f) < 2000;
            """)
        XCTAssertEqual(kept.split(separator: "\n").last, "1|1", "the index finds exactly the rows kept")
    }

    func testATruncatedFileCountsThePagesPastItsEndAsLostAndNamesTheRowsOnThem() throws {
        let source = path("long.db")
        try sqlcipherOK(source, """
            PRAGMA key = 'recover key';
            CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, big BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
            INSERT INTO t(v, big) SELECT 'row ' || i, CASE WHEN i % 200 = 0 THEN randomblob(9000) END FROM n;
            CREATE TABLE u(x); INSERT INTO u VALUES (1), (2);
            """)
        let pages = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: source)[.size] as? Int) / 4096
        try FileHandle(forUpdatingAtPath: source).map { try $0.truncate(atOffset: UInt64(pages / 2 * 4096)); try $0.close() }
        let result = try cipherctl(["recover", source, path("saved.db"), "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("\(pages - pages / 2) of \(pages) pages lost (\(pages / 2 + 1)-\(pages))"), result.stdout)
        XCTAssertTrue(result.stdout.contains("table u: page \(pages); missing from it: every row"), result.stdout)
        XCTAssertTrue(result.stdout.contains(" and up"), "the rows past the cut are named by rowid: \(result.stdout)")
    }

    func testATruncatedFileWithoutItsFirstPageCountsThePagesItsTreesPointAtPastTheEnd() throws {
        let source = path("long.db")
        try sqlcipherOK(source, """
            PRAGMA key = 'recover key';
            CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t(v) SELECT 'row ' || i FROM n;
            """)
        let pages = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: source)[.size] as? Int) / 4096
        let salt = try FileHandle(forReadingFrom: URL(fileURLWithPath: source)).readData(ofLength: 16).map { String(format: "%02x", $0) }.joined()
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: source))
        try handle.truncate(atOffset: UInt64(pages / 2 * 4096))
        try handle.seek(toOffset: 0)
        handle.write(Data(count: 4096))
        try handle.close()
        let result = try cipherctl(["recover", source, path("saved.db"), "--key-env", "K", "--to-key-env", "K2", "--salt", salt, "--json"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        // Only the root, on a page still there, points at the last leaf: all past the cut are known missing.
        XCTAssertEqual(try jsonObject(result.stdout)["lost_pages"] as? [Int], [1] + Array(pages / 2 + 1...pages))
    }

    func testAWALFrameFailingItsChecksumDropsTheCommitsFromItOnAndSaysSo() throws {
        let source = try makeShellDatabase("wal.db", key: "recover key", rows: 200, extraSQL: "PRAGMA journal_mode = WAL;")
        let (holder, input) = try startShellHolding(source, """
            PRAGMA key = 'recover key'; PRAGMA wal_autocheckpoint = 0;
            INSERT INTO items(name) VALUES ('first commit');
            INSERT INTO items(name) VALUES ('second commit');
            """)
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        try? input.fileHandleForWriting.close()
        let wal = try XCTUnwrap(FileHandle(forUpdatingAtPath: source + "-wal"))
        try wal.seek(toOffset: 32 + 24 + 200)
        let byte = try XCTUnwrap(wal.readData(ofLength: 1).first)
        try wal.seek(toOffset: 32 + 24 + 200)
        wal.write(Data([byte ^ 0xFF]))
        try wal.close()
        let copy = path("copy.db")
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: source + suffix, toPath: copy + suffix) }
        XCTAssertEqual(try sqlcipherOK(copy, "PRAGMA key = 'recover key'; SELECT count(*) FROM items;").split(separator: "\n").last, "200", "the shell drops them too")
        let result = try cipherctl(["recover", source, path("saved.db"), "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("WAL frame 1 is damaged (its salts or checksum): the commits from it on are lost"), result.stdout)
        XCTAssertTrue(result.stdout.contains("items: 200 rows"), "as SQLite reads it, without the WAL's commits: \(result.stdout)")
    }

    func testAShellWhoseRecoveryFailsIsNamedAndLeavesNothing() throws {
        let source = try makeShellDatabase("a.db", key: "recover key", rows: 20)
        let bin = path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\nexit 14\n".write(toFile: bin + "/sqlcipher", atomically: true, encoding: .utf8)
        chmod(bin + "/sqlcipher", 0o755)
        let result = try cipherctl(["recover", source, path("new.db"), "--key-env", "K", "--to-key-env", "K2"], environment: keys.merging(["PATH": bin]) { $1 })
        XCTAssertEqual(result.code, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("the sqlcipher shell (\(bin)/sqlcipher) failed to run SQLite's .recover (exit status 14)"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["a.db", "bin"])
    }

    /// A shell that exits 0 but prints only the first N bytes of SQLite's recovery (N swept,
    /// the ends included): only a cut that keeps the SQL through its COMMIT writes a database,
    /// with every row; any other is refused with one line, naming the shell, and leaves
    /// nothing beside the source.
    func testAShellThatStopsBeforeItsCommitAndExitsZeroWritesNothing() throws {
        let (generator, seed) = SeededGenerator.forSweep("recover cut SQL sweep", variable: "CIPHERCTL_RECOVER_SEED")
        var random = generator
        let source = try makeShellDatabase("a.db", key: "recover key", rows: 20)
        let real = try XCTUnwrap(
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/sqlcipher" }
                .first { FileManager.default.isExecutableFile(atPath: $0) }, "the sqlcipher shell is on PATH")
        let (bin, whole) = (path("bin"), path("whole.sql"))
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let wrapper = bin + "/sqlcipher"
        func cut(at bytes: Int) throws {
            try "#!/bin/sh\n'\(real)' \"$@\" > '\(whole)' || exit 9\n/usr/bin/head -c \(bytes) '\(whole)'\nexit 0\n"
                .write(toFile: wrapper, atomically: true, encoding: .utf8)
            chmod(wrapper, 0o755)
        }
        try cut(at: 0)
        _ = try cipherctl(["recover", source, path("probe.db"), "--key-env", "K", "--to-key-env", "K2"], environment: keys.merging(["PATH": bin]) { $1 })
        let sql = try Data(contentsOf: URL(fileURLWithPath: whole))
        XCTAssertTrue(String(decoding: sql, as: UTF8.self).hasSuffix("COMMIT;\n"), "SQLite's recovery ends with its COMMIT")
        let cuts = [0, 1, sql.count - 3, sql.count - 2, sql.count - 1, sql.count]
            + (0..<sweepCases("CIPHERCTL_RECOVER_CASES", quick: 6)).map { _ in Int.random(in: 2..<sql.count - 3, using: &random) }
        for bytes in cuts {
            let context = "seed \(seed), the SQL cut at byte \(bytes) of \(sql.count)"
            try cut(at: bytes)
            let destination = path("new-\(bytes).db")
            let result = try cipherctl(["recover", source, destination, "--key-env", "K", "--to-key-env", "K2"], environment: keys.merging(["PATH": bin]) { $1 })
            let kept = String(decoding: sql.prefix(bytes), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if kept.hasSuffix("COMMIT;") || kept.hasSuffix("COMMIT") {
                XCTAssertEqual(result.code, 0, "\(context): \(result.stderr)")
                XCTAssertEqual(try sqlcipherOK(destination, "PRAGMA key = 'recovered key'; SELECT count(*) FROM items;").split(separator: "\n").last, "20", context)
                try FileManager.default.removeItem(atPath: destination)
            } else {
                XCTAssertEqual(result.code, 1, "\(context): \(result.stderr)")
                XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(context): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: "), "\(context): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("the sqlcipher shell (\(wrapper)) exited 0, but SQLite's recovery ended before its COMMIT"), "\(context): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasSuffix("; nothing was written\n"), "\(context): \(result.stderr)")
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["a.db", "bin", "whole.sql"], context)
        }
        try cut(at: 0)
        let none = try cipherctl(["recover", source, path("none.db"), "--key-env", "K", "--to-key-env", "K2"], environment: keys.merging(["PATH": bin]) { $1 })
        XCTAssertTrue(none.stderr.contains("the sqlcipher shell (\(wrapper)) exited 0, but SQLite's recovery ended before its COMMIT (no SQL at all)"), none.stderr)
    }

    /// The recovered database keeps the source's journal mode, WAL or rollback, and nothing
    /// is left beside it.
    func testTheRecoveredDatabaseKeepsTheSourcesJournalModeAndNothingIsBesideIt() throws {
        for mode in ["wal", "delete"] {
            let source = try makeShellDatabase("\(mode).db", key: "recover key", rows: 30, extraSQL: "PRAGMA journal_mode = \(mode.uppercased());")
            let saved = path("\(mode)-saved.db")
            let result = try cipherctl(["recover", source, saved, "--key-env", "K", "--to-key-env", "K2"], environment: keys)
            XCTAssertEqual(result.code, 0, result.stderr)
            XCTAssertEqual(try sqlcipherOK(saved, "PRAGMA key = 'recovered key'; PRAGMA journal_mode;").split(separator: "\n").last.map(String.init), mode)
            XCTAssertFalse(FileManager.default.fileExists(atPath: saved + "-wal") || FileManager.default.fileExists(atPath: saved + "-shm"), mode)
        }
    }

    func testTheDestinationKeyHintOffersOnlyOptionsRecoverTakes() throws {
        let source = try makeShellDatabase("a.db", key: "recover key", rows: 5)
        let result = try cipherctl(["recover", source, path("new.db"), "--key-env", "K"], environment: keys)
        XCTAssertEqual(result.code, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("--to-key-env"), result.stderr)
        XCTAssertFalse(result.stderr.contains("--plaintext"), result.stderr)
    }

    func testTextThatIsNotValidUTF8ComesBackWithItsBytes() throws {
        let source = path("bytes.db"), saved = path("bytes-saved.db")
        let values = ["ff41", "c3", "636166c3a9", "80", "f4908080"]
        try sqlcipherOK(source, "PRAGMA key = 'recover key'; CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT);"
            + values.enumerated().map { " INSERT INTO t VALUES (\($0.offset), CAST(x'\($0.element)' AS TEXT));" }.joined())
        let result = try cipherctl(["recover", source, saved, "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        let read = try sqlcipherOK(saved, "PRAGMA key = 'recovered key'; SELECT lower(hex(s)) || ' ' || typeof(s) FROM t ORDER BY id;").split(separator: "\n").dropFirst()
        XCTAssertEqual(read.map(String.init), values.map { $0 + " text" })
    }

    func testAUTF16SourceKeepsItsEncodingAndNamesTheTableThatLostALeafAndTheRowsItLost() throws {
        for encoding in ["UTF-16le", "UTF-16be"] {
            let source = path("\(encoding).db"), saved = path("\(encoding)-saved.db")
            try sqlcipherOK(source, """
                PRAGMA key = 'recover key'; PRAGMA encoding = '\(encoding)';
                CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO t SELECT i, 'row ' || i FROM n;
                """)
            let leaf = try XCTUnwrap(Int(try sqlcipherOK(source, "PRAGMA key = 'recover key'; SELECT pageno FROM dbstat WHERE name = 't' AND pagetype = 'leaf' LIMIT 1 OFFSET 2;")
                .split(separator: "\n").last ?? ""))
            var random = SeededGenerator(seed: 7)
            try flip(source, page: leaf, random: &random)
            let result = try cipherctl(["recover", source, saved, "--key-env", "K", "--to-key-env", "K2", "--json"], environment: keys)
            XCTAssertEqual(result.code, 0, result.stderr)
            let losses = try jsonObject(result.stdout)["losses"] as? [[String: Any]] ?? []
            XCTAssertEqual(losses.first?["owner"] as? String, "table t", "\(encoding): \(result.stdout)")
            let kept = try rows(saved).t, lostRowids = (losses.first?["rowids"] as? [[String: Int]])?.first
            XCTAssertEqual(2000 - kept, (lostRowids?["to"] ?? 0) - (lostRowids?["from"] ?? 1) + 1, "\(encoding): the rows missing are the range reported")
            XCTAssertEqual(try sqlcipherOK(saved, "PRAGMA key = 'recovered key'; PRAGMA encoding;").split(separator: "\n").last, Substring(encoding),
                           "the recovered database keeps the source's text encoding")
        }
    }

    /// Changes one byte of page `number`'s encrypted body, so it fails its HMAC.
    private func flip(_ database: String, page number: Int, random: inout SeededGenerator) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: database))
        defer { try? handle.close() }
        let offset = UInt64((number - 1) * 4096 + Int.random(in: 32..<3900, using: &random))
        try handle.seek(toOffset: offset)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: offset)
        handle.write(Data([byte ^ 0x5A]))
    }

    private func rows(_ database: String) throws -> (t: Int, lost: Int) {
        let out = try sqlcipherOK(database, """
            PRAGMA key = 'recovered key';
            SELECT (SELECT count(*) FROM sqlite_schema WHERE name = 't'), (SELECT count(*) FROM sqlite_schema WHERE name = 'lost_and_found');
            """).split(separator: "\n").last.map { $0.split(separator: "|").map { Int($0) ?? 0 } } ?? []
        func count(_ table: String) throws -> Int {
            Int(try sqlcipherOK(database, "PRAGMA key = 'recovered key'; SELECT count(*) FROM \(table);").split(separator: "\n").last ?? "0") ?? 0
        }
        return (out.first == 1 ? try count("t") : 0, out.last == 1 ? try count("lost_and_found") : 0)
    }
}
