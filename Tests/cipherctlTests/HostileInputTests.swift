import Foundation
import XCTest

/// Bad files, bad keys, bad settings and bad command lines, one row a case: each fails with
/// its documented exit code, one `cipherctl: error:` line that says what is wrong, and
/// every file in the folder exactly as it was (bytes and modification time), with nothing
/// new beside them.
final class HostileInputTests: CLITestCase {
    private struct Case {
        let name: String
        let arguments: [String]
        let code: Int32
        let message: String
        var environment: [String: String] = [:]
        /// `open --check` prints the profile, with the problems, before it fails.
        var printsReport = false
    }

    private let keys = ["K": "hostile key one", "K2": "hostile key two", "K3": "hostile key three", "RAW_BAD": String(repeating: "g", count: 64),
                        "RAW_SHORT": String(repeating: "a", count: 63), "RAW96": String(repeating: "7", count: 64) + String(repeating: "9", count: 32)]

    /// Every regular file below the test folder (links not followed): bytes and modification time.
    private func folderState() throws -> [String: Data] {
        var state: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        while let name = enumerator?.nextObject() as? String {
            let full = path(name)
            let attributes = try FileManager.default.attributesOfItem(atPath: full)
            switch attributes[.type] as? FileAttributeType {
            case .typeRegular?:
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                state[name] = try Data(contentsOf: URL(fileURLWithPath: full)) + Data("\(modified)".utf8)
            case .typeSymbolicLink?:
                state[name] = Data(try FileManager.default.destinationOfSymbolicLink(atPath: full).utf8)
            default:
                state[name + "/"] = Data()
            }
        }
        return state
    }

