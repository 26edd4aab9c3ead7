import Foundation
import TestSupport
import XCTest

/// A database with a plaintext header shows its page size in it (bytes 16 and 17), and
/// SQLite reads that size whatever SQLCipher is told. Over a seeded sweep of page sizes,
/// with and without a -wal a killed writer left: every command reads the file with no
/// --page-size (the header's size is taken in every format) or the header's own, and a key
/// or page size that cannot read it ends in exit 3, naming the header's size, with every
/// file as it was. SQLCipher decrypting page 1 under a larger page size than the header's
/// crashed cipherctl; a wrong key's connection emptied the -wal into the file.
/// CIPHERCTL_HEADER_PAGE_SEED replays a run, CIPHERCTL_HEADER_PAGE_CASES widens it.
final class PlaintextHeaderPageSizeTests: CLITestCase {
    private let keys = ["K": "header page key", "W": "header page wrong key", "N": "header page new key"]
    private let salt = "00112233445566778899aabbccddeeff"

    private func commands(_ db: String) -> [[String]] {
        [["open", db], ["query", db, "--format", "value", "SELECT count(*) FROM t"], ["dump", db],
         ["export", db, path("out.db"), "--to-key-env", "N"], ["rekey", db, "--new-key-env", "N", "--dry-run"], ["rekey", db, "--new-key-env", "N"]]
    }

    func testThePlaintextHeadersPageSizeIsTakenAndAnotherGivenOrAWrongKeyIsExit3WithEveryFileAsItWas() throws {
        var (generator, seed) = SeededGenerator.forSweep("plaintext header page size", variable: "CIPHERCTL_HEADER_PAGE_SEED")
        let cases = sweepCases("CIPHERCTL_HEADER_PAGE_CASES", quick: 4)
        let sizes = [1024, 2048, 4096, 8192, 16384, 32768, 65536]
        for number in 0..<cases {
            let size = sizes.randomElement(using: &generator)!
            let wal = number % 2 == 1
            let other = sizes.filter { $0 != size }.randomElement(using: &generator)!
            // SQLCipher 3's KDF and HMAC, or 4's: the search tries each at the header's size.
            let compatibility = Bool.random(using: &generator) ? 3 : 4
            let base = try makeBase(pageSize: size, compatibility: compatibility, wal: wal, name: "base\(number)")
            // Settings given are exact (SQLCipher 4's for the rest), so SQLCipher 3's are named.
            let compat = compatibility == 3 ? ["--compat", "3"] : []
            for (key, options, code) in [("K", [String](), Int32(0)), ("K", compat + ["--page-size", "\(size)"], 0), ("K", compat + ["--page-size", "\(other)"], 3), ("W", [], 3)] {
                for command in commands("db.db") {
                    let label = "seed \(seed): SQLCipher \(compatibility), page size \(size)\(wal ? " with a -wal" : ""), \(command[0]) \(key) \(options)"
                    try check(command + ["--key-env", key, "--salt", salt] + options, base: base, code: code, label: label)
                    if code == 3, options.contains("--page-size") { XCTAssertTrue(lastError.contains("shows pages of \(size)"), "\(label): \(lastError)") }
                }
            }
        }
    }

    /// The right key and salt under another plaintext header size than the file's: page 1
    /// decrypts past its first block under a larger one, which read as damage to page 1 (exit
    /// 4). Exit 3 names the size that opens it, for every command, every file as it was.
    func testAnotherPlaintextHeaderSizeIsExit3NamingTheOneThatOpensIt() throws {
        var (generator, seed) = SeededGenerator.forSweep("plaintext header size", variable: "CIPHERCTL_HEADER_PAGE_SEED")
        let sizes = [16, 32, 48, 64, 80]
        for number in 0..<sweepCases("CIPHERCTL_HEADER_PAGE_CASES", quick: 2) {
            let size = sizes.randomElement(using: &generator)!
            let given = sizes.filter { $0 != size }.randomElement(using: &generator)!
            let base = try makeBase(pageSize: 4096, compatibility: 4, wal: false, name: "sized\(number)", headerSize: size)
            for command in commands("db.db") {
                let label = "seed \(seed): header \(size), given \(given): \(command[0])"
                try check(command + ["--key-env", "K", "--salt", salt, "--plaintext-header-size", "\(given)"], base: base, code: 3, label: label)
                XCTAssertTrue(lastError.contains("plaintext header of \(size) bytes, not \(given)"), "\(label): \(lastError)")
            }
        }
    }

    private var lastError = ""

    /// A database of `pageSize` and SQLCipher `compatibility`'s other settings with a
    /// plaintext header of `headerSize` bytes in its own folder, and with
    /// `wal` the -wal of a writer killed after its commit; returns the folder.
    private func makeBase(pageSize: Int, compatibility: Int, wal: Bool, name: String, headerSize: Int = 32) throws -> String {
        let folder = path(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let keySQL = "PRAGMA key = '\(keys["K"]!)'; PRAGMA cipher_compatibility = \(compatibility); PRAGMA cipher_page_size = \(pageSize); "
            + "PRAGMA cipher_plaintext_header_size = \(headerSize); "
            + "PRAGMA cipher_salt = \"x'\(salt)'\";\n"
        try sqlcipherOK(folder + "/db.db", keySQL + """
            CREATE TABLE t(a INTEGER, b BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO t SELECT i, randomblob(300) FROM n;
            """)
        if wal {
            let writer = keySQL + "PRAGMA journal_mode = WAL;\nPRAGMA wal_autocheckpoint = 0;\nUPDATE t SET a = a + 1;\n.shell kill -9 $PPID\n"
            _ = try run("/usr/bin/env", ["sqlcipher", folder + "/db.db"], stdin: writer, environment: Self.childEnvironment(home: directory.path))
            try? FileManager.default.removeItem(atPath: folder + "/db.db-shm")
            let walSize = (try? FileManager.default.attributesOfItem(atPath: folder + "/db.db-wal")[.size] as? Int) ?? 0
            XCTAssertGreaterThan(walSize ?? 0, 32, "the writer left its -wal")
        }
        return folder
    }

    /// Runs `arguments` in a copy of `base`: the exit code must be `code`, and on a failure
    /// one error line and every file as it was.
    private func check(_ arguments: [String], base: String, code: Int32, label: String) throws {
        let folder = path("case")
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.copyItem(atPath: base, toPath: folder)
        try? FileManager.default.removeItem(atPath: path("out.db"))
        let before = try folderListing(folder)
        let result = try run(Self.binary, arguments, stdin: nil, environment: keys, directory: folder)
        lastError = result.stderr
        XCTAssertFalse(result.signaled, "\(label): killed by a signal")
        XCTAssertEqual(result.code, code, "\(label): \(result.stderr)")
        guard code != 0 else { return }
        XCTAssertEqual(result.stderr.components(separatedBy: "error:").count - 1, 1, "\(label): one error line: \(result.stderr)")
        XCTAssertEqual(try folderListing(folder), before, "\(label): every file as it was")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.db")), "\(label): no export")
    }
}
