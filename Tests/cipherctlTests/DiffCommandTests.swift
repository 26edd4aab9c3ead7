import Foundation
import TestSupport
import XCTest

/// `cipherctl diff`: a seeded sweep of changes between two copies under different keys and
/// formats is reported exactly (counts, rows, schema), and identical databases exit 0.
final class DiffCommandTests: CLITestCase {
    private let keys = ["K": "diff key", "K2": "other diff key"]

    func testEveryChangeOfASeededSweepIsCountedAndListedExactly() throws {
        let (generator, seed) = SeededGenerator.forSweep("diff sweep", variable: "CIPHERCTL_DIFF_SEED")
        var random = generator
        let first = try makeShellDatabase("first.db", key: "diff key", rows: 300)
        let second = path("second.db")
        // The second: the same content under another key and the SQLCipher 3 format.
        XCTAssertEqual(try cipherctl(["export", first, second, "--key-env", "K", "--to-key-env", "K2", "--to-compat", "3"], environment: keys).code, 0)
        let same = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K2"], environment: keys)
        XCTAssertEqual(same.code, 0, same.stdout + same.stderr)
        XCTAssertTrue(same.stdout.contains("the databases are the same"), same.stdout)

        var removed = Set<Int>(), changed = Set<Int>(), added = 0
        var statements: [String] = []
        for _ in 0..<Int.random(in: 5...max(5, sweepCases("CIPHERCTL_DIFF_CASES", quick: 40)), using: &random) {
            let id = Int.random(in: 1...300, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0 where !removed.contains(id):
                removed.insert(id)
                changed.remove(id)
                statements.append("DELETE FROM items WHERE id = \(id);")
            case 1 where !removed.contains(id):
                changed.insert(id)
                statements.append("UPDATE items SET price = price + 1000, payload = x'00' WHERE id = \(id);")
            default:
                added += 1
                statements.append("INSERT INTO items(id, name, price) VALUES (\(1000 + added), 'new', NULL);")
            }
        }
        statements.append("CREATE INDEX items_price ON items(price); DROP INDEX items_name;")
        try sqlcipherOK(second, "PRAGMA key = 'other diff key'; PRAGMA cipher_compatibility = 3;\n" + statements.joined(separator: "\n"))

        let result = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K2", "--rows", "--json"], environment: keys)
        XCTAssertEqual(result.code, 8, "seed \(seed): \(result.stderr)")
        let report = try jsonObject(result.stdout)
        XCTAssertEqual(report["identical"] as? Bool, false)
        let items = try XCTUnwrap((report["tables"] as? [[String: Any]])?.first { $0["table"] as? String == "items" })
        XCTAssertEqual(items["added"] as? Int, added, "seed \(seed)")
        XCTAssertEqual(items["removed"] as? Int, removed.count, "seed \(seed)")
        XCTAssertEqual(items["changed"] as? Int, changed.count, "seed \(seed)")
        XCTAssertEqual(items["same"] as? Int, 300 - removed.count - changed.count, "seed \(seed)")
        let rows = report["rows"] as? [[String: Any]] ?? []
        let changedIDs = Set(rows.filter { $0["change"] as? String == "changed" }.compactMap { ($0["key"] as? [String: Any])?["id"] as? Int })
        XCTAssertEqual(changedIDs, changed, "seed \(seed)")
        let schema = Set((report["schema"] as? [[String: Any]] ?? []).map { "\($0["name"] ?? "") \($0["change"] ?? "")" })
        XCTAssertEqual(schema, ["items_price added", "items_name removed"], "seed \(seed)")
        let odd = (report["tables"] as? [[String: Any]])?.first { $0["table"] as? String == "odd \"name" }
        XCTAssertEqual(odd?["key"] as? [String], ["rowid"], "a table without a primary key is matched by rowid")
    }

