import Foundation
import XCTest

/// Colour only on a terminal, never with NO_COLOR; --quiet leaves only errors and results.
final class ConsoleTests: CLITestCase {
    func testErrorLabelIsColouredOnATerminal() throws {
        let (code, screen) = try cipherctlOnTerminal(["open", "missing.db"], answers: [], environment: ["NO_COLOR": "", "TERM": "xterm"])
        XCTAssertEqual(code, 5)
        XCTAssertTrue(screen.contains("cipherctl: \u{1B}[1;31merror:\u{1B}[0m 'missing.db' does not exist"), screen)
    }

    func testNoColorTurnsColourOff() throws {
        let (code, screen) = try cipherctlOnTerminal(["open", "missing.db"], answers: [], environment: ["NO_COLOR": "1", "TERM": "xterm"])
        XCTAssertEqual(code, 5)
        XCTAssertTrue(screen.contains("cipherctl: error: 'missing.db' does not exist"), screen)
        XCTAssertFalse(screen.contains("\u{1B}["), screen)
    }

    func testNoColourWhenStandardErrorIsNotATerminal() throws {
        let result = try cipherctl(["open", path("missing.db")])
        XCTAssertEqual(result.stderr.hasPrefix("cipherctl: error: "), true, result.stderr)
        XCTAssertFalse(result.allOutput.contains("\u{1B}"))
    }

    func testQuietSilencesWarningsButNotResultsOrErrors() throws {
        let db = try makeShellDatabase("a.db", key: "quiet key", rows: 5)
        let loud = try cipherctl(["open", db, "--key", "quiet key"])
        XCTAssertTrue(loud.stderr.contains("warning:"), loud.stderr)
        let quiet = try cipherctl(["open", db, "--key", "quiet key", "--quiet"])
        XCTAssertEqual(quiet.code, 0)
        XCTAssertEqual(quiet.stderr, "")
        XCTAssertTrue(quiet.stdout.contains("encrypted:        yes"), quiet.stdout)
        let failed = try cipherctl(["open", db, "--key", "wrong", "--quiet"])
        XCTAssertEqual(failed.code, 3)
        XCTAssertTrue(failed.stderr.hasPrefix("cipherctl: error: "), failed.stderr)
    }
}
