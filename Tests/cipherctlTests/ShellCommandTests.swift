import Foundation
import TestSupport
import XCTest

/// `cipherctl shell`: the sqlcipher shell on a database, keyed through a pipe, its settings
/// found. The shell's own answers are compared with the shell keyed by hand (the oracle).
final class ShellCommandTests: CLITestCase {
    private let key = "shell test key"
    /// A checksum over every row of every table, as `contentChecksum` computes it.
    private let checksumSQL = """
        SELECT name || ':' || hex(sha3_query('SELECT * FROM ' || quote(name) || ' ORDER BY rowid')) \
        FROM sqlite_master WHERE type = 'table' ORDER BY name;
        """

    /// A database as the shell writes it: the SQL after its key, and what cipherctl is told.
    private struct Format {
        let name: String
        let shellSQL: String
        let options: [String]
    }

    private let salt = "00112233445566778899aabbccddeeff"
    private var formats: [Format] {
        [
            Format(name: "SQLCipher 4", shellSQL: "", options: []),
            Format(name: "SQLCipher 3", shellSQL: "PRAGMA cipher_compatibility = 3;", options: []),
            Format(name: "SQLCipher 2", shellSQL: "PRAGMA cipher_compatibility = 2;", options: []),
            Format(name: "SQLCipher 2 big-endian", shellSQL: "PRAGMA cipher_compatibility = 2; PRAGMA cipher_hmac_pgno = be;", options: []),
            Format(name: "SQLCipher 1", shellSQL: "PRAGMA cipher_compatibility = 1;", options: []),
            Format(name: "HMAC-SHA256, found by search", shellSQL: "PRAGMA cipher_hmac_algorithm = HMAC_SHA256;", options: []),
            Format(name: "8 KiB pages and 10,000 counts, found by search", shellSQL: "PRAGMA cipher_page_size = 8192; PRAGMA kdf_iter = 10000;", options: []),
            Format(name: "HMAC off", shellSQL: "PRAGMA cipher_use_hmac = OFF;", options: ["--hmac-algorithm", "none"]),
            Format(name: "plaintext header", shellSQL: "PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'\(salt)'\";",
                   options: ["--salt", salt]),
        ]
    }

    /// The shell's answer to the checksum, given as an argument and on standard input.
    private func shellChecksums(_ database: String, options: [String], environment: [String: String], label: String) throws -> [String] {
        let byArgument = try cipherctl(["shell", database] + options + ["--", checksumSQL], environment: environment)
        let byInput = try cipherctl(["shell", database] + options, stdin: checksumSQL + "\n", environment: environment)
        XCTAssertEqual(byArgument.code, 0, "\(label), SQL as an argument: \(byArgument.stderr)")
        XCTAssertEqual(byInput.code, 0, "\(label), SQL on standard input: \(byInput.stderr)")
        return [byArgument.stdout, byInput.stdout].map { $0.trimmingCharacters(in: .newlines) }
    }

    func testShellReadsTheRowsOfEveryFormatOpenRecognisesOnPipesAndOnATerminal() throws {
        for (index, format) in formats.enumerated() {
            let database = try makeShellDatabase("format\(index).db", key: key, rows: 60, extraSQL: format.shellSQL)
            let expected = try XCTUnwrap(contentChecksum(database, keySQL: "PRAGMA key = '\(key)';\n" + format.shellSQL), format.name)
            for answer in try shellChecksums(database, options: ["--key-env", "K"] + format.options, environment: ["K": key], label: format.name) {
                XCTAssertEqual(answer, expected, format.name)
            }
            let screen = try terminalAnswer(database, options: ["--key-env", "K"] + format.options, environment: ["K": key], sql: checksumSQL)
            for line in expected.split(separator: "\n") {
                XCTAssertTrue(screen.contains(line + "\r\n"), "\(format.name) on a terminal: \(screen.debugDescription)")
            }
        }
    }

