import Foundation
import XCTest

/// The fleet recipe of docs/ansible.md (its `ansible` block names `contrib/ansible/rotate.yml`),
/// run by ansible-core (pinned, from PyPI, in `.build-interop`) against localhost with
/// `connection: local`: it rotates, a rerun changes nothing, and a wrong key fails the host
/// with every database left as it was.
final class AnsibleRecipeTests: CLITestCase {
    private let playbook = CLITestCase.packageRoot.appendingPathComponent(".build-interop/bin/ansible-playbook").path
    private let guide = CLITestCase.packageRoot.appendingPathComponent("docs/ansible.md")

    /// The guide's `ansible-playbook` line, without its inventory: the test brings its own.
    private func guideArguments() throws -> [String] {
        let text = try String(contentsOf: guide, encoding: .utf8)
        let block = try XCTUnwrap(text.components(separatedBy: "```ansible\n").dropFirst().first?.components(separatedBy: "\n```").first,
                                  "docs/ansible.md has no ansible block")
        var words = block.split(separator: " ").map(String.init)
        XCTAssertEqual(words.first, "ansible-playbook", "docs/ansible.md: \(block)")
        words.removeFirst()
        if let inventory = words.firstIndex(of: "-i") { words.removeSubrange(inventory...inventory + 1) }
        return words.map { $0.hasSuffix(".yml") ? CLITestCase.packageRoot.appendingPathComponent($0).path : $0 }
    }

    /// The guide's table names every variable the playbook reads, and no other.
    func testTheGuideNamesEveryVariableOfThePlaybook() throws {
        let recipe = try XCTUnwrap(try guideArguments().last)
        let pattern = try NSRegularExpression(pattern: #"\bcipherctl(_[a-z_]+)?\b(?= *[|}:])"#)
        let playbook = try String(contentsOfFile: recipe, encoding: .utf8)
        let used = Set(pattern.matches(in: playbook, range: NSRange(playbook.startIndex..., in: playbook)).compactMap { Range($0.range, in: playbook).map { String(playbook[$0]) } })
        let text = try String(contentsOf: guide, encoding: .utf8)
        let documented = Set(text.components(separatedBy: "\n").filter { $0.hasPrefix("| `") }.compactMap { $0.split(separator: "`").dropFirst().first.map(String.init) })
        XCTAssertEqual(documented, used)
    }

    /// Runs the play with these variables; returns its result and its recap line.
    private func play(_ variables: [String: Any]) throws -> (result: CommandResult, recap: String) {
        let file = path("vars.json")
        try JSONSerialization.data(withJSONObject: variables).write(to: URL(fileURLWithPath: file))
        let inventory = try writeFile("inventory.ini", "localhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n")
        let result = try run(playbook, ["-i", inventory, "-e", "@" + file, "-e", "cipherctl_hosts=all"] + (try guideArguments()), stdin: nil,
                             environment: ["ANSIBLE_NOCOLOR": "1", "ANSIBLE_LOCAL_TEMP": path("ansible-tmp"), "ANSIBLE_REMOTE_TEMP": path("ansible-tmp")])
        let recap = result.stdout.split(separator: "\n").last { $0.hasPrefix("localhost") }.map(String.init) ?? ""
        return (result, recap)
    }

    func testThePlaybookRotatesReRunsAsNoChangeAndFailsTheHostOnAWrongKey() throws {
        try requireTestTool(
            FileManager.default.isExecutableFile(atPath: playbook), "ansible-core is not installed (Scripts/bootstrap --test-tools puts it in .build-interop)")
        let databases = try (1...3).map { try makeShellDatabase("db\($0).db", key: "fleet old key", rows: 25) }
        let old = try writeFile("old.key", "fleet old key\n"), new = try writeFile("new.key", "fleet new key\n")
        var variables: [String: Any] = [
            "cipherctl": Self.binary, "cipherctl_databases": databases,
            "cipherctl_old_key_cmd": "cat '\(old)'", "cipherctl_new_key_cmd": "cat '\(new)'",
        ]
        let first = try play(variables)
        XCTAssertEqual(first.result.code, 0, first.result.stdout + first.result.stderr)
        XCTAssertTrue(first.recap.contains("changed=1") && first.recap.contains("failed=0"), first.recap)
        for db in databases {
            XCTAssertEqual(try sqlcipherOK(db, "PRAGMA key = 'fleet new key'; SELECT count(*) FROM items;"), "ok\n25\n", db)
        }
        XCTAssertFalse(first.result.stdout.contains("fleet new key") || first.result.stdout.contains("fleet old key"), "a key in the play's output")

        let again = try play(variables)
        XCTAssertEqual(again.result.code, 0, again.result.stdout)
        XCTAssertTrue(again.recap.contains("changed=0") && again.recap.contains("failed=0"), again.recap)

        let before = try databases.map { try fingerprint($0).0 }
        variables["cipherctl_old_key_cmd"] = "printf 'not the key\\n'"
        variables["cipherctl_new_key_cmd"] = "printf 'yet another key\\n'"
        let wrong = try play(variables)
        XCTAssertNotEqual(wrong.result.code, 0)
        XCTAssertTrue(wrong.recap.contains("failed=1"), wrong.recap)
        XCTAssertEqual(try databases.map { try fingerprint($0).0 }, before, "a failed rotation changed a database")
    }
}
