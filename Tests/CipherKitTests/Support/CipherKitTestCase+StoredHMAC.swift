@testable import CipherKit
import Foundation
import XCTest

/// What the check's tests share: a database of one table `t` whose page 2 (its root) has
/// its stored HMAC spoilt while its ciphertext stays whole, read back with the key `k`.
extension CipherKitTestCase {
    func openReadOnly(_ path: String) throws -> OpenedDatabase {
        try DatabaseOpener.open(OpenRequest(path: path, key: try passphrase("k"), mode: .readOnly))
    }

    /// Overwrites the first byte of page 2's stored HMAC (after its 16-byte IV), leaving its ciphertext whole.
    func spoilStoredHMACOfPage2(_ path: String) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(4096 + 4096 - 80 + 16))
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: UInt64(4096 + 4096 - 80 + 16))
        handle.write(Data([byte ^ 0xff]))
    }

    /// The rows of t, read from the table itself (page 2 is its root); nil when a read fails.
    func rowsOfT(_ path: String) -> Int64? {
        guard let opened = try? openReadOnly(path) else { return nil }
        defer { try? opened.connection.close() }
        return try? opened.connection.scalar("SELECT count(y) FROM t NOT INDEXED")?.integerValue
    }
}
