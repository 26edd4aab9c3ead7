import Foundation
import XCTest

/// A look that meets a damaged page names it, on the database that has it: for a page of
/// every class a table's rows are read through (leaf, interior, overflow), `dump`, `query`
/// and `diff` in both orders end with exit 4 naming that page and that file, never the
/// healthy one, and write nothing. SQLCipher's codec answers a failed page on some reads
/// with a bare "SQL logic error" (exit 1), and `diff` read both files in one statement.
final class LookDamageNamingTests: CLITestCase {
    private let keys = ["K": "look damage key"]

    func testADamagedPageIsNamedOnTheDatabaseThatHasItByEveryLook() throws {
        let good = path("good.db")
        try sqlcipherOK(good, """
            PRAGMA key = '\(keys["K"]!)';
            CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO customers SELECT value, 'customer ' || value FROM generate_series(1, 2000);
            CREATE TABLE blobs(id INTEGER PRIMARY KEY, data BLOB);
            INSERT INTO blobs SELECT value, randomblob(5000) FROM generate_series(1, 10);
            """)
        for (page, owner) in try onePageOfEachClass(good) {
            let bad = path("bad-\(page).db")
            var bytes = try Data(contentsOf: URL(fileURLWithPath: good))
            for offset in (page - 1) * 4096 + 1000 ..< (page - 1) * 4096 + 1008 { bytes[offset] ^= 0xFF }
            try bytes.write(to: URL(fileURLWithPath: bad))
            let looks = [["dump", bad], ["query", bad, "SELECT count(*), sum(length(hex(data))), (SELECT sum(length(name)) FROM customers) FROM blobs"],
                         ["diff", good, bad, "--other-key-env", "K"], ["diff", bad, good, "--other-key-env", "K"]]
            for look in looks {
                let before = try folderListing(directory.path)
                let result = try cipherctl(look + ["--key-env", "K"], environment: keys)
                let label = "page \(page) (\(owner)): \(look[0]) \(look[1] == bad ? "bad first" : "good first")"
                XCTAssertEqual(result.code, 4, "\(label): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("'\(bad)' is damaged: page \(page) (table \(owner))"), "\(label): \(result.stderr)")
                XCTAssertFalse(result.stderr.contains("'\(good)'"), "\(label): the healthy file is not named: \(result.stderr)")
                XCTAssertEqual(try folderListing(directory.path), before, "\(label): nothing written")
            }
        }
    }

    /// A page of each class the looks read, from the shell's dbstat: a leaf and the interior
    /// page of `customers`, and an overflow page of `blobs`.
    private func onePageOfEachClass(_ database: String) throws -> [(Int, String)] {
        let rows = try sqlcipherOK(database, """
            PRAGMA key = '\(keys["K"]!)';
            SELECT name, pagetype, min(pageno) FROM dbstat WHERE name IN ('customers', 'blobs') GROUP BY name, pagetype;
            """)
        var chosen: [(Int, String)] = []
        for row in rows.split(separator: "\n").map({ $0.split(separator: "|").map(String.init) }) where row.count == 3 {
            guard let page = Int(row[2]), (row[0] == "customers" && row[1] != "overflow") || (row[0] == "blobs" && row[1] == "overflow") else { continue }
            chosen.append((page, row[0]))
        }
        XCTAssertEqual(chosen.count, 3, "a leaf, an interior and an overflow page: \(rows)")
        return chosen
    }
}
