import Foundation
import TestSupport
import XCTest

/// A wrong key costs one settings search, whatever the command: a rekey (by copy, in place,
/// dry run, several databases) searches its old key and its new one in the same pass, as
/// `open` searches its one key. The search reads the file's first 64 KiB once (`FileHead`:
/// the checks that explain a failed search reuse it), so strace counts the searches without
/// timing anything.
/// The message and exit 3 are `open`'s, and every file keeps its bytes and mtime, with nothing
/// beside it. The sweep over searched settings prints its seed; `CIPHERCTL_WRONGKEY_SEED`
/// replays a run and `CIPHERCTL_WRONGKEY_CASES` widens it.
final class WrongKeySearchTests: CLITestCase {
    private let keys = ["K": "wrong key search right key", "W": "wrong key search wrong key", "N": "wrong key search new key"]

    /// The keys, and under Scripts/sanitize no leak check (`tracedEnvironment(_:)`).
    private var tracedEnvironment: [String: String] { tracedEnvironment(keys) }

    /// Runs cipherctl under strace; the result and, for each database, how many times the
    /// settings search read its first 64 KiB.
    private func traced(_ arguments: [String], databases: [String]) throws -> (CommandResult, [Int]) {
        let trace = path("search.trace")
        let result = try run("/usr/bin/strace", ["-f", "-qq", "-y", "-o", trace, "-e", "trace=pread64", Self.binary] + arguments,
                             stdin: nil, environment: tracedEnvironment, timeout: 120)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        try FileManager.default.removeItem(atPath: trace)
        let counts = databases.map { database in lines.filter { $0.contains("<\(database)>") && $0.contains(", 65536, 0) = ") }.count }
        return (result, counts)
    }

