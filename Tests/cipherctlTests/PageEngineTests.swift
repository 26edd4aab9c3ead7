import Foundation
import TestSupport
import XCTest

/// The page engine against the `sqlcipher` shell, both ways, over the space of layouts it
/// serves (format defaults, page sizes, HMAC on, off and its algorithm, KDF algorithm and
/// count, page-number order, a plaintext header): the engine reads the pages the shell wrote,
/// and the shell reads the pages the engine wrote (encrypted with a new key, or decrypted),
/// with the same rows, through an export, a decryption, a KDF rekey and a key-only rekey. The seed is printed;
/// `CIPHERCTL_ENGINE_SEED` replays a run and `CIPHERCTL_ENGINE_CASES` widens it.
final class PageEngineTests: CLITestCase {
    private let keys = ["K": "engine sweep key", "K2": "engine sweep new key", "K3": "engine sweep third key"]

    /// One layout: the shell's pragmas and cipherctl's options for the same settings.
    private struct Layout: CustomStringConvertible {
        var compat = 4, pageSize = 4096, kdfIter = 1000
        var kdf = "SHA512", hmac: String? = "SHA512", pgno = "le"
        var headerSalt: String?

        var shellSQL: String {
            var sql = "PRAGMA cipher_compatibility = \(compat); PRAGMA cipher_page_size = \(pageSize); PRAGMA kdf_iter = \(kdfIter);"
            sql += " PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_\(kdf);"
            if let hmac {
                sql += " PRAGMA cipher_use_hmac = ON; PRAGMA cipher_hmac_algorithm = HMAC_\(hmac); PRAGMA cipher_hmac_pgno = \(pgno);"
            } else {
                sql += " PRAGMA cipher_use_hmac = OFF;"
            }
            if let headerSalt { sql += " PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'\(headerSalt)'\";" }
            return sql
        }

        var options: [String] {
            var options = ["--compat", "\(compat)", "--page-size", "\(pageSize)", "--kdf-iter", "\(kdfIter)", "--kdf-algorithm", "PBKDF2_HMAC_\(kdf)"]
            options += hmac.map { ["--hmac", "on", "--hmac-algorithm", $0, "--hmac-pgno", pgno] } ?? ["--hmac", "off"]
            if let headerSalt { options += ["--plaintext-header-size", "32", "--salt", headerSalt] }
            return options
        }

        var description: String {
            "compat \(compat), page \(pageSize), kdf \(kdf) \(kdfIter), hmac \(hmac ?? "off") \(pgno)" + (headerSalt == nil ? "" : ", plaintext header")
        }

        static func random(using generator: inout SeededGenerator) -> Layout {
            var layout = Layout()
            layout.compat = Int.random(in: 1...4, using: &generator)
            layout.pageSize = [1024, 2048, 4096, 8192, 16384, 65536].randomElement(using: &generator)!
            layout.kdfIter = Int.random(in: 1...4000, using: &generator)
            layout.kdf = ["SHA1", "SHA256", "SHA512"].randomElement(using: &generator)!
            layout.hmac = ["SHA1", "SHA256", "SHA512", nil].randomElement(using: &generator)!
            layout.pgno = Bool.random(using: &generator) ? "le" : "be"
            if Int.random(in: 0..<4, using: &generator) == 0 {
                layout.headerSalt = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
            }
            return layout
        }
    }

