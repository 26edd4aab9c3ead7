import Foundation
import XCTest

/// Runs the built `cipherctl` binary and the real `sqlcipher` shell as subprocesses, in a
/// fresh temporary directory that is removed after each test.
class CLITestCase: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cipherctl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// The package's top folder, for the README and the man page.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built binary: $CIPHERCTL_BINARY, or `cipherctl` beside the test bundle.
    static let binary: String = {
        if let override = ProcessInfo.processInfo.environment["CIPHERCTL_BINARY"] { return override }
        let bundle = Bundle.main.bundleURL
        let candidates = [bundle.appendingPathComponent("cipherctl"), bundle.deletingLastPathComponent().appendingPathComponent("cipherctl")]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }?.path ?? candidates[0].path
    }()

    /// Runs cipherctl with `arguments`, feeding `stdin`, with `environment` added to a clean one.
    @discardableResult
    func cipherctl(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> CommandResult {
        try run(Self.binary, arguments, stdin: stdin, environment: environment)
    }

    /// Runs a shell command line with `sh -c` (for file descriptor redirections).
    @discardableResult
    func sh(_ script: String, environment: [String: String] = [:]) throws -> CommandResult {
        try run("/bin/sh", ["-c", script], stdin: nil, environment: environment.merging(["CIPHERCTL": Self.binary]) { $1 })
    }

    /// Runs the sqlcipher shell on `database` with `sql` on its standard input.
    @discardableResult
    func sqlcipher(_ database: String, _ sql: String) throws -> CommandResult {
        try run("/usr/bin/env", ["sqlcipher", "-batch", "-bail", database], stdin: sql, environment: [:])
    }

    /// Like `sqlcipher`, but fails the test unless the shell succeeds; returns its output.
    @discardableResult
    func sqlcipherOK(_ database: String, _ sql: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try sqlcipher(database, sql)
        XCTAssertEqual(result.code, 0, "sqlcipher failed: \(result.stderr)", file: file, line: line)
        return result.stdout
    }

    /// A checksum over every row of every table, computed by the sqlcipher shell (`sha3_query`),
    /// after the key statements in `keySQL`; nil when the shell cannot open the database.
    func contentChecksum(_ database: String, keySQL: String) throws -> String? {
        let result = try sqlcipher(database, keySQL + """

            SELECT name || ':' || hex(sha3_query('SELECT * FROM ' || quote(name) || ' ORDER BY rowid'))
            FROM sqlite_master WHERE type = 'table' ORDER BY name;
            """)
        guard result.code == 0 else { return nil }
        return result.stdout.split(separator: "\n").filter { $0 != "ok" && !$0.hasPrefix("PRAGMA cipher_hmac_pgno is deprecated") }.joined(separator: "\n")
    }

    /// Makes an encrypted database with the shell: `rows` rows of text, numbers and blobs, an
    /// index, and header fields set; `extraSQL` runs after the key.
    func makeShellDatabase(_ name: String, key: String, rows: Int = 200, extraSQL: String = "") throws -> String {
        let target = path(name)
        try sqlcipherOK(target, """
            PRAGMA key = '\(key)';
            \(extraSQL)
            CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, price REAL, payload BLOB);
            CREATE INDEX items_name ON items(name);
            CREATE TABLE [odd "name](x);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO items(name, price, payload) SELECT 'item ' || i, i * 0.5, randomblob(64) FROM n;
            INSERT INTO [odd "name] VALUES ('x'), (NULL);
            PRAGMA user_version = 12;
            PRAGMA application_id = 4242;
            """)
        return target
    }

    /// Rewrites the schema's text behind SQLite's back (`writable_schema`, defensive mode off):
    /// every page stays whole and keeps its HMAC, so only SQLite's own reading can tell.
    func rewriteSchema(_ database: String, key: String, _ update: String) throws {
        _ = try sqlcipherOK(database, """
            PRAGMA key = '\(key)';
            .dbconfig defensive off
            PRAGMA writable_schema = ON;
            \(update)
            """)
    }

    /// Runs cipherctl on a pseudo-terminal (through `script`), typing each answer once its
    /// prompt has appeared; returns the exit code and everything the terminal showed.
    func cipherctlOnTerminal(
        _ arguments: [String], answers: [(prompt: String, answer: String)], environment: [String: String] = [:]
    ) throws -> (code: Int32, screen: String) {
        let process = Process()
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let line = ([Self.binary] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
        process.arguments = ["-qec", line, "/dev/null"]
        process.currentDirectoryURL = directory
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var seen = ""
        var searchFrom = seen.startIndex
        for (prompt, answer) in answers {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if let found = seen.range(of: prompt, range: searchFrom..<seen.endIndex) {
                    searchFrom = found.upperBound
                    break
                }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            input.fileHandleForWriting.write(Data((answer + "\n").utf8))
        }
        seen += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, seen)
    }

    /// Leaves a hot journal beside `database`: a writer killed mid-transaction, after its
    /// small cache spilled changed pages into the file.
    func leaveHotJournal(_ database: String, key: String) throws {
        let (holder, input) = try startShellHolding(database, """
            PRAGMA key = '\(key)';
            PRAGMA cache_size = 5;
            BEGIN;
            UPDATE items SET name = name || ' changed';
            """)
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        try? input.fileHandleForWriting.close()
    }

    /// Runs cipherctl with `arguments` and kills it with SIGKILL after `delay` seconds (its
    /// output discarded); "killed", or "finished" when it ended first.
    @discardableResult
    func cipherctlKilled(_ arguments: [String], environment: [String: String], after delay: TimeInterval) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.environment = Self.childEnvironment(home: directory.path).merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? "killed" : "finished"
    }

    /// Starts a sqlcipher shell on `database` that runs `sql` and then waits with its
    /// transaction open; returns once the shell has run it. Closing the returned pipe ends it.
    func startShellHolding(_ database: String, _ sql: String) throws -> (Process, Pipe) {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["sqlcipher", "-batch", database]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        input.fileHandleForWriting.write(Data((sql + "\nSELECT 'holding-now';\n").utf8))
        var seen = ""
        let deadline = Date().addingTimeInterval(30)
        while !seen.contains("holding-now"), Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertTrue(seen.contains("holding-now"), "the shell did not take its lock: \(seen)")
        return (holder, input)
    }

    /// Skips the test without strace, except in CI (`requireTestTool`).
    func requireStrace() throws {
        try requireTestTool(FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace is not installed (Scripts/bootstrap --test-tools installs it)")
    }

    /// `keys` as a traced child's environment, and under Scripts/sanitize no leak check:
    /// LeakSanitizer stops under ptrace.
    func tracedEnvironment(_ keys: [String: String]) -> [String: String] {
        var environment = keys
        if let options = Self.childEnvironment(home: directory.path)["ASAN_OPTIONS"] { environment["ASAN_OPTIONS"] = options + ":detect_leaks=0" }
        return environment
    }

    /// Skips the test when `available` is false, except in CI (`CI=true`), where the tool
    /// `Scripts/bootstrap --test-tools` installs must be there and its absence is a failure.
    func requireTestTool(_ available: Bool, _ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard !available else { return }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            XCTFail("in CI: " + message, file: file, line: line)
            throw XCTSkip("failed above")
        }
        throw XCTSkip(message)
    }

    /// The environment a child process starts from: PATH and HOME, and under Scripts/sanitize
    /// the sanitizer options it sets for the cipherctl binaries the tests start.
    static func childEnvironment(home: String) -> [String: String] {
        let own = ProcessInfo.processInfo.environment
        var base = ["PATH": own["PATH"] ?? "/usr/bin:/bin", "HOME": home]
        if let options = own["CIPHERCTL_CHILD_ASAN_OPTIONS"] { base["ASAN_OPTIONS"] = options }
        if let options = own["CIPHERCTL_CHILD_TSAN_OPTIONS"] { base["TSAN_OPTIONS"] = options }
        return base
    }

    /// Runs `executable` in the test folder; with `timeout`, a process still running after
    /// that many seconds is stopped and the result says so.
    /// `directory` is where it runs (the test folder by default).
    func run(
        _ executable: String, _ arguments: [String], stdin: String?, environment: [String: String], timeout: Double? = nil, directory: String? = nil
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = Self.childEnvironment(home: self.directory.path).merging(environment) { $1 }
        process.currentDirectoryURL = directory.map { URL(fileURLWithPath: $0) } ?? self.directory
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        let watchdog = TimeoutFlag()
        let stop = DispatchWorkItem {
            watchdog.set()
            process.terminate()
        }
        if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: stop) }
        defer { stop.cancel() }
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes to their end before waiting, so a chatty process never blocks.
        let collected = OutputBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            collected.data = Self.readToEnd(output.fileHandleForReading)
            group.leave()
        }
        let errData = Self.readToEnd(errors.fileHandleForReading)
        group.wait()
        let outData = collected.data
        process.waitUntilExit()
        return CommandResult(
            code: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            signaled: process.terminationReason == .uncaughtSignal,
            timedOut: watchdog.isSet)
    }

    /// Everything a pipe gives until its writers close it, read with read(2).
    ///
    /// Foundation's readDataToEndOfFile crashed here once (a bad pointer inside read) while
    /// two threads ran processes at the same time, as the fuzz test does.
    static func readToEnd(_ handle: FileHandle) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }

    /// Writes `contents` to a file in the temporary directory with `mode`; returns its path.
    @discardableResult
    func writeFile(_ name: String, _ contents: String, mode: Int = 0o600) throws -> String {
        let target = path(name)
        try Data(contents.utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: target)
        return target
    }

    /// The temporary files cipherctl left in the test directory.
    func temporaryLeftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("cipherctl-tmp") }
    }

    /// The file's bytes and modification time.
    func fingerprint(_ path: String) throws -> (Data, Date) {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (try Data(contentsOf: URL(fileURLWithPath: path)), attributes[.modificationDate] as? Date ?? .distantPast)
    }

    /// Every file of `folder`: its name, then its size, a hash of its bytes and its
    /// modification time, to see that a command changed nothing there.
    func folderListing(_ folder: String) throws -> [String: String] {
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let (data, date) = try fingerprint(folder + "/" + name)
            files[name] = "\(data.count) \(data.hashValue) \(date.timeIntervalSince1970)"
        }
        return files
    }

    /// Runs cipherctl as the unprivileged user `nobody` when this process is root (a
    /// read-only file or folder means nothing to root), else as this user.
    func cipherctlAsNobody(_ arguments: [String], environment: [String: String], timeout: Double? = nil) throws -> CommandResult {
        guard getuid() == 0 else { return try run(Self.binary, arguments, stdin: nil, environment: environment, timeout: timeout) }
        return try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", Self.binary] + arguments,
                       stdin: nil, environment: environment, timeout: timeout)
    }

    /// Copies every file of `folder` into a new folder `copy`.
    func copyFolder(_ folder: String, to copy: String) throws {
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: copy + "/" + name)
        }
    }

    /// Parses standard output as one JSON object.
    func jsonObject(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try XCTUnwrap(object as? [String: Any], "not a JSON object: \(text)", file: file, line: line)
    }
}

/// Set once by the watchdog that stops a process past its time limit.
private final class TimeoutFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}

/// Holds what the standard-output reader collected; the dispatch group orders the access.
private final class OutputBox: @unchecked Sendable {
    var data = Data()
}
