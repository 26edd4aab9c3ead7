import Foundation
import TestSupport
import XCTest

/// A plaintext header keeps bytes 16 to 31 of page 1 (page size, versions, reserved bytes,
/// payload fractions, change counter, page count) outside the cipher and its HMAC, so no
/// page check sees damage there. Swept over every one of those bytes and seeded values:
/// a command either ends 0 with every row as it was (the copy's rows, read by the shell, are
/// the source's), or ends 3 or 4 in one error line with every file as it was. A read that
/// ends 0 must show the rows as they were. `CIPHERCTL_HEADER_SWEEP_CASES` widens the values
/// tried per byte (Scripts/soak).
final class PlaintextHeaderDamageSweepTests: CLITestCase {
    private let keys = ["K": "header sweep key", "K2": "header sweep new key"]
    private let salt = "000102030405060708090a0b0c0d0e0f"

    /// Each command and the shell's key statements for the file it leaves (nil: a look).
    private var commands: [(arguments: [String], result: String, keySQL: String?)] {
        let source = "PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'\(salt)'\";"
        return [
            (["query", "db.db", "--key-env", "K", "--salt", salt, "SELECT count(*) || ',' || sum(length(b)) || ',' || sum(a) FROM t", "--format", "value"], "db.db", nil),
            (["rekey", "db.db", "--key-env", "K", "--salt", salt, "--new-key-env", "K2"], "db.db", "PRAGMA key = '\(keys["K2"]!)';" + source),
            (["rekey", "db.db", "--key-env", "K", "--salt", salt, "--new-key-env", "K2", "--in-place"], "db.db", "PRAGMA key = '\(keys["K2"]!)';" + source),
            (["export", "db.db", "copy.db", "--key-env", "K", "--salt", salt, "--to-key-env", "K2"], "copy.db", "PRAGMA key = '\(keys["K2"]!)';"),
            (["export", "db.db", "plain.db", "--key-env", "K", "--salt", salt, "--plaintext", "--quiet"], "plain.db", ""),
            (["plaintext-header", "db.db", "--size", "0", "--key-env", "K", "--salt", salt], "db.db", "PRAGMA key = '\(keys["K"]!)';"),
        ]
    }

    func testDamageToThePlainHeaderBytesIsNamedOrChangesNoRow() throws {
        let (generator, seed) = SeededGenerator.forSweep("plaintext header damage sweep", variable: "CIPHERCTL_HEADER_SWEEP_SEED")
        var random = generator
        let base = try makeBase()
        let expected = try XCTUnwrap(contentChecksum(base, keySQL: sourceKeySQL))
        let values = sweepCases("CIPHERCTL_HEADER_SWEEP_CASES", quick: 1)
        var runs = 0
        for byte in 16...31 {
            let original = try XCTUnwrap(FileHandle(forReadingAtPath: base).map { h in defer { try? h.close() }; try h.seek(toOffset: UInt64(byte)); return try h.read(upToCount: 1)?.first })
            let chosen = [UInt8]([0x00, 0xFF, 0x01]).shuffled(using: &random).prefix(values) + (0..<values).map { _ in UInt8.random(in: 0...255, using: &random) }
            for value in Set(chosen) where value != original {
                for command in commands {
                    runs += 1
                    try check(command, base: base, byte: byte, value: value, expected: expected, label: "seed \(seed), byte \(byte) = 0x\(String(value, radix: 16))")
                }
            }
        }
        print("plaintext header damage sweep: \(runs) command runs, \(testRun?.failureCount ?? 0) disagreed")
    }

    private var sourceKeySQL: String {
        "PRAGMA key = '\(keys["K"]!)'; PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'\(salt)'\";"
    }

    private func check(_ command: (arguments: [String], result: String, keySQL: String?), base: String, byte: Int, value: UInt8, expected: String, label: String) throws {
        let folder = path("case-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: base))
        bytes[byte] = value
        try bytes.write(to: URL(fileURLWithPath: folder + "/db.db"))
        let before = try folderListing(folder)
        let result = try run(Self.binary, command.arguments, stdin: nil, environment: keys, directory: folder)
        let name = "\(label): \(command.arguments.prefix(2).joined(separator: " ")) \(command.arguments.contains("--in-place") ? "--in-place" : "")"
        XCTAssertFalse(result.signaled, "\(name): \(result.stderr)")
        if result.code != 0 {
            XCTAssertTrue([3, 4].contains(result.code), "\(name): exit \(result.code): \(result.stderr)")
            XCTAssertEqual(result.stderr.components(separatedBy: "error:").count - 1, 1, "\(name): one error line: \(result.stderr)")
            XCTAssertEqual(try folderListing(folder), before, "\(name): every file as it was")
            return
        }
        guard let keySQL = command.keySQL else {
            let rows = try sqlcipherOK(base, sourceKeySQL + "\nSELECT count(*), sum(length(b)), sum(a) FROM t;")
            XCTAssertEqual(result.stdout.split(separator: "\n").last, rows.split(separator: "\n").last.map { Substring($0.replacingOccurrences(of: "|", with: ",")) }, "\(name): a read that ends 0 shows every row")
            return
        }
        XCTAssertEqual(try contentChecksum(folder + "/" + command.result, keySQL: keySQL), expected, "\(name): the file it leaves holds every row as it was")
    }

    /// A database with a plaintext header: a table with an index, rows from a few bytes to
    /// pages long (overflow pages), so that a misread usable size or page count shows.
    private func makeBase() throws -> String {
        let base = path("base.db")
        try sqlcipherOK(base, sourceKeySQL + """

            CREATE TABLE t(a INTEGER, b BLOB);
            CREATE INDEX t_a ON t(a);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO t SELECT i, randomblob(i * 12) FROM n;
            """)
        return base
    }
}
