import Foundation
import XCTest

final class ExportCommandTests: CLITestCase {
    private let keys = ["K": "source key", "T": "target key"]
    private let sourceSQL = "PRAGMA key = 'source key';"
    private let targetSQL = "PRAGMA key = 'target key';"

    private func export(_ arguments: [String]) throws -> CommandResult {
        try cipherctl(["export"] + arguments, environment: keys)
    }

    func testEncryptedCopyWithNewKeyAndSettingsOpensInTheShell() throws {
        let source = try makeShellDatabase("src.db", key: "source key")
        let before = try XCTUnwrap(contentChecksum(source, keySQL: sourceSQL))
        let destination = path("dest.db")
        let result = try export([source, destination, "--key-env", "K", "--to-key-env", "T", "--to-page-size", "2048", "--to-kdf-iter", "30000", "--json"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let report = try jsonObject(result.stdout)
        XCTAssertEqual((report["destination_settings"] as? [String: Any])?["page_size"] as? Int, 2048)
        XCTAssertEqual((report["verification"] as? [String: Any])?["ok"] as? Bool, true)
        XCTAssertEqual(try contentChecksum(destination, keySQL: targetSQL + "PRAGMA cipher_page_size = 2048; PRAGMA kdf_iter = 30000;"), before)
        XCTAssertEqual(try contentChecksum(source, keySQL: sourceSQL), before, "the source is never written")
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: destination)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)
        let salts = try [source, destination].map { try Data(contentsOf: URL(fileURLWithPath: $0)).prefix(16) }
        XCTAssertNotEqual(salts[0], salts[1], "a new database gets its own salt")
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    /// Every combination of the destination's HMAC options writes a file that the shell opens
    /// with those settings and the same rows, and a later rekey keeps them.
    func testEveryDestinationHMACSettingOpensInTheShellAndARekeyKeepsIt() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 300)
        let before = try XCTUnwrap(contentChecksum(source, keySQL: sourceSQL))
        for compat in ["3", "4"] {
            for (hmac, pgno) in [("off", "le"), ("on", "le"), ("on", "be")] {
                let label = "compat \(compat), hmac \(hmac), pgno \(pgno)"
                let destination = path("dest-\(compat)-\(hmac)-\(pgno).db")
                let result = try export([
                    source, destination, "--key-env", "K", "--to-key-env", "T", "--to-compat", compat, "--to-hmac", hmac, "--to-hmac-pgno", pgno, "--json",
                ])
                XCTAssertEqual(result.code, 0, "\(label): \(result.stderr)")
                let settings = try jsonObject(result.stdout)["destination_settings"] as? [String: Any]
                XCTAssertEqual(settings?["use_hmac"] as? Bool, hmac == "on", label)
                let shellSettings = "PRAGMA cipher_compatibility = \(compat); PRAGMA cipher_use_hmac = \(hmac.uppercased());"
                    + (pgno == "be" ? " PRAGMA cipher_hmac_pgno = be;" : "")
                XCTAssertEqual(try contentChecksum(destination, keySQL: targetSQL + shellSettings), before, label)
                let given = ["--compat", compat, "--hmac", hmac, "--hmac-pgno", pgno]
                let rekeyed = try cipherctl(["rekey", destination, "--key-env", "T", "--new-key-env", "K"] + given, environment: keys)
                XCTAssertEqual(rekeyed.code, 0, "\(label): \(rekeyed.stderr)")
                XCTAssertEqual(try contentChecksum(destination, keySQL: sourceSQL + shellSettings), before, "\(label) after rekey")
            }
        }
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    /// `--to-compat same` writes each source's settings, whatever they are: the shell opens the
    /// copy with the source's settings pragmas and the target key, the rows match, the salt
    /// is new, and a rerun is already done.
    func testToCompatSameWritesTheSourcesSettingsForEverySourceFormat() throws {
        let formats: [(name: String, pragmas: String, options: [String])] = [
            ("v1", "PRAGMA cipher_compatibility = 1;", []),
            ("v3", "PRAGMA cipher_compatibility = 3;", []),
            ("v4", "", []),
            ("custom", "PRAGMA cipher_page_size = 8192; PRAGMA kdf_iter = 12345; PRAGMA cipher_hmac_algorithm = HMAC_SHA256;",
             ["--page-size", "8192", "--kdf-iter", "12345", "--hmac-algorithm", "SHA256"]),
            ("no-hmac", "PRAGMA cipher_use_hmac = OFF; PRAGMA kdf_iter = 1000;", ["--hmac", "off", "--kdf-iter", "1000"]),
        ]
        for format in formats {
            let source = try makeShellDatabase("\(format.name).db", key: "source key", rows: 150, extraSQL: format.pragmas)
            let before = try XCTUnwrap(contentChecksum(source, keySQL: sourceSQL + format.pragmas), format.name)
            let destination = path("\(format.name)-copy.db")
            let arguments = [source, destination, "--key-env", "K", "--to-key-env", "T", "--to-compat", "same"] + format.options
            let result = try export(arguments + ["--json"])
            XCTAssertEqual(result.code, 0, "\(format.name): \(result.stderr)")
            // The format the source was found in is reported, as without --to-compat same.
            let detected = result.code == 0 ? try jsonObject(result.stdout)["source_detected_format"] as? String : nil
            XCTAssertEqual(detected, format.options.isEmpty ? "SQLCipher \(format.name.dropFirst())" : nil, format.name)
            XCTAssertEqual(try contentChecksum(destination, keySQL: targetSQL + format.pragmas), before, format.name)
            let salts = try [source, destination].map { try Data(contentsOf: URL(fileURLWithPath: $0)).prefix(16) }
            XCTAssertNotEqual(salts[0], salts[1], "\(format.name): the copy gets its own salt")
            let rerun = try export(arguments + ["--json"])
            XCTAssertEqual(rerun.code, 0, "\(format.name): \(rerun.stderr)")
            XCTAssertEqual(try jsonObject(rerun.stdout)["action"] as? String, "already-done", format.name)
        }
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    func testKeyOnlyExportAndKDFRekeyRunOnThePageEngineAndOpenInTheShell() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 2000)
        let before = try XCTUnwrap(contentChecksum(source, keySQL: sourceSQL))
        let destination = path("dest.db")
        let exported = try export([source, destination, "--key-env", "K", "--to-key-env", "T", "--json"])
        XCTAssertEqual(exported.code, 0, exported.stderr)
        XCTAssertEqual(try jsonObject(exported.stdout)["method"] as? String, "page-engine")
        XCTAssertEqual(try contentChecksum(destination, keySQL: targetSQL), before)

