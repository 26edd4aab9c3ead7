import Foundation
import TestSupport
import XCTest

/// `export` from a WAL database of SQLite3 Multiple Ciphers' whose -wal still holds commits:
/// the copy holds what SQLite3 Multiple Ciphers itself reads once it has checkpointed them,
/// and the source and its -wal stay as they were.
final class ForeignWALConversionTests: CLITestCase {
    /// A scheme of every family SQLite3 Multiple Ciphers writes, and the options that name it
    /// where its key alone does not find it.
    private func randomScheme(_ generator: inout SeededGenerator) -> (MultipleCiphersScheme, [String]) {
        var scheme = MultipleCiphersScheme()
        scheme.cipher = ["chacha20", "aes128cbc", "aes256cbc", "rc4", "sqlcipher"].randomElement(using: &generator)!
        scheme.legacy = scheme.cipher == "rc4" || (scheme.cipher != "sqlcipher" && Bool.random(using: &generator)) ? 1 : 0
        scheme.pageSize = (scheme.cipher == "chacha20" && scheme.legacy == 1 ? [4096] : [1024, 4096, 8192]).randomElement(using: &generator)!
        scheme.key = "wal key \(generator.next() % 1000)"
        scheme.rows = [-1, 0, Int.random(in: 1...60, using: &generator)].randomElement(using: &generator)!
        scheme.walCommits = Int.random(in: 1...4, using: &generator)
        scheme.seed = generator.next()
        let named = ["aes128cbc", "aes256cbc", "rc4"].contains(scheme.cipher) && Bool.random(using: &generator)
        return (scheme, named ? ["--from-family", scheme.cipher] : [])
    }

    func testEveryFamilysWALDatabaseExportsWithTheCommitsItsWALHolds() throws {
        try requireMultipleCiphersOracle()
        var (generator, seed) = SeededGenerator.forSweep("foreign WAL conversion", variable: "CIPHERCTL_FOREIGN_WAL_SEED")
        for index in 0..<sweepCases("CIPHERCTL_FOREIGN_WAL_CASES", quick: 8) {
            var (scheme, options) = randomScheme(&generator)
            let context = "seed \(seed) case \(index) (\(scheme))"
            let original = path("mc\(index).db"), source = path("wal\(index).db"), copy = path("sc\(index).db")
            scheme.walCopy = source
            XCTAssertEqual(try multipleCiphers("make", original, scheme).code, 0, context)
            let grown = try multipleCiphers("grow", original, scheme)
            XCTAssertEqual(grown.code, 0, "\(context): \(grown.stderr)")
            // The original, closed, holds its commits: what the copy must hold.
            let rows = try rowsByMultipleCiphers(original, scheme, context)
            let before = try [source, source + "-wal"].map { try fingerprint($0).0 }

            let converted = try cipherctl(["export", source, copy, "--key-env", "K", "--to-key-env", "T"] + options,
                                          environment: ["K": scheme.key, "T": "sqlcipher side key"])
            XCTAssertEqual(converted.code, 0, "\(context): \(converted.stderr)")
            XCTAssertEqual(try rowsByShell(copy, key: "sqlcipher side key", table: true), rows, "\(context): the copy's rows")
            XCTAssertEqual(try sqlcipherOK(copy, "PRAGMA key = 'sqlcipher side key'; PRAGMA journal_mode;"), "ok\nwal\n", context)
            XCTAssertEqual(try [source, source + "-wal"].map { try fingerprint($0).0 }, before, "\(context): the source changed")
            XCTAssertFalse(FileManager.default.fileExists(atPath: source + "-shm"), "\(context): a -shm beside the source")
            XCTAssertEqual(try temporaryLeftovers(), [], context)
        }
    }

