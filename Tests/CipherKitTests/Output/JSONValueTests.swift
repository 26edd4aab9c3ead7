import CipherKit
import XCTest

final class JSONValueTests: XCTestCase {
    func testJSONStringsEscapeQuotesBackslashesAndControlCharacters() {
        let value = JSONValue.object([("a\"b", .string("line\nbreak\t\\ \u{01} é"))])
        XCTAssertEqual(value.rendered(), #"{"a\"b":"line\nbreak\t\\ \u0001 é"}"#)
    }

    func testJSONNumbersAndNulls() {
        XCTAssertEqual(JSONValue.array([.integer(-3), .number(2), .number(.nan), .null, .bool(true)]).rendered(), "[-3,2.0,null,null,true]")
    }
}
