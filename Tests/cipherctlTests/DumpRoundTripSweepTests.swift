import Foundation
import TestSupport
import XCTest

/// Dump then restore is the identity, and `diff` agrees with an independent digest, over
/// generated databases (`GeneratedDatabase`): each source is built by the sqlcipher shell,
/// dumped by cipherctl, restored by the shell into a new encrypted database and by `cipherctl
/// query --write` into one made by `open --create`, and the shell's digest of the source must
/// equal the digest of each restore. `diff` must call each restore identical, and its verdict
/// on a copy with one value changed must be the digests' verdict. The seed is printed
/// (`CIPHERCTL_DUMP_ROUNDTRIP_SEED` replays it); `CIPHERCTL_DUMP_ROUNDTRIP_CASES` widens the sweep.
///
/// The digest is the shell's `sha3_query` over every table (shadow and statistics tables
/// aside) with its rowid when an alias can name it, else over its rows in one canonical order;
/// the schema; the header fields; an FTS query; the integrity check. `.sha3sum` would not do:
/// it hashes `SELECT *` without the rowid, hashes FTS shadow tables (which a rebuilt index lays
/// out otherwise) and skips virtual tables.
final class DumpRoundTripSweepTests: CLITestCase {
    private let keys = ["K": String(repeating: "a1", count: 32), "K2": String(repeating: "5e", count: 32)]

    func testDumpThenRestoreIsTheIdentityAndDiffAgreesWithTheShellsDigestOnGeneratedDatabases() throws {
        let (generator, seed) = SeededGenerator.forSweep("dump round-trip sweep", variable: "CIPHERCTL_DUMP_ROUNDTRIP_SEED")
        var random = generator
        let cases = sweepCases("CIPHERCTL_DUMP_ROUNDTRIP_CASES", quick: 16)
        var failures: [String] = [], tally = Tally()
        for number in 0..<cases {
            let database = GeneratedDatabase(using: &random)
            let mutation = database.mutation(using: &random)
            let problems = try roundTrip(database, mutation: mutation, folder: "case\(number)", tally: &tally)
            failures += problems.map { "case \(number): \($0)" }
        }
        print("dump round-trip sweep: seed \(seed), \(cases) databases, \(tally.restores) restores, \(tally.pairs) diff pairs "
              + "(\(tally.changed) changed copies that differ), \(failures.count) disagreements (CIPHERCTL_DUMP_ROUNDTRIP_SEED=\(seed) replays it)")
        XCTAssertEqual(failures, [], "seed \(seed)")
    }

    private struct Tally {
        var restores = 0, pairs = 0, changed = 0
    }

