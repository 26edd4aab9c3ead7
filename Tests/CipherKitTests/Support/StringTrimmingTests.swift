@testable import CipherKit
import Foundation
import TestSupport
import XCTest

/// The replacements for Foundation's string methods (the tool links FoundationEssentials
/// only) give Foundation's own results, held against Foundation itself on random text from
/// the characters where they could differ: Unicode spaces, line ends, tabs, combining marks.
final class StringTrimmingTests: XCTestCase {
    private let pieces = [" ", "\t", "\n", "\r", "\r\n", "\u{85}", "\u{A0}", "\u{2003}", "\u{2028}", "\u{2029}",
                          "\u{301}", "a", "Z", "é", "-", "\"", "?", "#", "%", "/", "é", "😀", "\u{0}", "x y"]

    func testTrimmingMatchesFoundationsTrimmingForASweepOfRandomText() {
        let (generator, _) = SeededGenerator.forSweep("trimming sweep", variable: "CIPHERCTL_TRIMMING_SEED")
        var random = generator
        for _ in 0..<sweepCases("CIPHERCTL_TRIMMING_CASES", quick: 5000) {
            let text = (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            XCTAssertEqual(text.trimmingWhitespace(), text.trimmingCharacters(in: .whitespaces), "\(Array(text.unicodeScalars))")
            XCTAssertEqual(text.trimmingWhitespaceAndNewlines(), text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.unicodeScalars))")
            XCTAssertEqual(text.replacing("\"", with: "\"\""), text.replacingOccurrences(of: "\"", with: "\"\""), "\(Array(text.unicodeScalars))")
        }
    }

    func testURIPathsAreEscapedAsFoundationsPercentEncodingEscapedThem() {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let (generator, _) = SeededGenerator.forSweep("URI sweep", variable: "CIPHERCTL_URI_SEED")
        var random = generator
        for _ in 0..<sweepCases("CIPHERCTL_URI_CASES", quick: 2000) {
            // After a letter: "/" and a combining mark are one Character, which is no "/" prefix.
            let path = "/d" + (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let expected = "file:" + path.addingPercentEncoding(withAllowedCharacters: allowed)! + "?immutable=1"
            XCTAssertEqual(SQLiteURI.untouched(path, .fileAlone), expected, "\(Array(path.unicodeScalars))")
        }
    }
}
