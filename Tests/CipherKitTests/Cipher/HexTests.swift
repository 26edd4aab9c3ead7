import CipherKit
import XCTest

final class HexTests: XCTestCase {
    func testEncodeThenDecodeGivesTheBytesBack() {
        let bytes: [UInt8] = [0, 1, 0x7f, 0x80, 0xfe, 0xff]
        XCTAssertEqual(Hex.encode(bytes), "00017f80feff")
        XCTAssertEqual(Hex.decode("00017F80FEFF"), bytes)
    }

    func testDecodeRefusesOddLengthAndNonDigits() {
        XCTAssertNil(Hex.decode("abc"))
        XCTAssertNil(Hex.decode("zz"))
    }
}
