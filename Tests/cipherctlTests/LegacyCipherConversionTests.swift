import Foundation
import TestSupport
import XCTest

/// `export` from SQLCipher 1 to 3 files written under a `PRAGMA cipher` other than
/// AES-256-CBC, which SQLCipher 4 cannot read, into SQLCipher 4: Debian's SQLCipher 3.4.1
/// (unpacked by `Scripts/bootstrap --test-tools` into .build-interop/sqlcipher3) writes the
/// sources and reads their rows, the system's sqlcipher shell reads the copies.
final class LegacyCipherConversionTests: CLITestCase {
    private static let ciphers = ["aes-128-cbc", "aes-192-cbc", "aes-256-cfb", "aes-128-cfb"]

    private typealias Source = LegacyCipherSource
    private static let rowsSQL = "SELECT 'rows:'; SELECT id, typeof(a), hex(a), b FROM t ORDER BY id; PRAGMA integrity_check;"

    private func requireOracle() throws { try requireLegacyCipherOracle() }
    private func oracle(_ database: String, _ sql: String, _ more: String...) throws -> CommandResult { try legacyCipherOracle(database, [sql] + more) }
    private func make(_ path: String, _ source: Source) throws { try makeLegacyCipherFile(path, source) }

    /// What follows the `rows:` line in the output of `rowsSQL`.
    private func rows(_ output: String) -> String {
        output.components(separatedBy: "rows:\n").dropFirst().joined()
    }

