import Foundation
import TestSupport
import XCTest

/// What `export` refuses of SQLite3 Multiple Ciphers' files, and how it says so: a format it
/// cannot keep, and damage, which names the scheme and points at no command that refuses
/// such a file.
final class ForeignSchemeRefusalTests: CLITestCase {
    private static let schemes = [
        MultipleCiphersScheme(rows: 40, cipher: "chacha20"), MultipleCiphersScheme(rows: 40, cipher: "aes128cbc"),
        MultipleCiphersScheme(legacy: 1, rows: 40, cipher: "rc4"), MultipleCiphersScheme(rows: 40, cipher: "sqlcipher"),
    ]

    func testKeepingTheFormatOfEveryFamilysFileIsRefusedWithExit2AndNoFile() throws {
        try requireMultipleCiphersOracle()
        for (index, scheme) in Self.schemes.enumerated() {
            let source = path("mc\(index).db")
            XCTAssertEqual(try multipleCiphers("make", source, scheme).code, 0, scheme.cipher)
            let before = try folderListing(directory.path)
            let kept = try cipherctl(["export", source, path("kept.db"), "--key-env", "K", "--to-key-env", "T", "--to-compat", "same", "--json"],
                                     environment: ["K": scheme.key, "T": "t"])
            XCTAssertEqual(kept.code, 2, "\(scheme.cipher): \(kept.stderr)")
            XCTAssertEqual(try jsonObject(kept.stderr)["reason"] as? String, "format-not-kept", "\(scheme.cipher): \(kept.stderr)")
            XCTAssertEqual(try folderListing(directory.path), before, scheme.cipher)
        }
    }

    /// A page of a ChaCha20 or SQLCipher-scheme file that fails its tag or HMAC, page 1 (the
    /// key proven by the pages after it) or a later one: exit 4, the scheme named, and a hint
    /// that sends the user to neither `open --check` nor `recover`, which read SQLCipher's own
    /// formats only.
    func testDamageToAFileWithPageMACsNamesTheSchemeAndNoCommandThatRefusesIt() throws {
        try requireMultipleCiphersOracle()
        for (index, scheme) in Self.schemes.enumerated() where ["chacha20", "sqlcipher"].contains(scheme.cipher) {
            for page in [1, 3] {
                let source = path("damaged\(index)-\(page).db")
                XCTAssertEqual(try multipleCiphers("make", source, scheme).code, 0, scheme.cipher)
                var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
                bytes[(page - 1) * scheme.pageSize + 200] ^= 0x04
                try bytes.write(to: URL(fileURLWithPath: source))
                let before = try folderListing(directory.path)
                let result = try cipherctl(["export", source, path("out.db"), "--key-env", "K", "--to-key-env", "T"], environment: ["K": scheme.key, "T": "t"])
                XCTAssertEqual(result.code, 4, "\(scheme.cipher): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("is damaged: page \(page):"), "\(scheme.cipher): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("read SQLCipher's own formats only"), "\(scheme.cipher): \(result.stderr)")
                XCTAssertFalse(result.stderr.contains("salvages"), "\(scheme.cipher): \(result.stderr)")
                XCTAssertEqual(try folderListing(directory.path), before, scheme.cipher)
            }
        }
    }
}
