import Foundation
import TestSupport
import XCTest

/// `export` from SQLite3 Multiple Ciphers' unauthenticated schemes, wxSQLite3's AES-128-CBC
/// and AES-256-CBC and System.Data.SQLite's RC4, into SQLCipher, with SQLite3 Multiple
/// Ciphers itself (the pinned apsw-sqlite3mc wheel) writing the sources and the sqlcipher
/// shell reading the copies: both must give the same rows.
final class WxConversionTests: CLITestCase {
    private static let ciphers = ["aes128cbc", "aes256cbc", "rc4"]

    private func randomScheme(_ generator: inout SeededGenerator) -> MultipleCiphersScheme {
        var scheme = MultipleCiphersScheme()
        scheme.cipher = Self.ciphers.randomElement(using: &generator)!
        // RC4 has only its legacy mode: page 1 encrypted whole.
        scheme.legacy = scheme.cipher == "rc4" || Bool.random(using: &generator) ? 1 : 0
        scheme.pageSize = [512, 1024, 4096, 8192, 65536].randomElement(using: &generator)!
        // The AES schemes read at most 32 bytes of a passphrase: longer ones are swept too.
        let length = Int.random(in: 1...48, using: &generator)
        let alphabet = Array("abcXYZ019 '\"-_é€")
        scheme.key = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
        scheme.rows = [-1, 0, 1, Int.random(in: 2...120, using: &generator)].randomElement(using: &generator)!
        scheme.seed = generator.next()
        return scheme
    }

    func testEveryAESAndRC4FileSQLite3MultipleCiphersWritesConvertsToSQLCipherWithTheSameRows() throws {
        try requireMultipleCiphersOracle()
        var (generator, seed) = SeededGenerator.forSweep("wx conversion", variable: "CIPHERCTL_WX_CONVERT_SEED")
        for index in 0..<sweepCases("CIPHERCTL_WX_CONVERT_CASES", quick: 12) {
            let scheme = randomScheme(&generator)
            let context = "seed \(seed) case \(index) (\(scheme))"
            let source = path("wx\(index).db"), copy = path("sc\(index).db")
            let made = try multipleCiphers("make", source, scheme)
            XCTAssertEqual(made.code, 0, "\(context): \(made.stderr)")
            let rows = try rowsByMultipleCiphers(source, scheme, context)
            let before = try fingerprint(source).0
            // The key finds the scheme; every other case names it too.
            let named = index % 2 == 0 ? ["--from-family", scheme.cipher] : []
            let converted = try cipherctl(["export", source, copy, "--key-env", "K", "--to-key-env", "T", "--json"] + named,
                                          environment: ["K": scheme.key, "T": "sqlcipher side key"])
            XCTAssertEqual(converted.code, 0, "\(context): \(converted.stderr)")
            let report = try jsonObject(converted.stdout)
            XCTAssertEqual(report["source_family"] as? String, scheme.cipher, context)
            let sourceScheme = try XCTUnwrap(report["source_scheme"] as? [String: Any], context)
            XCTAssertEqual(sourceScheme["legacy"] as? Bool, scheme.legacy == 1, context)
            XCTAssertEqual(sourceScheme["page_size"] as? Int, scheme.pageSize, context)
            XCTAssertEqual(try rowsByShell(copy, key: "sqlcipher side key", table: scheme.rows >= 0), rows, "\(context): the SQLCipher copy's rows")
            XCTAssertEqual(try fingerprint(source).0, before, "\(context): the source changed")
            XCTAssertEqual(try temporaryLeftovers(), [], context)
        }
    }

