import CipherKit
import Foundation
import XCTest

/// A distinctive key, as a passphrase and as raw hex, must appear in no output and no file.
final class KeyLeakTests: CLITestCase {
    private let passphrase = "Zq-LEAKCHECK-passphrase-7731"
    private let newPassphrase = "Zq-LEAKCHECK-newphrase-4410"
    private let rawHex = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"

    private var needles: [Data] {
        [passphrase, newPassphrase, rawHex, rawHex.uppercased()].map { Data($0.utf8) }
            + [Hex.decode(rawHex)].compactMap { $0 }.map { Data($0) }
    }

    private func assertNoKey(in result: CommandResult, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        for needle in [passphrase, newPassphrase, rawHex, rawHex.uppercased()] {
            XCTAssertFalse(result.allOutput.contains(needle), "\(label) printed key material", file: file, line: line)
        }
    }

    func testProcessWaitingForItsKeyCannotDumpCore() throws {
        let db = try makeShellDatabase("a.db", key: passphrase, rows: 5)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["open", db, "--key-stdin"]
        process.environment = Self.childEnvironment(home: directory.path)
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The key is not given yet: cipherctl waits on its standard input, already hardened.
        var limits = ""
        for _ in 0..<100 where !limits.contains("Max core file size") {
            Thread.sleep(forTimeInterval: 0.05)
            limits = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)) ?? ""
        }
        Thread.sleep(forTimeInterval: 0.2)
        limits = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)) ?? limits
        input.fileHandleForWriting.write(Data((passphrase + "\n").utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }.map(String.init) ?? ""
        let fields = core.split(separator: " ", omittingEmptySubsequences: true)
        XCTAssertEqual(fields.count >= 6 ? Array(fields[4...5]) : [], ["0", "0"], "soft and hard core limits: \(core)")
    }

    func testNoCommandPrintsOrWritesKeyMaterial() throws {
        let keys = ["P": passphrase, "N": newPassphrase, "R": rawHex]
        let db = try makeShellDatabase("a.db", key: passphrase, rows: 50)
        var results: [(String, CommandResult)] = []
        results.append(("open", try cipherctl(["open", db, "--key-env", "P", "--json", "--counts", "--check"], environment: keys)))
        results.append(("open wrong", try cipherctl(["open", db, "--key-env", "N", "--json"], environment: keys)))
        results.append(("rekey", try cipherctl(["rekey", db, "--key-env", "P", "--new-key-env", "N", "--json"], environment: keys)))
        results.append(("rekey settings", try cipherctl(["rekey", db, "--key-env", "N", "--new-key-env", "P", "--new-page-size", "8192", "--backup"], environment: keys)))
        results.append(("export raw", try cipherctl(["export", db, path("raw.db"), "--key-env", "P", "--page-size", "8192", "--to-key-env", "R", "--to-raw-key", "--json"], environment: keys)))
        results.append(("rekey raw", try cipherctl(["rekey", path("raw.db"), "--key-env", "R", "--raw-key", "--new-key-env", "N", "--verbose"], environment: keys)))
        results.append(("export plain", try cipherctl(["export", path("raw.db"), path("plain.db"), "--key-env", "N", "--plaintext"], environment: keys)))
        results.append(("salt", try cipherctl(["salt", path("raw.db"), "--key-env", "N", "--output", path("raw.salt"), "--json", "--verbose"], environment: keys)))
        results.append(("header", try cipherctl(["plaintext-header", path("raw.db"), "--size", "32", "--key-env", "N", "--salt-output", path("ph.salt"), "--json"], environment: keys)))
        results.append(("header back", try cipherctl(["plaintext-header", path("raw.db"), "--size", "0", "--key-env", "N", "--salt-file", path("ph.salt")], environment: keys)))
        results.append(("query", try cipherctl(["query", db, "--key-env", "P", "--page-size", "8192", "--write", "--json", "--format", "json", "--verbose", "INSERT INTO items(name) VALUES (:n)", "--param", "n=x"], environment: keys)))
        results.append(("query wrong", try cipherctl(["query", db, "--key-env", "R", "--raw-key", "SELECT 1"], environment: keys)))
        results.append(("bad raw", try cipherctl(["open", db, "--key-env", "R", "--raw-key", "--key-env", "P"], environment: keys)))
        results.append(("typo", try cipherctl(["open", db, "--kee=\(passphrase)"], environment: keys)))
        // Keys printed by commands (the command line names the variable, never the key).
        results.append(("key-cmd rekey", try cipherctl(
            ["rekey", db, "--key-cmd", "printenv P", "--page-size", "8192", "--new-key-cmd", "printenv N", "--json", "--verbose"], environment: keys)))
        results.append(("key-cmd export", try cipherctl(
            ["export", db, path("cmd.db"), "--key-cmd", "printenv N", "--page-size", "8192", "--to-key-cmd", "printenv R", "--to-raw-key", "--json"],
            environment: keys)))
        results.append(("audit", try cipherctl(["audit", db, path("raw.db"), path("plain.db"), "--key-env", "P", "--check", "--json", "--verbose"], environment: keys)))
        results.append(("audit cmd", try cipherctl(["audit", "-r", directory.path, "--key-cmd", "printenv R", "--raw-key", "--require-hmac"], environment: keys)))
        results.append(("dump", try cipherctl(["dump", db, "--key-env", "P", "--verbose"], environment: keys)))
        results.append(("import", try cipherctl(["import", db, "imported", "-", "--format", "jsonl", "--key-env", "P", "--json"], stdin: "{\"a\": 1}\n", environment: keys)))
        results.append(("diff", try cipherctl(["diff", db, path("raw.db"), "--key-env", "P", "--other-key-cmd", "printenv N", "--rows", "--json"], environment: keys)))
        results.append(("recover", try cipherctl(["recover", db, path("recovered.db"), "--key-env", "P", "--to-key-cmd", "printenv N", "--json"], environment: keys)))
        results.append(("key-cmd failing", try cipherctl(["open", db, "--key-cmd", "printenv N; echo 'store locked' >&2; exit 1", "--json"], environment: keys)))
        for (label, result) in results {
            assertNoKey(in: result, label)
            XCTAssertFalse(result.signaled, label)
        }
        XCTAssertEqual(results[2].1.code, 0, results[2].1.stderr)
        XCTAssertEqual(results[4].1.code, 0, results[4].1.stderr)
        XCTAssertEqual(results[5].1.code, 0, results[5].1.stderr)
        for index in 7...10 { XCTAssertEqual(results[index].1.code, 0, results[index].1.stderr) }
        for index in 14...15 { XCTAssertEqual(results[index].1.code, 0, results[index].1.stderr) }
        XCTAssertEqual(results[22].1.code, 2, results[22].1.stderr)

        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let contents = try Data(contentsOf: directory.appendingPathComponent(name))
            for needle in needles {
                XCTAssertNil(contents.range(of: needle), "\(name) holds key material")
            }
        }
    }

    /// While the shell runs, keyed: no process's arguments or environment hold the key, the
    /// shell holds only its terminal, the drained script pipe and the database's files, and
    /// afterwards no file holds it. Once with a passphrase, once with a raw key (whose hex is
    /// what the script carries).
    func testTheShellSessionHoldsTheKeyInNoProcessArgumentEnvironmentOrFile() throws {
        let raw = String(rawHex.reversed())
        let byPassphrase = try makeShellDatabase("shell-p.db", key: passphrase, rows: 5)
        let byRawKey = path("shell-r.db")
        try sqlcipherOK(byRawKey, "PRAGMA key = \"x'\(raw)'\";\nCREATE TABLE items(id INTEGER PRIMARY KEY); INSERT INTO items DEFAULT VALUES;")
        try assertShellLeaksNothing(byPassphrase, options: ["--key-env", "P"], environment: ["P": passphrase], needles: [passphrase])
        try assertShellLeaksNothing(byRawKey, options: ["--key-env", "R", "--raw-key"], environment: ["R": raw], needles: [raw, raw.uppercased()])
    }

    private func assertShellLeaksNothing(_ database: String, options: [String], environment: [String: String], needles: [String]) throws {
        let session = try TerminalSession(
            executable: Self.binary, arguments: ["shell", database] + options,
            environment: Self.childEnvironment(home: directory.path).merging(environment) { $1 }, directory: directory)
        XCTAssertTrue(session.waitFor("sqlite> "), session.screen)
        session.type("SELECT count(*) FROM items;")
        XCTAssertTrue(session.waitFor("sqlite> "), session.screen)
        let pid = session.process.processIdentifier
        XCTAssertEqual(try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8), "sqlcipher\n", "cipherctl did not become the shell")
        for process in try FileManager.default.contentsOfDirectory(atPath: "/proc") where Int32(process) != nil {
            for part in ["cmdline", "environ"] {
                guard let contents = FileManager.default.contents(atPath: "/proc/\(process)/\(part)") else { continue }
                for needle in needles { XCTAssertNil(contents.range(of: Data(needle.utf8)), "process \(process)'s \(part) holds the key") }
            }
        }
        // What this process holds without close-on-exec reaches cipherctl, and the shell keeps it.
        let inherited = Set(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
        })
        for descriptor in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") {
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")
            // Foundation's Process hands its child one end of a socket pair, to learn of its end.
            guard !inherited.contains(target), !target.hasPrefix("socket:") else { continue }
            XCTAssertTrue(target.hasPrefix("/dev/pts/") || target.hasPrefix("pipe:") || target.hasPrefix(database), "the shell holds \(target)")
            if target.hasPrefix("pipe:") { XCTAssertEqual(try bytesLeft(inPipe: "/proc/\(pid)/fd/\(descriptor)"), 0, "the script pipe still holds bytes") }
        }
        session.type(".quit")
        XCTAssertEqual(session.finish(), 0, session.screen)
        for needle in needles { XCTAssertFalse(session.screen.contains(needle), "the terminal showed the key") }
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            guard let contents = FileManager.default.contents(atPath: path(name)) else { continue }
            for needle in needles { XCTAssertNil(contents.range(of: Data(needle.utf8)), "\(name) holds the key") }
        }
    }

    /// What a pipe still holds, read without waiting through a reader of its own.
    private func bytesLeft(inPipe path: String) throws -> Int {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoPermission) }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &buffer, buffer.count)
        return max(count, 0)
    }

    /// A key file that is also the SQL, the rows or the list of databases (the same file
    /// redirected in, or a link to it) is refused before anything reads it; SQL that holds
    /// the key anyway (the key file named as the SQL file) fails without being quoted.
    func testAKeyFileGivenAsTheInputIsRefusedAndNeverQuotedBack() throws {
        let db = try makeShellDatabase("a.db", key: passphrase, rows: 3)
        let keyFile = try writeFile("key.sql", passphrase + "\n")
        try FileManager.default.createSymbolicLink(atPath: path("link.sql"), withDestinationPath: keyFile)
        let shared: [(String, [String])] = [
            ("query --file", ["query", db, "--file", keyFile, "--key-stdin"]),
            ("query --file link", ["query", db, "--file", path("link.sql"), "--key-stdin"]),
            ("query --key-file /dev/stdin", ["query", db, "--file", keyFile, "--key-file", "/dev/stdin"]),
            ("import", ["import", db, "t", keyFile, "--format", "csv", "--key-stdin"]),
            ("rekey --from", ["rekey", "--from", keyFile, "--key-stdin", "--new-key-env", "N"]),
        ]
        for (label, arguments) in shared {
            let result = try run("/bin/sh", ["-c", "exec \"$0\" \"$@\" < \"$K\"", Self.binary] + arguments, stdin: nil,
                                 environment: ["K": keyFile, "N": newPassphrase])
            XCTAssertEqual(result.code, 2, "\(label): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("standard input cannot carry both the key"), "\(label): \(result.stderr)")
            assertNoKey(in: result, label)
        }
        let named = try cipherctl(["query", db, "--file", keyFile, "--key-file", keyFile])
        XCTAssertEqual(named.code, 1, named.stderr)
        XCTAssertTrue(named.stderr.contains("its text holds the key and is not shown"), named.stderr)
        assertNoKey(in: named, "query --file KEYFILE")
        let argument = try cipherctl(["query", db, passphrase, "--key-env", "P"], environment: ["P": passphrase])
        XCTAssertEqual(argument.code, 1, argument.stderr)
        XCTAssertFalse(argument.stderr.contains(passphrase), argument.stderr)
        XCTAssertTrue(try sqlcipherOK(db, "PRAGMA key = '\(passphrase)'; SELECT count(*) FROM items;").hasSuffix("3\n"))
    }

    /// `--key-stdin` on a terminal asks without echo, as the prompt does: the typed key never
    /// shows on the screen.
    func testKeyOnStandardInputFromATerminalIsNotEchoed() throws {
        let db = try makeShellDatabase("t.db", key: passphrase, rows: 2)
        let (code, screen) = try cipherctlOnTerminal(["open", db, "--key-stdin"], answers: [(prompt: "Key for", answer: passphrase)])
        XCTAssertEqual(code, 0, screen)
        XCTAssertFalse(screen.contains(passphrase), screen)
        XCTAssertTrue(screen.contains("page count"), screen)
    }
}
