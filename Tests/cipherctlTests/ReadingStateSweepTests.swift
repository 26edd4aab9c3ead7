import Foundation
import TestSupport
import XCTest

/// Every reading command (and `rekey --dry-run`, which only looks) on every on-disk state a
/// database can be found in reads the last committed state and changes nothing: no file
/// appears, no byte or modification time changes. The oracle is the sqlcipher shell reading
/// a writable copy of the same files (it rolls a hot journal back and replays a -wal, as
/// any writer would).
///
/// Each state's contents (rows, transactions, page size, the damaged page) are drawn from a
/// printed seed: replay with CIPHERCTL_STATE_SEED, widen with CIPHERCTL_STATE_CASES.
final class ReadingStateSweepTests: CLITestCase {
    let key = "state key"
    private var keys: [String: String] { ["K": key, "K2": "state new key"] }
    /// The shell's key statements for the case at hand: SQLCipher 4's settings, or 3's (1 KiB
    /// pages, SHA-1), both found by cipherctl's format search.
    var keySQL = ""


    /// How a database is found on disk.
    enum DiskState: String, CaseIterable {
        case closedWAL, walWithoutShm, walWithStaleShm, walHeaderOnly, walDroppedCommits, walDroppedCommitsStaleShm, liveWALWriter, liveRollbackWriter,
             hotJournal, readOnlyFolder, damagedPage, truncated

        var isReadable: Bool { ![.damagedPage, .truncated].contains(self) && !dropsCommits }
        /// A -wal whose first frame is damaged before a last commit (no process holds a -shm).
        var dropsCommits: Bool { [.walDroppedCommits, .walDroppedCommitsStaleShm].contains(self) }
    }

    /// A state made on disk: the database's path, what keeps it live, and what the shell
    /// reads from a writable copy (nil when the state is damage).
    struct MadeState {
        let database: String
        var holder: (Process, Pipe)?
        var expected: [String: String]?
        var runAsNobody = false
    }

    func testEveryReadingCommandSeesTheLastCommittedStateOfEveryDiskStateAndWritesNothing() throws {
        var (generator, seed) = SeededGenerator.forSweep("disk state sweep", variable: "CIPHERCTL_STATE_SEED")
        let rounds = sweepCases("CIPHERCTL_STATE_CASES", quick: 1)
        var disagreements: [String] = []
        for round in 0..<rounds {
            for state in DiskState.allCases {
                let folder = path("\(round)-\(state.rawValue)")
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                var made = try make(state, in: folder, using: &generator)
                defer { release(&made) }
                disagreements += try readEach(made, state: state, folder: folder).map { "seed \(seed) round \(round) \(state): \($0)" }
            }
        }
        XCTAssertEqual(disagreements, [], "replay with CIPHERCTL_STATE_SEED=\(seed)")
    }

    // MARK: - The commands and their checks

    private func readEach(_ made: MadeState, state: DiskState, folder: String) throws -> [String] {
        let db = made.database
        var problems: [String] = []
        let tables = ["items", "odd \"name"]
        var commands: [(name: String, arguments: [String])] = [
            ("open", ["open", db, "--key-env", "K", "--counts", "--check", "--json"]),
            ("dump", ["dump", db, "--key-env", "K"]),
            ("audit", ["audit", db, "--key-env", "K", "--check", "--json"]),
            ("salt", ["salt", db, "--key-env", "K"]),
        ]
        for table in tables {
            commands.append(("query \(table)", ["query", db, "--key-env", "K", "--format", "value", Self.digestSQL(table)]))
        }
        commands.append(("recover", ["recover", db, try recoverDestination(), "--key-env", "K", "--to-key-env", "K", "--json"]))
        commands.append(("rekey --dry-run", ["rekey", db, "--key-env", "K", "--new-key-env", "K2", "--dry-run"]))
        if let expected = made.expected {
            commands.append(("diff", ["diff", db, try oracleCopy(of: folder, expected: expected), "--key-env", "K", "--other-key-env", "K"]))
        }
        for command in commands {
            let before = try folderListing(folder)
            let result = try read(command.arguments, asNobody: made.runAsNobody)
            let after = try folderListing(folder)
            if after != before { problems.append("\(command.name) changed the folder: \(Self.change(before, after))") }
            if result.signaled || result.stderr.contains("Fatal error") { problems.append("\(command.name) crashed: \(result.stderr)") }
            if let expected = made.expected {
                problems += check(command.name, result, expected: expected, state: state)
            } else if let problem = Self.damageProblem(command.name, result, state: state) {
                problems.append(problem)
            }
        }
        return problems
    }

    private func check(_ name: String, _ result: CommandResult, expected: [String: String], state: DiskState) -> [String] {
        let expectedCode = Self.expectedCode(name, state)
        guard result.code == expectedCode else { return ["\(name): exit \(result.code), expected \(expectedCode): \(result.stderr)"] }
        switch name {
        case "dump":
            guard let restored = try? restore(result.stdout) else { return ["dump: the shell could not restore it"] }
            return restored == expected ? [] : ["dump: the restore differs from the committed state"]
        case "open":
            guard let counts = (try? jsonObject(result.stdout))?["row_counts"] as? [String: Int] else { return ["open: no row counts"] }
            let wanted = expected.mapValues { Int($0.prefix { $0 != ":" }) ?? -1 }
            return counts == wanted ? [] : ["open: counts \(counts), expected \(wanted)"]
        case let query where query.hasPrefix("query "):
            let table = String(query.dropFirst("query ".count))
            return result.stdout.trimmingCharacters(in: .newlines) == expected[table] ? [] : ["\(query): rows differ from the committed state"]
        case "recover":
            guard let destination = (try? jsonObject(result.stdout))?["destination"] as? String,
                  let recovered = try? digests(of: destination, keySQL: "PRAGMA key = '\(key)';") else { return ["\(name): \(result.stdout)"] }
            return recovered == expected ? [] : ["\(name): the rows written differ from the committed state"]
        case "audit":
            let report = result.stdout.split(separator: "\n").first.flatMap { try? jsonObject(String($0)) }
            return report?["opened"] as? Bool == true && (report?["integrity_problems"] as? [Any])?.isEmpty == true
                ? [] : ["audit: \(result.stdout)"]
        default:
            return []
        }
    }