    func testDatabasesThatDifferInEveryWayAreReportedInEachWay() throws {
        let common = """
            CREATE TABLE kept(id INTEGER PRIMARY KEY, v);
            INSERT INTO kept VALUES (1, 1), (2, 'two'), (3, NULL), (4, x'01'), (5, 5.5);
            CREATE TABLE bare(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
            INSERT INTO bare VALUES ('a', 1), ('b', 2);
            CREATE TABLE grows(x);
            INSERT INTO grows VALUES (1), (2);
            """
        let first = path("first.db"), second = path("second.db")
        try sqlcipherOK(first, "PRAGMA key = 'diff key';" + common + """
            CREATE TABLE gone(x); CREATE VIEW seen AS SELECT id FROM kept;
            """)
        try sqlcipherOK(second, "PRAGMA key = 'other diff key'; PRAGMA cipher_compatibility = 3;" + common + """
            CREATE TABLE arrived(x); CREATE VIEW seen AS SELECT id, v FROM kept;
            CREATE TRIGGER noted AFTER INSERT ON kept BEGIN SELECT 1; END;
            ALTER TABLE grows ADD COLUMN y;
            UPDATE kept SET v = '1' WHERE id = 1;
            UPDATE kept SET v = 0 WHERE id = 3;
            UPDATE kept SET v = x'02' WHERE id = 4;
            UPDATE bare SET v = 3 WHERE k = 'b';
            INSERT INTO bare VALUES ('c', 4);
            """)
        let result = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K2", "--json"], environment: keys)
        XCTAssertEqual(result.code, 8, result.stderr)
        let report = try jsonObject(result.stdout)
        let schema = Set((report["schema"] as? [[String: Any]] ?? []).map { "\($0["type"] ?? "") \($0["name"] ?? "") \($0["change"] ?? "")" })
        XCTAssertEqual(schema, ["table gone removed", "table arrived added", "view seen changed", "trigger noted added", "table grows changed"])
        let tables = Dictionary(uniqueKeysWithValues: (report["tables"] as? [[String: Any]] ?? []).map { ($0["table"] as? String ?? "", $0) })
        XCTAssertEqual(tables["kept"]?["changed"] as? Int, 3, "a type, a NULL and a blob: \(tables)")
        XCTAssertEqual(tables["kept"]?["same"] as? Int, 2)
        XCTAssertEqual(tables["bare"]?["changed"] as? Int, 1)
        XCTAssertEqual(tables["bare"]?["added"] as? Int, 1)
        XCTAssertEqual(tables["bare"]?["key"] as? [String], ["k"])
        XCTAssertEqual(tables["grows"]?["same"] as? Int, 2, "compared on the columns both have")
        XCTAssertNil(tables["gone"])
        let text = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K2", "--rows"], environment: keys)
        XCTAssertTrue(text.stdout.contains("~ kept id=1: v 1 -> '1'"), text.stdout)
        XCTAssertTrue(text.stdout.contains("+ bare k='c': v=4"), text.stdout)
    }

    func testHeaderFieldsADumpCarriesMakeTwoDatabasesDifferAndControlCharactersAreEscaped() throws {
        for (name, value) in [("a.db", 0), ("b.db", 1)] {
            try sqlcipherOK(path(name), """
                PRAGMA key = '\(keys["K"]!)'; PRAGMA auto_vacuum = \(value); PRAGMA user_version = \(value); PRAGMA application_id = \(value);
                CREATE TABLE t(x); INSERT INTO t VALUES ('a' || char(\(value == 0 ? 13 : 10)) || char(27) || 'b');
                """)
        }
        let arguments = ["diff", path("a.db"), path("b.db"), "--key-env", "K", "--other-key-env", "K"]
        let json = try cipherctl(arguments + ["--json"], environment: keys)
        XCTAssertEqual(json.code, 8, json.stderr)
        let header = try XCTUnwrap(jsonObject(json.stdout)["header"] as? [[String: Any]])
        XCTAssertEqual(header.compactMap { $0["field"] as? String }, ["user_version", "application_id"], "auto_vacuum is storage, not content")
        let text = try cipherctl(arguments + ["--rows"], environment: keys)
        XCTAssertTrue(text.stdout.contains("header user_version: 0 -> 1"), text.stdout)
        XCTAssertTrue(text.stdout.contains("'a\\r\\x1Bb' -> 'a\\n\\x1Bb'"), text.stdout)
        XCTAssertFalse(text.stdout.contains("\r") || text.stdout.contains("\u{1B}"), "no control character reaches the terminal")
    }

