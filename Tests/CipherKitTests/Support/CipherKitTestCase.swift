import CipherKit
import Foundation
import XCTest

/// A test case with a fresh temporary directory, removed after each test, and helpers that
/// make real encrypted databases through CipherKit.
class CipherKitTestCase: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cipherkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A path in the temporary directory.
    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    func passphrase(_ text: String) throws -> KeyMaterial {
        try KeyMaterial.passphrase(Array(text.utf8))
    }

    /// Creates an encrypted database at `name` and runs `sql` in it; returns its path.
    @discardableResult
    func makeEncryptedDatabase(_ name: String, key: String, settings: CipherSettings = CipherSettings(), sql: String = "") throws -> String {
        let target = path(name)
        let connection = try Connection(path: target, mode: .create)
        try connection.key(try passphrase(key))
        try connection.apply(settings)
        try connection.execute("PRAGMA user_version = 0")
        if !sql.isEmpty { try connection.execute(sql) }
        try connection.close()
        return target
    }

    /// Creates a plaintext SQLite database at `name`; returns its path.
    @discardableResult
    func makePlaintextDatabase(_ name: String, sql: String) throws -> String {
        let target = path(name)
        let connection = try Connection(path: target, mode: .create)
        try connection.execute(sql)
        try connection.close()
        return target
    }

    /// The file's bytes and modification time, to prove an operation left it alone.
    func fingerprint(_ path: String) throws -> (Data, Date) {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (try Data(contentsOf: URL(fileURLWithPath: path)), attributes[.modificationDate] as? Date ?? .distantPast)
    }

    /// Asserts that `body` throws `CipherKitError` equal to `expected`.
    func assertThrows<T>(_ expected: CipherKitError, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual(error as? CipherKitError, expected, file: file, line: line)
        }
    }
}