    /// 0 but where a state is a finding (audit: a hot journal) or stops the real run a dry
    /// run stands for: a live writer holds the file (busy, 6), the folder is read-only (5).
    private static func expectedCode(_ name: String, _ state: DiskState) -> Int32 {
        switch (name, state) {
        case ("audit", .hotJournal): return 8
        case ("rekey --dry-run", .liveWALWriter), ("rekey --dry-run", .liveRollbackWriter): return 6
        case ("rekey --dry-run", .readOnlyFolder): return 5
        default: return 0
        }
    }

    /// On a damaged or truncated file a command either reads what it needs whole (exit 0) or
    /// says the file is damaged in one error line, a hint aside (exit 4; audit: a finding, exit
    /// 8). Beside a -wal whose commits SQLite would drop, only `recover` and `salt` read whole.
    private static func damageProblem(_ name: String, _ result: CommandResult, state: DiskState) -> String? {
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("cipherctl: error: ") || $0.hasPrefix("{") }
        let named = ["damaged", "integrity", "HMAC", "missing", "malformed", "checksum"].contains { result.stderr.contains($0) }
        let readsWhole = !state.dropsCommits || ["recover", "salt"].contains(name)
        let allowed: Set<Int32> = name == "audit" ? [8] : readsWhole ? [0, 4] : [4]
        guard allowed.contains(result.code), result.code == 0 || (errors.count == 1 && named) else {
            return "\(name) on damage: exit \(result.code): \(result.stderr)"
        }
        // open --check names the damaged pages, --counts or not.
        if name == "open", result.code == 4, !result.stderr.contains("page") {
            return "open --counts --check on damage does not name the page: \(result.stderr)"
        }
        return nil
    }

    /// One string for a table's rows, in rowid order, the same from cipherctl and the shell.
    private static func digestSQL(_ table: String) -> String {
        let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        return "SELECT count(*) || ':' || coalesce(group_concat(r, ';'), '') FROM (SELECT quote(rowid) || ',' || "
            + (table == "items" ? "quote(name) || ',' || quote(price) || ',' || hex(payload)" : "quote(x)")
            + " AS r FROM \(quoted) ORDER BY rowid)"
    }

    /// What the shell reads from a writable copy of the folder.
    func committedState(_ folder: String, database: String) throws -> [String: String] {
        let copy = path("oracle-\(UUID().uuidString)")
        try copyFolder(folder, to: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        return try digests(of: copy + "/" + (database as NSString).lastPathComponent)
    }

    private func digests(of database: String, keySQL: String? = nil) throws -> [String: String] {
        var found: [String: String] = [:]
        for table in ["items", "odd \"name"] {
            let output = try sqlcipherOK(database, (keySQL ?? self.keySQL) + "\n" + Self.digestSQL(table) + ";")
            found[table] = output.split(separator: "\n").filter { $0 != "ok" }.joined(separator: "\n")
        }
        return found
    }

    private func restore(_ dump: String) throws -> [String: String] {
        let restored = path("restored-\(UUID().uuidString).db")
        defer { try? FileManager.default.removeItem(atPath: restored) }
        let result = try sqlcipher(restored, keySQL + "\n" + dump)
        guard result.code == 0 else { throw CocoaError(.fileReadCorruptFile) }
        return try digests(of: restored)
    }

    /// A path for recover's new database, in a folder any user may write (a look as
    /// `nobody` recovers too).
    private func recoverDestination() throws -> String {
        let folder = path("recovered")
        if !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder)
        }
        return folder + "/\(UUID().uuidString).db"
    }

    /// A plain database holding the committed state, for diff to compare against.
    private func oracleCopy(of folder: String, expected: [String: String]) throws -> String {
        let copy = path("diff-\(UUID().uuidString)")
        try copyFolder(folder, to: copy)
        let database = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: copy).first { $0.hasSuffix(".db") })
        // The shell's first write-capable open replays the WAL or rolls the journal back.
        try sqlcipherOK(copy + "/" + database, keySQL + " PRAGMA journal_mode = DELETE;")
        return copy + "/" + database
    }

    // MARK: - Files

    /// Runs cipherctl, as the unprivileged user `nobody` when asked (a read-only folder).
    private func read(_ arguments: [String], asNobody: Bool) throws -> CommandResult {
        asNobody ? try cipherctlAsNobody(arguments, environment: keys) : try cipherctl(arguments, environment: keys)
    }

    private static func change(_ before: [String: String], _ after: [String: String]) -> String {
        let names = Set(before.keys).union(after.keys).sorted().filter { before[$0] != after[$0] }
        return names.map { "\($0): \(before[$0] ?? "absent") -> \(after[$0] ?? "absent")" }.joined(separator: ", ")
    }
}
