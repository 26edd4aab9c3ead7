import CipherKit
import Foundation
import XCTest

/// SQLCipher reads its one, process-wide HMAC salt mask whenever a connection derives its keys.
/// A connection keyed and set up under one mask must keep reading under it after another
/// connection sets another mask, the first time that happens in the process as after.
final class SaltMaskGateTests: CipherKitTestCase {
    /// A database the `sqlcipher` shell writes under `mask`, in its own process, so that this
    /// process sets no mask before the test does.
    private func shellDatabase(_ name: String, mask: UInt8) throws -> String {
        let target = path(name)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        shell.arguments = ["sqlcipher", "-batch", target]
        let input = Pipe()
        shell.standardInput = input
        shell.standardOutput = Pipe()
        shell.standardError = FileHandle.nullDevice
        try shell.run()
        let sql = "PRAGMA key = 'k'; PRAGMA cipher_hmac_salt_mask = \"x'\(String(format: "%02x", mask))'\"; CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3);\n"
        input.fileHandleForWriting.write(Data(sql.utf8))
        try input.fileHandleForWriting.close()
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 0)
        return target
    }

    private func connect(_ target: String, mask: UInt8?) throws -> Connection {
        let connection = try Connection(path: target, mode: .readOnly)
        try connection.key(try passphrase("k"))
        try connection.apply(CipherSettings().with(\.hmacSaltMask, mask))
        return connection
    }

    func testAConnectionSetUpBeforeAnotherMaskIsSetStillReadsUnderItsOwn() throws {
        let plain = try makeEncryptedDatabase("d.db", key: "k", sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
        let masked = try shellDatabase("m.db", mask: 0x5b)
        for round in 0..<2 {
            let early = try connect(plain, mask: nil)
            let other = try connect(masked, mask: 0x5b)
            XCTAssertEqual(try early.scalar("SELECT count(*) FROM t"), .integer(2), "round \(round)")
            XCTAssertEqual(try other.scalar("SELECT count(*) FROM t"), .integer(3), "round \(round)")
            let later = try connect(plain, mask: nil)
            XCTAssertEqual(try later.scalar("SELECT count(*) FROM t"), .integer(2), "round \(round)")
        }
    }
}
