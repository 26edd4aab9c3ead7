import Foundation
import XCTest

/// `--key-cmd` with `{path}` or `{name}`: each file's own key from a secret store's command,
/// the names filled into the command's words after they are split, never read by a shell.
final class KeyCommandTemplateTests: CLITestCase {
    /// File names a shell would act on, each the name of a database under its own key.
    private let names = ["plain", "with space", "quote's", "semi;colon", "dollar$(touch PWNED)", "back`touch PWNED2`tick"]

    private func makeFleet() throws -> [String] {
        try FileManager.default.createDirectory(atPath: path("keys"), withIntermediateDirectories: false)
        return try names.map { name in
            let database = path(name + ".db")
            try sqlcipherOK(database, "PRAGMA key = 'old key of \(name.replacingOccurrences(of: "'", with: "''"))';\nCREATE TABLE t(x); INSERT INTO t VALUES (1);")
            try writeFile("keys/\(name).old", "old key of \(name)\n")
            try writeFile("keys/\(name).new", "new key of \(name)\n")
            return database
        }
    }

    func testEachFileGetsItsOwnKeyAndNoNameReachesAShell() throws {
        let databases = try makeFleet()
        let old = "cat '\(path("keys"))/{name}.old'", new = "cat \"\(path("keys"))/{name}.new\""
        for database in databases {
            let queried = try cipherctl(["query", database, "--key-cmd", old, "SELECT count(*) FROM t"])
            XCTAssertEqual(queried.code, 0, "\(database): \(queried.stderr)")
        }
        let audit = try cipherctl(["audit"] + databases + ["--key-cmd", old, "--json"])
        XCTAssertEqual(audit.code, 0, audit.stderr)
        XCTAssertEqual(audit.stdout.components(separatedBy: "\"opened\":true").count - 1, databases.count, audit.stdout)
        let rotated = try cipherctl(["rekey"] + databases + ["--key-cmd", old, "--new-key-cmd", new])
        XCTAssertEqual(rotated.code, 0, rotated.stderr)
        for (name, database) in zip(names, databases) {
            let quoted = name.replacingOccurrences(of: "'", with: "''")
            XCTAssertEqual(try sqlcipher(database, "PRAGMA key = 'new key of \(quoted)';\nSELECT count(*) FROM t;").stdout, "ok\n1\n", name)
        }
        for marker in ["PWNED", "PWNED2"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: path(marker)), "a name was run by a shell")
        }
    }

    func testAFileWhoseKeyCommandFailsIsAnAuditFindingAndTheOthersAreStillLookedAt() throws {
        let databases = try makeFleet()
        try FileManager.default.removeItem(atPath: path("keys/plain.old"))
        let audit = try cipherctl(["audit"] + databases + ["--key-cmd", "cat '\(path("keys"))/{name}.old'", "--json"])
        XCTAssertEqual(audit.code, 8, audit.stderr)
        XCTAssertTrue(audit.stdout.contains("\"cannot-open\""), audit.stdout)
        XCTAssertEqual(audit.stdout.components(separatedBy: "\"opened\":true").count - 1, databases.count - 1, audit.stdout)
    }

    func testATemplateWithAnUnclosedQuoteIsExit2() throws {
        let database = try makeShellDatabase("one.db", key: "k", rows: 1)
        let result = try cipherctl(["open", database, "--key-cmd", "cat '{path}"])
        XCTAssertEqual(result.code, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("quote"), result.stderr)
    }
}