    /// What the terminal shows when `sql` is typed into an interactive session, which must
    /// then end with exit 0 at `.quit`.
    private func terminalAnswer(_ database: String, options: [String], environment: [String: String], sql: String) throws -> String {
        let session = try TerminalSession(
            executable: Self.binary, arguments: ["shell", database] + options,
            environment: Self.childEnvironment(home: directory.path).merging(environment) { $1 }.merging(["TERM": "dumb"]) { $1 }, directory: directory)
        XCTAssertTrue(session.waitFor("sqlite> "), session.screen)
        session.type(sql)
        XCTAssertTrue(session.waitFor("sqlite> "), session.screen)
        session.type(".quit")
        XCTAssertEqual(session.finish(), 0, session.screen)
        return session.screen
    }

    func testShellAsksForTheKeyOnItsTerminalWhenNoneIsGiven() throws {
        let database = try makeShellDatabase("asked.db", key: key, rows: 12)
        let (code, screen) = try cipherctlOnTerminal(
            ["shell", database], answers: [("Key for", key), ("sqlite> ", "SELECT count(*) FROM items;"), ("sqlite> ", ".quit")])
        XCTAssertEqual(code, 0, screen)
        XCTAssertTrue(screen.contains("12\r\n"), screen)
        XCTAssertFalse(screen.contains(key), "the typed key was echoed")
    }

    func testHelpSaysWhatTheShellStillKeepsAndItsExitCodes() throws {
        let help = try cipherctl(["shell", "--help"])
        XCTAssertEqual(help.code, 0)
        for promise in ["keeps it in its memory", "SQLITE_HISTORY=/dev/null", "Read-only", "EXIT STATUS", "-- <shell-argument>"] {
            XCTAssertTrue(help.stdout.contains(promise), promise)
        }
    }

    func testShellReadsARawKeyDatabaseAndAPlaintextOne() throws {
        let raw = String(repeating: "5a17", count: 16)
        let keyed = path("raw.db")
        try sqlcipherOK(keyed, "PRAGMA key = \"x'\(raw)'\";\nCREATE TABLE t(x, y); INSERT INTO t VALUES (1, 'one'), (2, x'00ff');")
        let expected = try XCTUnwrap(contentChecksum(keyed, keySQL: "PRAGMA key = \"x'\(raw)'\";"))
        for answer in try shellChecksums(keyed, options: ["--key-env", "R", "--raw-key"], environment: ["R": raw], label: "raw key") {
            XCTAssertEqual(answer, expected, "raw key")
        }
        let plain = path("plain.db")
        try sqlcipherOK(plain, "CREATE TABLE t(x); INSERT INTO t VALUES (1), ('two');")
        let plainExpected = try XCTUnwrap(contentChecksum(plain, keySQL: ""))
        for answer in try shellChecksums(plain, options: [], environment: [:], label: "plaintext") {
            XCTAssertEqual(answer, plainExpected, "plaintext")
        }
    }