    /// One database through the round trip; what went wrong, if anything.
    private func roundTrip(_ database: GeneratedDatabase, mutation: String, folder: String, tally: inout Tally) throws -> [String] {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        let file = { (name: String) in self.path(folder + "/" + name) }
        let source = file("source.db")
        let sourceKey = keySQL("K", pageSize: database.pageSize)
        let built = try sqlcipher(source, sourceKey + database.sql)
        guard built.code == 0 else { return ["the generated SQL fails in the shell: \(built.stderr)\n\(database.sql)"] }
        let pageOptions = database.pageSize.map { ["--page-size", String($0)] } ?? []
        let dump = try cipherctl(["dump", source, "--raw-key", "--key-env", "K"] + pageOptions, environment: keys)
        guard dump.code == 0 else { return ["dump failed: \(dump.stderr)"] }
        var problems = leaks(dump, "dump")
        let sql = file("dump.sql")
        try Data(dump.stdout.utf8).write(to: URL(fileURLWithPath: sql))

        let tables = try self.tables(of: source, keySQL: sourceKey)
        let original = try digest(source, keySQL: sourceKey, tables: tables)
        let byShell = file("shell.db"), byQuery = file("query.db")
        let shell = try run("/usr/bin/env", ["sqlcipher", "-batch", "-bail", byShell], stdin: keySQL("K2") + dump.stdout, environment: [:])
        let created = try cipherctl(["open", byQuery, "--create", "--raw-key", "--key-env", "K2", "--quiet"], environment: keys)
        let load = try cipherctl(["query", byQuery, "--write", "--file", sql, "--raw-key", "--key-env", "K2"], environment: keys)
        problems += leaks(created, "open --create") + leaks(load, "query --write")
        for (name, restored, result) in [("the shell", byShell, shell), ("query --write", byQuery, load)] {
            tally.restores += 1
            guard result.code == 0 else {
                problems.append("the restore by \(name) failed: \(result.stderr)")
                continue
            }
            var copy = try digest(restored, keySQL: keySQL("K2"), tables: tables)
            // A file made by open --create has its auto_vacuum fixed before the dump runs.
            if restored == byQuery { copy["auto_vacuum"] = original["auto_vacuum"] }
            let differing = Set(original.keys).union(copy.keys).filter { original[$0] != copy[$0] }.sorted()
            if !differing.isEmpty { problems.append("the restore by \(name) differs in \(differing)") }
            problems += try agreement(source, restored, pageOptions: pageOptions, other: ["--other-raw-key", "--other-key-env", "K2"],
                                      digests: (original, copy), pairs: &tally.pairs, name: "the restore by \(name)")
        }

        let changed = file("changed.db")
        try FileManager.default.copyItem(atPath: source, toPath: changed)
        let applied = try sqlcipher(changed, sourceKey + mutation + ";\n")
        guard applied.code == 0 else { return problems + ["the change fails in the shell: \(applied.stderr)\n\(mutation)"] }
        let otherPage = database.pageSize.map { ["--other-page-size", String($0)] } ?? []
        let after = try digest(changed, keySQL: sourceKey, tables: tables)
        if after != original { tally.changed += 1 }
        problems += try agreement(source, changed, pageOptions: pageOptions, other: ["--other-raw-key", "--other-key-env", "K"] + otherPage,
                                  digests: (original, after), pairs: &tally.pairs, name: "the changed copy (\(mutation))")
        return problems
    }

    /// `diff`'s verdict on two databases against their digests' (content only: the header
    /// fields are not diff's business).
    private func agreement(
        _ first: String, _ second: String, pageOptions: [String], other: [String], digests: ([String: String], [String: String]),
        pairs: inout Int, name: String
    ) throws -> [String] {
        pairs += 1
        let result = try cipherctl(["diff", first, second, "--raw-key", "--key-env", "K", "--json"] + pageOptions + other, environment: keys)
        guard result.code == 0 || result.code == 8 else { return ["diff with \(name) failed (\(result.code)): \(result.stderr)"] }
        let content = { (digest: [String: String]) in digest.filter { $0.key == "schema" || $0.key.hasPrefix("content ") } }
        let same = content(digests.0) == content(digests.1)
        let identical = try jsonObject(result.stdout)["identical"] as? Bool
        var problems = leaks(result, "diff")
        if identical != (result.code == 0) { problems.append("diff with \(name): exit \(result.code) but identical \(String(describing: identical))") }
        if (result.code == 0) != same {
            problems.append("diff with \(name) says \(result.code == 0 ? "identical" : "different"), the digests \(same ? "agree" : "differ"): \(result.stdout)")
        }
        return problems
    }

    private func leaks(_ result: CommandResult, _ command: String) -> [String] {
        keys.values.contains { result.allOutput.contains($0) } ? ["\(command) printed key material"] : []
    }

    private func keySQL(_ variable: String, pageSize: Int? = nil) -> String {
        "PRAGMA key = \"x'\(keys[variable]!)'\";\n" + (pageSize.map { "PRAGMA cipher_page_size = \($0);\n" } ?? "")
    }

    // MARK: - The digest

    private struct TableShape {
        let name: String
        let virtual: Bool
        let withoutRowid: Bool
        var columns: [(name: String, hidden: Int, primaryKey: Int)] = []
    }

