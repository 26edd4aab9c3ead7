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

    /// Foundation (not FoundationEssentials) would link CoreFoundation and ICU's data into the
    /// binary, and their start-up into every run (docs/performance.md, "Start-up").
    func testSourcesImportFoundationEssentialsNotFoundation() throws {
        for folder in ["Sources/CipherKit", "Sources/cipherctl"] {
            for file in try swiftFiles(under: folder) {
                let imports = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("import ") }
                XCTAssertFalse(imports.contains { $0 == "import Foundation" || $0.hasPrefix("import class Foundation") || $0.hasPrefix("import struct Foundation") },
                               "\(file.lastPathComponent) imports Foundation")
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

    /// A function a reader can hold in view: a body of at most 50 lines and at most 6
    /// parameters (those that travel together go in a struct). C callbacks whose parameters
    /// SQLite fixes are listed in Support/FixedSignatures.txt.
    func testNoFunctionInSourcesHasABodyOver50LinesOrOver6Parameters() throws {
        let sources = root.appendingPathComponent("Sources")
        let exempt = try fixedSignatures()
        let walker = try XCTUnwrap(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var seen = 0
        for case let file as URL in walker where ["swift", "c"].contains(file.pathExtension) {
            let relative = String(file.path.dropFirst(sources.path.count + 1))
            let scanner = FunctionScanner(language: file.pathExtension == "swift" ? .swift : .c)
            for function in scanner.functions(in: try String(contentsOf: file, encoding: .utf8)) {
                seen += 1
                let place = "Sources/\(relative):\(function.line): \(function.name)"
                XCTAssertLessThanOrEqual(function.bodyLines, 50, "a body of \(function.bodyLines) lines: \(place)")
                if !exempt.contains("\(relative):\(function.name)") || file.pathExtension != "c" {
                    XCTAssertLessThanOrEqual(function.parameters, 6, "\(function.parameters) parameters: \(place)")
                }
            }
        }
        XCTAssertGreaterThan(seen, 500, "the scanner found too few functions to be reading them")
    }

    /// `PATH:FUNCTION` lines, `#` comments and blank lines left out.
    private func fixedSignatures() throws -> Set<String> {
        let list = root.appendingPathComponent("Tests/cipherctlTests/Support/FixedSignatures.txt")
        let lines = try String(contentsOf: list, encoding: .utf8).split(separator: "\n")
        return Set(lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") })
    }

    func testTheFunctionScannerCountsBodiesAndParametersPastStringsAndComments() {
        let swift = """
            struct S {
                init(a: Int, b: [String: Int] = [:], c: (Int, Int) -> Void) {
                    let text = "} { \\(a) (\\("}")) //"
                    /* } */ let raw = #"}"#
                }
                func f<T>(_ x: T) -> Int where T: Equatable {
                    return 1
                }
            }
            protocol P { func g(a: Int) }
            """
        let found = FunctionScanner(language: .swift).functions(in: swift)
        XCTAssertEqual(found.map(\.name), ["init", "f"])
        XCTAssertEqual(found.map(\.parameters), [3, 1])
        XCTAssertEqual(found.map(\.bodyLines), [2, 1])
        let c = """
            static int f(void *p, int (*cb)(int, int), const char *s)
            {
                const char *t = "}{";
                if (p) { return '}'; }
                return 0;
            }
            struct S { int a; };
            int g(void);
            static const int table[] = { 1, 2 };
            int h(void) { return 0; }
            """
        let functions = FunctionScanner(language: .c).functions(in: c)
        XCTAssertEqual(functions.map(\.name), ["f", "h"])
        XCTAssertEqual(functions.map(\.parameters), [3, 0])
        XCTAssertEqual(functions.map(\.bodyLines), [3, 0])
    }
}
