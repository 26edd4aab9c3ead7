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

    func testOptionalNumberTakesAFollowingNumberOnly() throws {
        let header = CommandCatalog.plaintextHeader
        let alone = try CommandLineParser.parse(["--size", "db"], for: header)
        XCTAssertTrue(alone.has("--size"))
        XCTAssertNil(alone.value("--size"))
        XCTAssertEqual(alone.positionals, ["db"])
        XCTAssertEqual(try CommandLineParser.parse(["db", "--size", "64"], for: header).value("--size"), "64")
        XCTAssertEqual(try CommandLineParser.parse(["db", "--size=48"], for: header).value("--size"), "48")
        XCTAssertEqual(try CommandLineParser.parse(["db", "--size", "0"], for: header).positionals, ["db"])
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
            groups: [OptionGroup(title: "X OPTIONS", options: [OptionSpec("--param", value: "V", repeatable: true, help: "")])],
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
