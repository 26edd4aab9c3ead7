@testable import cipherctl
import XCTest

final class SuggestionTests: XCTestCase {
    func testDistanceCountsEdits() {
        XCTAssertEqual(Suggestion.distance("kitten", "sitting"), 3)
        XCTAssertEqual(Suggestion.distance("", "abc"), 3)
        XCTAssertEqual(Suggestion.distance("same", "same"), 0)
    }

    func testFarWordsGetNoSuggestion() {
        XCTAssertEqual(Suggestion.closest(to: "opne", in: ["open", "help"]), "open")
        XCTAssertNil(Suggestion.closest(to: "completely-different", in: ["open", "help"]))
    }
}