    /// The file names in the test's folder, but for the trace.
    private func folder() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "search.trace" }.sorted()
    }

    func testAWrongKeyCostsOneSearchInEveryCommandAndLeavesEveryFileAsItWas() throws {
        try requireStrace()
        let first = try makeShellDatabase("first.db", key: keys["K"]!, rows: 50)
        let second = try makeShellDatabase("second.db", key: keys["K"]!, rows: 50)
        let fingerprints = try [first, second].map(fingerprint)
        let files = try folder()
        let (opened, openSearches) = try traced(["open", first, "--key-env", "W"], databases: [first])
        XCTAssertEqual(opened.code, 3, opened.stderr)
        XCTAssertEqual(openSearches, [1], "a wrong key's open searches once")
        let message = try XCTUnwrap(opened.stderr.split(separator: "\n").first.map(String.init))
        XCTAssertTrue(message.hasPrefix("cipherctl: error: cannot decrypt '\(first)': wrong key") && message.contains("searched"), message)
        let rekey = ["rekey", "--key-env", "W", "--new-key-env", "N"]
        // What each command reads with the wrong key, and how many searches each database costs
        // (diff's second database opens with its right key, in a known format).
        let cases: [(String, [String], [String], [Int], Int32)] = [
            ("rekey", rekey + [first], [first], [1], 3),
            ("rekey --in-place", rekey + [first, "--in-place"], [first], [1], 3),
            ("rekey --dry-run", rekey + [first, "--dry-run"], [first], [1], 3),
            ("rekey of two databases", rekey + [first, second], [first, second], [1, 1], 3),
            ("rekey of two databases --in-place", rekey + [first, second, "--in-place"], [first, second], [1, 1], 3),
            // export's tries of the SQLCipher 1 to 3 files under another PRAGMA cipher (a few
            // PBKDF2 derivations at fixed counts, no settings search) read the same page 1.
            ("export", ["export", first, path("copy.db"), "--key-env", "W", "--to-key-env", "N"], [first], [1], 3),
            ("query", ["query", first, "SELECT 1", "--key-env", "W"], [first], [1], 3),
            ("dump", ["dump", first, "--key-env", "W"], [first], [1], 3),
            ("salt", ["salt", first, "--key-env", "W"], [first], [1], 3),
            ("diff", ["diff", first, second, "--key-env", "W", "--other-key-env", "K"], [first, second], [1, 0], 3),
            ("audit", ["audit", first, "--key-env", "W"], [first], [1], 8),
        ]
        for (label, arguments, databases, expected, code) in cases {
            let (result, searches) = try traced(arguments, databases: databases)
            XCTAssertEqual(result.code, code, "\(label): \(result.stderr)")
            XCTAssertEqual(searches, expected, "\(label): one search a database")
            if code == 3 {
                XCTAssertTrue(result.stderr.hasPrefix(message + "\n"), "\(label): the message is open's: \(result.stderr)")
            }
            XCTAssertEqual(try [first, second].map(fingerprint).map(\.0), fingerprints.map(\.0), "\(label) changed a database")
            XCTAssertEqual(try [first, second].map(fingerprint).map(\.1), fingerprints.map(\.1), "\(label) touched a database's mtime")
            XCTAssertEqual(try folder(), files, "\(label) left a file")
        }
    }

    /// A WAL left with committed frames by a writer that died (no connection holds it): a wrong
    /// key's rekey, by copy or in place, and its open leave the database and the -wal as they
    /// were and make no -shm, where the key tries used to checkpoint the -wal into the file
    /// and delete it; and they read the -wal at most once a key, not once a try.
    func testAWrongKeyLeavesACrashLeftWALAndItsDatabaseAsTheyWere() throws {
        try requireStrace()
        for keepsIndex in [false, true] {
            let db = try makeShellDatabase("wal-\(keepsIndex).db", key: keys["K"]!, rows: 2000)
            let writer = "PRAGMA key = '\(keys["K"]!)';\nPRAGMA journal_mode = WAL;\nPRAGMA wal_autocheckpoint = 0;\n"
                + "UPDATE items SET price = price + 1;\n.shell kill -9 $PPID\n"
            _ = try run("/usr/bin/env", ["sqlcipher", db], stdin: writer, environment: Self.childEnvironment(home: directory.path))
            if !keepsIndex { try? FileManager.default.removeItem(atPath: db + "-shm") }
            let walSize = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: db + "-wal")[.size] as? Int)
            XCTAssertGreaterThan(walSize, 100_000, "the writer left its WAL")
            let before = try [db, db + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
            let files = try folder()
            for (label, arguments, keysTried) in [
                ("rekey", ["rekey", db, "--key-env", "W", "--new-key-env", "N"], 2),
                ("rekey --in-place", ["rekey", db, "--key-env", "W", "--new-key-env", "N", "--in-place"], 2),
                ("open", ["open", db, "--key-env", "W"], 1),
            ] {
                let place = "\(label), -shm \(keepsIndex ? "kept" : "gone")"
                let (result, read) = try tracedWALBytes(arguments, wal: db + "-wal")
                XCTAssertEqual(result.code, 3, "\(place): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: cannot decrypt '\(db)': wrong key"), "\(place): \(result.stderr)")
                XCTAssertEqual(try [db, db + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }, before, "\(place) changed the database or its WAL")
                XCTAssertEqual(try folder(), files, "\(place) made or removed a file")
                XCTAssertLessThanOrEqual(read, keysTried * walSize + 4096, "\(place) read the WAL once a try")
            }
            let rows = try cipherctl(["query", db, "SELECT count(*), sum(price) = 1002500.0 FROM items", "--key-env", "K", "--format", "csv", "--no-header"], environment: keys)
            XCTAssertEqual(rows.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "2000,1", "the right key reads the WAL's rows: \(rows.stderr)")
        }
    }

    /// The right key under settings that differ from the file's only past the key itself, so
    /// that it decrypts page 1's first block (the page size, the HMAC, its key's iterations,
    /// salt mask or page-number order): page 1 fails its HMAC, or without one decrypts to
    /// another header. Three drawn from a printed seed (CIPHERCTL_WRONGSETTINGS_SEED).
    private func rightKeyUnderWrongSettings() -> [(String, [String])] {
        var (generator, _) = SeededGenerator.forSweep("right key, wrong settings", variable: "CIPHERCTL_WRONGSETTINGS_SEED")
        let all: [[String]] = [1024, 2048, 8192, 16384, 65536].map { ["--page-size", "\($0)"] }
            + ["SHA1", "SHA256", "none"].map { ["--hmac-algorithm", $0] }
            + [["--fast-kdf-iter", "\(Int.random(in: 3...64, using: &generator))"], ["--hmac-salt-mask", String(format: "%02x", Int.random(in: 0x3b...0xff, using: &generator))],
               ["--hmac-pgno", "be"], ["--page-size", "8192", "--hmac-algorithm", "SHA1"]]
        return all.shuffled(using: &generator).prefix(3).map { ("K", $0) }
    }

    /// Beside a -wal a killed writer left (its frames, or its header alone), a key that cannot
    /// read the file, found by the search or under settings given (`--compat`, which the right
    /// key with the wrong version is too, or the right key with another page size or HMAC:
    /// `rightKeyUnderWrongSettings`), gets no connection: every command ends in exit 3
    /// with the file, its -wal and the folder as they were. A failed connection used to empty
    /// the -wal into the file and delete it.
    func testAKeyOrGivenSettingsThatCannotReadTheFileLeaveAKilledWritersWALAsItWas() throws {
        let db = try makeShellDatabase("killed.db", key: keys["K"]!, rows: 300)
        let writer = "PRAGMA key = '\(keys["K"]!)';\nPRAGMA journal_mode = WAL;\nPRAGMA wal_autocheckpoint = 0;\n"
            + "UPDATE items SET price = price + 1;\n.shell kill -9 $PPID\n"
        _ = try run("/usr/bin/env", ["sqlcipher", db], stdin: writer, environment: Self.childEnvironment(home: directory.path))
        try? FileManager.default.removeItem(atPath: db + "-shm")
        let frames = try Data(contentsOf: URL(fileURLWithPath: db + "-wal"))
        XCTAssertGreaterThan(frames.count, 4096, "the writer left its WAL")
        for wal in [frames, frames.prefix(32)] {
            try wal.write(to: URL(fileURLWithPath: db + "-wal"))
            let before = try folderListing(directory.path)
            let cases = [("W", [String]()), ("W", ["--compat", "4"]), ("K", ["--compat", "3"]), ("K", ["--compat", "2", "--page-size", "4096"])]
            for (key, settings) in cases + rightKeyUnderWrongSettings() {
                for words in [["open", db], ["query", db, "SELECT 1"], ["export", db, path("out.db"), "--to-key-env", "N"], ["rekey", db, "--new-key-env", "N"]] {
                    let label = "\(words[0]) \(key) \(settings), -wal of \(wal.count) bytes"
                    let result = try cipherctl(words + ["--key-env", key] + settings, environment: keys)
                    XCTAssertEqual(result.code, 3, "\(label): \(result.stderr)")
                    XCTAssertEqual(try folderListing(directory.path), before, label)
                }
            }
        }
    }

    /// A writer killed mid-transaction leaves a hot journal, which a read-write connection
    /// rolls back into the file whatever its key: a key or settings that cannot read page 1
    /// (the file's, or the journal's from before the transaction; the right key under another
    /// page size or HMAC too: `rightKeyUnderWrongSettings`) get no connection, and
    /// every command ends in exit 3 with the folder as it was.
    func testAKeyOrGivenSettingsThatCannotReadTheFileLeaveAKilledWritersHotJournalAsItWas() throws {
        let db = try makeShellDatabase("torn.db", key: keys["K"]!, rows: 300)
        let writer = "PRAGMA key = '\(keys["K"]!)';\nPRAGMA cache_size = 2;\nBEGIN;\nUPDATE items SET price = price + 1;\n.shell kill -9 $PPID\n"
        _ = try run("/usr/bin/env", ["sqlcipher", db], stdin: writer, environment: Self.childEnvironment(home: directory.path))
        let journal = (try? FileManager.default.attributesOfItem(atPath: db + "-journal")[.size] as? Int) ?? 0
        XCTAssertGreaterThan(journal ?? 0, 4096, "the writer left a hot journal")
        let before = try folderListing(directory.path)
        let cases = [("W", [String]()), ("W", ["--compat", "4"]), ("K", ["--compat", "3"]), ("K", ["--kdf-iter", "1000"])]
        for (key, settings) in cases + rightKeyUnderWrongSettings() {
            for words in [["open", db], ["query", db, "--write", "UPDATE items SET price = 0"], ["export", db, path("out.db"), "--to-key-env", "N"],
                          ["rekey", db, "--new-key-env", "N"], ["rekey", db, "--new-key-env", "N", "--in-place"]] {
                let label = "\(words.joined(separator: " ")) \(key) \(settings)"
                let result = try cipherctl(words + ["--key-env", key] + settings, environment: keys)
                XCTAssertEqual(result.code, 3, "\(label): \(result.stderr)")
                XCTAssertEqual(try folderListing(directory.path), before, label)
            }
        }
        let opened = try cipherctl(["open", db, "--key-env", "K", "--counts"], environment: keys)
        XCTAssertEqual(opened.code, 0, opened.stderr)
    }

    /// Runs cipherctl under strace; the result and the bytes it read from `wal`.
    private func tracedWALBytes(_ arguments: [String], wal: String) throws -> (CommandResult, Int) {
        let trace = path("search.trace")
        let result = try run("/usr/bin/strace", ["-f", "-qq", "-y", "-o", trace, "-e", "trace=pread64,read", Self.binary] + arguments,
                             stdin: nil, environment: tracedEnvironment, timeout: 120)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        try FileManager.default.removeItem(atPath: trace)
        let bytes = lines.filter { $0.contains("<\(wal)>") }.compactMap { line in line.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
        return (result, bytes.reduce(0, +))
    }

    /// The new key's part of the one search: over files whose settings only a search finds (a
    /// seeded sweep of KDF algorithm and count, page size and HMAC), a rotation finds the old
    /// key in one search, a rerun finds the new key (already-done) in one search, not two, and a
    /// wrong old key and a new key that is not the file's end in exit 3 after one search, the
    /// file unchanged.
    func testOverSearchedSettingsARerunFindsTheNewKeyAndAWrongKeyEndsInTheSameOneSearch() throws {
        try requireStrace()
        let seed = UInt64(ProcessInfo.processInfo.environment["CIPHERCTL_WRONGKEY_SEED"] ?? "") ?? UInt64.random(in: 1...999_999)
        let cases = Int(ProcessInfo.processInfo.environment["CIPHERCTL_WRONGKEY_CASES"] ?? "") ?? 3
        print("WrongKeySearchTests: seed \(seed), \(cases) files (CIPHERCTL_WRONGKEY_SEED=\(seed) replays it)")
        var generator = SeededGenerator(seed: seed)
        for number in 0..<cases {
            let algorithm = ["PBKDF2_HMAC_SHA1", "PBKDF2_HMAC_SHA256", "PBKDF2_HMAC_SHA512"][number % 3]
            let pragmas = "PRAGMA kdf_iter = \(Int.random(in: 1000...60000, using: &generator)); PRAGMA cipher_kdf_algorithm = \(algorithm); "
                + "PRAGMA cipher_page_size = \([1024, 2048, 8192].randomElement(using: &generator)!); "
                + "PRAGMA cipher_hmac_algorithm = \(["HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA512"].randomElement(using: &generator)!);"
            let label = "\(pragmas) (seed \(seed))"
            let db = path("searched\(number).db")
            _ = try sqlcipherOK(db, "PRAGMA key = '\(keys["K"]!)'; \(pragmas) CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);")
            let arguments = ["rekey", db, "--key-env", "K", "--new-key-env", "N", "--json"]
            let (rotated, first) = try traced(arguments, databases: [db])
            XCTAssertEqual(rotated.code, 0, "\(label): \(rotated.stderr)")
            XCTAssertEqual(first, [1], "\(label): the old key is found by one search")
            let (again, second) = try traced(arguments, databases: [db])
            XCTAssertEqual(again.code, 0, "\(label): \(again.stderr)")
            XCTAssertEqual(again.code == 0 ? try jsonObject(again.stdout)["action"] as? String : nil, "already-done", label)
            XCTAssertEqual(second, [1], "\(label): the old key's search and the new key's are one")
            XCTAssertEqual(try sqlcipherOK(db, "PRAGMA key = '\(keys["N"]!)'; \(pragmas) SELECT count(*) FROM t;"), "ok\n2\n", label)
            let before = try fingerprint(db)
            let (wrong, third) = try traced(["rekey", db, "--key-env", "W", "--new-key-env", "K"], databases: [db])
            XCTAssertEqual(wrong.code, 3, "\(label): \(wrong.stderr)")
            XCTAssertEqual(third, [1], "\(label): neither key, one search")
            XCTAssertEqual(try fingerprint(db).0, before.0, label)
            XCTAssertEqual(try fingerprint(db).1, before.1, label)
        }
        XCTAssertEqual(try folder().filter { !$0.hasPrefix("searched") || $0.contains("-") }, [], "nothing beside the files")
    }
}
