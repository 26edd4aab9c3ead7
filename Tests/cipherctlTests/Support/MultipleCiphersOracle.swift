import Foundation
import XCTest

/// A file of SQLite3 Multiple Ciphers' (`cipher` as its `PRAGMA cipher` names it): its legacy
/// mode, page size, KDF count and other pragmas, key (a passphrase, or raw hex digits), and
/// the rows it is made with.
struct MultipleCiphersScheme: Codable {
    var legacy = 0
    var pageSize = 4096
    var kdfIter: Int?
    var key = "family conversion key"
    var raw = false
    var rows = 3
    var seed: UInt64 = 1
    var cipher = "chacha20"
    /// More of the cipher's pragmas, run before the key (`hmac_algorithm = 1`).
    var pragmas: [String] = []
    /// For `grow`: where the file and its -wal are copied while these commits are in it.
    var walCopy: String?
    var walCommits = 1
}

/// SQLite3 Multiple Ciphers itself, through the pinned apsw-sqlite3mc wheel in .build-interop:
/// the oracle that writes the other families' files and reads them back.
extension CLITestCase {
    static let multipleCiphersPython = CLITestCase.packageRoot.appendingPathComponent(".build-interop/bin/python").path

    /// `make PATH SCHEME` writes a file; `grow PATH SCHEME` makes it a WAL database and copies
    /// it to `walCopy` with its -wal holding `walCommits` commits; `read PATH SCHEME` prints its user_version and rows,
    /// a line each, as the sqlcipher shell prints them (`multipleCiphersRowsSQL`).
    private static let multipleCiphersProgram = """
        import sys, json, apsw, random, shutil
        action, path, s = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
        c = apsw.Connection(path)
        def run(sql, *args): return list(c.execute(sql, *args))
        run(f"PRAGMA cipher = '{s['cipher']}'")
        if s["legacy"]: run("PRAGMA legacy = 1"); run(f"PRAGMA legacy_page_size = {s['pageSize']}")
        if s.get("kdfIter"): run(f"PRAGMA kdf_iter = {s['kdfIter']}")
        for pragma in s.get("pragmas", []): run(f"PRAGMA {pragma}")
        quoted = s["key"].replace("'", "''")
        run(f"PRAGMA key = \\"x'{s['key']}'\\"" if s["raw"] else f"PRAGMA key = '{quoted}'")
        rng = random.Random(s["seed"] + (action == "grow"))
        values = lambda: rng.choice([None, rng.randrange(-2**62, 2**62), rng.random() < 0.5 and 0.5 or 1.25,
            "text " * rng.randrange(0, 300), bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 3 * s["pageSize"])))])
        if action == "make":
            run(f"PRAGMA page_size = {s['pageSize']}")
            run("PRAGMA user_version = 7")
            if s["rows"] >= 0:
                run("CREATE TABLE t(id INTEGER PRIMARY KEY, a, b)")
                with c:
                    for i in range(s["rows"]): run("INSERT INTO t(a, b) VALUES (?, ?)", (values(), values()))
                run("CREATE INDEX t_a ON t(a)")
        elif action == "grow":
            # Commits that stay in the -wal: the file and its -wal are copied before the close checkpoints them.
            run("PRAGMA journal_mode = WAL"); c.wal_autocheckpoint(0)
            run("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, a, b)")
            for commit in range(s["walCommits"]):
                with c:
                    for i in range(rng.randrange(1, 30)): run("INSERT INTO t(a, b) VALUES (?, ?)", (values(), values()))
                    run("DELETE FROM t WHERE id % 7 = ?", (commit,))
            shutil.copyfile(path, s["walCopy"]); shutil.copyfile(path + "-wal", s["walCopy"] + "-wal")
        else:
            print(run("PRAGMA user_version")[0][0])
            if run("SELECT count(*) FROM sqlite_master WHERE name = 't'")[0][0]:
                for row in run("SELECT id, typeof(a), hex(a), typeof(b), hex(b) FROM t ORDER BY id"): print("|".join(map(str, row)))
            print(run("PRAGMA integrity_check")[0][0])
        c.close()
        """
    /// The sqlcipher shell's statements that print what `read` prints.
    static let multipleCiphersRowsSQL = "PRAGMA user_version; SELECT id, typeof(a), hex(a), typeof(b), hex(b) FROM t ORDER BY id; PRAGMA integrity_check;"
    static let multipleCiphersNoTableSQL = "PRAGMA user_version; PRAGMA integrity_check;"

    func multipleCiphers(_ action: String, _ database: String, _ scheme: MultipleCiphersScheme) throws -> CommandResult {
        let json = String(decoding: try JSONEncoder().encode(scheme), as: UTF8.self)
        return try run(Self.multipleCiphersPython, ["-c", Self.multipleCiphersProgram, action, database, json], stdin: nil, environment: [:])
    }

    func requireMultipleCiphersOracle() throws {
        try requireTestTool(FileManager.default.isExecutableFile(atPath: Self.multipleCiphersPython), "run Scripts/bootstrap --test-tools (apsw-sqlite3mc)")
    }

    /// The rows SQLite3 Multiple Ciphers reads from `database`, failing the test when it cannot.
    func rowsByMultipleCiphers(_ database: String, _ scheme: MultipleCiphersScheme, _ context: String) throws -> String {
        let read = try multipleCiphers("read", database, scheme)
        XCTAssertEqual(read.code, 0, "\(context): SQLite3 Multiple Ciphers cannot read \(database): \(read.stderr)")
        return read.stdout
    }

    /// What the sqlcipher shell reads from a SQLCipher copy, in the oracle's lines (the shell
    /// answers the key pragma with a line of its own, dropped).
    func rowsByShell(_ database: String, key: String, table: Bool) throws -> String {
        let out = try sqlcipherOK(database, "PRAGMA key = '\(key)';" + (table ? Self.multipleCiphersRowsSQL : Self.multipleCiphersNoTableSQL))
        return out.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(separator: "\n")
    }
}
