import Foundation
import TestSupport
import XCTest

/// FIPS mode end to end: `--fips`, or OpenSSL's own FIPS provider made the default by an
/// openssl.cnf of the test's (the provider `Scripts/bootstrap --test-tools` builds into
/// .build-fips), runs every command through OpenSSL and says so in `--version` and every JSON
/// report; what it refuses is refused before any file is touched; and what it writes the
/// sqlcipher shell reads. That no own crypto code runs is CryptoModeTests' (CipherKitTests).
final class FIPSModeTests: CLITestCase {
    /// OPENSSL_CONF and OPENSSL_MODULES for a process whose OpenSSL has only the FIPS and base
    /// providers, the FIPS one as the default (`default_properties = fips=yes`): any algorithm
    /// outside it fails.
    private func fipsProviderEnvironment() throws -> [String: String] {
        let modules = Self.packageRoot.appendingPathComponent(".build-fips/ossl-modules").path
        let available = FileManager.default.fileExists(atPath: modules + "/fips.so") && FileManager.default.fileExists(atPath: modules + "/fipsmodule.cnf")
        try requireTestTool(available, "OpenSSL's FIPS provider is not built (Scripts/bootstrap --test-tools builds it into .build-fips)")
        let configuration = try writeFile("openssl.cnf", """
            openssl_conf = openssl_init
            .include \(modules)/fipsmodule.cnf
            [openssl_init]
            providers = provider_sect
            alg_section = algorithm_sect
            [provider_sect]
            fips = fips_sect
            base = base_sect
            [base_sect]
            activate = 1
            [algorithm_sect]
            default_properties = fips=yes

            """)
        return ["OPENSSL_CONF": configuration, "OPENSSL_MODULES": modules]
    }

    func testVersionSaysTheModeAndWhetherOpenSSLsFIPSProviderIsLoaded() throws {
        let standard = try jsonObject(try cipherctl(["--version", "--json"]).stdout)
        XCTAssertEqual(standard["crypto_mode"] as? String, "standard")
        XCTAssertEqual(standard["fips_provider"] as? String, "absent")
        let asked = try jsonObject(try cipherctl(["--fips", "--version", "--json"]).stdout)
        XCTAssertEqual(asked["crypto_mode"] as? String, "fips")
        XCTAssertTrue(try cipherctl(["--version", "--fips"]).stdout.contains("crypto mode fips: all crypto through OpenSSL's EVP"))
        let provider = try fipsProviderEnvironment()
        let configured = try jsonObject(try cipherctl(["--version", "--json"], environment: provider).stdout)
        XCTAssertEqual(configured["crypto_mode"] as? String, "fips", "the FIPS provider as OpenSSL's default turns FIPS mode on by itself")
        XCTAssertEqual(configured["fips_provider"] as? String, "default")
    }

    func testEveryJSONReportSaysWhichModeRan() throws {
        let database = try makeShellDatabase("a.db", key: "old")
        let keys = ["OLD": "old", "NEW": "new"]
        for (mode, flags) in [("standard", [String]()), ("fips", ["--fips"])] {
            let reports = [
                ["open", database, "--key-env", "OLD", "--check"],
                ["export", database, path("copy-\(mode).db"), "--key-env", "OLD", "--to-key-env", "NEW"],
                ["rekey", path("copy-\(mode).db"), "--key-env", "NEW", "--new-key-env", "OLD"],
                ["audit", database, "--key-env", "OLD"],
                ["diff", database, path("copy-\(mode).db"), "--key-env", "OLD", "--other-key-env", "OLD"],
            ]
            for arguments in reports {
                let result = try cipherctl(flags + arguments + ["--json"], environment: keys)
                XCTAssertTrue([0, 1].contains(result.code), "\(arguments): \(result.stderr)")
                for line in result.stdout.split(separator: "\n") {
                    XCTAssertEqual(try jsonObject(String(line))["crypto_mode"] as? String, mode, "\(mode) \(arguments[0])")
                }
            }
            // An error object too: a wrong key, and a refusal of FIPS mode itself.
            let failures = [["open", database, "--key-env", "NEW"]] + (mode == "fips" ? [["open", database, "--key-env", "OLD", "--kdf-iter", "10"]] : [])
            for arguments in failures {
                let failed = try cipherctl(flags + arguments + ["--json"], environment: keys)
                XCTAssertNotEqual(failed.code, 0, "\(arguments)")
                let error = try jsonObject(String(failed.stderr.split(separator: "\n").last ?? ""))
                XCTAssertEqual(error["crypto_mode"] as? String, mode, "\(mode) error of \(arguments): \(failed.stderr)")
            }
        }
    }

