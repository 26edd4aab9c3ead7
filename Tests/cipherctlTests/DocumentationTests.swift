@testable import cipherctl
import Foundation
import XCTest

/// The man page and README must tell the truth about the command line.
final class DocumentationTests: XCTestCase {
    private func read(_ relative: String) throws -> String {
        try String(contentsOf: CLITestCase.packageRoot.appendingPathComponent(relative), encoding: .utf8)
    }

    func testManPageDescribesEveryCommandAndOption() throws {
        let man = try read("man/cipherctl.1")
        for command in CommandCatalog.commands {
            XCTAssertTrue(man.contains(".Cm \(command.name)"), command.name)
            for option in command.options {
                XCTAssertTrue(man.contains("Fl \(option.name.dropFirst())"), "\(command.name) \(option.name) missing from the man page")
            }
        }
        for option in CommandCatalog.topLevelOptions {
            XCTAssertTrue(man.contains("Fl \(option.name.dropFirst())"), option.name)
        }
    }

    func testReadmeAndManPageListEveryExitCode() throws {
        let readme = try read("README.md")
        let man = try read("man/cipherctl.1")
        for code in ExitCode.allCases {
            XCTAssertTrue(readme.contains("| \(code.rawValue) | \(code.meaning)"), "README exit code \(code.rawValue)")
            XCTAssertTrue(man.contains(".It \(code.rawValue)\n"), "man exit code \(code.rawValue)")
        }
    }

    func testReadmeMentionsEveryOption() throws {
        let readme = try read("README.md")
        for command in CommandCatalog.commands {
            for option in command.options where option.name != "--help" {
                XCTAssertTrue(readme.contains("`\(option.name)"), "\(option.name) missing from the README")
            }
        }
    }

    func testManPagePassesMandocLint() throws {
        let page = CLITestCase.packageRoot.appendingPathComponent("man/cipherctl.1").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["mandoc", "-T", "lint", page]
        let errors = Pipe()
        process.standardOutput = errors
        process.standardError = errors
        try process.run()
        let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Cross references to pages this machine's manual database lacks are not the page's fault.
        let findings = output.split(separator: "\n").filter { !$0.contains("mandoc.db") }
        XCTAssertEqual(findings, [], output)
        XCTAssertEqual(process.terminationStatus, 0, output)
    }
}
