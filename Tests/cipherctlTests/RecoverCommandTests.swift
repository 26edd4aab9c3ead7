import Foundation
import TestSupport
import XCTest

/// `cipherctl recover` over a seeded sweep of damaged pages of every kind: a damaged leaf page
/// loses exactly its rows, other pages lose none, the new file is encrypted with the new key,
/// and no plaintext is left anywhere beside it.
final class RecoverCommandTests: CLITestCase {
    private let keys = ["K": "recover key", "K2": "recovered key"]
    private let marker = "PLAINTEXT-MARKER"

    func testADamagedPageOfAnyKindLosesOnlyTheRowsOnThatLeaf() throws {
        let (generator, seed) = SeededGenerator.forSweep("recover sweep", variable: "CIPHERCTL_RECOVER_SEED")
        var random = generator
        let pristine = path("pristine.db")
        try sqlcipherOK(pristine, """
            PRAGMA key = 'recover key';
            CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT, big BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO t(v, big) SELECT '\(marker) ' || i, CASE WHEN i % 500 = 0 THEN randomblob(9000) END FROM n;
            CREATE INDEX t_v ON t(v);
            """)
        let pages = try sqlcipherOK(pristine, "PRAGMA key = 'recover key'; SELECT pageno, name, pagetype, ncell FROM dbstat ORDER BY pageno;")
            .split(separator: "\n").dropFirst().map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        let kinds = Dictionary(grouping: pages, by: { "\($0[1]) \($0[2])" })
        print("page kinds: " + kinds.map { "\($0.key): \($0.value.count)" }.sorted().joined(separator: ", "))
        var chosen = kinds.values.map { $0.randomElement(using: &random)! }
        chosen += (0..<sweepCases("CIPHERCTL_RECOVER_CASES", quick: 4)).map { _ in pages.randomElement(using: &random)! }
        for (trial, page) in chosen.enumerated() {
            let number = Int(page[0])!, leafOfT = page[1] == "t" && page[2] == "leaf"
            let damaged = path("damaged-\(trial).db"), saved = path("saved-\(trial).db")
            try FileManager.default.copyItem(atPath: pristine, toPath: damaged)
            try flip(damaged, page: number, random: &random)
            let result = try cipherctl(["recover", damaged, saved, "--key-env", "K", "--to-key-env", "K2", "--json"], environment: keys)
            let label = "seed \(seed), page \(number) (\(page[1]) \(page[2]))"
            XCTAssertEqual(result.code, 0, "\(label): \(result.stderr)")
            let report = try jsonObject(result.stdout)
            XCTAssertEqual(report["lost_pages"] as? [Int], [number], label)
            let counts = try rows(saved)
            if leafOfT {
                XCTAssertEqual(counts.t, 3000 - Int(page[3])!, "\(label): exactly the leaf's rows are lost")
            } else if number != 1 {
                XCTAssertGreaterThanOrEqual(counts.t + counts.lost, 3000, "\(label): no row lost")
            }
            XCTAssertNil(try Data(contentsOf: URL(fileURLWithPath: saved)).range(of: Data(marker.utf8)), "\(label): the new file is encrypted")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasSuffix(".db") }, [], "nothing but databases")
    }

    func testAnExistingDestinationOrAWrongKeyChangesNothing() throws {
        let source = try makeShellDatabase("a.db", key: "recover key", rows: 20)
        let existing = try writeFile("exists.db", "keep me")
        let taken = try cipherctl(["recover", source, existing, "--key-env", "K", "--to-key-env", "K2"], environment: keys)
        XCTAssertEqual(taken.code, 5, taken.stderr)
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "keep me")
        let wrong = try cipherctl(["recover", source, path("new.db"), "--key-env", "K2", "--to-key-env", "K2"], environment: keys)
        XCTAssertEqual(wrong.code, 3, wrong.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["a.db", "exists.db"])
    }

    /// Changes one byte of page `number`'s encrypted body, so it fails its HMAC.
    private func flip(_ database: String, page number: Int, random: inout SeededGenerator) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: database))
        defer { try? handle.close() }
        let offset = UInt64((number - 1) * 4096 + Int.random(in: 32..<3900, using: &random))
        try handle.seek(toOffset: offset)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: offset)
        handle.write(Data([byte ^ 0x5A]))
    }

    private func rows(_ database: String) throws -> (t: Int, lost: Int) {
        let out = try sqlcipherOK(database, """
            PRAGMA key = 'recovered key';
            SELECT (SELECT count(*) FROM sqlite_schema WHERE name = 't'), (SELECT count(*) FROM sqlite_schema WHERE name = 'lost_and_found');
            """).split(separator: "\n").last.map { $0.split(separator: "|").map { Int($0) ?? 0 } } ?? []
        func count(_ table: String) throws -> Int {
            Int(try sqlcipherOK(database, "PRAGMA key = 'recovered key'; SELECT count(*) FROM \(table);").split(separator: "\n").last ?? "0") ?? 0
        }
        return (out.first == 1 ? try count("t") : 0, out.last == 1 ? try count("lost_and_found") : 0)
    }
}