    private func check(_ testCase: Case, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try folderState()
        let result = try cipherctl(testCase.arguments, environment: keys.merging(testCase.environment) { $1 })
        let label = "\(testCase.name): \(result.stderr)"
        XCTAssertFalse(result.signaled, label, file: file, line: line)
        XCTAssertEqual(result.code, testCase.code, label, file: file, line: line)
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("cipherctl: error: ") }
        XCTAssertEqual(errors.count, 1, label, file: file, line: line)
        XCTAssertTrue(errors.first?.contains(testCase.message) ?? false, "\(testCase.name): wanted '\(testCase.message)' in \(result.stderr)", file: file, line: line)
        if !testCase.printsReport { XCTAssertEqual(result.stdout, "", label, file: file, line: line) }
        XCTAssertEqual(try folderState(), before, "\(testCase.name) changed the files", file: file, line: line)
    }

    /// A folder cipherctl may not write in: a read-only bind mount for root (which
    /// permissions do not stop), mode 0555 for anyone else. Returns a cleanup.
    private func makeReadOnlyFolder(_ name: String) throws -> () -> Void {
        let folder = path(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try sqlcipherOK(folder + "/inside.db", "PRAGMA key = '\(keys["K"]!)'; CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        if getuid() == 0 {
            let bind = try run("/bin/mount", ["--bind", folder, folder], stdin: nil, environment: [:])
            let remount = try run("/bin/mount", ["-o", "remount,bind,ro", folder], stdin: nil, environment: [:])
            guard bind.code == 0, remount.code == 0 else { throw XCTSkip("cannot make a read-only folder: \(bind.stderr)\(remount.stderr)") }
            return { _ = try? self.run("/bin/umount", [folder], stdin: nil, environment: [:]) }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        return { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
    }

    func testEveryHostileInputFailsWithItsCodeAndLeavesTheFilesAsTheyWere() throws {
        let encrypted = try makeShellDatabase("enc.db", key: keys["K"]!, rows: 600)
        let plain = path("plain.db")
        try sqlcipherOK(plain, "CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let header = path("header.db")
        let salt = "00112233445566778899aabbccddeeff"
        try sqlcipherOK(header, """
            PRAGMA key = '\(keys["K"]!)'; PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = "x'\(salt)'";
            CREATE TABLE t(x); INSERT INTO t VALUES (1);
            """)
        let v4 = try Data(contentsOf: URL(fileURLWithPath: encrypted))
        try Data().write(to: URL(fileURLWithPath: path("empty.db")))
        var generator = SystemRandomNumberGenerator()
        try Data((0..<10_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: path("random.db")))
        try v4.prefix(6000).write(to: URL(fileURLWithPath: path("truncated.db")))
        var flipped = v4
        flipped[4096 * 2 + 100] ^= 0x01
        try flipped.write(to: URL(fileURLWithPath: path("flipped.db")))
        try FileManager.default.createDirectory(atPath: path("folder.db"), withIntermediateDirectories: false)
        try sqlcipherOK(path("exists.db"), "PRAGMA key = 'other'; CREATE TABLE t(x);")
        try FileManager.default.createSymbolicLink(atPath: path("link.db"), withDestinationPath: path("elsewhere.db"))
        _ = try writeFile("key.txt", keys["K"]! + "\n")

        let cases: [Case] = [
            Case(name: "missing file", arguments: ["open", path("missing.db"), "--key-env", "K"], code: 5, message: "does not exist"),
            Case(name: "a plaintext header size for a file without one", arguments: ["open", encrypted, "--key-env", "K", "--plaintext-header-size", "32",
                                                                                  "--salt", Data(v4.prefix(16)).map { String(format: "%02x", $0) }.joined()],
                 code: 2, message: "the file has none"),
            Case(name: "a salt beside a raw key's own", arguments: ["open", encrypted, "--key-env", "RAW96", "--raw-key", "--salt", salt], code: 2,
                 message: "differs from the one the raw key carries"),
            Case(name: "a directory", arguments: ["open", path("folder.db"), "--key-env", "K"], code: 5, message: "is not a regular file"),
            Case(name: "an empty file", arguments: ["open", path("empty.db"), "--key-env", "K"], code: 3, message: "the file is empty"),
            // Not a whole number of pages, but only a key could tell it from an encrypted database.
            Case(name: "random bytes", arguments: ["open", path("random.db"), "--key-env", "K"], code: 3, message: "wrong key"),
            Case(name: "a truncated database", arguments: ["open", path("truncated.db"), "--key-env", "K"], code: 4, message: "is cut short"),
            Case(name: "a flipped byte", arguments: ["open", path("flipped.db"), "--key-env", "K", "--check"], code: 4,
                 message: "page 3 (index items_name): fails its HMAC", printsReport: true),
            Case(name: "a flipped byte under rekey", arguments: ["rekey", path("flipped.db"), "--key-env", "K", "--new-key-env", "K2"], code: 4,
                 message: "is damaged"),
            Case(name: "a flipped byte under export", arguments: ["export", path("flipped.db"), path("copy.db"), "--key-env", "K", "--to-key-env", "K2"],
                 code: 4, message: "is damaged"),
            Case(name: "a plaintext database given a key", arguments: ["open", plain, "--key-env", "K"], code: 3, message: "plaintext SQLite database"),
            Case(name: "a wrong key", arguments: ["open", encrypted, "--key-env", "K2"], code: 3, message: "wrong key"),
            Case(name: "a wrong key under rekey", arguments: ["rekey", encrypted, "--key-env", "K2", "--new-key-env", "K3"], code: 3, message: "wrong key"),
            Case(name: "a wrong key under export", arguments: ["export", encrypted, path("copy.db"), "--key-env", "K2", "--to-key-env", "K"], code: 3,
                 message: "wrong key"),
            Case(name: "wrong settings", arguments: ["open", encrypted, "--key-env", "K", "--compat", "3"], code: 3, message: "wrong key or cipher settings"),
            Case(name: "a wrong salt", arguments: ["open", header, "--key-env", "K", "--salt", "ffeeddccbbaa99887766554433221100"], code: 3,
                 message: "wrong salt or key"),
            Case(name: "a missing salt", arguments: ["open", header, "--key-env", "K"], code: 3, message: "no salt was given"),
            Case(name: "a raw key that is not hex", arguments: ["open", encrypted, "--key-env", "RAW_BAD", "--raw-key"], code: 2, message: "hex digits only"),
            Case(name: "a raw key of the wrong length", arguments: ["open", encrypted, "--key-env", "RAW_SHORT", "--raw-key"], code: 2,
                 message: "exactly 64 hex digits"),
            Case(name: "an invalid salt", arguments: ["open", header, "--key-env", "K", "--salt", "xyz"], code: 2, message: "32 hex digits"),
            Case(name: "an invalid header size", arguments: ["open", encrypted, "--key-env", "K", "--plaintext-header-size", "7"], code: 2,
                 message: "plaintext header size"),
            Case(name: "an invalid header size to move to", arguments: ["plaintext-header", encrypted, "--key-env", "K", "--size", "4096", "--salt-output", path("invalid.salt")], code: 2,
                 message: "plaintext header size"),
            Case(name: "a page size SQLCipher cannot read back", arguments: ["export", encrypted, path("copy.db"), "--key-env", "K", "--to-key-env", "K2",
                                                                             "--to-page-size", "512"], code: 2, message: "SQLite needs 480"),
            Case(name: "a destination that exists", arguments: ["export", encrypted, path("exists.db"), "--key-env", "K", "--to-key-env", "K2"], code: 5,
                 message: "already exists"),
            Case(name: "a destination that is a symlink", arguments: ["export", encrypted, path("link.db"), "--key-env", "K", "--to-key-env", "K2"], code: 2,
                 message: "symbolic link"),
            Case(name: "a destination in a missing folder", arguments: ["export", encrypted, path("nowhere/copy.db"), "--key-env", "K", "--to-key-env", "K2"],
                 code: 5, message: "no such directory"),
            Case(name: "the source as destination", arguments: ["export", encrypted, encrypted, "--key-env", "K", "--to-key-env", "K2", "--force"], code: 2,
                 message: "the source itself"),
            Case(name: "a salt output that exists", arguments: ["salt", encrypted, "--output", path("key.txt")], code: 5, message: "already exists"),
            Case(name: "an unknown option", arguments: ["open", encrypted, "--key-env", "K", "--frobnicate"], code: 2, message: "unknown option '--frobnicate'"),
            Case(name: "an unknown command", arguments: ["reky", encrypted], code: 2, message: "unknown command 'reky'"),
            Case(name: "a missing option value", arguments: ["open", encrypted, "--key-env"], code: 2, message: "needs a value"),
            Case(name: "a bad option value", arguments: ["open", encrypted, "--key-env", "K", "--busy-timeout", "soon"], code: 2, message: "--busy-timeout"),
            Case(name: "conflicting key sources", arguments: ["open", encrypted, "--key-env", "K", "--key-file", path("key.txt")], code: 2,
                 message: "one source only"),
            Case(name: "an unset key variable", arguments: ["open", encrypted, "--key-env", "NOT_SET"], code: 2, message: "'NOT_SET' is not set"),
            Case(name: "no key and no terminal", arguments: ["rekey", encrypted, "--new-key-env", "K2"], code: 2, message: "key"),
            Case(name: "a missing database argument", arguments: ["open"], code: 2, message: "database"),
            Case(name: "an empty new key", arguments: ["rekey", encrypted, "--key-env", "K", "--new-key-env", "EMPTY"], code: 2, message: "empty",
                 environment: ["EMPTY": ""]),
            Case(name: "an SQL error", arguments: ["query", encrypted, "--key-env", "K", "SELECT nope FROM items"], code: 1, message: "no such column: nope"),
            Case(name: "a write without --write", arguments: ["query", encrypted, "--key-env", "K", "DELETE FROM items"], code: 2, message: "read-only"),
        ]
        for testCase in cases {
            try check(testCase)
        }
    }

    func testDestinationFolderThatIsNotWritableIsExit5AndLeavesNothing() throws {
        let encrypted = try makeShellDatabase("enc.db", key: keys["K"]!, rows: 100)
        let cleanup = try makeReadOnlyFolder("locked")
        defer { cleanup() }
        try check(Case(name: "export into it", arguments: ["export", encrypted, path("locked/copy.db"), "--key-env", "K", "--to-key-env", "K2"],
                       code: 5, message: "is not writable"))
        try check(Case(name: "rekey in it", arguments: ["rekey", path("locked/inside.db"), "--key-env", "K", "--new-key-env", "K2"],
                       code: 5, message: "is not writable"))
        try check(Case(name: "plaintext header in it", arguments: ["plaintext-header", path("locked/inside.db"), "--key-env", "K", "--size", "32", "--salt-output", path("locked.salt")],
                       code: 5, message: "is not writable"))
    }

    func testWritesOfQueryAndImportInAFolderThatIsNotWritableAreExit5() throws {
        _ = try writeFile("rows.csv", "x\n3\n")
        let cleanup = try makeReadOnlyFolder("locked")
        defer { cleanup() }
        try check(Case(name: "query --write in it", arguments: ["query", path("locked/inside.db"), "--key-env", "K", "--write", "INSERT INTO t VALUES (2)"],
                       code: 5, message: "is not writable"))
        try check(Case(name: "import in it", arguments: ["import", path("locked/inside.db"), "t", path("rows.csv"), "--key-env", "K"],
                       code: 5, message: "is not writable"))
    }

    func testWritesOfQueryImportAndRekeyToAFileTheUserCannotWriteAreExit5() throws {
        // Root writes a file of mode 0444 all the same (rekey and import too, alike), so as
        // root the commands run as nobody.
        let folder = path("open")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        try sqlcipherOK(folder + "/mine.db", "PRAGMA key = '\(keys["K"]!)'; CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: folder + "/mine.db")
        _ = try writeFile("rows.csv", "x\n3\n", mode: 0o644)
        var prefix: [String] = []
        if getuid() == 0 {
            let setpriv = "/usr/bin/setpriv"
            guard FileManager.default.isExecutableFile(atPath: setpriv) else { throw XCTSkip("as root, a file of mode 0444 is writable, and there is no setpriv to run as nobody") }
            prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", Self.binary]
        }
        let before = try folderState()
        for arguments in [
            ["query", folder + "/mine.db", "--key-env", "K", "--write", "INSERT INTO t VALUES (2)"],
            ["import", folder + "/mine.db", "t", path("rows.csv"), "--key-env", "K"],
            ["rekey", folder + "/mine.db", "--key-env", "K", "--new-key-env", "K2"],
        ] {
            let result = prefix.isEmpty ? try cipherctl(arguments, environment: keys)
                : try run(prefix[0], Array(prefix.dropFirst()) + arguments, stdin: nil, environment: keys)
            XCTAssertEqual(result.code, 5, "\(arguments[0]): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: cannot access '\(folder)/mine.db': the file is not writable"), "\(arguments[0]): \(result.stderr)")
            XCTAssertEqual(try folderState(), before, "\(arguments[0]) changed the files")
        }
    }

    func testDatabaseLockedByAWriterIsExit6AfterTheBusyTimeoutAndUnchanged() throws {
        let encrypted = try makeShellDatabase("enc.db", key: keys["K"]!, rows: 100)
        let before = try fingerprint(encrypted)
        let (holder, input) = try startShellHolding(encrypted, "PRAGMA key = '\(keys["K"]!)'; BEGIN EXCLUSIVE; INSERT INTO items(name) VALUES ('held');")
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        for arguments in [
            ["rekey", encrypted, "--key-env", "K", "--new-key-env", "K2", "--busy-timeout", "300"],
            ["rekey", encrypted, "--key-env", "K", "--new-key-env", "K2", "--new-kdf-iter", "1000", "--busy-timeout", "300"],
            ["open", encrypted, "--key-env", "K", "--busy-timeout", "300"],
            ["query", encrypted, "--key-env", "K", "--write", "DELETE FROM items", "--busy-timeout", "300"],
            ["plaintext-header", encrypted, "--key-env", "K", "--size", "32", "--busy-timeout", "300", "--salt-output", path("busy.salt")],
        ] {
            let started = Date()
            let result = try cipherctl(arguments, environment: keys)
            XCTAssertEqual(result.code, 6, "\(arguments[0]): \(result.stderr)")
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.25, "\(arguments[0]) gave up before its busy timeout")
            XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: "), result.stderr)
            XCTAssertTrue(try temporaryLeftovers().isEmpty)
        }
        try input.fileHandleForWriting.write(contentsOf: Data("ROLLBACK;\n.quit\n".utf8))
        holder.waitUntilExit()
        XCTAssertEqual(try fingerprint(encrypted).0, before.0)
    }

    /// A name holding a control character (every C0 but NUL, DEL, every C1) reaches the
    /// terminal as an escape: no message carries a raw control byte or breaks into a second
    /// line, whichever command reports it.
    func testControlCharactersInNamesAreShownAsEscapesInEveryMessage() throws {
        let scalars = Array(1...0x1F) + [0x7F] + Array(0x80...0x9F)
        let commands: [(String, [String])] = [
            ("open", ["open"]), ("query", ["query", "SELECT 1"]), ("dump", ["dump"]), ("rekey", ["rekey", "--new-key-env", "K2"]),
            ("export", ["export", "out.db", "--plaintext"]), ("audit", ["audit"]),
        ]
        for value in scalars {
            let name = "bad" + String(Unicode.Scalar(UInt32(value))!) + "[31mname.db"
            let (label, words) = commands[value % commands.count]
            let result = try cipherctl([label, name] + words.dropFirst() + ["--key-env", "K"], environment: keys)
            XCTAssertNotEqual(result.code, 0, "\(label) U+\(String(value, radix: 16))")
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("cipherctl:") || $0.hasPrefix("hint:") || $0.hasPrefix("usage:") || $0.hasPrefix("See ") },
                          "\(label) U+\(String(value, radix: 16)): \(result.stderr.debugDescription)")
            let raw = result.stderr.unicodeScalars.filter { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) }
            XCTAssertTrue(raw.isEmpty, "\(label) U+\(String(value, radix: 16)) printed raw: \(result.stderr.debugDescription)")
            let shown = label == "audit" ? result.stdout : result.stderr
            XCTAssertTrue(shown.contains(value < 0x80 ? "\\x" : "\\u{"), "\(label): \(shown.debugDescription)")
            XCTAssertFalse(shown.unicodeScalars.contains { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) }, label)
        }
    }
}