    func testTheEngineAndTheShellReadEachOthersPagesForEveryLayout() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["CIPHERCTL_ENGINE_SEED"] ?? "") ?? UInt64.random(in: 1...999_999)
        let cases = Int(ProcessInfo.processInfo.environment["CIPHERCTL_ENGINE_CASES"] ?? "") ?? 8
        print("PageEngineTests: seed \(seed), \(cases) layouts (CIPHERCTL_ENGINE_SEED=\(seed) replays it)")
        var generator = SeededGenerator(seed: seed)
        for index in 0..<cases {
            let layout = Layout.random(using: &generator)
            let label = "seed \(seed) case \(index): \(layout)"
            let source = try makeShellDatabase("src\(index).db", key: keys["K"]!, rows: 300, extraSQL: layout.shellSQL)
            let expected = try XCTUnwrap(contentChecksum(source, keySQL: "PRAGMA key = '\(keys["K"]!)'; " + layout.shellSQL), label)
            let copy = path("copy\(index).db")
            var toOptions = ["--to-compat", "same"]
            if let salt = layout.headerSalt { toOptions += ["--to-plaintext-header-size", "32", "--to-salt=" + String(salt.reversed())] }
            let exported = try cipherctl(["export", source, copy, "--key-env", "K", "--to-key-env", "K2", "--json"] + layout.options + toOptions, environment: keys)
            XCTAssertEqual(exported.code, 0, "\(label): \(exported.stderr)")
            guard exported.code == 0 else { continue }
            let report = try jsonObject(exported.stdout)
            XCTAssertEqual(report["method"] as? String, "page-engine", label)
            XCTAssertEqual((report["verification"] as? [String: Any])?["proof"] as? String, "pages", label)
            var copyLayout = layout
            copyLayout.headerSalt = layout.headerSalt.map { String($0.reversed()) }
            XCTAssertEqual(try contentChecksum(copy, keySQL: "PRAGMA key = '\(keys["K2"]!)'; " + copyLayout.shellSQL), expected, "\(label): the shell reads the engine's pages")
            if layout.hmac != nil {
                let check = try sqlcipherOK(copy, "PRAGMA key = '\(keys["K2"]!)'; " + copyLayout.shellSQL + " PRAGMA cipher_integrity_check;")
                let problems = check.split(separator: "\n").filter { $0 != "ok" && !$0.hasPrefix("PRAGMA cipher_hmac_pgno is deprecated") }
                XCTAssertEqual(problems, [], "\(label): SQLCipher's own check of every page")
            }

            // A plaintext copy: the engine decrypts every page, and plain SQLite reads it whole.
            let plain = path("plain\(index).db")
            let decrypted = try cipherctl(["export", source, plain, "--key-env", "K", "--plaintext", "--quiet", "--json"] + layout.options, environment: keys)
            XCTAssertEqual(decrypted.code, 0, "\(label) decrypt: \(decrypted.stderr)")
            XCTAssertEqual(try jsonObject(decrypted.stdout)["method"] as? String, "page-engine", label)
            XCTAssertEqual(try contentChecksum(plain, keySQL: ""), expected, "\(label): SQLite reads the decrypted pages")
            XCTAssertEqual(try sqlcipherOK(plain, "PRAGMA integrity_check;"), "ok\n", label)

            // The copy rekeyed with a new KDF count: the engine again, in place of the file.
            let rekeyed = try cipherctl(
                ["rekey", copy, "--key-env", "K2", "--new-key-env", "K3", "--new-kdf-iter", "\(layout.kdfIter + 1)", "--json"] + copyLayout.options,
                environment: keys)
            XCTAssertEqual(rekeyed.code, 0, "\(label) rekey: \(rekeyed.stderr)")
            XCTAssertEqual(try jsonObject(rekeyed.stdout)["method"] as? String, "page-engine", label)
            var rekeyedLayout = copyLayout
            rekeyedLayout.kdfIter += 1
            XCTAssertEqual(try contentChecksum(copy, keySQL: "PRAGMA key = '\(keys["K3"]!)'; " + rekeyedLayout.shellSQL), expected, "\(label): the shell reads the rekeyed file")

            // A key-only rotation of it: the engine once more, same salt and settings.
            let rotated = try cipherctl(["rekey", copy, "--key-env", "K3", "--new-key-env", "K", "--json"] + rekeyedLayout.options, environment: keys)
            XCTAssertEqual(rotated.code, 0, "\(label) key-only rekey: \(rotated.stderr)")
            XCTAssertEqual(try jsonObject(rotated.stdout)["method"] as? String, "page-engine", label)
            XCTAssertEqual(try contentChecksum(copy, keySQL: "PRAGMA key = '\(keys["K"]!)'; " + rekeyedLayout.shellSQL), expected, "\(label): the shell reads the rotated file")
            XCTAssertNil(try contentChecksum(copy, keySQL: "PRAGMA key = '\(keys["K3"]!)'; " + rekeyedLayout.shellSQL), "\(label): the old key is refused")
        }
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    func testVerifyFullAddsSQLitesChecksAndRowCountsToThePageProof() throws {
        let source = try makeShellDatabase("src.db", key: keys["K"]!, rows: 500)
        let proven = try cipherctl(["export", source, path("a.db"), "--key-env", "K", "--to-key-env", "K2", "--json"], environment: keys)
        XCTAssertEqual(proven.code, 0, proven.stderr)
        let pages = try jsonObject(proven.stdout)
        XCTAssertEqual((pages["verification"] as? [String: Any])?["proof"] as? String, "pages")
        XCTAssertEqual((pages["verification"] as? [String: Any])?["pages_proven"] as? Int, pages["pages"] as? Int)
        XCTAssertTrue(pages["rows"] is NSNull, "rows are not counted under the page proof")

        let full = try cipherctl(["export", source, path("b.db"), "--key-env", "K", "--to-key-env", "K2", "--verify", "full", "--json"], environment: keys)
        XCTAssertEqual(full.code, 0, full.stderr)
        let checked = try jsonObject(full.stdout)
        XCTAssertEqual((checked["verification"] as? [String: Any])?["proof"] as? String, "full")
        XCTAssertEqual(checked["rows"] as? Int, 502)

        let text = try cipherctl(["rekey", path("a.db"), "--key-env", "K2", "--new-key-env", "K", "--new-kdf-iter", "5000", "--threads", "1"], environment: keys)
        XCTAssertEqual(text.code, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("pages decrypt back to their source"), text.stdout)
        XCTAssertTrue(text.stdout.contains("old key refused"), text.stdout)
    }

    func testASourceWhoseWALHoldsFramesIsCopiedBySQLitesBackupWithItsNewestRows() throws {
        let source = path("wal.db")
        // The shell copies its own files while it holds them open: a WAL with committed frames.
        try sqlcipherOK(path("live.db"), """
            PRAGMA key = '\(keys["K"]!)';
            PRAGMA journal_mode = WAL;
            PRAGMA wal_autocheckpoint = 0;
            CREATE TABLE t(x);
            INSERT INTO t VALUES (1), (2), (3);
            .shell cp '\(path("live.db"))' '\(source)' && cp '\(path("live.db"))-wal' '\(source)-wal'
            """)
        XCTAssertGreaterThan(FileOperationsProbe.size(source + "-wal"), 0, "the copy has WAL frames")
        let result = try cipherctl(["export", source, path("copy.db"), "--key-env", "K", "--to-key-env", "K2", "--json"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try jsonObject(result.stdout)["method"] as? String, "page-copy")
        XCTAssertEqual(try sqlcipherOK(path("copy.db"), "PRAGMA key = '\(keys["K2"]!)'; SELECT sum(x) FROM t;"), "ok\n6\n")
    }

    /// Plaintext databases whose pages reserve what the destination's IV and HMAC take are
    /// encrypted by the engine, each page proven, over seeded page sizes, formats and HMAC
    /// settings; the shell reads every copy whole. One without the room goes through SQLite.
    func testEncryptingAPlaintextDatabaseWithReservedRoomRunsOnTheEngineAndTheShellReadsIt() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["CIPHERCTL_ENGINE_SEED"] ?? "") ?? UInt64.random(in: 1...999_999)
        print("PageEngineTests (encrypting): seed \(seed) (CIPHERCTL_ENGINE_SEED=\(seed) replays it)")
        var generator = SeededGenerator(seed: seed)
        for index in 0..<6 {
            var layout = Layout.random(using: &generator)
            layout.compat = Int.random(in: 3...4, using: &generator)
            layout.headerSalt = nil
            let hmacBytes = ["SHA1": 20, "SHA256": 32, "SHA512": 64][layout.hmac ?? ""] ?? 0
            let reserve = (16 + hmacBytes + 15) / 16 * 16
            let label = "seed \(seed) case \(index): \(layout), reserve \(reserve)"
            let plain = path("plain\(index).db")
            try sqlcipherOK(plain, """
                .filectrl reserve_bytes \(reserve)
                PRAGMA page_size = \(layout.pageSize);
                CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, payload BLOB);
                CREATE INDEX items_name ON items(name);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
                INSERT INTO items(name, payload) SELECT 'item ' || i, randomblob(90) FROM n;
                PRAGMA user_version = 7;
                """)
            let expected = try XCTUnwrap(contentChecksum(plain, keySQL: ""), label)
            let copy = path("encrypted\(index).db")
            let toOptions = layout.options.map { $0.hasPrefix("--") ? "--to-" + $0.dropFirst(2) : $0 }
            let result = try cipherctl(["export", plain, copy, "--to-key-env", "K", "--json"] + toOptions, environment: keys)
            XCTAssertEqual(result.code, 0, "\(label): \(result.stderr)")
            guard result.code == 0 else { continue }
            XCTAssertEqual(try jsonObject(result.stdout)["method"] as? String, "page-engine", label)
            XCTAssertEqual(try contentChecksum(copy, keySQL: "PRAGMA key = '\(keys["K"]!)'; " + layout.shellSQL), expected, label)
            if layout.hmac != nil {
                let check = try sqlcipherOK(copy, "PRAGMA key = '\(keys["K"]!)'; " + layout.shellSQL + " PRAGMA cipher_integrity_check;")
                XCTAssertEqual(check.split(separator: "\n").filter { $0 != "ok" && !$0.hasPrefix("PRAGMA cipher_hmac_pgno") }, [], label)
            }
        }
        try sqlcipherOK(path("no-room.db"), "CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let other = try cipherctl(["export", path("no-room.db"), path("no-room-copy.db"), "--to-key-env", "K", "--json"], environment: keys)
        XCTAssertEqual(other.code, 0, other.stderr)
        XCTAssertEqual(try jsonObject(other.stdout)["method"] as? String, "sqlcipher-export")
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    func testThreadsAndVerifyTakeOnlyTheirValues() throws {
        let source = try makeShellDatabase("src.db", key: keys["K"]!, rows: 10)
        for bad in [["--threads", "0"], ["--threads", "many"], ["--verify", "some"], ["--verify", "full", "--no-verify"]] {
            let result = try cipherctl(["export", source, path("x.db"), "--key-env", "K", "--to-key-env", "K2"] + bad, environment: keys)
            XCTAssertEqual(result.code, 2, "\(bad): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: "), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.db")), "\(bad)")
        }
    }
}

private enum FileOperationsProbe {
    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }
}
