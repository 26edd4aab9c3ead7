import Foundation
import XCTest

final class KeyReaderTests: CLITestCase {
    private let secret = "Sphinx-of-black-quartz-77"
    private var db: String!

    override func setUpWithError() throws {
        try super.setUpWithError()
        db = path("a.db")
        try sqlcipherOK(db, "PRAGMA key = '\(secret)'; CREATE TABLE t(x);")
    }

    private func assertOpens(_ result: CommandResult, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.code, 0, result.stderr, file: file, line: line)
        XCTAssertTrue(result.stdout.contains("encrypted:        yes"), result.stdout, file: file, line: line)
        XCTAssertFalse(result.allOutput.contains(secret), "key leaked", file: file, line: line)
    }

    func testKeyFromEnvironment() throws {
        assertOpens(try cipherctl(["open", db, "--key-env", "DB_KEY"], environment: ["DB_KEY": secret]))
    }

    /// A passphrase's bytes need not be UTF-8: from a variable they are the bytes the process
    /// got, as from a file, not a repaired string; so is a key ring's `env:` entry.
    func testAPassphraseThatIsNotUTF8OpensFromAVariableAsFromAFile() throws {
        let binary = path("binary.db"), ring = path("ring.txt")
        let keyFile = path("binary.key")
        try Data([0x62, 0x69, 0x6e, 0x80, 0xfe, 0xff, 0x20, 0x65, 0x6e, 0x64]).write(to: URL(fileURLWithPath: keyFile))
        XCTAssertEqual(try cipherctl(["open", binary, "--key-file", keyFile, "--create"]).code, 0)
        try "bytes env:BINARY_KEY\n".write(toFile: ring, atomically: true, encoding: .utf8)
        let variable = "BINARY_KEY=\"$(printf 'bin\\200\\376\\377 end')\""
        for (name, options) in [("--key-env", ["--key-env", "BINARY_KEY"]), ("--key-ring", ["--key-ring", ring])] {
            let result = try sh("export \(variable); \"$CIPHERCTL\" open '\(binary)' " + options.joined(separator: " "))
            XCTAssertEqual(result.code, 0, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stdout.contains("encrypted:        yes"), "\(name): \(result.stdout)")
        }
        XCTAssertNotEqual(try sh("export BINARY_KEY='bin? end'; \"$CIPHERCTL\" open '\(binary)' --key-env BINARY_KEY").code, 0)
    }

    func testMissingEnvironmentVariableIsAUsageError() throws {
        let result = try cipherctl(["open", db, "--key-env", "NOT_SET_ANYWHERE"])
        XCTAssertEqual(result.code, 2)
        XCTAssertTrue(result.stderr.contains("'NOT_SET_ANYWHERE' is not set"))
    }

    func testKeyFromFileDropsOneTrailingNewline() throws {
        let file = try writeFile("key.txt", secret + "\n")
        let result = try cipherctl(["open", db, "--key-file", file])
        assertOpens(result)
        XCTAssertFalse(result.stderr.contains("warning"), result.stderr)
    }

    func testReadableKeyFileIsWarnedAbout() throws {
        let file = try writeFile("key.txt", secret, mode: 0o644)
        let result = try cipherctl(["open", db, "--key-file", file])
        assertOpens(result)
        XCTAssertTrue(result.stderr.contains("cipherctl: warning: key file '\(file)' is readable by group or others"), result.stderr)
    }

    func testMissingKeyFileIsAFileProblem() throws {
        let result = try cipherctl(["open", db, "--key-file", path("nope.txt")])
        XCTAssertEqual(result.code, 5)
    }

    func testKeyFromFileDescriptor() throws {
        let file = try writeFile("key.txt", secret + "\n")
        assertOpens(try sh("\"$CIPHERCTL\" open '\(db!)' --key-fd 3 3<'\(file)'"))
    }

    func testBadFileDescriptorIsAUsageError() throws {
        XCTAssertEqual(try cipherctl(["open", db, "--key-fd", "57"]).code, 2)
    }

    func testKeyFromFirstLineOfStdin() throws {
        assertOpens(try cipherctl(["open", db, "--key-stdin"], stdin: secret + "\nsecond line\n"))
    }

    func testKeyOnCommandLineWorksWithAWarning() throws {
        let result = try cipherctl(["open", db, "--key", secret])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("cipherctl: warning: --key makes the key visible in the process list"), result.stderr)
        let quiet = try cipherctl(["open", db, "--key", secret, "--quiet"])
        XCTAssertEqual(quiet.code, 0)
        XCTAssertEqual(quiet.stderr, "")
    }

    func testPromptOnTerminalReadsTheKeyWithoutEcho() throws {
        let result = try cipherctlOnTerminal(["open", db], answers: [("Key for '", secret)])
        XCTAssertEqual(result.code, 0, result.screen)
        XCTAssertTrue(result.screen.contains("encrypted:        yes"), result.screen)
        XCTAssertFalse(result.screen.contains(secret), "the prompt must not echo the key")
    }

    func testNoKeyAndNoTerminalExits2NamingTheOptions() throws {
        let result = try cipherctl(["open", db])
        XCTAssertEqual(result.code, 2)
        XCTAssertTrue(result.stderr.contains("no key given"), result.stderr)
        XCTAssertTrue(result.stderr.contains("--key-env"), result.stderr)
    }

    func testTwoKeySourcesConflict() throws {
        let result = try cipherctl(["open", db, "--key-env", "A", "--key-stdin"], stdin: secret, environment: ["A": secret])
        XCTAssertEqual(result.code, 2)
        XCTAssertTrue(result.stderr.contains("one source only"), result.stderr)
    }

    func testEmptyKeyIsRefused() throws {
        let result = try cipherctl(["open", db, "--key-env", "E"], environment: ["E": ""])
        XCTAssertEqual(result.code, 2)
        XCTAssertTrue(result.stderr.contains("the key is empty"), result.stderr)
    }

    func testRawKeyOpensAShellDatabaseAndWrongLengthIsRefused() throws {
        let rawDB = path("raw.db")
        let hex = "2dd29ca851e7b56e4697b0e1f08507293d761a05ce4d1b628663f411a8086d99"
        try sqlcipherOK(rawDB, "PRAGMA key = \"x'\(hex)'\"; CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let good = try cipherctl(["open", rawDB, "--key-env", "R", "--raw-key", "--counts"], environment: ["R": hex])
        XCTAssertEqual(good.code, 0, good.stderr)
        XCTAssertFalse(good.allOutput.lowercased().contains(hex))

        let short = try cipherctl(["open", rawDB, "--key-env", "R", "--raw-key"], environment: ["R": String(hex.dropLast())])
        XCTAssertEqual(short.code, 2)
        XCTAssertTrue(short.stderr.contains("exactly 64 hex digits"), short.stderr)
        XCTAssertFalse(short.allOutput.contains(String(hex.dropLast())))
    }

    func testRawKeyWithSaltOpensTheDatabase() throws {
        let rawDB = path("raw.db")
        let hex = "2dd29ca851e7b56e4697b0e1f08507293d761a05ce4d1b628663f411a8086d99"
        try sqlcipherOK(rawDB, "PRAGMA key = \"x'\(hex)'\"; CREATE TABLE t(x);")
        let salt = try XCTUnwrap(try sqlcipherOK(rawDB, "PRAGMA key = \"x'\(hex)'\"; PRAGMA cipher_salt;").split(separator: "\n").last)
        let result = try cipherctl(["open", rawDB, "--key-env", "R", "--raw-key"], environment: ["R": hex + salt])
        XCTAssertEqual(result.code, 0, result.stderr)
    }

    func testAKeyOnDescriptor0BesideSQLOnStandardInputIsRefusedBeforeAnythingIsRead() throws {
        let db = try makeShellDatabase("fd.db", key: "fd key", rows: 3)
        for arguments in [["query", db, "--key-fd", "0", "-"], ["query", db, "--key-file", "/dev/stdin", "-"]] {
            let result = try cipherctl(arguments, stdin: "fd key\nSELECT 1;\n")
            XCTAssertEqual(result.code, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("standard input cannot carry both the key"), result.stderr)
        }
    }

    func testAFolderGivenAsTheKeyFileIsAFileProblemNotAnEmptyKey() throws {
        let db = try makeShellDatabase("dir.db", key: "dir key", rows: 3)
        let result = try cipherctl(["open", db, "--key-file", path("")])
        XCTAssertEqual(result.code, 5, result.stderr)
        XCTAssertTrue(result.stderr.contains("it is a folder, not a key file"), result.stderr)
    }

    func testAnUnsetVariableNamedLikeAKeyIsNotEchoed() throws {
        let db = try makeShellDatabase("env.db", key: "env key", rows: 3)
        let result = try cipherctl(["open", db, "--key-env", "env key", "--json"])
        XCTAssertEqual(result.code, 2, result.stderr)
        XCTAssertFalse(result.stderr.contains("env key"), result.stderr)
        let file = try cipherctl(["open", db, "--key-file", "correct horse battery"])
        XCTAssertEqual(file.code, 5, file.stderr)
        XCTAssertFalse(file.stderr.contains("correct horse"), file.stderr)
    }
}