    func testAColumnNamedRowidIsComparedAndRowsAreKeyedByAnAliasNoColumnShadows() throws {
        let schema = """
            CREATE TABLE r(rowid TEXT, x);
            CREATE TABLE s(ROWID, Oid, x);
            CREATE TABLE all3(rowid, oid, _ROWID_);
            INSERT INTO r(oid, rowid, x) VALUES (5, 'a', 1), (9, 'b', 2);
            INSERT INTO s(_rowid_, rowid, oid, x) VALUES (4, 'c', 'd', 3);
            INSERT INTO all3 VALUES (1, 2, 3), (4, 5, 6), (4, 5, 6);
            """
        let first = path("first.db"), second = path("second.db")
        try sqlcipherOK(first, "PRAGMA key = 'diff key';\n" + schema)
        try sqlcipherOK(second, "PRAGMA key = 'other diff key';\n" + schema)
        let same = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K2", "--json"], environment: keys)
        XCTAssertEqual(same.code, 0, same.stdout + same.stderr)
        let keysByTable = Dictionary(uniqueKeysWithValues: (try jsonObject(same.stdout)["tables"] as? [[String: Any]] ?? []).map {
            ($0["table"] as? String ?? "", $0["key"] as? [String] ?? [])
        })
        XCTAssertEqual(keysByTable, ["r": ["oid"], "s": ["_rowid_"], "all3": ["rowid", "oid", "_ROWID_"]])

        try sqlcipherOK(second, """
            PRAGMA key = 'other diff key';
            UPDATE r SET rowid = 'changed' WHERE oid = 9; UPDATE s SET oid = 'D'; DELETE FROM all3 WHERE rowid = 1 + 1 + 2 LIMIT 1;
            """)
        let result = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K2", "--rows"], environment: keys)
        XCTAssertEqual(result.code, 8, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("~ r oid=9: rowid 'b' -> 'changed'"), result.stdout)
        XCTAssertTrue(result.stdout.contains("~ s _rowid_=4: Oid 'd' -> 'D'"), result.stdout)
        XCTAssertTrue(result.stdout.contains("table 'all3': 0 added, 1 removed, 0 changed, 2 the same (by rowid, oid, _ROWID_)"), result.stdout)
    }

    func testValuesAreComparedExactlyNegativeZeroAndTextByItsBytes() throws {
        let first = path("first.db")
        try sqlcipherOK(first, """
            PRAGMA key = 'diff key';
            CREATE TABLE v(id INTEGER PRIMARY KEY, x);
            INSERT INTO v VALUES (1, 0.0), (2, 'caf' || char(233)), (3, CAST(X'FF41' AS TEXT)), (4, 1);
            CREATE TABLE k(x PRIMARY KEY, y) WITHOUT ROWID;
            INSERT INTO k VALUES (1, 'one'), (9007199254740993, 'big');
            """)
        for (name, change) in [
            ("zero", "UPDATE v SET x = -0.0 WHERE id = 1"), ("composed", "UPDATE v SET x = 'cafe' || char(769) WHERE id = 2"),
            ("invalid", "UPDATE v SET x = CAST(X'FE41' AS TEXT) WHERE id = 3"), ("type", "UPDATE v SET x = 1.0 WHERE id = 4"),
            ("key", "UPDATE k SET x = 1.0 WHERE x = 1"), ("big key", "UPDATE k SET x = 9007199254740992.0 WHERE y = 'big'"),
        ] {
            let second = path("\(name).db")
            try FileManager.default.copyItem(atPath: first, toPath: second)
            try sqlcipherOK(second, "PRAGMA key = 'diff key';\n\(change);")
            let result = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K"], environment: keys)
            XCTAssertEqual(result.code, 8, "\(name): \(result.stdout)")
        }
        let copy = path("copy.db")
        try FileManager.default.copyItem(atPath: first, toPath: copy)
        XCTAssertEqual(try cipherctl(["diff", first, copy, "--key-env", "K", "--other-key-env", "K"], environment: keys).code, 0)
    }

