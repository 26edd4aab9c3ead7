import Foundation
import TestSupport
import XCTest

/// `open` finds the settings of a file written with any page size, KDF count and algorithm,
/// HMAC algorithm or none, and page-number order, from the file and the key alone; a wrong
/// key searches the same space and ends in exit 3. Nothing is ever written: the file keeps
/// its bytes and mtime, and no -wal, -shm or other file appears. The random part of the sweep
/// prints its seed; `CIPHERCTL_SEARCH_SEED` replays a run and `CIPHERCTL_SEARCH_CASES` widens it.
final class SettingsSearchTests: CLITestCase {
    private let keys = ["K": "search key", "W": "not the search key"]

    /// One way of writing a file: the shell's pragmas, and what `open` must report.
    private struct Written {
        var pageSize = 4096
        var kdfIterations = 256_000
        var kdfAlgorithm = "PBKDF2_HMAC_SHA512"
        var hmacAlgorithm: String? = "HMAC_SHA512"
        var bigEndian = false

        var pragmas: String {
            var sql = "PRAGMA cipher_page_size = \(pageSize); PRAGMA kdf_iter = \(kdfIterations); PRAGMA cipher_kdf_algorithm = \(kdfAlgorithm);"
            if let hmacAlgorithm {
                sql += " PRAGMA cipher_hmac_algorithm = \(hmacAlgorithm);"
            } else {
                sql += " PRAGMA cipher_use_hmac = OFF;"
            }
            if bigEndian { sql += " PRAGMA cipher_hmac_pgno = be;" }
            return sql
        }

        var label: String {
            "page \(pageSize), kdf \(kdfIterations) \(kdfAlgorithm), hmac \(hmacAlgorithm ?? "off")\(bigEndian ? " be" : "")"
        }
    }

    /// Each setting changed on its own from SQLCipher 4's defaults, and a few together.
    private var singleChanges: [Written] {
        var list: [Written] = []
        for count in [1, 1000, 4000, 12345, 100_000] { list.append(Written(kdfIterations: count)) }
        for size in [1024, 2048, 8192, 65536] { list.append(Written(pageSize: size)) }
        list.append(Written(hmacAlgorithm: nil))
        // (512-byte pages SQLCipher writes but cannot read back, even without HMAC.)
        list.append(Written(pageSize: 1024, kdfIterations: 4000, hmacAlgorithm: nil))
        list.append(Written(hmacAlgorithm: "HMAC_SHA256"))
        list.append(Written(hmacAlgorithm: "HMAC_SHA1"))
        list.append(Written(kdfAlgorithm: "PBKDF2_HMAC_SHA256"))
        list.append(Written(kdfIterations: 64000, kdfAlgorithm: "PBKDF2_HMAC_SHA1"))
        list.append(Written(bigEndian: true))
        list.append(Written(pageSize: 16384, kdfIterations: 4321, kdfAlgorithm: "PBKDF2_HMAC_SHA256", hmacAlgorithm: "HMAC_SHA1", bigEndian: true))
        return list
    }

    private func randomWritten(_ generator: inout SeededGenerator) -> Written {
        var written = Written()
        written.pageSize = [1024, 2048, 4096, 8192, 16384, 32768, 65536].randomElement(using: &generator)!
        written.kdfIterations = Int.random(in: 1...150_000, using: &generator)
        written.kdfAlgorithm = ["PBKDF2_HMAC_SHA1", "PBKDF2_HMAC_SHA256", "PBKDF2_HMAC_SHA512"].randomElement(using: &generator)!
        written.hmacAlgorithm = ["HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA512", nil].randomElement(using: &generator)!
        written.bigEndian = written.hmacAlgorithm != nil && Bool.random(using: &generator)
        return written
    }

