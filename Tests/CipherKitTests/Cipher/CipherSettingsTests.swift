import CipherKit
import XCTest

final class CipherSettingsTests: XCTestCase {
    func testCompatibilityPragmaComesFirst() {
        let settings = CipherSettings(compatibility: 3, pageSize: 4096, kdfIterations: 1000)
        XCTAssertEqual(settings.pragmas, [
            "PRAGMA cipher_compatibility = 3",
            "PRAGMA cipher_page_size = 4096",
            "PRAGMA kdf_iter = 1000",
        ])
    }

    func testSaltPragmaUsesBlobLiteral() {
        let settings = CipherSettings(salt: Array(repeating: 0xab, count: 16))
        XCTAssertEqual(settings.pragmas, ["PRAGMA cipher_salt = \"x'abababababababababababababababab'\""])
    }

    func testOutOfRangeValuesAreRefused() {
        XCTAssertThrowsError(try CipherSettings(compatibility: 5).validate())
        XCTAssertThrowsError(try CipherSettings(pageSize: 1000).validate())
        XCTAssertThrowsError(try CipherSettings(pageSize: 256).validate())
        XCTAssertThrowsError(try CipherSettings(kdfIterations: 0).validate())
        XCTAssertThrowsError(try CipherSettings(plaintextHeaderSize: 20).validate())
        XCTAssertThrowsError(try CipherSettings(plaintextHeaderSize: 4096).validate())
        XCTAssertThrowsError(try CipherSettings(salt: [1, 2, 3]).validate())
        XCTAssertNoThrow(try CipherSettings(compatibility: 1, pageSize: 65536).with(\.plaintextHeaderSize, 32).validate())
    }

    func testDefaultsOfEachVersionAreRecognised() throws {
        for version in 1...4 {
            let defaults = try XCTUnwrap(CipherSettings.defaults(forCompatibility: version))
            XCTAssertEqual(defaults.matchingCompatibility, version)
        }
        XCTAssertNil(CipherSettings(pageSize: 8192, kdfIterations: 10, hmacAlgorithm: .sha256, kdfAlgorithm: .pbkdf2SHA256, useHMAC: true).matchingCompatibility)
    }

    func testAlgorithmNamesParseInShortAndLongForms() {
        XCTAssertEqual(HMACAlgorithm(name: "sha256"), .sha256)
        XCTAssertEqual(HMACAlgorithm(name: "HMAC_SHA1"), .sha1)
        XCTAssertNil(HMACAlgorithm(name: "md5"))
        XCTAssertEqual(KDFAlgorithm(name: "PBKDF2_HMAC_SHA512"), .pbkdf2SHA512)
        XCTAssertEqual(KDFAlgorithm(name: "sha1"), .pbkdf2SHA1)
    }

    func testBigEndianPageNumberPragmaFollowsCompatibility() {
        let settings = CipherSettings(compatibility: 2).with(\.hmacPageNumber, .bigEndian)
        XCTAssertEqual(settings.pragmas, ["PRAGMA cipher_compatibility = 2", "PRAGMA cipher_hmac_pgno = be"])
        XCTAssertEqual(HMACPageNumber(name: "BE"), .bigEndian)
        XCTAssertNil(HMACPageNumber(name: "middle"))
    }

    func testOnlyFormatSettingsStopTheSearch() {
        XCTAssertFalse(CipherSettings().specifiesFormat)
        XCTAssertFalse(CipherSettings(plaintextHeaderSize: 32, salt: Array(repeating: 1, count: 16)).specifiesFormat)
        XCTAssertTrue(CipherSettings(kdfIterations: 1000).specifiesFormat)
        XCTAssertTrue(CipherSettings().with(\.hmacPageNumber, .bigEndian).specifiesFormat)
    }

    func testSummaryNamesEveryFormatSetting() {
        XCTAssertEqual(CipherFormat(version: 3).settings.summary, "page size 1024, KDF iterations 64000, HMAC-SHA1, PBKDF2-HMAC-SHA1")
        XCTAssertEqual(CipherFormat(version: 1).settings.summary, "page size 1024, KDF iterations 4000, no HMAC, PBKDF2-HMAC-SHA1")
        XCTAssertEqual(
            CipherFormat(version: 2, hmacPageNumber: .bigEndian).settings.summary,
            "page size 1024, KDF iterations 4000, HMAC-SHA1, PBKDF2-HMAC-SHA1, HMAC page numbers big-endian")
    }

    func testReservedBytesMatchWhatSQLCipherWrites() {
        XCTAssertEqual(CipherFormat(version: 4).settings.reservedBytes, 80)
        XCTAssertEqual(CipherFormat(version: 3).settings.reservedBytes, 48)
        XCTAssertEqual(CipherFormat(version: 1).settings.reservedBytes, 16)
    }
}
