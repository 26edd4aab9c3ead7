@testable import cipherctl
import Foundation
import XCTest

/// The man page is what the catalog generates, and lint-clean; README's exit-code table is
/// `ExitCode`, so neither can drift from the command line.
final class DocumentationTests: XCTestCase {
    private func read(_ relative: String) throws -> String {
        try String(contentsOf: CLITestCase.packageRoot.appendingPathComponent(relative), encoding: .utf8)
    }

    /// A catalog change without a new page fails here.
    func testManPageIsWhatTheCatalogGenerates() throws {
        let man = try read("man/cipherctl.1")
        XCTAssertTrue(man == ManPage.render(),
                      "man/cipherctl.1 is not what the catalog generates: run Scripts/manpage (or 'cipherctl help --man > man/cipherctl.1')")
    }

    func testManPageDescribesEveryCommandAndOption() {
        let man = ManPage.render()
        for command in CommandCatalog.commands {
            XCTAssertTrue(man.contains(".Ss \(command.name)\n.Nm\n.Cm \(command.name)\n"), command.name)
            for option in command.options + CommandCatalog.topLevelOptions {
                let name = option.name.dropFirst().replacingOccurrences(of: "-", with: #"\-"#)
                XCTAssertTrue(man.contains("Fl \(name)"), "\(command.name) \(option.name) missing from the man page")
            }
        }
    }

    /// Each command's whole discussion is in the page: help has only the summary.
    func testManPageHoldsEveryDiscussion() {
        let words = { (text: String) in
            text.replacingOccurrences(of: #"\-"#, with: "-").replacingOccurrences(of: #"\&"#, with: "").replacingOccurrences(of: #"\e"#, with: #"\"#)
                .split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        }
        let page = words(ManPage.render())
        for command in CommandCatalog.commands {
            XCTAssertTrue(page.contains(words(command.discussion)), command.name)
        }
    }

    /// README's exit-code table is ExitCode, row for row, in order.
    func testReadmeExitCodeTableIsExitCode() throws {
        let rows = try read("README.md").components(separatedBy: "\n").filter { $0.range(of: #"^\| [0-9]+ \|"#, options: .regularExpression) != nil }
        XCTAssertEqual(rows, ExitCode.allCases.map { "| \($0.rawValue) | \($0.meaning) |" })
    }

    func testManPageListsEveryExitCode() throws {
        let man = try read("man/cipherctl.1")
        for code in ExitCode.allCases {
            XCTAssertTrue(man.contains(".It \(code.rawValue)\n" + ManPage.text(code.meaning.prefix(1).uppercased() + code.meaning.dropFirst() + ".")),
                          "man exit code \(code.rawValue)")
        }
    }

    /// Roff reads a line that begins with a dot or a quote as a request, and a backslash as
    /// an escape; an option's hyphens must print as the minus a terminal copies.
    func testManPageEscapesForRoff() {
        XCTAssertEqual(ManPage.text("'quoted' first. Then .hidden"), #"\&'quoted' first."# + "\nThen .hidden\n")
        XCTAssertEqual(ManPage.text(".hidden"), #"\&.hidden"# + "\n")
        XCTAssertEqual(ManPage.escape(#"a\b --key-env, sh -c, read-only, f()"#), #"a\eb \-\-key\-env, sh \-c, read-only, f\&()"#)
        XCTAssertTrue(ManPage.text(String(repeating: "word ", count: 60)).split(separator: "\n").allSatisfy { $0.utf8.count <= 80 })
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
