@testable import cipherctl
import Foundation
import TestSupport
import XCTest

/// `CommandWords` splits a key command template as /bin/sh splits a simple command: generated
/// lines of plain, single-quoted, double-quoted and backslashed words are split by both and
/// must agree. The seed replays a run.
final class CommandWordsTests: CLITestCase {
    private func segment(using generator: inout SeededGenerator) -> String {
        let anything = Array("ab {}';|&$`\"\\*?()<>#~")
        switch Int.random(in: 0...3, using: &generator) {
        case 0: return String((0..<Int.random(in: 1...4, using: &generator)).map { _ in "az09._/-{}".randomElement(using: &generator)! })
        case 1: return "'" + String((0..<Int.random(in: 0...4, using: &generator)).map { _ in anything.filter { $0 != "'" }.randomElement(using: &generator)! }) + "'"
        case 2:
            let inside = (0..<Int.random(in: 0...4, using: &generator)).map { _ -> String in
                let character = anything.filter { $0 != "$" && $0 != "`" }.randomElement(using: &generator)!
                return character == "\"" || character == "\\" ? "\\" + String(character) : String(character)
            }
            return "\"" + inside.joined() + "\""
        default: return "\\" + String(anything.randomElement(using: &generator)!)
        }
    }

    func testWordsAreSplitAsTheShellSplitsThem() throws {
        var (generator, seed) = SeededGenerator.forSweep("command words", variable: "CIPHERCTL_WORDS_SEED")
        for index in 0..<sweepCases("CIPHERCTL_WORDS_CASES", quick: 60) {
            let words = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                (0..<Int.random(in: 1...3, using: &generator)).map { _ in segment(using: &generator) }.joined()
            }
            let line = words.joined(separator: " ")
            let shell = try sh("printf '%s\\0' " + line)
            XCTAssertEqual(shell.code, 0, "seed \(seed), case \(index): \(line)")
            let expected = shell.stdout.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
            XCTAssertEqual(try CommandWords.split(line), expected, "seed \(seed), case \(index): \(line)")
        }
        for unclosed in ["'a", "\"a", "a\\"] {
            XCTAssertThrowsError(try CommandWords.split(unclosed), unclosed)
        }
    }
}
