@testable import cipherctl
import XCTest

final class CommandLineParserTests: XCTestCase {
    private let open = CommandCatalog.open

    func testValuesParseInSeparateAndEqualsForms() throws {
        let parsed = try CommandLineParser.parse(["db", "--page-size", "8192", "--kdf-iter=1000", "--json"], for: open)
        XCTAssertEqual(parsed.positionals, ["db"])
        XCTAssertEqual(parsed.value("--page-size"), "8192")
        XCTAssertEqual(parsed.value("--kdf-iter"), "1000")
        XCTAssertTrue(parsed.has("--json"))
    }

    func testAnOptionalValueIsGivenOnlyWithEqualsAndAnArgumentAfterTheBareOptionIsRefused() throws {
        let rekey = CommandCatalog.rekey
        let salt = "00112233445566778899aabbccddeeff"
        for arguments in [["--backup", "old.db"], ["db", "--new-salt", salt], ["db", "--backup", "x", "--json"]] {
            XCTAssertThrowsError(try CommandLineParser.parse(arguments, for: rekey), "\(arguments)") { error in
                XCTAssertEqual((error as? UsageError)?.hint?.hasPrefix("write --"), true, "\(arguments)")
                XCTAssertFalse(String(describing: error).contains(salt))
            }
        }
        let alone = try CommandLineParser.parse(["db", "--backup", "--json"], for: rekey)
        XCTAssertTrue(alone.has("--backup"))
        XCTAssertNil(alone.value("--backup"))
        XCTAssertEqual(try CommandLineParser.parse(["--backup", "--", "db"], for: rekey).positionals, ["db"])
        XCTAssertEqual(try CommandLineParser.parse(["db", "--backup=kept.db"], for: rekey).value("--backup"), "kept.db")
        XCTAssertEqual(try CommandLineParser.parse(["db", "--new-salt=\(salt)"], for: rekey).value("--new-salt"), salt)
    }

    func testAnOptionalValueGivenBothBareAndWithAValueIsGivenTwice() {
        for arguments in [["db", "--backup", "--backup=x.db"], ["db", "--new-salt=00112233445566778899aabbccddeeff", "--new-salt"]] {
            XCTAssertThrowsError(try CommandLineParser.parse(arguments, for: CommandCatalog.rekey)) { error in
                XCTAssertEqual((error as? UsageError)?.message.hasSuffix("is given more than once"), true, "\(arguments)")
            }
        }
    }

    func testAnEmptyPathOrOptionalValueIsAUsageError() {
        for arguments in [["db", "--backup="], ["db", "--salt-file="], ["db", "--new-salt="]] {
            XCTAssertThrowsError(try CommandLineParser.parse(arguments, for: CommandCatalog.rekey)) { error in
                XCTAssertEqual((error as? UsageError)?.message.hasSuffix("needs a value after '='"), true, "\(arguments)")
            }
        }
        for arguments in [["db", "--salt-file", ""], ["db", "--key-ring", ""]] {
            XCTAssertThrowsError(try CommandLineParser.parse(arguments, for: CommandCatalog.rekey)) { error in
                XCTAssertEqual((error as? UsageError)?.message.hasSuffix("is given an empty value, which names nothing"), true, "\(arguments)")
            }
        }
    }

    func testAHeaderSizeNeedsItsValue() throws {
        let header = CommandCatalog.plaintextHeader
        XCTAssertEqual(try CommandLineParser.parse(["db", "--size", "64"], for: header).value("--size"), "64")
        XCTAssertEqual(try CommandLineParser.parse(["db", "--size=48"], for: header).value("--size"), "48")
        XCTAssertThrowsError(try CommandLineParser.parse(["db", "--size"], for: header)) { error in
            XCTAssertEqual((error as? UsageError)?.message, "option '--size' needs a value (N)")
        }
    }

    func testAnOldSpellingIsStoredUnderTheOptionItStandsFor() throws {
        let rekey = CommandCatalog.rekey
        let threads = try CommandLineParser.parse(["db", "--threads", "3"], for: rekey)
        XCTAssertEqual(threads.value("--jobs"), "3")
        XCTAssertNil(threads.value("--threads"))
        XCTAssertEqual(try CommandLineParser.parse(["db", "--no-verify"], for: rekey).value("--verify"), "none")
        XCTAssertThrowsError(try CommandLineParser.parse(["db", "--no-verify=yes"], for: rekey))
        XCTAssertEqual(try CommandLineParser.parse(["db", "--hmac", "off"], for: open).value("--hmac"), "off")
        XCTAssertEqual(try CommandLineParser.parse(["a", "b", "--to-hmac=off"], for: CommandCatalog.export).value("--to-hmac"), "off")
    }

