import Foundation
import TestSupport
import XCTest

/// `export` from SQLite3 Multiple Ciphers' own SQLCipher scheme outside legacy mode (bytes 16
/// to 23 of page 1 plain, its encryption from byte 24 with ciphertext stealing) into
/// SQLCipher, with SQLite3 Multiple Ciphers itself writing the sources and the sqlcipher
/// shell reading the copies.
final class MultipleCiphersSQLCipherTests: CLITestCase {
    /// A scheme, and the cipher options that name what SQLCipher 4's and 3's defaults do not.
    private func randomScheme(_ generator: inout SeededGenerator) -> (MultipleCiphersScheme, [String]) {
        var scheme = MultipleCiphersScheme(cipher: "sqlcipher")
        scheme.pageSize = [1024, 4096, 8192, 65536].randomElement(using: &generator)!
        var options: [String] = []
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: break
        case 1:
            scheme.kdfIter = 4000
            options = ["--kdf-iter", "4000"]
        case 2: scheme.pragmas = ["hmac_algorithm = 0", "kdf_algorithm = 0", "kdf_iter = 64000"]
        default:
            scheme.pragmas = ["hmac_algorithm = 1", "kdf_algorithm = 1", "kdf_iter = 4000"]
            options = ["--hmac-algorithm", "HMAC_SHA256", "--kdf-algorithm", "PBKDF2_HMAC_SHA256", "--kdf-iter", "4000"]
        }
        scheme.raw = Int.random(in: 0..<3, using: &generator) == 0
        scheme.key = scheme.raw ? (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
            : "key \(generator.next() % 1000) '"
        scheme.rows = [-1, 0, 1, Int.random(in: 2...80, using: &generator)].randomElement(using: &generator)!
        scheme.seed = generator.next()
        return (scheme, options + (scheme.raw ? ["--raw-key"] : []))
    }

    func testEverySQLCipherSchemeFileOutsideLegacyModeConvertsToSQLCipherWithTheSameRows() throws {
        try requireMultipleCiphersOracle()
        var (generator, seed) = SeededGenerator.forSweep("sqlite3mc sqlcipher conversion", variable: "CIPHERCTL_MC_SQLCIPHER_SEED")
        for index in 0..<sweepCases("CIPHERCTL_MC_SQLCIPHER_CASES", quick: 8) {
            let (scheme, options) = randomScheme(&generator)
            let context = "seed \(seed) case \(index) (\(scheme))"
            let source = path("mc\(index).db"), copy = path("sc\(index).db")
            let made = try multipleCiphers("make", source, scheme)
            XCTAssertEqual(made.code, 0, "\(context): \(made.stderr)")
            let rows = try rowsByMultipleCiphers(source, scheme, context)
            let before = try fingerprint(source).0
            let converted = try cipherctl(["export", source, copy, "--key-env", "K", "--to-key-env", "T", "--json"] + options,
                                          environment: ["K": scheme.key, "T": "sqlcipher side key"])
            XCTAssertEqual(converted.code, 0, "\(context): \(converted.stderr)")
            XCTAssertEqual(try jsonObject(converted.stdout)["source_family"] as? String, "sqlite3mc-sqlcipher", context)
            XCTAssertEqual(try rowsByShell(copy, key: "sqlcipher side key", table: scheme.rows >= 0), rows, "\(context): the SQLCipher copy's rows")
            XCTAssertEqual(try fingerprint(source).0, before, "\(context): the source changed")
            XCTAssertEqual(try temporaryLeftovers(), [], context)
        }
    }

    /// A wrong key, or settings the defaults do not cover and no option names, exits 3 naming
    /// the scheme; a page whose HMAC fails is exit 4; no file either way. `open` with the key
    /// names the settings the key opens.
    func testAWrongKeyOrSettingsExit3ADamagedPageExits4AndOpenNamesTheScheme() throws {
        try requireMultipleCiphersOracle()
        let source = path("mc.db"), other = path("sha256.db")
        let scheme = MultipleCiphersScheme(rows: 60, cipher: "sqlcipher")
        XCTAssertEqual(try multipleCiphers("make", source, scheme).code, 0)
        var sha256 = scheme
        sha256.pragmas = ["hmac_algorithm = 1", "kdf_algorithm = 1"]
        XCTAssertEqual(try multipleCiphers("make", other, sha256).code, 0)
        for (file, key) in [(source, "not the key"), (other, scheme.key)] {
            let result = try cipherctl(["export", file, path("out.db"), "--key-env", "K", "--to-key-env", "T"], environment: ["K": key, "T": "t"])
            XCTAssertEqual(result.code, 3, result.stderr)
            XCTAssertTrue(result.stderr.contains("SQLCipher scheme outside legacy mode (its first page fails its HMAC)"), result.stderr)
        }
        let opened = try cipherctl(["open", source, "--key-env", "K"], environment: ["K": scheme.key])
        XCTAssertEqual(opened.code, 3, opened.stderr)
        XCTAssertTrue(opened.stderr.contains("SQLCipher scheme outside legacy mode (kdf_iter 256000, HMAC_SHA512, page size 4096), which the key opens"), opened.stderr)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        bytes[2 * 4096 + 300] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: source))
        let damaged = try cipherctl(["export", source, path("out.db"), "--key-env", "K", "--to-key-env", "T"], environment: ["K": scheme.key, "T": "t"])
        XCTAssertEqual(damaged.code, 4, damaged.stderr)
        XCTAssertTrue(damaged.stderr.contains("page 3"), damaged.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["mc.db", "sha256.db"])
    }
}
