import Foundation
import XCTest

/// `cipherctl keygen`: random raw keys, on standard output or in a new 0600 file that keys a
/// database SQLCipher itself opens.
final class KeygenCommandTests: CLITestCase {
    private func isRawKeyLine(_ text: String) -> Bool {
        text.count == 65 && text.hasSuffix("\n") && text.dropLast().allSatisfy { "0123456789abcdef".contains($0) }
    }

    func testKeygenPrints64HexDigitsAndNoTwoRunsAgree() throws {
        var seen = Set<String>()
        for _ in 0..<20 {
            let result = try cipherctl(["keygen"])
            XCTAssertEqual(result.code, 0, result.stderr)
            XCTAssertTrue(isRawKeyLine(result.stdout), result.stdout)
            XCTAssertEqual(result.stderr, "", "no warning when standard output is not a terminal")
            seen.insert(result.stdout)
        }
        XCTAssertEqual(seen.count, 20)
        let json = try jsonObject(try cipherctl(["keygen", "--json"]).stdout)
        XCTAssertEqual((json["key"] as? String)?.count, 64)
        XCTAssertEqual(json["bits"] as? Int, 256)
    }

    func testKeyFileIsMode0600NeverPrintedAndKeysADatabaseTheShellOpens() throws {
        let keyFile = path("app.key")
        let made = try cipherctl(["keygen", "--output", keyFile, "--json"])
        XCTAssertEqual(made.code, 0, made.stderr)
        let key = try String(contentsOfFile: keyFile, encoding: .utf8)
        XCTAssertTrue(isRawKeyLine(key), key)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int, 0o600)
        let digits = String(key.dropLast())
        XCTAssertFalse(made.stdout.contains(digits) || made.stderr.contains(digits), "the key file's key is never printed")
        XCTAssertEqual(try jsonObject(made.stdout)["output"] as? String, keyFile)
        XCTAssertEqual(try temporaryLeftovers(), [])

        let source = try makeShellDatabase("src.db", key: "source key", rows: 50)
        let exported = try cipherctl(
            ["export", source, path("keyed.db"), "--key-env", "K", "--to-key-file", keyFile, "--to-raw-key"], environment: ["K": "source key"])
        XCTAssertEqual(exported.code, 0, exported.stderr)
        XCTAssertEqual(try sqlcipherOK(path("keyed.db"), "PRAGMA key = \"x'\(digits)'\"; SELECT count(*) FROM items;"), "ok\n50\n")
        let opened = try cipherctl(["open", path("keyed.db"), "--key-file", keyFile, "--raw-key", "--json"])
        XCTAssertEqual(opened.code, 0, opened.stderr)
        XCTAssertFalse(opened.stdout.contains(digits) || opened.stderr.contains(digits))
    }

    func testKeygenNeverWritesOverAFileOrThroughALinkAndExits5() throws {
        let existing = try writeFile("taken.key", "precious\n")
        try FileManager.default.createSymbolicLink(atPath: path("link.key"), withDestinationPath: path("target.key"))
        for target in [existing, path("link.key")] {
            let result = try cipherctl(["keygen", "--output", target])
            XCTAssertEqual(result.code, 5, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: "), result.stderr)
        }
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "precious\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("target.key")), "nothing was written through the link")
        XCTAssertEqual(try temporaryLeftovers(), [])
        let extra = try cipherctl(["keygen", "surplus"])
        XCTAssertEqual(extra.code, 2, extra.stderr)
    }

    func testNewKeyGenerateSavesOneKeyForTheWholeBatchBeforeAnyChangeAndNeverOverwrites() throws {
        let keys = ["OLD": "batch old key"]
        let databases = try (1...3).map { try makeShellDatabase("db\($0).db", key: "batch old key", rows: 30) }
        let keyFile = path("batch.key")
        let result = try cipherctl(["rekey"] + databases + ["--key-env", "OLD", "--new-key-generate", keyFile, "--json"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stderr)
        let key = try String(contentsOfFile: keyFile, encoding: .utf8)
        XCTAssertTrue(isRawKeyLine(key), key)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int, 0o600)
        XCTAssertFalse(result.stdout.contains(key.dropLast()) || result.stderr.contains(key.dropLast()))
        for db in databases {
            XCTAssertEqual(try sqlcipherOK(db, "PRAGMA key = \"x'\(key.dropLast())'\"; SELECT count(*) FROM items;"), "ok\n30\n", db)
        }
        // The same file again: refused before anything changes, the key file kept.
        let before = try databases.map { try fingerprint($0).0 }
        let again = try cipherctl(["rekey"] + databases + ["--key-file", keyFile, "--raw-key", "--new-key-generate", keyFile], environment: keys)
        XCTAssertEqual(again.code, 5, again.stderr)
        XCTAssertTrue(again.stderr.contains("--new-key-file '\(keyFile)' --new-raw-key"), "the hint names the way to finish with that key: \(again.stderr)")
        XCTAssertEqual(try String(contentsOfFile: keyFile, encoding: .utf8), key)
        XCTAssertEqual(try databases.map { try fingerprint($0).0 }, before)
        // A rerun with the saved key finds every database already done.
        let rerun = try cipherctl(["rekey"] + databases + ["--key-env", "OLD", "--new-key-file", keyFile, "--new-raw-key", "--json"], environment: keys)
        XCTAssertEqual(rerun.code, 0, rerun.stderr)
        XCTAssertEqual(rerun.stdout.components(separatedBy: "\"action\":\"already-done\"").count - 1, 3, rerun.stdout)
    }

    func testToKeyGenerateWritesTheKeyThatOpensTheExport() throws {
        let source = try makeShellDatabase("src.db", key: "source key", rows: 40)
        let result = try cipherctl(["export", source, path("copy.db"), "--key-env", "K", "--to-key-generate", path("copy.key")], environment: ["K": "source key"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let key = try String(contentsOfFile: path("copy.key"), encoding: .utf8).dropLast()
        XCTAssertEqual(try sqlcipherOK(path("copy.db"), "PRAGMA key = \"x'\(key)'\"; SELECT count(*) FROM items;"), "ok\n40\n")
    }

    func testAKilledRunsTemporaryKeyFileIsRemovedBeforeTheKeyIsWrittenAndWarnedOf() throws {
        let leftover = try writeFile("app.key.cipherctl-tmp-999999999-abc", "0123")
        let made = try cipherctl(["keygen", "--output", path("app.key")])
        XCTAssertEqual(made.code, 0, made.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover))
        XCTAssertTrue(made.stderr.contains("removed '\(leftover)', a temporary file left by an interrupted run"), made.stderr)
    }
}
