import Foundation
import TestSupport
import XCTest

/// `--fast-kdf-iter`: a database SQLCipher wrote under its deprecated `PRAGMA fast_kdf_iter`
/// (PBKDF2 iterations from the page key to the HMAC key other than 2) is not found by the
/// search, and is opened, checked page by page, exported and rotated once the option names it.
final class FastKDFIterationTests: CLITestCase {
    /// The content checksum the shell reads, without the deprecation notice it answers the pragma with.
    private func checksum(_ db: String, _ keySQL: String) throws -> String? {
        try contentChecksum(db, keySQL: keySQL).map { $0.split(separator: "\n").filter { !$0.contains("deprecated") }.joined(separator: "\n") }
    }

    func testADatabaseWrittenWithAnyFastKDFIterationCountOpensChecksExportsAndRotatesOnceTheOptionNamesIt() throws {
        var (generator, seed) = SeededGenerator.forSweep("fast kdf iterations", variable: "CIPHERCTL_FAST_KDF_SEED")
        for index in 0..<sweepCases("CIPHERCTL_FAST_KDF_CASES", quick: 4) {
            let iterations = [1, 3, 10, Int.random(in: 4...300, using: &generator)].randomElement(using: &generator)!
            let compat = Bool.random(using: &generator) ? 3 : 4
            let context = "seed \(seed) case \(index): fast_kdf_iter \(iterations), SQLCipher \(compat)"
            let keySQL = "PRAGMA key = 'fast'; PRAGMA cipher_compatibility = \(compat); PRAGMA fast_kdf_iter = \(iterations);"
            let db = try makeShellDatabase("f\(index).db", key: "fast", rows: 300, extraSQL: "PRAGMA cipher_compatibility = \(compat); PRAGMA fast_kdf_iter = \(iterations);")
            let before = try XCTUnwrap(checksum(db, keySQL), context)
            let keys = ["K": "fast", "K2": "fast two"]
            let pinned = ["--key-env", "K", "--compat", String(compat), "--fast-kdf-iter", String(iterations)]
            let unpinned = try cipherctl(["open", db, "--key-env", "K", "--compat", String(compat)], environment: keys)
            XCTAssertEqual(unpinned.code, 3, "\(context): \(unpinned.stderr)")
            let opened = try cipherctl(["open", db, "--check", "--json"] + pinned, environment: keys)
            XCTAssertEqual(opened.code, 0, "\(context): \(opened.stderr)")
            let cipher = try XCTUnwrap(try jsonObject(opened.stdout)["cipher"] as? [String: Any], context)
            XCTAssertEqual(cipher["fast_kdf_iter"] as? Int, iterations, context)
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
