import Foundation
import XCTest

/// `--key-cmd`, `--new-key-cmd` and `--to-key-cmd`: keys printed by commands, from plain
/// scripts and from a real secret store (`pass`, with a GnuPG key the test makes).
final class KeyCommandTests: CLITestCase {
    private let key = "kc secret 8ad1f0", newKey = "kc new secret 42c7e9"

    /// A script printing `text` and a newline, as a secret store's client does.
    private func printer(_ name: String, _ text: String) throws -> String {
        try writeFile(name, "#!/bin/sh\nprintf '%s\\n' '\(text)'\n", mode: 0o700)
    }

    private func assertNoSecret(_ result: CommandResult, _ secrets: [String], file: StaticString = #filePath, line: UInt = #line) {
        for secret in secrets {
            XCTAssertFalse(result.stdout.contains(secret) || result.stderr.contains(secret), "a key was printed", file: file, line: line)
        }
    }

    func testKeysFromCommandsOpenRekeyAndExportAndAreNeverPrinted() throws {
        let db = try makeShellDatabase("a.db", key: key, rows: 100)
        let current = try printer("current.sh", key), next = try printer("next.sh", newKey)
        let opened = try cipherctl(["open", db, "--key-cmd", current, "--json"])
        XCTAssertEqual(opened.code, 0, opened.stderr)
        let rekeyed = try cipherctl(["rekey", db, "--key-cmd", current, "--new-key-cmd", next, "--json"])
        XCTAssertEqual(rekeyed.code, 0, rekeyed.stderr)
        XCTAssertEqual(try sqlcipherOK(db, "PRAGMA key = '\(newKey)'; SELECT count(*) FROM items;"), "ok\n100\n")
        let exported = try cipherctl(["export", db, path("b.db"), "--key-cmd", next, "--to-key-cmd", current, "--json"])
        XCTAssertEqual(exported.code, 0, exported.stderr)
        XCTAssertEqual(try sqlcipherOK(path("b.db"), "PRAGMA key = '\(key)'; SELECT count(*) FROM items;"), "ok\n100\n")
        for result in [opened, rekeyed, exported] { assertNoSecret(result, [key, newKey]) }
    }

    func testAFailingCommandExits2NamingItsLastErrorLineAndNeverItsOutput() throws {
        let db = try makeShellDatabase("a.db", key: key, rows: 10)
        let before = try fingerprint(db).0
        let cases: [(command: String, says: String)] = [
            ("printf 'leaked %s\\n' '\(key)'; echo 'vault: first line' >&2; echo 'vault: permission denied' >&2; exit 3",
             "exited with status 3: vault: permission denied"),
            ("true", "printed no key"),
            ("printf '\\n'", "printed no key"),
            ("read line; printf '%s\\n' \"$line\"", "printed no key"),
            ("head -c 70000 /dev/zero | tr '\\0' a", "printed more than 64 KB"),
            ("kill -9 $$", "was killed by signal 9"),
        ]
        for (command, says) in cases {
            let result = try cipherctl(["rekey", db, "--key-cmd", command, "--new-key-env", "N"], environment: ["N": newKey])
            XCTAssertEqual(result.code, 2, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: the --key-cmd command \(says)"), "\(command): \(result.stderr)")
            assertNoSecret(result, [key, newKey])
        }
        XCTAssertEqual(try fingerprint(db).0, before, "no failed key command changed the database")
    }

    func testACommandPastItsTimeLimitIsKilledWithWhatItStartedAndExits2() throws {
        let db = try makeShellDatabase("a.db", key: key, rows: 10)
        let pids = path("pids")
        let started = Date()
        // The shell starts a child that outlives it unless the whole group is killed.
        let result = try cipherctl(["open", db, "--key-cmd", "sleep 60 & echo $! > '\(pids)'; echo $$ >> '\(pids)'; wait", "--key-cmd-timeout", "1"])
        XCTAssertEqual(result.code, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("did not finish within 1 s"), result.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
        usleep(200_000)
        for pid in try String(contentsOfFile: pids, encoding: .utf8).split(separator: "\n").compactMap({ Int32($0) }) {
            XCTAssertFalse(isRunning(pid), "process \(pid) of the key command is still running")
        }
        let bad = try cipherctl(["open", db, "--key-cmd", "true", "--key-cmd-timeout", "soon"])
        XCTAssertEqual(bad.code, 2, bad.stderr)
    }

    /// Whether `pid` runs: not gone, and not a zombie that nobody reaped (a container's first
    /// process may never reap the orphans it inherits).
    private func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    func testAKeyFromPassWithAGnuPGKeyOpensTheDatabase() throws {
        try requireTestTool(FileManager.default.isExecutableFile(atPath: "/usr/bin/pass"), "pass is not installed (Scripts/bootstrap --test-tools installs it)")
        let gnupg = path("gnupg"), store = path("store")
        try FileManager.default.createDirectory(atPath: gnupg, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = ["GNUPGHOME": gnupg, "PASSWORD_STORE_DIR": store]
        defer { _ = try? sh("gpgconf --kill gpg-agent", environment: environment) }
        let made = try sh("""
            gpg --batch --passphrase '' --quick-gen-key 'cipherctl test <test@example.invalid>' default default never 2>/dev/null
            pass init "$(gpg --list-keys --with-colons | awk -F: '/^fpr/ { print $10; exit }')" >/dev/null
            printf '%s\\n' '\(key)' | pass insert --multiline db/app >/dev/null
            """, environment: environment)
        XCTAssertEqual(made.code, 0, made.stderr)
        let db = try makeShellDatabase("a.db", key: key, rows: 20)
        let result = try cipherctl(["query", db, "SELECT count(*) FROM items", "--key-cmd", "pass show db/app", "--format", "value"], environment: environment)
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(result.stdout, "20\n")
        assertNoSecret(result, [key])
        let missing = try cipherctl(["open", db, "--key-cmd", "pass show db/none"], environment: environment)
        XCTAssertEqual(missing.code, 2, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("db/none is not in the password store"), missing.stderr)
    }
}