    func testOpenFindsTheSettingsOfEveryFileAndWritesNothing() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["CIPHERCTL_SEARCH_SEED"] ?? "") ?? UInt64.random(in: 1...999_999)
        let cases = Int(ProcessInfo.processInfo.environment["CIPHERCTL_SEARCH_CASES"] ?? "") ?? 4
        print("SettingsSearchTests: seed \(seed), \(cases) random files (CIPHERCTL_SEARCH_SEED=\(seed) replays it)")
        var generator = SeededGenerator(seed: seed)
        let all = singleChanges + (0..<cases).map { _ in randomWritten(&generator) }
        for (number, written) in all.enumerated() {
            let label = "\(written.label) (seed \(seed))"
            let db = path("s\(number).db")
            _ = try sqlcipherOK(db, "PRAGMA key = '\(keys["K"]!)'; \(written.pragmas) CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3);")
            let before = try fingerprint(db)
            let opened = try cipherctl(["open", db, "--key-env", "K", "--json"], environment: keys)
            XCTAssertEqual(opened.code, 0, "\(label): \(opened.stderr)")
            if opened.code == 0 {
                let profile = try jsonObject(opened.stdout)
                let cipher = try XCTUnwrap(profile["cipher"] as? [String: Any], label)
                XCTAssertEqual(cipher["page_size"] as? Int, written.pageSize, label)
                XCTAssertEqual(cipher["kdf_algorithm"] as? String, written.kdfAlgorithm, label)
                XCTAssertEqual(cipher["use_hmac"] as? Bool, written.hmacAlgorithm != nil, label)
                if let hmac = written.hmacAlgorithm { XCTAssertEqual(cipher["hmac_algorithm"] as? String, hmac, label) }
                XCTAssertEqual(profile["format_detected"] as? Bool, true, label)
            }
            let rows = try cipherctl(["query", db, "SELECT count(*) FROM t", "--key-env", "K", "--format", "value"], environment: keys)
            XCTAssertEqual(rows.stdout, "3\n", "\(label): \(rows.stderr)")
            let wrong = try cipherctl(["open", db, "--key-env", "W"], environment: keys)
            XCTAssertEqual(wrong.code, 3, "\(label) with a wrong key: \(wrong.stderr)")
            XCTAssertTrue(wrong.stderr.contains("searched"), wrong.stderr)
            let after = try fingerprint(db)
            XCTAssertEqual(after.0, before.0, "\(label): the search changed the file")
            XCTAssertEqual(after.1, before.1, "\(label): the search touched the file's mtime")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("s\(number).db") }, ["s\(number).db"], label)
        }
    }

    func testVerboseOpenPrintsTheOptionsThatPinTheFoundSettings() throws {
        let db = path("pin.db")
        let written = Written(pageSize: 8192, kdfIterations: 12345, hmacAlgorithm: "HMAC_SHA256")
        _ = try sqlcipherOK(db, "PRAGMA key = '\(keys["K"]!)'; \(written.pragmas) CREATE TABLE t(x);")
        let found = try cipherctl(["open", db, "--key-env", "K", "--verbose"], environment: keys)
        XCTAssertEqual(found.code, 0, found.stderr)
        let line = try XCTUnwrap(found.stderr.split(separator: "\n").first { $0.contains("to pin them: ") }, found.stderr)
        let options = line.components(separatedBy: "to pin them: ")[1].split(separator: " ").map(String.init)
        let pinned = try cipherctl(["open", db, "--key-env", "K", "--json"] + options, environment: keys)
        XCTAssertEqual(pinned.code, 0, pinned.stderr)
        XCTAssertEqual(try jsonObject(pinned.stdout)["settings_searched"] as? Bool, false, "the pinned options open it without a search")
    }

    func testRekeyAndExportKeepTheSettingsTheSearchFound() throws {
        let db = path("keep.db")
        let written = Written(pageSize: 2048, kdfIterations: 4000, hmacAlgorithm: nil)
        _ = try sqlcipherOK(db, "PRAGMA key = '\(keys["K"]!)'; \(written.pragmas) CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);")
        let environment = keys.merging(["N": "new search key"]) { $1 }
        let rekeyed = try cipherctl(["rekey", db, "--key-env", "K", "--new-key-env", "N"], environment: environment)
        XCTAssertEqual(rekeyed.code, 0, rekeyed.stderr)
        XCTAssertEqual(try sqlcipherOK(db, "PRAGMA key = 'new search key'; \(written.pragmas) SELECT count(*) FROM t;"), "ok\n2\n")
        let again = try cipherctl(["rekey", db, "--key-env", "K", "--new-key-env", "N", "--json"], environment: environment)
        XCTAssertEqual(again.code, 0, again.stderr)
        XCTAssertEqual(try jsonObject(again.stdout)["action"] as? String, "already-done")
        let copy = path("keep-copy.db")
        let exported = try cipherctl(["export", db, copy, "--key-env", "N", "--to-key-env", "K", "--to-compat", "same"], environment: environment)
        XCTAssertEqual(exported.code, 0, exported.stderr)
        XCTAssertEqual(try sqlcipherOK(copy, "PRAGMA key = '\(keys["K"]!)'; \(written.pragmas) SELECT count(*) FROM t;"), "ok\n2\n")
        XCTAssertEqual(try temporaryLeftovers(), [])
    }
}