        let rekeyed = try cipherctl(["rekey", destination, "--key-env", "T", "--new-key-env", "K", "--new-kdf-iter", "10000", "--json"], environment: keys)
        XCTAssertEqual(rekeyed.code, 0, rekeyed.stderr)
        let report = try jsonObject(rekeyed.stdout)
        XCTAssertEqual(report["action"] as? String, "export-and-replace")
        XCTAssertEqual(report["method"] as? String, "page-engine")
        XCTAssertEqual(try contentChecksum(destination, keySQL: sourceSQL + "PRAGMA kdf_iter = 10000;"), before)

        let migrated = try export([source, path("v3.db"), "--key-env", "K", "--to-key-env", "T", "--to-compat", "3", "--json"])
        XCTAssertEqual(try jsonObject(migrated.stdout)["method"] as? String, "sqlcipher-export")
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    func testHeaderFieldsAndWALModeAreCarriedOver() throws {
        let source = try makeShellDatabase("src.db", key: "source key", extraSQL: "PRAGMA auto_vacuum = INCREMENTAL;")
        XCTAssertEqual(try sqlcipherOK(source, sourceSQL + "PRAGMA journal_mode = WAL;"), "ok\nwal\n")
        let destination = path("dest.db")
        XCTAssertEqual(try export([source, destination, "--key-env", "K", "--to-key-env", "T"]).code, 0)
        XCTAssertEqual(
            try sqlcipherOK(destination, targetSQL + "PRAGMA user_version; PRAGMA application_id; PRAGMA auto_vacuum; PRAGMA journal_mode;"),
            "ok\n12\n4242\n2\nwal\n")
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    func testDecryptToPlaintextWarnsAndOpensWithoutAKey() throws {
        let source = try makeShellDatabase("src.db", key: "source key")
        let before = try XCTUnwrap(contentChecksum(source, keySQL: sourceSQL))
        let destination = path("plain.db")
        let result = try export([source, destination, "--key-env", "K", "--plaintext"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("will not be encrypted"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: destination)).prefix(16), Data("SQLite format 3\u{0}".utf8))
        XCTAssertEqual(try contentChecksum(destination, keySQL: ""), before)
    }

    func testEncryptAPlaintextDatabase() throws {
        let plain = path("plain.db")
        XCTAssertEqual(try run("/usr/bin/env", ["sqlcipher", plain, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2); PRAGMA user_version = 3;"], stdin: nil, environment: [:]).code, 0)
        let before = try XCTUnwrap(contentChecksum(plain, keySQL: ""))
        let destination = path("enc.db")
        let result = try export([plain, destination, "--to-key-env", "T"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try contentChecksum(destination, keySQL: targetSQL), before)
        XCTAssertEqual(try sqlcipherOK(destination, targetSQL + "PRAGMA user_version;"), "ok\n3\n")
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: destination)).prefix(16), Data("SQLite format 3\u{0}".utf8))
    }

    func testSQLCipher3DatabaseMigratesToSQLCipher4() throws {
        let source = try makeShellDatabase("v3.db", key: "source key", extraSQL: "PRAGMA cipher_compatibility = 3;")
        let before = try XCTUnwrap(contentChecksum(source, keySQL: sourceSQL + "PRAGMA cipher_compatibility = 3;"))
        let destination = path("v4.db")
        XCTAssertEqual(try export([source, destination, "--compat", "3", "--key-env", "K", "--to-key-env", "K"]).code, 0)
        XCTAssertEqual(try contentChecksum(destination, keySQL: sourceSQL), before)
    }

    func testExistingDestinationNeedsForce() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 5)
        let destination = try writeFile("dest.db", "keep me")
        let refused = try export([source, destination, "--key-env", "K", "--to-key-env", "T"])
        XCTAssertEqual(refused.code, 5)
        XCTAssertEqual(try String(contentsOfFile: destination, encoding: .utf8), "keep me")
        let forced = try export([source, destination, "--key-env", "K", "--to-key-env", "T", "--force"])
        XCTAssertEqual(forced.code, 0, forced.stderr)
        XCTAssertNotNil(try contentChecksum(destination, keySQL: targetSQL))
    }

    func testDestinationThatIsTheSourceOrASymlinkIsRefused() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 5)
        let before = try fingerprint(source)
        let same = try export([source, source, "--key-env", "K", "--to-key-env", "T", "--force"])
        XCTAssertEqual(same.code, 2)
        XCTAssertTrue(same.stderr.contains("rekey"), same.stderr)
        let hardLink = path("hard.db")
        try FileManager.default.linkItem(atPath: source, toPath: hardLink)
        XCTAssertEqual(try export([source, hardLink, "--key-env", "K", "--to-key-env", "T", "--force"]).code, 2)
        let victim = try writeFile("victim", "untouched")
        let link = path("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
        let symlink = try export([source, link, "--key-env", "K", "--to-key-env", "T", "--force"])
        XCTAssertEqual(symlink.code, 2)
        XCTAssertTrue(symlink.stderr.contains("symbolic link"), symlink.stderr)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "untouched")
        XCTAssertEqual(try fingerprint(source).0, before.0)
    }

    func testWrongSourceKeyCreatesNothing() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 5)
        let destination = path("dest.db")
        let result = try cipherctl(["export", source, destination, "--key-env", "T", "--to-key-env", "K"], environment: keys)
        XCTAssertEqual(result.code, 3)
        XCTAssertTrue(result.stderr.contains("cannot decrypt '\(source)'"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    func testMissingDestinationDirectoryIsAFileProblem() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 5)
        let result = try export([source, path("no/such/dir/dest.db"), "--key-env", "K", "--to-key-env", "T"])
        XCTAssertEqual(result.code, 5, result.stderr)
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    func testPlaintextHeaderDestinationNeedsASaltAndOpensWithIt() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 5)
        let destination = path("ph.db")
        XCTAssertEqual(try export([source, destination, "--key-env", "K", "--to-key-env", "T", "--to-plaintext-header-size", "32"]).code, 2)
        let salt = "00112233445566778899aabbccddeeff"
        let result = try export([source, destination, "--key-env", "K", "--to-key-env", "T", "--to-plaintext-header-size", "32", "--to-salt=" + salt])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: destination)).prefix(16), Data("SQLite format 3\u{0}".utf8))
        XCTAssertNotNil(try contentChecksum(destination, keySQL: targetSQL + "PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'\(salt)'\";"))
    }

    func testExportKilledAtSixSpreadOutMomentsLeavesSourceIntactAndNoHalfDestination() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 30_000)
        let before = try XCTUnwrap(contentChecksum(source, keySQL: sourceSQL))
        let started = Date()
        XCTAssertEqual(try export([source, path("timing.db"), "--key-env", "K", "--to-key-env", "T"]).code, 0)
        let duration = Date().timeIntervalSince(started)
        for (index, fraction) in [0.0, 0.2, 0.4, 0.6, 0.8, 1.1].enumerated() {
            let destination = path("dest\(index).db")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = ["export", source, destination, "--key-env", "K", "--to-key-env", "T"]
            process.environment = Self.childEnvironment(home: directory.path).merging(keys) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: duration * fraction)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(try contentChecksum(source, keySQL: sourceSQL), before)
            if FileManager.default.fileExists(atPath: destination) {
                XCTAssertEqual(try contentChecksum(destination, keySQL: targetSQL), before, "a destination that exists is complete (\(fraction))")
            }
            // Whatever a killed run left is named as temporary, and the next run on it cleans up.
            let left = try temporaryLeftovers().filter { $0.hasPrefix("dest\(index).db.") }
            for leftover in left {
                XCTAssertTrue(leftover.hasPrefix("dest\(index).db.cipherctl-tmp-"), leftover)
            }
            let again = try export([source, destination, "--key-env", "K", "--to-key-env", "T", "--force"])
            XCTAssertEqual(again.code, 0, again.stderr)
            XCTAssertEqual(try temporaryLeftovers().filter { $0.hasPrefix("dest\(index).db.") }, [])
            if !left.isEmpty {
                XCTAssertTrue(again.stderr.contains("temporary file left by an interrupted run"), again.stderr)
            }
            XCTAssertEqual(try contentChecksum(destination, keySQL: targetSQL), before)
        }
    }

    func testSIGTERMMidwayRollsBackAndLeavesNothing() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 60_000)
        let destination = path("dest.db")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["export", source, destination, "--key-env", "K", "--to-key-env", "T"]
        process.environment = Self.childEnvironment(home: directory.path).merging(keys) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Past the key derivations, into the copy.
        Thread.sleep(forTimeInterval: 0.45)
        kill(process.processIdentifier, SIGTERM)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "SIGTERM is handled, not fatal")
        if process.terminationStatus == 0 {
            // The copy finished before the signal arrived: then it must be complete.
            XCTAssertNotNil(try contentChecksum(destination, keySQL: targetSQL))
        } else {
            XCTAssertEqual(process.terminationStatus, 1)
            XCTAssertTrue(stderr.contains("interrupted"), stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
        }
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    func testProgressBarShowsOnATerminalOnly() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 50_000)
        let quietRun = try export([source, path("plain-run.db"), "--key-env", "K", "--to-key-env", "T"])
        XCTAssertEqual(quietRun.code, 0)
        XCTAssertFalse(quietRun.stderr.contains("pages") || quietRun.stderr.contains("\r"), "no progress without a terminal")

        // A slow destination key derivation (12,000,000 iterations: 4,000,000 took under the
        // second here) keeps the copy going past the second after which the bar appears.
        let line = "'\(Self.binary)' export '\(source)' '\(path("tty-run.db"))' --key-env K --to-key-env T --to-kdf-iter 12000000"
        let result = try run("/usr/bin/script", ["-qec", line, "/dev/null"], stdin: nil, environment: keys)
        XCTAssertEqual(result.code, 0, result.stdout)
        XCTAssertTrue(result.stdout.contains("\r\u{1B}[K"), "progress on a terminal: \(result.stdout)")
        XCTAssertTrue(result.stdout.contains("copying '\(source)' [") || result.stdout.contains("verifying '\(source)'"), result.stdout)
    }

    func testRawKeyWithSaltIsEnoughForAPlaintextHeaderDestination() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 5)
        let destination = path("ph.db")
        let hex = "2dd29ca851e7b56e4697b0e1f08507293d761a05ce4d1b628663f411a8086d99"
        let salt = "00112233445566778899aabbccddeeff"
        let result = try cipherctl(
            ["export", source, destination, "--key-env", "K", "--to-key-env", "R", "--to-raw-key", "--to-plaintext-header-size", "32"],
            environment: keys.merging(["R": hex + salt]) { $1 })
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertNotNil(try contentChecksum(destination, keySQL: "PRAGMA key = \"x'\(hex)\(salt)'\"; PRAGMA cipher_plaintext_header_size = 32;"))
    }
}