    /// In --rows --json a blob is query's tagged object: text 'AA==' against the blob x'00'
    /// (whose base64 is AA==) shows the two apart, in a value and in a key.
    func testJSONRowsTellABlobFromTextThatSpellsItsBase64() throws {
        let first = path("first.db"), second = path("second.db")
        try sqlcipherOK(first, "PRAGMA key = 'diff key'; CREATE TABLE v(id INTEGER PRIMARY KEY, x); INSERT INTO v VALUES (1, 'AA==');"
            + " CREATE TABLE k(x PRIMARY KEY) WITHOUT ROWID; INSERT INTO k VALUES ('AA==');")
        try sqlcipherOK(second, "PRAGMA key = 'diff key'; CREATE TABLE v(id INTEGER PRIMARY KEY, x); INSERT INTO v VALUES (1, x'00');"
            + " CREATE TABLE k(x PRIMARY KEY) WITHOUT ROWID; INSERT INTO k VALUES (x'00');")
        let result = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K", "--rows", "--json"], environment: keys)
        XCTAssertEqual(result.code, 8, result.stderr)
        let rows = try XCTUnwrap(try jsonObject(result.stdout)["rows"] as? [[String: Any]])
        let changed = try XCTUnwrap(rows.first { $0["table"] as? String == "v" })
        XCTAssertEqual((changed["before"] as? [String: Any])?["x"] as? String, "AA==")
        let after = try XCTUnwrap((changed["after"] as? [String: Any])?["x"] as? [String: Any], result.stdout)
        XCTAssertEqual(after["$base64"] as? Bool, true)
        XCTAssertEqual(after["encoded"] as? String, "AA==")
        let keys = rows.filter { $0["table"] as? String == "k" }.compactMap { ($0["key"] as? [String: Any])?["x"] }
        XCTAssertEqual(keys.count, 2, result.stdout)
        XCTAssertEqual(keys.filter { $0 is String }.count, 1, "one text key and one tagged blob: \(result.stdout)")
    }

    func testRowsWhoseKeysTieAreMatchedByTheirValuesNotTheirRowids() throws {
        let first = path("first.db"), second = path("second.db")
        try sqlcipherOK(first, """
            PRAGMA key = 'diff key';
            CREATE TABLE n(k TEXT PRIMARY KEY, v);
            INSERT INTO n VALUES (NULL, 'a'), (NULL, 'b'), (NULL, 1), ('x', 1);
            """)
        try sqlcipherOK(second, """
            PRAGMA key = 'diff key';
            CREATE TABLE n(k TEXT PRIMARY KEY, v);
            INSERT INTO n VALUES ('x', 1), (NULL, 1), (NULL, 'b'), (NULL, 'a');
            """)
        let same = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K"], environment: keys)
        XCTAssertEqual(same.code, 0, same.stdout + same.stderr)
        try sqlcipherOK(second, "PRAGMA key = 'diff key';\nUPDATE n SET v = 1.0 WHERE v = 1 AND k IS NULL;")
        let changed = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K", "--rows"], environment: keys)
        XCTAssertEqual(changed.code, 8, changed.stdout + changed.stderr)
        XCTAssertTrue(changed.stdout.contains("1 changed, 3 the same"), changed.stdout)
    }

