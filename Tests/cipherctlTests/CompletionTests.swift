@testable import cipherctl
import Foundation
import XCTest

/// The completion scripts load in their shells and complete from the command catalog.
final class CompletionTests: CLITestCase {
    private func script(_ shell: String) throws -> String {
        let result = try cipherctl(["completion", shell])
        XCTAssertEqual(result.code, 0, result.stderr)
        return result.stdout
    }

    /// What bash completes for the words of a command line (the last one being completed).
    private func bashCompletions(_ words: [String], environment: [String: String] = [:]) throws -> [String] {
        let file = try writeFile("cipherctl.bash", try script("bash"))
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let result = try run("/bin/bash", ["-c", """
            cd "$DIR"
            source "$COMPLETION"
            COMP_WORDS=(\(quoted))
            COMP_CWORD=\(words.count - 1)
            _cipherctl
            printf '%s\\n' "${COMPREPLY[@]}"
            """], stdin: nil, environment: environment.merging(["COMPLETION": file, "DIR": directory.path]) { $1 })
        XCTAssertEqual(result.code, 0, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    func testBashCompletesCommandsOptionsValuesAndFiles() throws {
        XCTAssertEqual(try bashCompletions(["cipherctl", "pl"]), ["plaintext-header"])
        XCTAssertEqual(Set(try bashCompletions(["cipherctl", ""])).isSuperset(of: CommandCatalog.commands.map(\.name)), true)
        XCTAssertEqual(try bashCompletions(["cipherctl", "query", "db", "--for"]), ["--format"])
        XCTAssertEqual(try bashCompletions(["cipherctl", "query", "db", "--format", "js"]), ["json", "jsonl"])
        XCTAssertEqual(try bashCompletions(["cipherctl", "open", "db", "--compat", ""]), ["1", "2", "3", "4", "auto"])
        XCTAssertEqual(try bashCompletions(["cipherctl", "rekey", "db", "--new-key-env", "CIPHERCTL_TEST_"], environment: ["CIPHERCTL_TEST_SECRET": "x"]),
                       ["CIPHERCTL_TEST_SECRET"])
        _ = try writeFile("app.db", "")
        XCTAssertEqual(try bashCompletions(["cipherctl", "open", "ap"]), ["app.db"])
        XCTAssertEqual(try bashCompletions(["cipherctl", "export", "app.db", "x.db", "--to-key-file", "ap"]), ["app.db"])
        XCTAssertEqual(try bashCompletions(["cipherctl", "completion", "f"]), ["fish"])
        XCTAssertEqual(try bashCompletions(["cipherctl", "help", "sa"]), ["salt"])
    }

    func testFishCompletesFromTheCatalog() throws {
        let file = try writeFile("cipherctl.fish", try script("fish"))
        let bin = directory.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent("cipherctl").path, withDestinationPath: Self.binary)
        let result = try run("/usr/bin/env", ["fish", "--no-config", "-c", """
            set PATH $BIN $PATH
            source $COMPLETION
            complete -C 'cipherctl pla'
            complete -C 'cipherctl query x --blob '
            complete -C 'cipherctl salt x --out'
            """], stdin: nil, environment: ["COMPLETION": file, "BIN": bin.path])
        XCTAssertEqual(result.code, 0, result.stderr)
        let names = result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        XCTAssertEqual(names, ["plaintext-header", "base64", "hex", "raw", "--output"])
    }

    func testZshScriptParsesAndDescribesEveryCommand() throws {
        let text = try script("zsh")
        let file = try writeFile("_cipherctl", text)
        let parsed = try run("/usr/bin/env", ["zsh", "-n", file], stdin: nil, environment: [:])
        XCTAssertEqual(parsed.code, 0, parsed.stderr)
        XCTAssertTrue(text.hasPrefix("#compdef cipherctl\n"))
        for command in CommandCatalog.commands {
            XCTAssertTrue(text.contains("_cipherctl_\(command.name.replacingOccurrences(of: "-", with: "_"))()"), command.name)
        }
    }

    func testEveryScriptNamesEveryOptionOfEveryCommand() throws {
        for shell in CompletionScript.shells {
            let text = try script(shell)
            for command in CommandCatalog.commands {
                for option in command.options where !option.hidden {
                    let spelled = shell == "fish" ? "-l \(option.name.dropFirst(2))" : option.name
                    XCTAssertTrue(text.contains(spelled), "\(shell): \(command.name) \(option.name)")
                }
            }
        }
    }

    func testUnknownShellIsAUsageError() throws {
        let result = try cipherctl(["completion", "tcsh"])
        XCTAssertEqual(result.code, 2)
        XCTAssertTrue(result.stderr.contains("no completion for 'tcsh'; the shells are bash, zsh, fish"), result.stderr)
    }
}
