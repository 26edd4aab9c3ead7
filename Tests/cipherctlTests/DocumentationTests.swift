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
}
