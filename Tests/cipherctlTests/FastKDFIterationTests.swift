import Foundation
import TestSupport
import XCTest

/// `PRAGMA fast_kdf_iter`: a database SQLCipher wrote under another count of PBKDF2 iterations
/// from the page key to the HMAC key than 2 (deprecated) is found by the search when the count
/// is one it tries (`HMACKeySearch`), and named with the option that pins it when not; pinned
/// or found, it is opened, checked page by page, exported and rotated. The files are written
/// by SQLCipher 4.6.1 (compatibility 3 or 4) and, where it is installed, by SQLCipher 3.4.1.
final class FastKDFIterationTests: CLITestCase {
    /// The counts `HMACKeySearch` tries.
    private static let searched = Set(Array(1...64) + [100, 128, 200, 250, 256, 500, 512, 1000, 1024, 2000, 2048, 4000, 4096, 5000, 10000])

    /// The content checksum the shell reads, without the deprecation notice it answers the pragma with.
    private func checksum(_ db: String, _ keySQL: String) throws -> String? {
        try contentChecksum(db, keySQL: keySQL).map { $0.split(separator: "\n").filter { !$0.contains("deprecated") }.joined(separator: "\n") }
    }

    func testADatabaseWrittenWithAnyFastKDFIterationCountIsFoundOrNamedAndOpensChecksExportsAndRotates() throws {
        var (generator, seed) = SeededGenerator.forSweep("fast kdf iterations", variable: "CIPHERCTL_FAST_KDF_SEED")
        let oracle = FileManager.default.isExecutableFile(atPath: Self.legacyCipherOracleRoot + "/usr/bin/sqlcipher")
        for index in 0..<sweepCases("CIPHERCTL_FAST_KDF_CASES", quick: 5) {
            let iterations = [1, 3, 10, 77, Int.random(in: 4...300, using: &generator), Int.random(in: 301...12000, using: &generator)].randomElement(using: &generator)!
            let compat = Bool.random(using: &generator) ? 3 : 4
            let by341 = compat == 3 && oracle && Bool.random(using: &generator)
            // Now and then a deprecated HMAC salt mask as well, found with counts to 16.
            let mask = Bool.random(using: &generator) ? nil : String(format: "%02x", UInt8.random(in: 0...255, using: &generator) | 0x80)
            let context = "seed \(seed) case \(index): fast_kdf_iter \(iterations), mask \(mask ?? "3a"), SQLCipher \(compat)\(by341 ? " written by 3.4.1" : "")"
            let masked = mask.map { " PRAGMA cipher_hmac_salt_mask = \"x'\($0)'\";" } ?? ""
            let keySQL = "PRAGMA key = 'fast'; PRAGMA cipher_compatibility = \(compat); PRAGMA fast_kdf_iter = \(iterations);" + masked
            let db = try make("f\(index).db", compat: compat, settingsSQL: "PRAGMA fast_kdf_iter = \(iterations);" + masked, by341: by341)
            let before = try XCTUnwrap(checksum(db, keySQL), context)
            let keys = ["K": "fast", "K2": "fast two"]
            let found = Self.searched.contains(iterations) && (mask == nil || iterations <= 16)
            let unpinned = try cipherctl(["open", db, "--key-env", "K", "--json"], environment: keys)
            if found {
                XCTAssertEqual(unpinned.code, 0, "\(context): \(unpinned.stderr)")
                XCTAssertEqual((try? jsonObject(unpinned.stdout))?["cipher"].flatMap { ($0 as? [String: Any])?["fast_kdf_iter"] as? Int }, iterations, context)
            } else {
                XCTAssertEqual(unpinned.code, 3, "\(context): \(unpinned.stderr)")
                XCTAssertTrue(unpinned.stderr.contains("--fast-kdf-iter") && unpinned.stderr.contains("decrypts its first page"), "\(context): \(unpinned.stderr)")
            }
            // Through a key ring the right key is the file's all the same, and the hint the same.
            let ring = try writeFile("ring\(index)", "other env:K2\nright env:K\n")
            let ringed = try cipherctl(["open", db, "--key-ring", ring], environment: keys)
            XCTAssertEqual(ringed.code, found ? 0 : 3, "\(context): \(ringed.stderr)")
            XCTAssertTrue(found || ringed.stderr.contains("--fast-kdf-iter"), "\(context): \(ringed.stderr)")
            if !found {
                let failed = try cipherctl(["open", db, "--key-ring", ring, "--json"], environment: keys)
                let error = try jsonObject(String(failed.stderr.split(separator: "\n").last ?? ""))
                XCTAssertEqual(error["key_label"] as? String, "right", "\(context): \(failed.stderr)")
            }
            // Found, the count needs no option; the format still may (compatibility 3 by the search).
            let pinned = ["--key-env", "K"] + (found ? [] : ["--compat", String(compat), "--fast-kdf-iter", String(iterations)] + (mask.map { ["--hmac-salt-mask", $0] } ?? []))
            let opened = try cipherctl(["open", db, "--check", "--json"] + pinned, environment: keys)
            XCTAssertEqual(opened.code, 0, "\(context): \(opened.stderr)")
            let cipher = try XCTUnwrap(try jsonObject(opened.stdout)["cipher"] as? [String: Any], context)
            XCTAssertEqual(cipher["fast_kdf_iter"] as? Int, iterations, context)
            XCTAssertEqual(cipher["hmac_salt_mask"] as? String, mask ?? "3a", context)
            // An export to SQLCipher 4's defaults derives its HMAC key as everyone does.
            let copy = path("copy\(index).db")
            let exported = try cipherctl(["export", db, copy, "--to-key-env", "K2"] + pinned, environment: keys)
            XCTAssertEqual(exported.code, 0, "\(context): \(exported.stderr)")
            XCTAssertEqual(try checksum(copy, "PRAGMA key = 'fast two';"), before, context)
            // A key-only rekey keeps the format, this count with it.
            let rekeyed = try cipherctl(["rekey", db, "--new-key-env", "K2"] + pinned, environment: keys)
            XCTAssertEqual(rekeyed.code, 0, "\(context): \(rekeyed.stderr)")
            XCTAssertEqual(try checksum(db, keySQL.replacing("'fast'", with: "'fast two'")), before, context)
            XCTAssertNotEqual(try checksum(db, keySQL), before, context)
        }
        let refused = try cipherctl(["open", path("f0.db"), "--key-env", "K", "--fast-kdf-iter", "0"], environment: ["K": "fast"])
        XCTAssertEqual(refused.code, 2, refused.stderr)
    }