    /// A -wal of another database under the same key, beside a file: its page 1 carries
    /// another salt, so the file's keys cannot read its pages (SQLite3 Multiple Ciphers calls
    /// the pair "not a database"): exit 4, and no copy of the other database's rows.
    func testAWALOfAnotherDatabaseExits4AndWritesNothing() throws {
        try requireMultipleCiphersOracle()
        for cipher in ["chacha20", "sqlcipher"] {
            var first = MultipleCiphersScheme(pageSize: 1024, rows: 3, cipher: cipher), second = first
            second.seed = 2
            first.walCopy = path("\(cipher)-a.db")
            second.walCopy = path("\(cipher)-b.db")
            for (original, scheme) in [(path("\(cipher)-1.db"), first), (path("\(cipher)-2.db"), second)] {
                XCTAssertEqual(try multipleCiphers("make", original, scheme).code, 0, cipher)
                XCTAssertEqual(try multipleCiphers("grow", original, scheme).code, 0, cipher)
            }
            try FileManager.default.removeItem(atPath: path("\(cipher)-a.db-wal"))
            try FileManager.default.copyItem(atPath: path("\(cipher)-b.db-wal"), toPath: path("\(cipher)-a.db-wal"))
            let before = try folderListing(directory.path)
            let result = try cipherctl(["export", path("\(cipher)-a.db"), path("out.db"), "--key-env", "K", "--to-key-env", "K"], environment: ["K": first.key])
            XCTAssertEqual(result.code, 4, "\(cipher): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("the -wal is another database's"), "\(cipher): \(result.stderr)")
            XCTAssertEqual(try folderListing(directory.path), before, cipher)
        }
    }

    /// A frame that fails its checksum with a commit after it is damage SQLite would drop
    /// silently, with every commit after it: exit 4, naming the frame, and no copy.
    func testAWALFrameFailingItsChecksumBeforeACommitExits4AndWritesNothing() throws {
        try requireMultipleCiphersOracle()
        var scheme = MultipleCiphersScheme(pageSize: 1024, rows: 5)
        let original = path("mc.db"), source = path("wal.db")
        scheme.walCopy = source
        scheme.walCommits = 3
        XCTAssertEqual(try multipleCiphers("make", original, scheme).code, 0)
        XCTAssertEqual(try multipleCiphers("grow", original, scheme).code, 0)
        // The first frame's page, past its 24-byte frame header and the WAL's 32-byte header.
        let wal = try FileHandle(forUpdating: URL(fileURLWithPath: source + "-wal"))
        try wal.seek(toOffset: 32 + 24 + 100)
        let byte = try XCTUnwrap(wal.readData(ofLength: 1).first)
        try wal.seek(toOffset: 32 + 24 + 100)
        wal.write(Data([byte ^ 0x01]))
        try wal.close()
        let before = try folderListing(directory.path)

        let result = try cipherctl(["export", source, path("out.db"), "--key-env", "K", "--to-key-env", "K"], environment: ["K": scheme.key])
        XCTAssertEqual(result.code, 4, result.stderr)
        XCTAssertTrue(result.stderr.contains("WAL frame 1 fails its checksum"), result.stderr)
        XCTAssertEqual(try folderListing(directory.path), before)
    }

    /// A legacy ChaCha20 file hides its page size, and a -wal beside it shows it: a page size
    /// given (or sqleet's default) that the -wal contradicts is wrong settings, not damage.
    /// Exit 3 with the -wal's page size in the hint, nothing written; that page size exports.
    func testALegacyPageSizeTheWALContradictsExits3AndTheOneItShowsExports() throws {
        try requireMultipleCiphersOracle()
        var (generator, seed) = SeededGenerator.forSweep("legacy page size beside a WAL", variable: "CIPHERCTL_FOREIGN_WAL_SEED")
        for index in 0..<sweepCases("CIPHERCTL_FOREIGN_WAL_CASES", quick: 3) {
            let sizes = [1024, 2048, 4096, 8192]
            let actual = sizes.randomElement(using: &generator)!
            let given = (sizes.filter { $0 != actual } + (actual == 4096 ? [] : [0])).randomElement(using: &generator)!
            var scheme = MultipleCiphersScheme(legacy: 1, pageSize: actual, rows: Int.random(in: 0...20, using: &generator), seed: generator.next())
            let context = "seed \(seed) case \(index): page size \(actual), given \(given == 0 ? "none" : String(given))"
            let original = path("legacy\(index).db"), source = path("legacy-wal\(index).db"), copy = path("legacy-sc\(index).db")
            scheme.walCopy = source
            XCTAssertEqual(try multipleCiphers("make", original, scheme).code, 0, context)
            XCTAssertEqual(try multipleCiphers("grow", original, scheme).code, 0, context)
            let before = try folderListing(directory.path)
            let export = ["export", source, copy, "--key-env", "K", "--to-key-env", "K", "--from-family", "chacha20"]

            let wrong = try cipherctl(export + (given == 0 ? [] : ["--page-size", String(given)]), environment: ["K": scheme.key])
            XCTAssertEqual(wrong.code, 3, "\(context): \(wrong.stderr)")
            XCTAssertTrue(wrong.stderr.contains("the -wal beside it holds pages of \(actual)"), "\(context): \(wrong.stderr)")
            XCTAssertTrue(wrong.stderr.contains("--page-size \(actual)"), "\(context): \(wrong.stderr)")
            XCTAssertEqual(try folderListing(directory.path), before, context)

            let right = try cipherctl(export + ["--page-size", String(actual)], environment: ["K": scheme.key])
            XCTAssertEqual(right.code, 0, "\(context): \(right.stderr)")
            XCTAssertEqual(try rowsByShell(copy, key: scheme.key, table: true), try rowsByMultipleCiphers(original, scheme, context), context)
        }
    }

    /// A legacy ChaCha20 file whose page 1 passes its tag at the page size given, beside a
    /// -wal of another page size: the -wal is another database's, which is damage (exit 4),
    /// not a page size to give instead.
    func testALegacyFileBesideAnotherDatabasesWALOfAnotherPageSizeExits4() throws {
        try requireMultipleCiphersOracle()
        var file = MultipleCiphersScheme(legacy: 1, pageSize: 8192, rows: 4), other = file
        other.pageSize = 4096
        file.walCopy = path("legacy-8k.db")
        other.walCopy = path("legacy-4k.db")
        for (original, scheme) in [(path("legacy-8k-original.db"), file), (path("legacy-4k-original.db"), other)] {
            XCTAssertEqual(try multipleCiphers("make", original, scheme).code, 0)
            XCTAssertEqual(try multipleCiphers("grow", original, scheme).code, 0)
        }
        try FileManager.default.removeItem(atPath: path("legacy-8k.db-wal"))
        try FileManager.default.copyItem(atPath: path("legacy-4k.db-wal"), toPath: path("legacy-8k.db-wal"))
        let before = try folderListing(directory.path)
        let result = try cipherctl(["export", path("legacy-8k.db"), path("out.db"), "--key-env", "K", "--to-key-env", "K", "--from-family", "chacha20",
                                    "--page-size", "8192"], environment: ["K": file.key])
        XCTAssertEqual(result.code, 4, result.stderr)
        XCTAssertTrue(result.stderr.contains("its -wal holds pages of 4096 bytes, not the file's 8192"), result.stderr)
        XCTAssertEqual(try folderListing(directory.path), before)
    }
}