    func testTheSecondDatabaseOpensWithTheCipherSettingsGivenForIt() throws {
        let first = try makeShellDatabase("first.db", key: "diff key", rows: 30)
        let second = path("second.db")
        let export = try cipherctl(["export", first, second, "--key-env", "K", "--to-key-env", "K2", "--to-kdf-iter", "4000",
                                    "--to-plaintext-header-size", "32", "--to-salt=00112233445566778899aabbccddeeff"], environment: keys)
        XCTAssertEqual(export.code, 0, export.stderr)
        let salt = try writeFile("second.salt", "00112233445566778899aabbccddeeff\n")
        let options = ["--other-key-env", "K2", "--other-kdf-iter", "4000", "--other-plaintext-header-size", "32", "--other-salt-file", salt]
        let same = try cipherctl(["diff", first, second, "--key-env", "K"] + options, environment: keys)
        XCTAssertEqual(same.code, 0, same.stdout + same.stderr)
        XCTAssertTrue(same.stdout.contains("the databases are the same"), same.stdout)
        // Swapped, the first database takes the plain options and the second the other ones.
        let swapped = try cipherctl(["diff", second, first, "--key-env", "K2", "--kdf-iter", "4000", "--salt", "00112233445566778899aabbccddeeff",
                                     "--other-key-env", "K", "--other-compat", "4"], environment: keys)
        XCTAssertEqual(swapped.code, 0, swapped.stdout + swapped.stderr)
        let wrong = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K2", "--other-kdf-iter", "4001",
                                   "--other-salt-file", salt], environment: keys)
        XCTAssertEqual(wrong.code, 3, wrong.stderr)
        let bad = try cipherctl(["diff", first, second, "--key-env", "K", "--other-key-env", "K2", "--other-compat", "five"], environment: keys)
        XCTAssertEqual(bad.code, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--other-compat must be 1, 2, 3, 4 or auto"), bad.stderr)
        for result in [same, swapped, wrong, bad] {
            XCTAssertFalse(result.allOutput.contains("diff key") || result.allOutput.contains("other diff key"), "no key in any output")
        }
    }

    func testAPlaintextAndAnEncryptedCopyCompareAndErrorsKeepTheirCodes() throws {
        let first = try makeShellDatabase("first.db", key: "diff key", rows: 50)
        let plain = path("plain.db")
        XCTAssertEqual(try cipherctl(["export", first, plain, "--key-env", "K", "--plaintext"], environment: keys).code, 0)
        let result = try cipherctl(["diff", first, plain, "--key-env", "K"], environment: keys)
        XCTAssertEqual(result.code, 0, result.stdout + result.stderr)
        let wrong = try cipherctl(["diff", first, plain, "--key-env", "K2"], environment: keys)
        XCTAssertEqual(wrong.code, 3, wrong.stderr)
        let missing = try cipherctl(["diff", first, path("none.db"), "--key-env", "K"], environment: keys)
        XCTAssertEqual(missing.code, 5, missing.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["first.db", "plain.db"])
    }

    /// A hint about the database that failed names that database's own options: the second's
    /// `--other-…`, the first's the plain ones, for each failure a key or its settings cause.
    func testAHintNamesTheOptionsOfTheDatabaseThatFailed() throws {
        let plain = try makeShellDatabase("plain.db", key: keys["K"]!, rows: 3)
        let masked = try makeShellDatabase("masked.db", key: keys["K2"]!, rows: 3, extraSQL: "PRAGMA cipher_hmac_salt_mask = \"x'5b'\";")
        let failures: [(name: String, options: [String], wrongKey: Bool, option: String)] = [
            ("a wrong mask", ["--hmac-salt-mask", "11"], false, "hmac-salt-mask 5b"),
            ("a wrong key", [], true, "kdf-iter"),
        ]
        for failure in failures {
            // The masked database fails: second, then first.
            for (first, second, prefix) in [(plain, masked, "--other-"), (masked, plain, "--")] {
                let firstKey = first == plain ? "K" : "K2", secondKey = first == plain ? "K2" : "K"
                let given = prefix == "--" ? failure.options : failure.options.map { $0.replacingOccurrences(of: "--", with: "--other-") }
                let environment = keys.merging(failure.wrongKey ? ["K2": "no such key"] : [:]) { $1 }
                let result = try cipherctl(["diff", first, second, "--key-env", firstKey, "--other-key-env", secondKey] + given, environment: environment)
                let context = "\(failure.name) on the masked database, \(prefix)"
                XCTAssertEqual(result.code, 3, "\(context): \(result.stderr)")
                let hint = result.stderr.split(separator: "\n").first { $0.hasPrefix("hint: ") } ?? ""
                XCTAssertTrue(hint.contains(prefix + failure.option), "\(context): \(result.stderr)")
                if prefix == "--" { XCTAssertFalse(hint.contains("--other-"), "\(context): \(result.stderr)") }
            }
        }
    }
}