    /// Passphrases the shell's own SQL would need quoting for (quotes, line breaks, non-ASCII),
    /// each keying a database the oracle made; the seed replays a run.
    func testAnyPassphraseKeysTheShellAsItKeysCipherctl() throws {
        var (generator, seed) = SeededGenerator.forSweep("shell passphrases", variable: "CIPHERCTL_SHELL_PASSPHRASE_SEED")
        let alphabet = Array("ab'\"\\\n\t ;.-xX0123456789äß€😀")
        for index in 0..<sweepCases("CIPHERCTL_SHELL_PASSPHRASE_CASES", quick: 4) {
            // A key file's one trailing line break is not the key's.
            let passphrase = String((0..<Int.random(in: 1...38, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }) + "."
            let quoted = passphrase.replacingOccurrences(of: "'", with: "''")
            let database = try makeShellDatabase("p\(index).db", key: quoted, rows: 20)
            let expected = try XCTUnwrap(contentChecksum(database, keySQL: "PRAGMA key = '\(quoted)';"), "seed \(seed), case \(index)")
            let keyFile = try writeFile("p\(index).key", passphrase)
            for answer in try shellChecksums(database, options: ["--key-file", keyFile], environment: [:], label: "seed \(seed), case \(index)") {
                XCTAssertEqual(answer, expected, "seed \(seed), case \(index)")
            }
        }
    }

    func testShellIsReadOnlyUnlessWriteIsGivenAndAFailedWriteLeavesTheFileAsItWas() throws {
        let database = try makeShellDatabase("ro.db", key: key, rows: 30)
        let before = try fingerprint(database)
        let refused = try cipherctl(["shell", database, "--key-env", "K", "--", "DELETE FROM items"], environment: ["K": key])
        XCTAssertNotEqual(refused.code, 0)
        XCTAssertTrue(refused.stderr.contains("readonly"), refused.stderr)
        XCTAssertEqual(try fingerprint(database).0, before.0, "a read-only session changed the file")
        let written = try cipherctl(["shell", database, "--key-env", "K", "--write", "--", "DELETE FROM items WHERE id > 10", "SELECT count(*) FROM items"], environment: ["K": key])
        XCTAssertEqual(written.code, 0, written.stderr)
        XCTAssertEqual(written.stdout, "10\n")
        XCTAssertEqual(try sqlcipherOK(database, "PRAGMA key = '\(key)';\nSELECT count(*) FROM items;"), "ok\n10\n")
    }

    func testShellExitCodeIsTheCommandsExitCode() throws {
        let database = try makeShellDatabase("code.db", key: key, rows: 5)
        let failed = try cipherctl(["shell", database, "--key-env", "K", "--", "-bail", "SELECT * FROM missing"], environment: ["K": key])
        XCTAssertEqual(failed.code, 1, failed.stderr)
        let exited = try cipherctl(["shell", database, "--key-env", "K", "--", "-cmd", ".exit 7"], environment: ["K": key])
        XCTAssertEqual(exited.code, 7, exited.stderr)
    }

    /// A stand-in for the shell that says it is SQLCipher 4, notes that it started, its
    /// arguments and its environment, then runs the real shell.
    private func recordingShell() throws -> String {
        let script = try writeFile("recording-sqlcipher", """
            #!/bin/sh
            for argument in "$@"; do
              if [ "$argument" = "-version" ]; then echo '3.46.1 (SQLCipher 4.6.1 community)'; exit 0; fi
            done
            here=$(dirname "$0")
            printf '%s\\n' "$@" > "$here/started-args"
            env > "$here/started-env"
            exec sqlcipher "$@"
            """, mode: 0o755)
        return script
    }

    func testWrongKeyExits3BeforeTheShellStarts() throws {
        let database = try makeShellDatabase("wrong.db", key: key, rows: 5)
        let program = try recordingShell()
        let result = try cipherctl(["shell", database, "--key-env", "K", "--program", program], environment: ["K": "not the key"])
        XCTAssertEqual(result.code, 3, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: "), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("started-args")), "the shell started")
    }

    func testTheShellGetsNoKeyInItsArgumentsOrEnvironment() throws {
        let database = try makeShellDatabase("args.db", key: key, rows: 5)
        let program = try recordingShell()
        let result = try cipherctl(["shell", database, "--key-env", "K", "--program", program, "--", "SELECT count(*) FROM items"],
                                   environment: ["K": key, "COPY_OF_K": key, "OTHER": "kept"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(result.stdout, "5\n")
        let arguments = try String(contentsOfFile: path("started-args"), encoding: .utf8)
        let environment = try String(contentsOfFile: path("started-env"), encoding: .utf8)
        XCTAssertFalse(arguments.contains(key) || environment.contains(key), "the shell was given the key")
        XCTAssertTrue(arguments.hasPrefix("-init\n/dev/fd/"), arguments)
        XCTAssertTrue(arguments.contains("-readonly\n"), arguments)
        XCTAssertTrue(environment.contains("SQLITE_HISTORY=/dev/null"), environment)
        XCTAssertTrue(environment.contains("OTHER=kept"), environment)
        XCTAssertFalse(environment.contains("COPY_OF_K="), environment)
    }

    func testMissingOrOldShellExits2AndNamesThePackage() throws {
        let database = try makeShellDatabase("missing.db", key: key, rows: 5)
        let none = try cipherctl(["shell", database, "--key-env", "K"], environment: ["K": key, "PATH": "/nonexistent"])
        XCTAssertEqual(none.code, 2, none.stderr)
        XCTAssertTrue(none.stderr.contains("apt-get install sqlcipher"), none.stderr)
        let plain = try writeFile("sqlite3-only", "#!/bin/sh\necho '3.40.1 2022-12-28 14:03:47'\n", mode: 0o755)
        let old = try cipherctl(["shell", database, "--key-env", "K", "--program", plain], environment: ["K": key])
        XCTAssertEqual(old.code, 2, old.stderr)
        XCTAssertTrue(old.stderr.contains("no SQLCipher") && old.stderr.contains("apt-get install sqlcipher"), old.stderr)
        let folder = try cipherctl(["shell", database, "--key-env", "K", "--program", directory.path], environment: ["K": key])
        XCTAssertEqual(folder.code, 2, folder.stderr)
        XCTAssertTrue(folder.stderr.contains("is a folder, not a sqlcipher shell"), folder.stderr)
        let silent = try writeFile("silent-shell", "#!/bin/sh\nexec sleep 300\n", mode: 0o755)
        let hung = try cipherctl(["shell", database, "--key-env", "K", "--program", silent], environment: ["K": key])
        XCTAssertEqual(hung.code, 2, hung.stderr)
        XCTAssertTrue(hung.stderr.contains("did not answer -version within 10 seconds"), hung.stderr)
        let empty = try cipherctl(["shell", database, "--key-env", "K", "--program", ""], environment: ["K": key])
        XCTAssertTrue(empty.code == 2 && empty.stderr.contains("is given an empty value"), empty.stderr)
    }

    func testInitAmongTheShellsArgumentsAndAKeyOnStandardInputAreRefused() throws {
        let database = try makeShellDatabase("refused.db", key: key, rows: 5)
        let initGiven = try cipherctl(["shell", database, "--key-env", "K", "--", "-init", "/dev/null"], environment: ["K": key])
        XCTAssertEqual(initGiven.code, 2, initGiven.stderr)
        XCTAssertTrue(initGiven.stderr.contains("-init"), initGiven.stderr)
        let keyOnInput = try cipherctl(["shell", database, "--key-stdin"], stdin: key + "\nSELECT 1;\n")
        XCTAssertEqual(keyOnInput.code, 2, keyOnInput.stderr)
        XCTAssertTrue(keyOnInput.stderr.contains("standard input"), keyOnInput.stderr)
    }

    func testHotJournalNeedsWriteAndWriteRollsItBack() throws {
        let database = try makeShellDatabase("hot.db", key: key, rows: 200)
        try leaveHotJournal(database, key: key)
        let before = try folderListing(directory.path)
        let refused = try cipherctl(["shell", database, "--key-env", "K", "--", "SELECT count(*) FROM items"], environment: ["K": key])
        XCTAssertEqual(refused.code, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("hot journal"), refused.stderr)
        XCTAssertEqual(try folderListing(directory.path), before, "a refused session changed a file")
        let rolledBack = try cipherctl(["shell", database, "--key-env", "K", "--write", "--", "SELECT count(*) FROM items WHERE name LIKE '% changed'"],
                                       environment: ["K": key])
        XCTAssertEqual(rolledBack.code, 0, rolledBack.stderr)
        XCTAssertEqual(rolledBack.stdout, "0\n")
    }

    func testAHotJournalBesideTheFileALinkNamesIsSeen() throws {
        try FileManager.default.createDirectory(atPath: path("data"), withIntermediateDirectories: false)
        let database = try makeShellDatabase("data/hot.db", key: key, rows: 200)
        try leaveHotJournal(database, key: key)
        try FileManager.default.createSymbolicLink(atPath: path("link.db"), withDestinationPath: database)
        let refused = try cipherctl(["shell", path("link.db"), "--key-env", "K", "--", "SELECT count(*) FROM items"], environment: ["K": key])
        XCTAssertEqual(refused.code, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("hot journal") && refused.stderr.contains("--write"), refused.stderr)
        let opened = try cipherctl(["open", path("link.db"), "--key-env", "K", "--json"], environment: ["K": key])
        XCTAssertEqual(try jsonObject(opened.stdout)["hot_journal"] as? Bool, true, opened.stdout)
    }

    /// A `-wal` holding commits with no `-shm`, in a folder the user cannot write: SQLite
    /// cannot make the `-shm` the read-only shell needs, so the run stops before the shell
    /// starts (exit 5, naming the state), while `query` still reads every commit.
    func testAWALWithoutShmInAFolderTheUserCannotWriteIsExit5BeforeTheShellStarts() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to run as nobody") }
        let folder = path("ro")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let live = try makeShellDatabase("live.db", key: key, rows: 20, extraSQL: "PRAGMA journal_mode = WAL;")
        let (holder, input) = try startShellHolding(live, "PRAGMA key = '\(key)'; PRAGMA wal_autocheckpoint = 0; DELETE FROM items WHERE id > 5;")
        try FileManager.default.copyItem(atPath: live, toPath: folder + "/w.db")
        try FileManager.default.copyItem(atPath: live + "-wal", toPath: folder + "/w.db-wal")
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        for name in ["w.db", "w.db-wal"] { try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder + "/" + name) }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
        let before = try folderListing(folder)
        let refused = try cipherctlAsNobody(["shell", folder + "/w.db", "--key-env", "K", "--", "SELECT count(*) FROM items"], environment: ["K": key])
        XCTAssertEqual(refused.code, 5, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("has no -shm beside it"), refused.stderr)
        XCTAssertEqual(refused.stdout, "")
        let read = try cipherctlAsNobody(["query", folder + "/w.db", "SELECT count(*) FROM items", "--key-env", "K", "--format", "csv", "--no-header"],
                                         environment: ["K": key])
        XCTAssertEqual(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "5", read.stderr)
        XCTAssertEqual(try folderListing(folder), before)
    }

    /// A home folder whose path the shell's `.read` cannot quote: `~/.sqliterc` is not read,
    /// a warning says so, and the session still runs keyed.
    func testASqlitercTheShellCannotQuoteIsSkippedWithAWarning() throws {
        let database = try makeShellDatabase("rc.db", key: key, rows: 3)
        let home = path("it's home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        try Data(".mode csv\n".utf8).write(to: URL(fileURLWithPath: home + "/.sqliterc"))
        let result = try cipherctl(["shell", database, "--key-env", "K", "--", "SELECT count(*) FROM items"], environment: ["K": key, "HOME": home])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(result.stdout, "3\n")
        XCTAssertTrue(result.stderr.contains("warning:") && result.stderr.contains(".sqliterc' is not read"), result.stderr)
    }

    func testPathsTheShellWouldTakeForURIsOpenTheFileNamed() throws {
        for name in ["file:uri.db", "file:odd?mode=rwc.db"] {
            _ = try makeShellDatabase("./" + name, key: key, rows: 3)
            let result = try cipherctl(["shell", name, "--key-env", "K", "--", "SELECT count(*) FROM items"], environment: ["K": key])
            XCTAssertEqual(result.code, 0, "\(name): \(result.stderr)")
            XCTAssertEqual(result.stdout, "3\n", name)
        }
    }

    func testShellOnATerminalAnswersReadsTheUsersSqlitercAndSavesNoHistory() throws {
        let database = try makeShellDatabase("tty.db", key: key, rows: 30)
        try writeFile(".sqliterc", ".headers on\n.mode csv\n")
        let session = try TerminalSession(
            executable: Self.binary, arguments: ["shell", database, "--key-env", "K"],
            environment: Self.childEnvironment(home: directory.path).merging(["K": key, "TERM": "dumb"]) { $1 }, directory: directory)
        XCTAssertTrue(session.waitFor("sqlite> "), session.screen)
        session.type("SELECT count(*) AS n FROM items;")
        XCTAssertTrue(session.waitFor("sqlite> "), session.screen)
        // csv's own line ends are \r\n, which the terminal shows as \r\r\n.
        XCTAssertTrue(session.screen.contains("\nn\r\r\n30\r\r\n"), "csv with headers, from ~/.sqliterc: \(session.screen.debugDescription)")
        session.type(".quit")
        XCTAssertEqual(session.finish(), 0, session.screen)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path(".sqlite_history")), "the session's history was saved")
        XCTAssertFalse(session.screen.contains(key))
    }

    func testARawKeyWithItsSaltOpensAPlaintextHeaderDatabase() throws {
        let salt = "00112233445566778899aabbccddeeff"
        let database = try makeShellDatabase("header.db", key: key, rows: 9,
                                             extraSQL: "PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'\(salt)'\";")
        let derived = try cipherctl(["keygen", "--derive", database, "--key-env", "K", "--salt", salt, "--output", path("header.raw")], environment: ["K": key])
        XCTAssertEqual(derived.code, 0, derived.stderr)
        let opened = try cipherctl(["shell", database, "--key-file", path("header.raw"), "--raw-key", "--", "SELECT count(*) FROM items"])
        XCTAssertEqual(opened.code, 0, opened.stderr)
        XCTAssertEqual(opened.stdout, "9\n")
    }

    func testAKeyFileThatIsStandardInputUnderAnotherNameIsRefused() throws {
        let database = try makeShellDatabase("stdin.db", key: key, rows: 3)
        let keyFile = try writeFile("stdin.key", key + "\n")
        try FileManager.default.createSymbolicLink(atPath: path("stdin-link"), withDestinationPath: "/dev/stdin")
        for (label, name) in [("the file itself", keyFile), ("a link to /dev/stdin", path("stdin-link"))] {
            let result = try sh("\"$CIPHERCTL\" shell '\(database)' --key-file '\(name)' < '\(keyFile)'")
            XCTAssertEqual(result.code, 2, "\(label): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("standard input"), "\(label): \(result.stderr)")
            XCTAssertFalse(result.allOutput.contains(key), "\(label): the key was printed")
        }
    }

    func testDescriptorsTheUserHandsInReachTheShellButTheKeysDoesNot() throws {
        let database = try makeShellDatabase("fds.db", key: key, rows: 4)
        try writeFile("count.sql", "SELECT count(*) FROM items;\n")
        let result = try sh("""
            "$CIPHERCTL" shell '\(database)' --key-fd 7 -- '.read /dev/fd/9' '.shell ls /proc/$PPID/fd' 7<'\(try writeFile("fd.key", key))' 9<'\(path("count.sql"))'
            """)
        XCTAssertEqual(result.code, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "4", result.stdout)
        XCTAssertTrue(lines.contains("9"), "the user's descriptor 9 is the shell's: \(result.stdout)")
        XCTAssertFalse(lines.contains("7"), "the key's descriptor 7 reached the shell: \(result.stdout)")
    }

    func testAnyVariableTheKeyAppearsInIsLeftOutOfTheShellsEnvironment() throws {
        let database = try makeShellDatabase("env.db", key: key, rows: 2)
        let program = try recordingShell()
        let result = try cipherctl(["shell", database, "--key-env", "K", "--program", program, "--", "SELECT 1"],
                                   environment: ["K": key, "URL": "db://user:\(key)@host", "WITH_NEWLINE": key + "\n", "NEAR": "shell test"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let environment = try String(contentsOfFile: path("started-env"), encoding: .utf8)
        XCTAssertFalse(environment.contains(key), environment)
        XCTAssertTrue(environment.contains("NEAR=shell test"), "a variable without the key stays: \(environment)")
    }

    /// With a key ring, every variable the ring reads holds a key: the one that opened the
    /// file, and the others (another file's, or a rotation's new key), whatever their order.
    func testEveryVariableAKeyRingReadsIsLeftOutOfTheShellsEnvironment() throws {
        let database = try makeShellDatabase("ring-env.db", key: key, rows: 2)
        let program = try recordingShell()
        let others = ["RING_OLD": "an older key 71", "RING_NEW": "the next key 72"]
        for order in [["RING_OLD", "K", "RING_NEW"], ["K", "RING_NEW", "RING_OLD"]] {
            let ring = try writeFile("env.ring", order.map { "\($0.lowercased()) env:\($0)" }.joined(separator: "\n") + "\n")
            let result = try cipherctl(["shell", database, "--key-ring", ring, "--program", program, "--", "SELECT 1"],
                                       environment: others.merging(["K": key, "NEAR": "shell test"]) { $1 })
            XCTAssertEqual(result.code, 0, result.stderr)
            let environment = try String(contentsOfFile: path("started-env"), encoding: .utf8)
            for secret in [key] + others.values { XCTAssertFalse(environment.contains(secret), "\(order): \(environment)") }
            XCTAssertTrue(environment.contains("NEAR=shell test"), "a variable without a key stays: \(environment)")
        }
    }

    func testAnInterruptedKeyPromptLeavesTheTerminalEchoing() throws {
        let database = try makeShellDatabase("prompt.db", key: key, rows: 2)
        for (label, keys) in [("Ctrl-C", "\u{03}"), ("Ctrl-\\", "\u{1c}"), ("SIGUSR1", ""), ("SIGALRM", "")] {
            // setsid -c: a session whose controlling terminal is this one, where the prompt is asked.
            let session = try TerminalSession(
                executable: "/usr/bin/setsid", arguments: ["-w", "-c", Self.binary, "shell", database],
                environment: Self.childEnvironment(home: directory.path), directory: directory)
            XCTAssertTrue(session.waitFor("Key for"), "\(label): \(session.screen)")
            XCTAssertFalse(session.echoes, "\(label): echo is on at the prompt")
            if keys.isEmpty { session.signalForeground(label == "SIGUSR1" ? SIGUSR1 : SIGALRM) } else { session.press(keys) }
            XCTAssertNotEqual(session.finish(), 0, label)
            XCTAssertTrue(session.echoes, "\(label) left the terminal without echo")
            XCTAssertFalse(session.screen.contains("Press space"), "\(label): a crash handler waited on the terminal")
        }
    }

    func testAKeyThatIsStandardInputUnderAnotherDescriptorOrTwoKeysFromItAreRefused() throws {
        let database = try makeShellDatabase("twice.db", key: key, rows: 2)
        let keyFile = try writeFile("twice.key", key + "\nnew key for twice\n")
        for (label, line) in [
            ("--key-fd on the file that is standard input", "\"$CIPHERCTL\" shell '\(database)' --key-fd 5 5<'\(keyFile)' < '\(keyFile)'"),
            ("the old key's file and the new key both on standard input", "\"$CIPHERCTL\" rekey '\(database)' --key-file '\(keyFile)' --new-key-stdin < '\(keyFile)'"),
        ] {
            let result = try sh(line)
            XCTAssertEqual(result.code, 2, "\(label): \(result.stderr)")
            XCTAssertFalse(result.allOutput.contains(key), "\(label): the key was printed")
        }
        XCTAssertEqual(try sqlcipherOK(database, "PRAGMA key = '\(key)';\nSELECT count(*) FROM items;"), "ok\n2\n")
    }

    func testAKeyFileReadThroughADescriptorDoesNotReachTheShell() throws {
        let database = try makeShellDatabase("fdfile.db", key: key, rows: 2)
        let keyFile = try writeFile("fdfile.key", key)
        let result = try sh("\"$CIPHERCTL\" shell '\(database)' --key-file /dev/fd/5 -- '.shell ls /proc/$PPID/fd' 5<'\(keyFile)'")
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertFalse(result.stdout.split(separator: "\n").contains("5"), "the key file's descriptor reached the shell: \(result.stdout)")
    }

    func testTheDerivedRawKeyAndTheRawKeysOwnDigitsLeaveTheShellsEnvironment() throws {
        let database = try makeShellDatabase("derived.db", key: key, rows: 2)
        let derived = try cipherctl(["keygen", "--derive", database, "--key-env", "K", "--output", path("derived.raw")], environment: ["K": key])
        XCTAssertEqual(derived.code, 0, derived.stderr)
        let raw = String(try String(contentsOfFile: path("derived.raw"), encoding: .utf8).dropLast())
        let program = try recordingShell()
        let result = try cipherctl(["shell", database, "--key-env", "K", "--program", program, "--", "SELECT 1"],
                                   environment: ["K": key, "DERIVED": raw, "KEY_PART": String(raw.prefix(64)).uppercased()])
        XCTAssertEqual(result.code, 0, result.stderr)
        let environment = try String(contentsOfFile: path("started-env"), encoding: .utf8)
        for name in ["DERIVED=", "KEY_PART="] { XCTAssertFalse(environment.contains(name), "\(name) reached the shell") }
    }
}
