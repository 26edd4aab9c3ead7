import Foundation
import XCTest

/// The rules of the layout that a compiler does not check (docs/architecture.md).
final class ArchitectureTests: XCTestCase {
    private let root = CLITestCase.packageRoot

    private func swiftFiles(under folder: String) throws -> [URL] {
        let base = root.appendingPathComponent(folder)
        let walker = try XCTUnwrap(FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil))
        let files = walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        XCTAssertFalse(files.isEmpty, "no Swift file under \(folder)")
        return files
    }

    /// CipherKit speaks in its own terms: a flag or a command of cipherctl named there would
    /// have to be kept in step with the tool in two places.
    func testCipherKitSourcesNameNoCommandOrFlagOfTheTool() throws {
        let flag = try NSRegularExpression(pattern: #"(^|[\s'`(])--[a-z][a-z-]+"#)
        let command = try NSRegularExpression(pattern: #"cipherctl (open|query|rekey|export|salt|plaintext-header|audit|keygen|completion)\b"#)
        for file in try swiftFiles(under: "Sources/CipherKit") {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line), range = NSRange(line.startIndex..., in: line)
                let place = "\(file.lastPathComponent):\(number + 1): \(line)"
                XCTAssertNil(flag.firstMatch(in: line, range: range), "a flag in CipherKit: \(place)")
                XCTAssertNil(command.firstMatch(in: line, range: range), "a command in CipherKit: \(place)")
            }
        }
    }

    func testNoSwiftFileIsOver300Lines() throws {
        for folder in ["Sources/CipherKit", "Sources/cipherctl"] {
            for file in try swiftFiles(under: folder) {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count
                XCTAssertLessThanOrEqual(lines, 301, file.path)
            }
        }
    }

    /// Each CipherKit test folder is a folder of the library, so a reader finds a test where
    /// its type lives.
    func testCipherKitTestFoldersMirrorTheLibrarysFolders() throws {
        let tests = try swiftFiles(under: "Tests/CipherKitTests").map { $0.deletingLastPathComponent().path }
        let prefix = root.appendingPathComponent("Tests/CipherKitTests").path
        for folder in Set(tests) where folder != prefix && !folder.hasSuffix("/Support") {
            let relative = String(folder.dropFirst(prefix.count + 1))
            var isDirectory: ObjCBool = false
            let source = root.appendingPathComponent("Sources/CipherKit/" + relative).path
            XCTAssertTrue(FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) && isDirectory.boolValue, relative)
        }
    }
}
