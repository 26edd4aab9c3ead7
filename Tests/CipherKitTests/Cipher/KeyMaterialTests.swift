import CipherKit
import XCTest

final class KeyMaterialTests: XCTestCase {
    private let hex64 = String(repeating: "0123456789abcdef", count: 4)
    private let salt = "000102030405060708090a0b0c0d0e0f"

    func testEmptyPassphraseIsRefused() {
        XCTAssertThrowsError(try KeyMaterial.passphrase([UInt8]())) { error in
            XCTAssertEqual(error as? KeyMaterialError, .empty)
        }
    }

    func testRawKeyOf64DigitsIsAKeyWithoutSalt() throws {
        let key = try KeyMaterial.rawKey(hex: Array(hex64.utf8))
        XCTAssertEqual(key.kind, .rawKey)
        XCTAssertNil(key.salt)
    }

    func testRawKeyOf96DigitsCarriesItsSalt() throws {
        let key = try KeyMaterial.rawKey(hex: Array((hex64 + salt).utf8))
        XCTAssertEqual(key.kind, .rawKeyWithSalt)
        XCTAssertEqual(key.salt, Array(0...15))
    }

    func testRawKeyAcceptsBlobLiteralForm() throws {
        let key = try KeyMaterial.rawKey(hex: Array("x'\(hex64)'".utf8))
        XCTAssertEqual(key.kind, .rawKey)
    }

    func testRawKeyOf63DigitsIsRefusedNotTreatedAsPassphrase() {
        XCTAssertThrowsError(try KeyMaterial.rawKey(hex: Array(hex64.dropLast().utf8))) { error in
            XCTAssertEqual(error as? KeyMaterialError, .rawKeyLength(63))
        }
    }

    func testRawKeyWithNonHexDigitIsRefused() {
        let text = "g" + hex64.dropFirst()
        XCTAssertThrowsError(try KeyMaterial.rawKey(hex: Array(text.utf8))) { error in
            XCTAssertEqual(error as? KeyMaterialError, .rawKeyNotHex)
        }
    }

    func testDescriptionNeverShowsTheKey() throws {
        let key = try KeyMaterial.passphrase(Array("hunter2-distinctive".utf8))
        XCTAssertFalse(String(describing: key).contains("hunter2"))
        XCTAssertFalse(String(reflecting: key).contains("hunter2"))
        let raw = try KeyMaterial.rawKey(hex: Array(hex64.utf8))
        XCTAssertFalse(String(describing: raw).contains("0123456789"))
    }

    func testErrorMessagesNeverShowTheKey() {
        let text = "zz" + hex64
        XCTAssertThrowsError(try KeyMaterial.rawKey(hex: Array(text.utf8))) { error in
            XCTAssertFalse(String(describing: error).contains("0123456789"))
        }
    }

    func testSameSecretIsRecognised() throws {
        let a = try KeyMaterial.passphrase(Array("one".utf8))
        let b = try KeyMaterial.passphrase(Array("one".utf8))
        let c = try KeyMaterial.passphrase(Array("two".utf8))
        XCTAssertTrue(a.hasSameSecret(as: b))
        XCTAssertFalse(a.hasSameSecret(as: c))
    }

    func testWipeZeroesAndEmptiesAnArray() {
        var bytes: [UInt8] = Array("secret".utf8)
        SecureBytes.wipe(&bytes)
        XCTAssertTrue(bytes.isEmpty)
    }
}