    private func randomSource(_ generator: inout SeededGenerator) -> Source {
        var source = Source()
        source.cipher = Self.ciphers.randomElement(using: &generator)!
        source.version = [1, 2, 3].randomElement(using: &generator)!
        source.bigEndian = source.version == 2 && Bool.random(using: &generator)
        if source.version > 1, Int.random(in: 0..<3, using: &generator) == 0 {
            source.mask = UInt8.random(in: 0...255, using: &generator)
        }
        source.pageSize = [1024, 4096].randomElement(using: &generator)!
        source.rows = [0, 1, Int.random(in: 2...200, using: &generator)].randomElement(using: &generator)!
        let alphabet = Array("abcXYZ019 -_é€")
        source.key = String((0..<Int.random(in: 1...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        source.salt = UInt64.random(in: 1...1000, using: &generator)
        return source
    }

    func testEverySQLCipher1To3FileUnderAnotherPragmaCipherExportsToSQLCipher4WithTheSameRows() throws {
        try requireOracle()
        var (generator, seed) = SeededGenerator.forSweep("legacy cipher conversion", variable: "CIPHERCTL_LEGACY_CIPHER_SEED")
        for index in 0..<sweepCases("CIPHERCTL_LEGACY_CIPHER_CASES", quick: 12) {
            let source = randomSource(&generator)
            let context = "seed \(seed) case \(index) (\(source))"
            let file = path("legacy\(index).db"), copy = path("sc\(index).db")
            try make(file, source)
            let read = try oracle(file, source.keySQL + Self.rowsSQL)
            XCTAssertEqual(read.code, 0, "\(context): \(read.stderr)")
            let before = try fingerprint(file).0
            // The key finds the cipher; every other case names the family too.
            let named = index % 2 == 0 ? ["--from-family", "sqlcipher-other-cipher"] : []
            let converted = try cipherctl(["export", file, copy, "--key-env", "K", "--to-key-env", "T", "--json"] + named,
                                          environment: ["K": source.key, "T": "sqlcipher 4 key"])
            XCTAssertEqual(converted.code, 0, "\(context): \(converted.stderr)")
            guard converted.code == 0 else { continue }
            let report = try jsonObject(converted.stdout)
            XCTAssertEqual(report["source_family"] as? String, "sqlcipher-other-cipher", context)
            let scheme = try XCTUnwrap(report["source_scheme"] as? [String: Any], context)
            XCTAssertEqual(scheme["cipher"] as? String, source.cipher, context)
            XCTAssertEqual(scheme["kdf_iter"] as? Int, source.version == 3 ? 64_000 : 4_000, context)
            XCTAssertEqual(scheme["page_size"] as? Int, source.pageSize, context)
            XCTAssertEqual(scheme["hmac_pgno"] as? String, source.version == 1 ? nil : source.bigEndian ? "be" : "le", context)
            XCTAssertEqual(scheme["hmac_salt_mask"] as? String, source.version == 1 ? nil : String(format: "%02x", source.mask), context)
            let copied = try sqlcipher(copy, "PRAGMA key = 'sqlcipher 4 key';" + Self.rowsSQL)
            XCTAssertEqual(copied.code, 0, "\(context): \(copied.stderr)")
            XCTAssertEqual(rows(copied.stdout), rows(read.stdout), "\(context): the SQLCipher 4 copy's rows")
            XCTAssertTrue(rows(read.stdout).hasSuffix("ok\n"), "\(context): \(read.stdout)")
            XCTAssertEqual(try fingerprint(file).0, before, "\(context): the source changed")
            XCTAssertEqual(try temporaryLeftovers(), [], context)
        }
    }

    /// SQLCipher 3.4.1's own AES-256-CBC files are still read as SQLCipher's (no other
    /// cipher is taken for theirs, though AES-256-CFB has the same HMAC key).
    func testASQLCipher3FileUnderAES256CBCStillExportsAsSQLCipher() throws {
        try requireOracle()
        for version in [2, 3] {
            let file = path("default\(version).db"), copy = path("copy\(version).db")
            try make(file, Source(cipher: "aes-256-cbc", version: version, pageSize: 1024, rows: 40))
            let converted = try cipherctl(["export", file, copy, "--key-env", "K", "--to-key-env", "T", "--json"], environment: ["K": "legacy key", "T": "t"])
            XCTAssertEqual(converted.code, 0, converted.stderr)
            XCTAssertEqual(try jsonObject(converted.stdout)["source_family"] as? String, "sqlcipher", "version \(version)")
        }
    }

    /// Every command names a SQLCipher 1 to 3 file under another cipher, at any page size and
    /// HMAC salt mask, with its cipher and `export` (exit 3), from the keys the format search
    /// derived. (An AES-256-CFB file even passes SQLCipher's own page-1 HMAC: the HMAC keys are
    /// alike.) The same file with a byte flipped in page 1 past the header's first block is
    /// damage to the schema (exit 4), not a wrong key. Nothing is written either way.
    func testEveryCommandNamesAnotherCiphersFileAndCallsItsDamagedPage1Damage() throws {
        try requireOracle()
        var (generator, seed) = SeededGenerator.forSweep("legacy cipher recognition", variable: "CIPHERCTL_LEGACY_NAMING_SEED")
        for index in 0..<sweepCases("CIPHERCTL_LEGACY_NAMING_CASES", quick: 4) {
            var source = randomSource(&generator)
            source.cipher = Self.ciphers[(index + Int(seed)) % Self.ciphers.count]
            source.pageSize = [1024, 2048, 4096, 8192].randomElement(using: &generator)!
            let file = path("named\(index).db"), context = "seed \(seed) case \(index) (\(source))"
            try make(file, source)
            let named = "is SQLCipher \(source.version) with PRAGMA cipher \(source.cipher)"
            try expectEveryCommand(on: file, key: source.key, exits: 3, saying: named, context)
            // The version's settings given derive the same key: the cipher is named as well.
            let pinned = try cipherctl(["open", file, "--key-env", "K", "--compat", "\(source.version)"], environment: ["K": source.key])
            XCTAssertEqual(pinned.code, 3, "\(context) --compat: \(pinned.stderr)")
            XCTAssertTrue(pinned.stderr.contains(named), "\(context) --compat: \(pinned.stderr)")
            guard source.version > 1 else { continue }
            var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            bytes[Int.random(in: 48..<(source.pageSize - 64), using: &generator)] ^= 0x10
            try bytes.write(to: URL(fileURLWithPath: file))
            try expectEveryCommand(on: file, key: source.key, exits: 4, saying: "is damaged: page 1 (the schema)", context + " page 1 damaged")
        }
    }

    /// A file under another cipher written with a `fast_kdf_iter` other than 2 (which is not
    /// read under other ciphers) is named so by every command (exit 3): page 2 fails its HMAC
    /// as page 1 does, which damage to page 1 would not do. It was called damaged (exit 4).
    func testAnotherCiphersFileUnderAnotherFastKDFCountIsNamedSoAndNotCalledDamaged() throws {
        try requireOracle()
        var (generator, seed) = SeededGenerator.forSweep("legacy cipher fast kdf", variable: "CIPHERCTL_LEGACY_NAMING_SEED")
        for index in 0..<sweepCases("CIPHERCTL_LEGACY_NAMING_CASES", quick: 2) {
            var source = randomSource(&generator)
            source.version = 3
            source.bigEndian = false
            let count = [1, 3, 4, 10, 50].randomElement(using: &generator)!
            let file = path("fastkdf\(index).db"), context = "seed \(seed) case \(index) (\(source), fast_kdf_iter \(count))"
            let made = try oracle(file, source.keySQL + " PRAGMA fast_kdf_iter = \(count); CREATE TABLE t(a, b); " +
                                  "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) INSERT INTO t SELECT i, randomblob(40) FROM n;")
            XCTAssertEqual(made.code, 0, "\(context): \(made.stderr)")
            let before = try fingerprint(file).0
            for words in [["open", file], ["query", file, "SELECT 1"], ["dump", file], ["rekey", file, "--new-key-env", "N"], ["export", file, path("out.db"), "--to-key-env", "N"]] {
                let result = try cipherctl(words + ["--key-env", "K"], environment: ["K": source.key, "N": "new key"])
                XCTAssertEqual(result.code, 3, "\(context) \(words[0]): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("written with a fast_kdf_iter other than 2"), "\(context) \(words[0]): \(result.stderr)")
            }
            XCTAssertEqual(try fingerprint(file).0, before, context)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.db")), context)
        }
    }

    /// A file under another cipher whose -wal still holds commits (SQLCipher 3.4.1 in WAL
    /// mode, copied before its close checkpoints them) is named by every command, not called
    /// a wrong key, and exports with those commits; the file and its -wal stay as they were.
    func testAWALFileUnderAnotherCipherIsNamedAndExportsWithTheCommitsItsWALHolds() throws {
        try requireOracle()
        var (generator, seed) = SeededGenerator.forSweep("legacy cipher WAL", variable: "CIPHERCTL_LEGACY_WAL_SEED")
        for index in 0..<sweepCases("CIPHERCTL_LEGACY_WAL_CASES", quick: 3) {
            let source = randomSource(&generator)
            let original = path("grown\(index).db"), file = path("wal\(index).db"), copy = path("walcopy\(index).db")
            let context = "seed \(seed) case \(index) (\(source))"
            try make(original, source)
            let grow = """
                PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; INSERT INTO t(a, b) VALUES (x'00', 'wal row');
                INSERT INTO t(a, b) SELECT a, b || 'w' FROM t WHERE id % 3 = 0; DELETE FROM t WHERE id % 5 = 0 AND b <> 'wal row';
                """
            let grown = try oracle(original, source.keySQL + grow, ".system cp '\(original)' '\(file)' && cp '\(original)-wal' '\(file)-wal'")
            XCTAssertEqual(grown.code, 0, "\(context): \(grown.stderr)")
            XCTAssertGreaterThan(try fingerprint(file + "-wal").0.count, 32, context)
            let read = try oracle(original, source.keySQL + Self.rowsSQL)
            let wal = try fingerprint(file + "-wal").0
            try expectEveryCommand(on: file, key: source.key, exits: 3, saying: "is SQLCipher \(source.version) with PRAGMA cipher \(source.cipher)", context)
            // With the version's compatibility given, its first open is no longer a search: it
            // must not get a connection either, whose failure would empty the -wal into the file.
            let pinned = index % 2 == 0 ? ["--compat", "\(source.version)"] : []
            let converted = try cipherctl(["export", file, copy, "--key-env", "K", "--to-key-env", "T"] + pinned, environment: ["K": source.key, "T": "sqlcipher 4 key"])
            XCTAssertEqual(converted.code, 0, "\(context) \(pinned): \(converted.stderr)")
            let copied = try sqlcipher(copy, "PRAGMA key = 'sqlcipher 4 key';" + Self.rowsSQL)
            XCTAssertEqual(rows(copied.stdout), rows(read.stdout), "\(context): the copy's rows")
            XCTAssertTrue(rows(read.stdout).contains("wal row"), "\(context): \(read.stdout)")
            XCTAssertEqual(try fingerprint(file + "-wal").0, wal, "\(context) \(pinned): the -wal changed")
            XCTAssertFalse(FileManager.default.fileExists(atPath: file + "-shm"), "\(context): a -shm beside the file")
        }
    }

    private func expectEveryCommand(on file: String, key: String, exits code: Int32, saying text: String, _ context: String) throws {
        let before = try fingerprint(file).0
        var commands = [["open", file], ["query", file, "SELECT 1"], ["dump", file], ["rekey", file, "--new-key-env", "N"]]
        // An intact file exports (the sweep above); a damaged one does not, the family named or not.
        if code == 4 {
            let export = ["export", file, path("out.db"), "--to-key-env", "N"]
            commands += [export, export + ["--from-family", "sqlcipher-other-cipher"]]
        }
        for words in commands {
            let result = try cipherctl(words + ["--key-env", "K"], environment: ["K": key, "N": "new key"])
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("cipherctl: error: ") }
            XCTAssertEqual(result.code, code, "\(context) \(words[0]): \(result.stderr)")
            XCTAssertEqual(errors.count, 1, "\(context) \(words[0]): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(text), "\(context) \(words[0]): \(result.stderr)")
            if code == 3 { XCTAssertTrue(result.stderr.contains("cipherctl export"), "\(context) \(words[0]): \(result.stderr)") }
        }
        XCTAssertEqual(try fingerprint(file).0, before, context)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.db")), context)
        XCTAssertEqual(try temporaryLeftovers(), [], context)
    }

    /// A wrong key exits 3 and writes nothing, the family named or not.
    func testAWrongKeyExits3AndWritesNothing() throws {
        try requireOracle()
        for (index, cipher) in Self.ciphers.enumerated() {
            let file = path("legacy\(index).db")
            try make(file, Source(cipher: cipher, version: index % 3 + 1, pageSize: 1024, rows: 20))
            for named in [[], ["--from-family", "sqlcipher-other-cipher"]] {
                let result = try cipherctl(["export", file, path("out.db"), "--key-env", "K", "--to-key-env", "T"] + named,
                                           environment: ["K": "not the key", "T": "t"])
                XCTAssertEqual(result.code, 3, "\(cipher) \(named): \(result.stderr)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.db")))
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    /// A byte flipped in page 2 fails its HMAC (SQLCipher 2 and 3): exit 4, nothing written.
    /// SQLCipher 1 has no HMAC: only damage SQLite's check of the plaintext sees is found, so
    /// there the byte is flipped in the block holding the page's b-tree header.
    func testAFlippedByteInPage2Exits4AndWritesNothing() throws {
        try requireOracle()
        for (index, cipher) in Self.ciphers.enumerated() {
            for version in [1, 2, 3] {
                let file = path("legacy\(index)\(version).db")
                try make(file, Source(cipher: cipher, version: version, pageSize: 1024, rows: 60))
                var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                bytes[1024 + (version == 1 ? 3 : 100)] ^= 0x01
                try bytes.write(to: URL(fileURLWithPath: file))
                let result = try cipherctl(["export", file, path("out.db"), "--key-env", "K", "--to-key-env", "T"],
                                           environment: ["K": "legacy key", "T": "t"])
                XCTAssertEqual(result.code, 4, "\(cipher) SQLCipher \(version): \(result.stderr)")
                // The scheme is named, and the hint sends the user to no command that refuses the file.
                XCTAssertTrue(result.stderr.contains("(SQLCipher \(version) with PRAGMA cipher \(cipher)"), result.stderr)
                XCTAssertTrue(result.stderr.contains("read SQLCipher's own formats only"), result.stderr)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.db")))
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    /// `--compat 1` to `3` names no cipher: export still finds the file's, and converts it.
    /// `--to-compat same` cannot keep a cipher SQLCipher 4 does not write: exit 2, no file.
    func testCompat1To3StillConvertsAndKeepingTheFormatIsRefused() throws {
        try requireOracle()
        let file = path("legacy.db")
        try make(file, Source(cipher: "aes-192-cbc", version: 2, pageSize: 4096, rows: 20))
        let environment = ["K": "legacy key", "T": "t"]
        let pinned = try cipherctl(["export", file, path("pinned.db"), "--key-env", "K", "--to-key-env", "T", "--compat", "2"], environment: environment)
        XCTAssertEqual(pinned.code, 0, pinned.stderr)
        XCTAssertEqual(try sqlcipherOK(path("pinned.db"), "PRAGMA key = 't'; SELECT count(*) FROM t;"), "ok\n20\n")
        let kept = try cipherctl(["export", file, path("kept.db"), "--key-env", "K", "--to-key-env", "T", "--to-compat", "same", "--json"], environment: environment)
        XCTAssertEqual(kept.code, 2, kept.stderr)
        XCTAssertEqual(try jsonObject(kept.stderr)["reason"] as? String, "format-not-kept", kept.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("kept.db")))
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    /// FIPS mode looks for none of these files: the family named is refused (exit 2,
    /// `fips-forbidden`) before any key is tried, and unnamed the file is taken for SQLCipher's and
    /// the key reported wrong (exit 3); a raw key
    /// for the named family is a usage error.
    func testFIPSModeAndARawKeyAreRefusedBeforeAnythingIsWritten() throws {
        try requireOracle()
        let file = path("legacy.db")
        try make(file, Source(cipher: "aes-128-cbc", version: 3, pageSize: 1024, rows: 5))
        let environment = ["K": "legacy key", "T": "t"]
        let named = try cipherctl(["export", file, path("out.db"), "--key-env", "K", "--to-key-env", "T", "--fips", "--json", "--from-family", "sqlcipher-other-cipher"],
                                  environment: environment)
        XCTAssertEqual(named.code, 2, named.stderr)
        XCTAssertEqual(try jsonObject(named.stderr)["reason"] as? String, "fips-forbidden", named.stderr)
        let unnamed = try cipherctl(["export", file, path("out.db"), "--key-env", "K", "--to-key-env", "T", "--fips"], environment: environment)
        XCTAssertEqual(unnamed.code, 3, unnamed.stderr)
        let raw = try cipherctl(["export", file, path("out.db"), "--key-env", "K", "--raw-key", "--to-key-env", "T", "--from-family", "sqlcipher-other-cipher"],
                                environment: ["K": String(repeating: "ab", count: 32), "T": "t"])
        XCTAssertEqual(raw.code, 2, raw.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["legacy.db"])
    }
}