    func testAnOptionAndItsOldSpellingTogetherAreGivenTwice() {
        XCTAssertThrowsError(try CommandLineParser.parse(["db", "--jobs", "2", "--threads", "3"], for: CommandCatalog.rekey)) { error in
            XCTAssertEqual((error as? UsageError)?.message, "option '--jobs' is given more than once")
        }
    }

    func testOldSpellingsAreNeitherSuggestedNorShown() {
        XCTAssertThrowsError(try CommandLineParser.parse(["db", "--thread", "3"], for: CommandCatalog.rekey)) { error in
            XCTAssertNotEqual((error as? UsageError)?.hint, "did you mean '--threads'?")
        }
        XCTAssertFalse(HelpRenderer.command(CommandCatalog.rekey).contains("--threads"))
        XCTAssertFalse(HelpRenderer.command(CommandCatalog.rekey).contains("--no-verify"))
    }

    func testEveryDestinationFamilyHasTheSameCipherOptions() {
        // --to-family names the kind of file export writes, no setting of SQLCipher's: only export writes other families.
        func family(_ command: CommandSpec, _ prefix: String) -> Set<String> {
            Set(command.options.map(\.name).filter { $0.hasPrefix("--" + prefix) && !$0.contains("key") && $0 != ExportOptions.toFamily.name }
                .map { String($0.dropFirst(2 + prefix.count)) })
        }
        let export = family(CommandCatalog.export, "to-")
        XCTAssertEqual(family(CommandCatalog.rekey, "new-"), export)
        XCTAssertEqual(family(CommandCatalog.recover, "to-"), export)
        XCTAssertTrue(export.isSuperset(of: ["compat", "page-size", "kdf-iter", "hmac-algorithm", "kdf-algorithm", "hmac-pgno", "plaintext-header-size", "salt", "salt-file"]))
    }

    func testDoubleDashEndsOptions() throws {
        let parsed = try CommandLineParser.parse(["--json", "--", "--create"], for: open)
        XCTAssertEqual(parsed.positionals, ["--create"])
        XCTAssertFalse(parsed.has("--create"))
    }

    func testValueMayContainEqualsSign() throws {
        let parsed = try CommandLineParser.parse(["db", "--key=a=b"], for: open)
        XCTAssertEqual(parsed.value("--key"), "a=b")
    }

    func testUnknownOptionSuggestsTheClosest() {
        XCTAssertThrowsError(try CommandLineParser.parse(["db", "--kdf-itr", "5"], for: open)) { error in
            let usage = error as? UsageError
            XCTAssertEqual(usage?.message, "unknown option '--kdf-itr'")
            XCTAssertEqual(usage?.hint, "did you mean '--kdf-iter'?")
        }
    }

    func testUnknownOptionMessageDropsItsValue() {
        XCTAssertThrowsError(try CommandLineParser.parse(["db", "--kee=topsecret"], for: open)) { error in
            XCTAssertFalse(String(describing: error).contains("topsecret"))
        }
    }

    func testMissingValueIsAnError() {
        XCTAssertThrowsError(try CommandLineParser.parse(["db", "--key-env"], for: open)) { error in
            XCTAssertEqual((error as? UsageError)?.message, "option '--key-env' needs a value (VAR)")
        }
        XCTAssertThrowsError(try CommandLineParser.parse(["db", "--key-env", "--json"], for: open))
    }

    func testFlagWithValueIsAnError() {
        XCTAssertThrowsError(try CommandLineParser.parse(["db", "--json=yes"], for: open))
    }

    func testRepeatedSingleOptionIsAnError() {
        XCTAssertThrowsError(try CommandLineParser.parse(["db", "--page-size", "1024", "--page-size", "4096"], for: open)) { error in
            XCTAssertEqual((error as? UsageError)?.message, "option '--page-size' is given more than once")
        }
    }

    func testRepeatableOptionCollectsEveryValue() throws {
        let spec = CommandSpec(
            name: "x", summary: "", arguments: [], discussion: "",
            groups: [OptionGroup(title: "X OPTIONS", options: [OptionSpec("--param", value: "V", traits: .repeatable, help: "")])],
            examples: [])
        let parsed = try CommandLineParser.parse(["--param", "a", "--param=b"], for: spec)
        XCTAssertEqual(parsed.values["--param"], ["a", "b"])
    }

    func testShortHelpIsRecognised() throws {
        XCTAssertTrue(try CommandLineParser.parse(["-h"], for: open).has("--help"))
    }

    func testSingleDashIsAPositional() throws {
        XCTAssertEqual(try CommandLineParser.parse(["-"], for: open).positionals, ["-"])
    }
}