    /// Iteration counts drawn below and above SP 800-132's 1,000 (seeded, printed): below it,
    /// FIPS mode refuses before the file is made or read (exit 2, reason fips-forbidden); from
    /// it on, the file is made and the shell opens it with those settings.
    func testFIPSModeRefusesFewerThan1000KDFIterationsAndAcceptsTheRest() throws {
        var (generator, seed) = SeededGenerator.forSweep("FIPS KDF iterations", variable: "CIPHERCTL_FIPS_SEED")
        let counts = [1, 999, 1000] + (0..<sweepCases("CIPHERCTL_FIPS_CASES", quick: 3)).map { _ in Int.random(in: 1...3000, using: &generator) }
        for (index, count) in counts.enumerated() {
            let target = path("kdf\(index).db")
            let result = try cipherctl(["--fips", "open", target, "--create", "--key-env", "K", "--kdf-iter", "\(count)", "--json"], environment: ["K": "pass"])
            let label = "\(count) iterations (seed \(seed))"
            guard count >= 1000 else {
                XCTAssertEqual(result.code, 2, label)
                XCTAssertEqual(try jsonObject(result.stderr)["reason"] as? String, "fips-forbidden", label)
                XCTAssertFalse(FileManager.default.fileExists(atPath: target), label)
                continue
            }
            XCTAssertEqual(result.code, 0, "\(label): \(result.stderr)")
            XCTAssertEqual(try sqlcipherOK(target, "PRAGMA key = 'pass'; PRAGMA kdf_iter = \(count); SELECT count(*) FROM sqlite_master;"), "ok\n0\n", label)
        }
    }

    /// Under OpenSSL's FIPS provider alone (no default provider to fall back to), a database's
    /// whole life runs: made, opened and checked, rekeyed by copy, in place and in constant
    /// space, exported,
    /// refused a wrong key; the sqlcipher shell, outside FIPS mode, reads each result.
    func testUnderOpenSSLsFIPSProviderEveryCommandRunsAndTheShellReadsWhatItWrote() throws {
        let provider = try fipsProviderEnvironment()
        let environment = provider.merging(["A": "first", "B": "second", "C": "third", "W": "wrong"]) { $1 }
        let database = try makeShellDatabase("life.db", key: "first")
        let expected = try contentChecksum(database, keySQL: "PRAGMA key = 'first';")
        let steps: [([String], String, String)] = [
            (["open", database, "--key-env", "A", "--check"], database, "first"),
            (["rekey", database, "--key-env", "A", "--new-key-env", "B"], database, "second"),
            (["rekey", database, "--key-env", "B", "--new-key-env", "A", "--in-place"], database, "first"),
            (["rekey", database, "--key-env", "A", "--new-key-env", "C", "--low-space"], database, "third"),
            (["export", database, path("copy.db"), "--key-env", "C", "--to-key-env", "A"], path("copy.db"), "first"),
            (["export", database, path("sqlcipher3.db"), "--key-env", "C", "--to-key-env", "B", "--to-compat", "3"], path("sqlcipher3.db"), "second"),
        ]
        for (arguments, written, key) in steps {
            let result = try cipherctl(arguments + ["--json"], environment: environment)
            XCTAssertEqual(result.code, 0, "\(arguments[0]): \(result.stderr)")
            XCTAssertEqual(try jsonObject(result.stdout)["crypto_mode"] as? String, "fips", arguments[0])
            let compat = written.hasSuffix("sqlcipher3.db") ? "PRAGMA cipher_compatibility = 3;" : ""
            XCTAssertEqual(try contentChecksum(written, keySQL: "PRAGMA key = '\(key)'; \(compat)"), expected, arguments[0])
        }
        let before = try fingerprint(database)
        let wrong = try cipherctl(["open", database, "--key-env", "W"], environment: environment)
        XCTAssertEqual(wrong.code, 3)
        XCTAssertTrue(wrong.stderr.contains("not searched further in FIPS mode"), wrong.stderr)
        XCTAssertEqual(try fingerprint(database).0, before.0)
    }

    /// `keygen` takes `--fips` before or after the command and draws the key from OpenSSL's
    /// generator; the key encrypts a copy the shell opens with it.
    func testKeygenTakesFIPSAndItsKeyEncryptsACopyTheShellOpens() throws {
        let database = try makeShellDatabase("g.db", key: "first", rows: 20)
        let expected = try contentChecksum(database, keySQL: "PRAGMA key = 'first';")
        var keys: [String] = []
        for (index, words) in [["--fips", "keygen"], ["keygen", "--fips"]].enumerated() {
            let keyFile = path("k\(index).key"), copy = path("g\(index).db")
            let made = try cipherctl(words + ["--output", keyFile, "--json"])
            XCTAssertEqual(made.code, 0, "\(words): \(made.stderr)")
            XCTAssertEqual(try jsonObject(made.stdout)["crypto_mode"] as? String, "fips", "\(words)")
            let line = try String(contentsOfFile: keyFile, encoding: .utf8)
            XCTAssertTrue(line.range(of: "^[0-9a-f]{64}\n$", options: .regularExpression) != nil, "\(words): \(line.count) characters")
            keys.append(line)
            let exported = try cipherctl(["export", database, copy, "--key-env", "A", "--to-key-file", keyFile, "--to-raw-key", "--fips"], environment: ["A": "first"])
            XCTAssertEqual(exported.code, 0, "\(words): \(exported.stderr)")
            let hex = line.trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(try contentChecksum(copy, keySQL: "PRAGMA key = \"x'\(hex)'\";"), expected, "\(words)")
        }
        XCTAssertNotEqual(keys[0], keys[1])
    }
}