    /// A database of 300 rows under key 'fast' and the pragmas `settingsSQL`, written by the
    /// 4.6.1 shell as SQLCipher `compat`, or by SQLCipher 3.4.1.
    private func make(_ name: String, compat: Int, settingsSQL: String, by341: Bool) throws -> String {
        guard by341 else {
            return try makeShellDatabase(name, key: "fast", rows: 300, extraSQL: "PRAGMA cipher_compatibility = \(compat); " + settingsSQL)
        }
        let db = path(name)
        let made = try legacyCipherOracle(db, ["""
            PRAGMA key = 'fast'; \(settingsSQL)
            CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, payload BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO items(name, payload) SELECT 'item ' || i, zeroblob(i * 7 % 900) FROM n;
            """])
        XCTAssertEqual(made.code, 0, made.stderr)
        return db
    }

    /// A KDF count above the search's 1,000,000 is not found; the hint names `--kdf-iter`,
    /// and with it the database opens and exports.
    func testAKDFCountAboveTheSearchOpensAndExportsOnceTheOptionNamesIt() throws {
        let db = try makeShellDatabase("slow.db", key: "slow", rows: 50, extraSQL: "PRAGMA kdf_iter = 1200000;")
        let keys = ["K": "slow", "T": "fast"]
        let unpinned = try cipherctl(["open", db, "--key-env", "K"], environment: keys)
        XCTAssertEqual(unpinned.code, 3, unpinned.stderr)
        XCTAssertTrue(unpinned.stderr.contains("--kdf-iter"), unpinned.stderr)
        let opened = try cipherctl(["open", db, "--key-env", "K", "--kdf-iter", "1200000", "--json"], environment: keys)
        XCTAssertEqual(opened.code, 0, opened.stderr)
        XCTAssertEqual((try jsonObject(opened.stdout)["cipher"] as? [String: Any])?["kdf_iter"] as? Int, 1_200_000)
        let copy = path("copy.db")
        XCTAssertEqual(try cipherctl(["export", db, copy, "--key-env", "K", "--kdf-iter", "1200000", "--to-key-env", "T"], environment: keys).code, 0)
        XCTAssertEqual(try contentChecksum(copy, keySQL: "PRAGMA key = 'fast';"), try contentChecksum(db, keySQL: "PRAGMA key = 'slow'; PRAGMA kdf_iter = 1200000;"))
    }
}