    /// A wrong key exits 3 with no file, naming the scheme where the file shows it (a plain
    /// header with no reserved bytes) or where the family is named; a file that looks random
    /// is searched as SQLCipher's first.
    func testAWrongKeyExits3AndLeavesNoFile() throws {
        try requireMultipleCiphersOracle()
        for (index, cipher) in Self.ciphers.enumerated() {
            for legacy in cipher == "rc4" ? [1] : [0, 1] {
                let source = path("wx\(index)\(legacy).db")
                XCTAssertEqual(try multipleCiphers("make", source, MultipleCiphersScheme(legacy: legacy, cipher: cipher)).code, 0)
                for named in [false, true] {
                    let arguments = ["export", source, path("out.db"), "--key-env", "K", "--to-key-env", "T"] + (named ? ["--from-family", cipher] : [])
                    let result = try cipherctl(arguments, environment: ["K": "not the key", "T": "t"])
                    XCTAssertEqual(result.code, 3, "\(cipher) legacy \(legacy) named \(named): \(result.stderr)")
                    if named || legacy == 0 { XCTAssertTrue(result.stderr.contains("does not decrypt to a database header"), result.stderr) }
                }
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("out") }, [])
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    /// `open` with the key of a file whose plain header shows wxSQLite3's AES names the
    /// scheme the key opens (exit 3, SQLCipher cannot read it); a wrong key gets what the
    /// bytes alone show.
    func testOpenWithTheKeyOfAnAESFileNamesTheSchemeTheKeyOpens() throws {
        try requireMultipleCiphersOracle()
        for cipher in ["aes128cbc", "aes256cbc"] {
            let source = path("\(cipher).db")
            XCTAssertEqual(try multipleCiphers("make", source, MultipleCiphersScheme(pageSize: 1024, cipher: cipher)).code, 0)
            let opened = try cipherctl(["open", source, "--key-env", "K"], environment: ["K": MultipleCiphersScheme().key])
            XCTAssertEqual(opened.code, 3, opened.stderr)
            let name = cipher == "aes128cbc" ? "AES-128-CBC" : "AES-256-CBC"
            XCTAssertTrue(opened.stderr.contains("wxSQLite3 \(name), page size 1024, which the key opens"), opened.stderr)
            let wrong = try cipherctl(["open", source, "--key-env", "K"], environment: ["K": "not the key"])
            XCTAssertEqual(wrong.code, 3, wrong.stderr)
            XCTAssertFalse(wrong.stderr.contains("which the key opens"), wrong.stderr)
        }
        // A legacy file looks random: once no SQLCipher format opens it, open and audit name
        // the scheme the key opens.
        for (cipher, name) in [("rc4", "System.Data.SQLite RC4"), ("aes256cbc", "wxSQLite3 AES-256-CBC, legacy")] {
            let source = path("legacy-\(cipher).db")
            XCTAssertEqual(try multipleCiphers("make", source, MultipleCiphersScheme(legacy: 1, cipher: cipher)).code, 0)
            let opened = try cipherctl(["open", source, "--key-env", "K"], environment: ["K": MultipleCiphersScheme().key])
            XCTAssertEqual(opened.code, 3, opened.stderr)
            XCTAssertTrue(opened.stderr.contains("\(name), page size 4096, which the key opens"), opened.stderr)
            let audit = try cipherctl(["audit", source, "--key-env", "K", "--json"], environment: ["K": MultipleCiphersScheme().key])
            XCTAssertTrue(audit.stdout.contains("which the key opens"), audit.stdout)
        }
    }

    /// These schemes have no MAC: a page made garbage is found by SQLite's check of the
    /// plaintext, exit 4, no file.
    func testADamagedPageIsFoundBySQLitesCheckAndLeavesNoFile() throws {
        try requireMultipleCiphersOracle()
        var generator = SeededGenerator(seed: 7)
        for cipher in Self.ciphers {
            let source = path("\(cipher).db")
            XCTAssertEqual(try multipleCiphers("make", source, MultipleCiphersScheme(legacy: 1, rows: 60, cipher: cipher)).code, 0)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
            for offset in 4096..<8192 { bytes[offset] = UInt8.random(in: 0...255, using: &generator) }
            try bytes.write(to: URL(fileURLWithPath: source))
            let result = try cipherctl(["export", source, path("out.db"), "--key-env", "K", "--to-key-env", "T"],
                                       environment: ["K": MultipleCiphersScheme().key, "T": "t"])
            XCTAssertEqual(result.code, 4, "\(cipher): \(result.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.db")), cipher)
        }
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    /// FIPS mode runs none of these schemes: a named family, or a file whose header shows
    /// one, is refused (exit 2, `fips-forbidden`) before any key is tried; a raw key for a
    /// named family, or for a file whose header shows one, and a cipher option for a named
    /// family (which has none) are usage errors.
    func testFIPSModeARawKeyAndCipherOptionsAreRefusedBeforeAnythingIsWritten() throws {
        try requireMultipleCiphersOracle()
        let plainHeader = path("aes.db"), legacy = path("rc4.db")
        XCTAssertEqual(try multipleCiphers("make", plainHeader, MultipleCiphersScheme(cipher: "aes128cbc")).code, 0)
        XCTAssertEqual(try multipleCiphers("make", legacy, MultipleCiphersScheme(legacy: 1, cipher: "rc4")).code, 0)
        let environment = ["K": MultipleCiphersScheme().key, "T": "t"]
        for arguments in [[plainHeader], [legacy, "--from-family", "rc4"]] {
            let result = try cipherctl(["export", arguments[0], path("out.db"), "--key-env", "K", "--to-key-env", "T", "--fips", "--json"]
                                       + arguments.dropFirst(), environment: environment)
            XCTAssertEqual(result.code, 2, result.stderr)
            XCTAssertEqual(try jsonObject(result.stderr)["reason"] as? String, "fips-forbidden", result.stderr)
        }
        let raw = try cipherctl(["export", legacy, path("out.db"), "--key-env", "K", "--raw-key", "--to-key-env", "T", "--from-family", "rc4"],
                                environment: ["K": String(repeating: "ab", count: 32), "T": "t"])
        XCTAssertEqual(raw.code, 2, raw.stderr)
        // A header that shows the AES schemes tells a raw key is no use, unnamed too.
        let rawOnHeader = try cipherctl(["export", plainHeader, path("out.db"), "--key-env", "K", "--raw-key", "--to-key-env", "T", "--json"],
                                        environment: ["K": String(repeating: "ab", count: 32), "T": "t"])
        XCTAssertEqual(rawOnHeader.code, 2, rawOnHeader.stderr)
        XCTAssertEqual(try jsonObject(rawOnHeader.stderr)["reason"] as? String, "invalid-key", rawOnHeader.stderr)
        // These schemes take no settings: an option given is refused, not ignored.
        for option in [["--kdf-iter", "5000"], ["--page-size", "1024"], ["--compat", "3"]] {
            let ignored = try cipherctl(["export", legacy, path("out.db"), "--key-env", "K", "--to-key-env", "T", "--from-family", "rc4"] + option,
                                        environment: environment)
            XCTAssertEqual(ignored.code, 2, "\(option): \(ignored.stderr)")
        }
        let written = try cipherctl(["export", legacy, path("out.db"), "--key-env", "K", "--to-key-env", "T", "--to-family", "rc4"], environment: environment)
        XCTAssertEqual(written.code, 2, written.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["aes.db", "rc4.db"])
    }
}
