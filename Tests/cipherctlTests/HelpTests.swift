@testable import cipherctl
import XCTest

final class HelpTests: CLITestCase {
    func testThreeSpellingsPrintTheSameHelpToStdout() throws {
        let a = try cipherctl(["help", "open"])
        let b = try cipherctl(["open", "--help"])
        let c = try cipherctl(["open", "-h"])
        XCTAssertEqual([a.code, b.code, c.code], [0, 0, 0])
        XCTAssertEqual(a.stdout, b.stdout)
        XCTAssertEqual(a.stdout, c.stdout)
        XCTAssertTrue(a.stdout.hasPrefix("OVERVIEW: "))
        for heading in ["USAGE:", "ARGUMENTS:", "OPEN OPTIONS:", "KEY OPTIONS:", "CIPHER OPTIONS:", "OUTPUT OPTIONS:", "EXAMPLES:", "EXIT STATUS:"] {
            XCTAssertTrue(a.stdout.contains(heading), heading)
        }
        XCTAssertEqual(a.stderr, "")
    }

    func testMainHelpListsCommandsAndExitCodes() throws {
        let help = try cipherctl(["help"])
        XCTAssertEqual(help.code, 0)
        XCTAssertEqual(help.stdout, try cipherctl(["--help"]).stdout)
        XCTAssertTrue(help.stdout.contains("  open "))
        for code in ExitCode.allCases {
            XCTAssertTrue(help.stdout.contains("  \(code.rawValue)  "), "exit code \(code.rawValue)")
        }
    }

    func testHelpFitsIn80Columns() {
        let texts = [HelpRenderer.main(version: "0")] + CommandCatalog.commands.map(HelpRenderer.command)
        for text in texts {
            for line in text.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, 80, String(line))
            }
        }
    }

    func testEveryOptionIsInItsCommandHelp() {
        for command in CommandCatalog.commands {
            let help = HelpRenderer.command(command)
            for option in command.options where !option.hidden {
                XCTAssertTrue(help.contains(option.name), "\(command.name) \(option.name)")
            }
        }
    }

    /// Help is short: summary, usage, one sentence an option, examples. The discussion is the
    /// man page's alone, and help says where to find it.
    func testCommandHelpLeavesTheDiscussionToTheManPage() {
        let flat = { (text: String) in text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ") }
        for command in CommandCatalog.commands {
            let help = HelpRenderer.command(command)
            XCTAssertTrue(help.contains("See 'man cipherctl' for the full description"), command.name)
            let opening = command.discussion.split(separator: " ").prefix(10).joined(separator: " ")
            XCTAssertFalse(flat(help).contains(opening), "\(command.name): the discussion is in help")
            for option in command.options where !option.hidden {
                let sentence = HelpRenderer.firstSentence(option.help)
                XCTAssertTrue(option.help.hasPrefix(sentence), option.name)
                XCTAssertNil(sentence.range(of: #"[.!?] [A-Z]"#, options: .regularExpression), "\(option.name): more than one sentence")
                XCTAssertTrue(flat(help).contains(flat(sentence)), "\(command.name) \(option.name)")
            }
        }
        XCTAssertEqual(HelpRenderer.firstSentence("Take it. Discouraged: see."), "Take it.")
        XCTAssertEqual(HelpRenderer.firstSentence("One (1.5 s) sentence."), "One (1.5 s) sentence.")
    }

    /// `help --man` prints the manual page; it is hidden from help and from completion.
    func testHelpManPrintsTheManualPageAndIsHidden() throws {
        let result = try cipherctl(["help", "--man"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(result.stdout, ManPage.render())
        XCTAssertFalse(try cipherctl(["help"]).stdout.contains("--man"))
        XCTAssertFalse(try cipherctl(["completion", "bash"]).stdout.contains("--man"))
    }

    func testUsageErrorGoesToStderrWithUsageLineAndExit2() throws {
        let result = try cipherctl(["open", "x.db", "--bogus"])
        XCTAssertEqual(result.code, 2)
        XCTAssertEqual(result.stdout, "")
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.first, "cipherctl: error: unknown option '--bogus'")
        XCTAssertTrue(result.stderr.contains("usage: cipherctl open <database>"))
    }

    func testUnknownCommandSuggestsTheClosest() throws {
        let result = try cipherctl(["opn", "x.db"])
        XCTAssertEqual(result.code, 2)
        XCTAssertTrue(result.stderr.contains("did you mean 'open'?"), result.stderr)
    }

    func testNoArgumentsIsAUsageError() throws {
        let result = try cipherctl([])
        XCTAssertEqual(result.code, 2)
        XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: no command given\n"), result.stderr)
        XCTAssertTrue(result.stderr.contains("usage: cipherctl"))
    }

    func testVersionNamesCipherctlSQLCipherSQLiteAndProvider() throws {
        let result = try cipherctl(["--version"])
        XCTAssertEqual(result.code, 0)
        XCTAssertTrue(result.stdout.hasPrefix("cipherctl \(CipherCtl.version)\n"))
        let sqlcipherLine = result.stdout.split(separator: "\n").first { $0.hasPrefix("SQLCipher ") }
        let major = sqlcipherLine.flatMap { Int($0.dropFirst("SQLCipher ".count).prefix { $0.isNumber }) }
        XCTAssertGreaterThanOrEqual(major ?? 0, 4)
        XCTAssertTrue(result.stdout.contains("\nSQLite 3."))
        XCTAssertTrue(result.stdout.contains("\ncrypto provider "))
    }

    func testVersionAsJSONHasEveryField() throws {
        let result = try cipherctl(["--version", "--json"])
        XCTAssertEqual(result.code, 0)
        let object = try jsonObject(result.stdout)
        XCTAssertEqual(Set(object.keys), ["cipherctl", "sqlcipher", "sqlite", "crypto_provider", "crypto_provider_version", "crypto_contexts", "crypto_mode", "fips_provider"])
    }
}