    /// The source's tables, but shadow and statistics tables, with all their columns; names
    /// travel in hex, so that none can break the shell's output.
    private func tables(of database: String, keySQL: String) throws -> [TableShape] {
        let output = try sqlcipherOK(database, keySQL + """
            .mode list
            SELECT hex(t.name), t.type, t.wr, hex(c.name), c.hidden, c.pk
            FROM pragma_table_list AS t, pragma_table_xinfo(t.name) AS c
            WHERE t.schema = 'main' AND t.type IN ('table', 'virtual') AND t.name NOT IN ('sqlite_schema', 'sqlite_temp_schema')
              AND t.name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\'
            ORDER BY t.name, c.cid;
            """)
        var shapes: [TableShape] = []
        for line in output.split(separator: "\n") where line.contains("|") {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let name = Self.unhex(fields[0])
            if shapes.last?.name != name { shapes.append(TableShape(name: name, virtual: fields[1] == "virtual", withoutRowid: fields[2] == "1")) }
            shapes[shapes.count - 1].columns.append((Self.unhex(fields[3]), Int(fields[4]) ?? 0, Int(fields[5]) ?? 0))
        }
        return shapes
    }

    /// Labelled parts of the digest: `schema`, `full N` (rows with rowids) and `content N`
    /// (rows as diff compares them: without the rowid where a primary key matches them) for
    /// each table, `fts N`, the header fields and the integrity check.
    private func digest(_ database: String, keySQL: String, tables: [TableShape]) throws -> [String: String] {
        var script = keySQL + ".mode list\n"
        script += "SELECT 'schema', hex(sha3_query(\(Self.literal("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\' ORDER BY name, type"))));\n"
        for (index, table) in tables.enumerated() {
            let (full, content) = Self.queries(table)
            script += "SELECT 'full \(index)', hex(sha3_query(\(Self.literal(full))));\n"
            script += "SELECT 'content \(index)', hex(sha3_query(\(Self.literal(content))));\n"
            if table.virtual {
                let name = GeneratedDatabase.quote(table.name)
                script += "SELECT 'fts \(index)', (SELECT group_concat(rowid) FROM (SELECT rowid FROM \(name) WHERE \(name) MATCH 'alpha OR beta' ORDER BY rowid));\n"
            }
        }
        script += """
            SELECT 'user_version', user_version FROM pragma_user_version;
            SELECT 'application_id', application_id FROM pragma_application_id;
            SELECT 'auto_vacuum', auto_vacuum FROM pragma_auto_vacuum;
            SELECT 'encoding', encoding FROM pragma_encoding;
            SELECT 'integrity', group_concat(integrity_check) FROM pragma_integrity_check;
            """
        let result = try sqlcipher(database, script)
        guard result.code == 0 else { return ["error": result.stderr] }
        var parts: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let bar = line.firstIndex(of: "|") else { continue }
            parts[String(line[..<bar])] = String(line[line.index(after: bar)...])
        }
        return parts
    }

    /// The table's rows with its rowid (when an alias no column takes can name it), and its
    /// rows as diff compares them; rows no key orders are put in one order by their values.
    private static func queries(_ table: TableShape) -> (full: String, content: String) {
        let name = GeneratedDatabase.quote(table.name)
        let visible = table.columns.filter { $0.hidden != 1 }.map { GeneratedDatabase.quote($0.name) }
        let canonical = "SELECT * FROM \(name) ORDER BY " + visible.map {
            "\($0) COLLATE BINARY, typeof(\($0)), CASE typeof(\($0)) WHEN 'real' THEN ieee754_to_blob(\($0)) END"
        }.joined(separator: ", ")
        let alias = table.withoutRowid ? nil : ["rowid", "oid", "_rowid_"].first { alias in
            !table.columns.contains { GeneratedDatabase.fold($0.name) == alias }
        }
        guard let alias else { return (canonical, canonical) }
        let full = "SELECT \(alias), * FROM \(name) ORDER BY \(alias)"
        return (full, table.columns.contains { $0.primaryKey > 0 } ? canonical : full)
    }

    private static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    private static func unhex(_ hex: String) -> String {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
