@testable import cipherctl
import CipherKit
import Foundation
import XCTest

/// Every JSON error names its failure by a stable reason, and the exit code is the one
/// `ErrorReporter` documents for that reason, whatever the command.
final class ErrorReasonTests: CLITestCase {
    private let key = ["K": "right key", "N": "new key", "W": "wrong key"]

    /// One failure: the command line, and the reason the file or the request shows.
    private struct Case {
        let arguments: [String]
        let reason: String
    }

    func testEveryJSONErrorNamesItsReasonAndTheExitCodeThatReasonDocuments() throws {
        let db = try makeShellDatabase("a.db", key: "right key", rows: 400)
        let damaged = try makeShellDatabase("damaged.db", key: "right key", rows: 400)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: damaged))
        try handle.seek(toOffset: 4096 * 2 + 300)
        handle.write(Data([0x5A, 0xA5]))
        try handle.close()
        let plain = path("plain.db")
        _ = try sqlcipherOK(plain, "CREATE TABLE t(x);")
        let cases = [
            Case(arguments: ["open", path("missing.db"), "--key-env", "K"], reason: "file-not-found"),
            Case(arguments: ["open", db, "--key-env", "W", "--compat", "4"], reason: "wrong-key"),
            Case(arguments: ["open", db, "--key-env", "W"], reason: "no-format-matched"),
            Case(arguments: ["open", plain, "--key-env", "K"], reason: "plaintext-database"),
            Case(arguments: ["rekey", damaged, "--key-env", "K", "--new-key-env", "N"], reason: "damaged"),
            Case(arguments: ["rekey", db, "--key-env", "K", "--new-key-env", "K"], reason: "same-key"),
            Case(arguments: ["rekey", plain, "--key-env", "K", "--new-key-env", "N"], reason: "plaintext-source"),
            Case(arguments: ["export", db, db, "--key-env", "K", "--to-key-env", "N"], reason: "destination-is-source"),
            Case(arguments: ["export", db, plain, "--key-env", "K", "--to-key-env", "N"], reason: "file-exists"),
            Case(arguments: ["query", db, "INSERT INTO items(name) VALUES ('x')", "--key-env", "K", "--format", "json"], reason: "needs-write"),
            Case(arguments: ["open", db, "--key-env", "K", "--no-such-option"], reason: "usage"),
        ]
        for failure in cases {
            let before = try [db, damaged, plain].map { try fingerprint($0).0 }
            let result = try cipherctl(failure.arguments + ["--json"], environment: key)
            let object = try jsonObject(result.stderr)
            let label = failure.arguments.joined(separator: " ")
            XCTAssertEqual(object["reason"] as? String, failure.reason, label)
            let documented = FailureReason(rawValue: failure.reason).map(ErrorReporter.exitCode(for:)) ?? .usage
            XCTAssertEqual(result.code, documented.rawValue, label)
            XCTAssertEqual(object["exit_code"] as? Int, Int(documented.rawValue), label)
            XCTAssertEqual(object["committed"] as? Bool, false, label)
            XCTAssertEqual(try [db, damaged, plain].map { try fingerprint($0).0 }, before, "\(label) changed a file")
            XCTAssertEqual(try temporaryLeftovers(), [], label)
        }
    }

    func testAHintNamesTheCommandsOwnFlagsAndTheLibraryMessageNamesNone() throws {
        let db = try makeShellDatabase("a.db", key: "right key", rows: 10)
        let result = try cipherctl(["open", db, "--key-env", "W"], environment: key)
        XCTAssertEqual(result.code, 3)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, result.stderr)
        XCTAssertTrue(lines[0].hasPrefix("cipherctl: error: cannot decrypt"), result.stderr)
        XCTAssertFalse(lines[0].contains("--"), "the library's message names a flag: \(lines[0])")
        XCTAssertTrue(lines[1].hasPrefix("hint: ") && lines[1].contains("--kdf-iter"), result.stderr)
    }
}
