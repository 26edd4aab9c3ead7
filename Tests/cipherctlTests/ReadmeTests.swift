import Foundation
import XCTest

/// Every command the README and the guides in docs/ show is run, so they cannot rot: each
/// `sh` block runs as a bash script (`set -euo pipefail`) in a fresh folder holding the
/// databases its text describes; each `console` block runs as a session whose output must
/// be what the page shows; the `cipherctl` lines of the CI recipes (`yaml` blocks) run with
/// their secrets set. `shell` blocks name the project's scripts, which CI and the other tests
/// run; the `ansible` block is AnsibleRecipeTests'. docs/development.md says which to use.
final class ReadmeTests: CLITestCase {
    private struct Block {
        let info: String
        let text: String
        /// `FILE line N`, for messages.
        let place: String
    }

    private let keys = [
        "K": "readme key one", "K2": "readme key two", "OLD_DB_KEY": "readme key one", "NEW_DB_KEY": "readme key three",
    ]

    /// README.md, then every page of docs/, by name.
    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("docs").path)
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    private func blocks() throws -> [Block] {
        var result: [Block] = []
        for document in try Self.documents() {
            let text = try String(contentsOf: Self.packageRoot.appendingPathComponent(document), encoding: .utf8)
            var current: (info: String, lines: [String], line: Int)?
            for (number, line) in text.components(separatedBy: "\n").enumerated() {
                if line.hasPrefix("```") {
                    if let open = current {
                        result.append(Block(info: open.info, text: open.lines.joined(separator: "\n"), place: "\(document) line \(open.line)"))
                        current = nil
                    } else {
                        current = (String(line.dropFirst(3)), [], number + 1)
                    }
                } else if current != nil {
                    current?.lines.append(line)
                }
            }
        }
        return result
    }

    /// The README is a few screens that point to the man page and the guides; the set-up
    /// stays two commands.
    func testReadmeIsShortAndKeepsTheTwoSetUpCommands() throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        XCTAssertLessThanOrEqual(readme.components(separatedBy: "\n").count, 300)
        let setUp = try blocks().filter { $0.place.hasPrefix("README.md ") && $0.info == "shell" }.map(\.text).joined(separator: "\n")
        XCTAssertTrue(setUp.contains("Scripts/demo") && setUp.contains("Scripts/test"), setUp)
    }

    /// A folder with what the README's examples work on: `app.db` (a `customers` table, key
    /// `$K`), `v3.db` (SQLCipher 3, key `$K`), `migrate.sql`, and for the CI recipes
    /// `data/*.db` and `databases.txt` (key `$OLD_DB_KEY`); `cipherctl` is on the PATH.
    private func makeFixture(_ name: String) throws -> URL {
        let folder = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("data"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("bin/cipherctl").path, withDestinationPath: Self.binary)
        let customers = """
            CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT NOT NULL, balance REAL);
            CREATE INDEX customers_name ON customers(name);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
            INSERT INTO customers(name, balance) SELECT 'customer ' || i, i * 1.25 FROM n;
            PRAGMA user_version = 3;
            """
        try sqlcipherOK(folder.appendingPathComponent("app.db").path, "PRAGMA key = 'readme key one';\n" + customers)
        try sqlcipherOK(folder.appendingPathComponent("v3.db").path, "PRAGMA key = 'readme key one'; PRAGMA cipher_compatibility = 3;\n" + customers)
        for name in ["data/a.db", "data/b.db"] {
            try sqlcipherOK(folder.appendingPathComponent(name).path, "PRAGMA key = 'readme key one'; CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        }
        try "data/a.db\ndata/b.db\n".write(to: folder.appendingPathComponent("databases.txt"), atomically: true, encoding: .utf8)
        try "ALTER TABLE customers ADD COLUMN email TEXT;\nUPDATE customers SET email = 'c' || id || '@example.com';\n"
            .write(to: folder.appendingPathComponent("migrate.sql"), atomically: true, encoding: .utf8)
        return folder
    }

    @discardableResult
    private func runScript(_ script: String, in folder: URL, label: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try run("/bin/bash", ["-c", "set -euo pipefail\ncd \"$FOLDER\"\nexport PATH=\"$FOLDER/bin:$PATH\"\n" + script], stdin: nil,
                             environment: keys.merging(["FOLDER": folder.path]) { $1 })
        XCTAssertEqual(result.code, 0, "\(label) failed:\n\(script)\n--- stdout\n\(result.stdout)\n--- stderr\n\(result.stderr)", file: file, line: line)
        XCTAssertFalse(result.signaled, label, file: file, line: line)
        return result.stdout
    }

    func testEveryShellBlockRuns() throws {
        let shellBlocks = try blocks().filter { $0.info == "sh" }
        XCTAssertGreaterThan(shellBlocks.count, 5)
        for (index, block) in shellBlocks.enumerated() {
            try runScript(block.text, in: try makeFixture("sh\(index)"), label: block.place)
        }
    }

    /// Each `console` block is a session: its `$ ` commands run in order in one folder, and
    /// what each prints (standard error and output together) must be the lines that follow
    /// it in the README, apart from timings and salts, which change from run to run.
    func testEveryConsoleBlockPrintsWhatTheReadmeShows() throws {
        let sessions = try blocks().filter { $0.info == "console" }
        XCTAssertGreaterThan(sessions.count, 5)
        for (index, block) in sessions.enumerated() {
            var steps: [(command: String, expected: [String])] = []
            for line in block.text.components(separatedBy: "\n") {
                if line.hasPrefix("$ ") {
                    steps.append((String(line.dropFirst(2)), []))
                } else {
                    XCTAssertFalse(steps.isEmpty, "\(block.place): a console block starts with a $ command")
                    if !steps.isEmpty { steps[steps.count - 1].expected.append(line) }
                }
            }
            let folder = try makeFixture("console\(index)")
            for step in steps {
                let output = try runScript(step.command + " 2>&1", in: folder, label: block.place)
                XCTAssertEqual(Self.normalized(output), Self.normalized(step.expected.joined(separator: "\n")),
                               "\(block.place): \(step.command)")
            }
        }
    }

    /// Output with what differs between runs replaced: durations and 32-digit salts.
    static func normalized(_ text: String) -> String {
        text.trimmingCharacters(in: .newlines)
            .replacingOccurrences(of: "[0-9]+\\.[0-9]+ s\\b", with: "N.NN s", options: .regularExpression)
            .replacingOccurrences(of: "\\b[0-9a-f]{32}\\b", with: "SALT", options: .regularExpression)
    }

    func testCIRecipesRun() throws {
        let recipes = try blocks().filter { $0.info == "yaml" }
        XCTAssertEqual(recipes.count, 2)
        for (index, recipe) in recipes.enumerated() {
            let commands = recipe.text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .map { $0.hasPrefix("- ") ? String($0.dropFirst(2)) : $0 }
                .filter { $0.hasPrefix("cipherctl ") }
            XCTAssertFalse(commands.isEmpty, recipe.place)
            let folder = try makeFixture("ci\(index)")
            try runScript(commands.joined(separator: "\n"), in: folder, label: recipe.place)
        }
    }

    func testScriptBlocksNameOnlyTheProjectsScripts() throws {
        for block in try blocks() where block.info == "shell" {
            for line in block.text.components(separatedBy: "\n") where !line.isEmpty {
                let script = String(line.split(separator: " ").first ?? "")
                XCTAssertTrue(script.hasPrefix("Scripts/"), "\(block.place): \(line)")
                XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.packageRoot.appendingPathComponent(script).path), script)
            }
        }
        let unknown = try blocks().filter { !["sh", "shell", "console", "yaml", "ansible"].contains($0.info) }
        XCTAssertEqual(unknown.map(\.place), [], "every block says what it is: sh (run), console (output), yaml (CI), shell (project scripts), ansible (the playbook)")
    }
}
