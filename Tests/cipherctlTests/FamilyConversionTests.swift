import Foundation
import TestSupport
import XCTest

/// `export` between SQLite3 Multiple Ciphers' ChaCha20 scheme and SQLCipher, with that library
/// itself (the pinned apsw-sqlite3mc wheel in .build-interop) as the oracle: it writes the
/// sources and reads the ChaCha20 copies, the sqlcipher shell reads the SQLCipher ones, and
/// both must give the source's rows.
final class FamilyConversionTests: CLITestCase {
    private typealias Scheme = MultipleCiphersScheme

    private func requireOracle() throws { try requireMultipleCiphersOracle() }

    private func rowsByOracle(_ database: String, _ scheme: Scheme, _ context: String) throws -> String {
        try rowsByMultipleCiphers(database, scheme, context)
    }

    private func randomScheme(_ generator: inout SeededGenerator) -> Scheme {
        var scheme = Scheme()
        scheme.legacy = Bool.random(using: &generator) ? 1 : 0
        scheme.pageSize = (scheme.legacy == 1 ? [1024, 4096, 8192] : [512, 1024, 4096, 8192, 65536]).randomElement(using: &generator)!
        // Legacy mode is sqleet's, whose KDF count SQLite3 Multiple Ciphers fixes at 12345.
        scheme.kdfIter = scheme.legacy == 1 || Bool.random(using: &generator) ? nil : 1000
        scheme.raw = Int.random(in: 0..<3, using: &generator) == 0
        scheme.key = scheme.raw ? (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined() : "key \(generator.next() % 1000)"
        scheme.rows = [-1, 0, 1, Int.random(in: 2...120, using: &generator)].randomElement(using: &generator)!
        scheme.seed = generator.next()
        return scheme
    }

    /// The key options that read the scheme's file: its key, whether raw, its KDF count, and
    /// for a legacy file (which looks random) its family and page size, unless they are sqleet's.
    private func sourceOptions(_ scheme: Scheme) -> [String] {
        var options = ["--key-env", "K"] + (scheme.raw ? ["--raw-key"] : []) + (scheme.kdfIter.map { ["--kdf-iter", String($0)] } ?? [])
        // sqleet's own settings are found with the key alone; others are named.
        if scheme.legacy == 1, scheme.pageSize != 4096 || scheme.seed % 2 == 0 {
            options += ["--from-family", "chacha20", "--page-size", String(scheme.pageSize)]
        }
        return options
    }

    func testEveryChaCha20FileSQLite3MultipleCiphersWritesConvertsToSQLCipherAndBackWithTheSameRows() throws {
        try requireOracle()
        var (generator, seed) = SeededGenerator.forSweep("family conversion", variable: "CIPHERCTL_CONVERT_SEED")
        for index in 0..<sweepCases("CIPHERCTL_CONVERT_CASES", quick: 10) {
            let scheme = randomScheme(&generator)
            let context = "seed \(seed) case \(index) (\(scheme))"
            let source = path("mc\(index).db"), sqlcipherCopy = path("sc\(index).db"), back = path("back\(index).db")
            let made = try multipleCiphers("make", source, scheme)
            XCTAssertEqual(made.code, 0, "\(context): \(made.stderr)")
            let rows = try rowsByOracle(source, scheme, context)
            let before = try fingerprint(source).0

            let keys = ["K": scheme.key, "T": "sqlcipher side key"]
            let converted = try cipherctl(["export", source, sqlcipherCopy, "--to-key-env", "T"] + sourceOptions(scheme), environment: keys)
            XCTAssertEqual(converted.code, 0, "\(context): \(converted.stderr)")
            XCTAssertEqual(try rowsByShell(sqlcipherCopy, key: "sqlcipher side key", table: scheme.rows >= 0), rows, "\(context): the SQLCipher copy's rows")
            XCTAssertEqual(try fingerprint(source).0, before, "\(context): the source changed")

            var backScheme = Scheme(legacy: 0, pageSize: scheme.pageSize, kdfIter: scheme.kdfIter, key: scheme.key, raw: scheme.raw)
            backScheme.rows = scheme.rows
            let toOptions = ["--to-key-env", "K", "--to-family", "chacha20"] + (scheme.raw ? ["--to-raw-key"] : [])
                + (scheme.kdfIter.map { ["--to-kdf-iter", String($0)] } ?? [])
            let returned = try cipherctl(["export", sqlcipherCopy, back, "--key-env", "T"] + toOptions, environment: keys)
            XCTAssertEqual(returned.code, 0, "\(context): \(returned.stderr)")
            XCTAssertEqual(try rowsByOracle(back, backScheme, context), rows, "\(context): the ChaCha20 copy's rows")
            XCTAssertEqual(try temporaryLeftovers(), [], context)
        }
    }

    func testAWrongKeyExits3AndLeavesNoFileInEitherDirection() throws {
        try requireOracle()
        let source = path("mc.db")
        XCTAssertEqual(try multipleCiphers("make", source, Scheme()).code, 0)
        let wrong = try cipherctl(["export", source, path("out.db"), "--key-env", "K", "--to-key-env", "T"], environment: ["K": "not the key", "T": "t"])
        XCTAssertEqual(wrong.code, 3, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("wrong key") && wrong.stderr.contains("ChaCha20"), wrong.stderr)
        let own = try makeShellDatabase("own.db", key: "own key", rows: 3)
        let wrongOwn = try cipherctl(["export", own, path("out.db"), "--key-env", "K", "--to-key-env", "T", "--to-family", "chacha20"],
                                     environment: ["K": "not the key", "T": "t"])
        XCTAssertEqual(wrongOwn.code, 3, wrongOwn.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["mc.db", "own.db"])
    }

    /// FIPS mode runs no ChaCha20: a conversion either way is refused (exit 2,
    /// `fips-forbidden`) before anything is written, and `open` does not try the file.
    func testFIPSModeRefusesAChaCha20ConversionEitherWayAndWritesNothing() throws {
        try requireOracle()
        let source = path("mc.db")
        XCTAssertEqual(try multipleCiphers("make", source, Scheme()).code, 0)
        let own = try makeShellDatabase("own.db", key: "own key", rows: 3)
        let environment = ["K": Scheme().key, "O": "own key", "T": "t"]
        let from = try cipherctl(["export", source, path("out.db"), "--key-env", "K", "--to-key-env", "T", "--fips", "--json"], environment: environment)
        let to = try cipherctl(["export", own, path("out.db"), "--key-env", "O", "--to-key-env", "T", "--to-family", "chacha20", "--fips", "--json"],
                               environment: environment)
        for result in [from, to] {
            XCTAssertEqual(result.code, 2, result.stderr)
            XCTAssertEqual(try jsonObject(result.stderr)["reason"] as? String, "fips-forbidden", result.stderr)
        }
        let opened = try cipherctl(["open", source, "--key-env", "K", "--fips"], environment: environment)
        XCTAssertEqual(opened.code, 3, opened.stderr)
        XCTAssertFalse(opened.stderr.contains("which the key opens"), opened.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["mc.db", "own.db"])
    }

    /// A conversion holds the database in memory whole: a source larger than three times
    /// the memory available (here a sparse 4 TiB file) is refused before it is read, exit 5,
    /// `insufficient-memory`, and nothing is written, either way.
    func testASourceTooLargeForMemoryIsRefusedBeforeItIsReadEitherWay() throws {
        try requireOracle()
        let source = path("mc.db")
        XCTAssertEqual(try multipleCiphers("make", source, Scheme()).code, 0)
        let own = try makeShellDatabase("own.db", key: "own key", rows: 3)
        for file in [source, own] { XCTAssertEqual(truncate(file, 1 << 42), 0) }
        let environment = ["K": Scheme().key, "O": "own key", "T": "t"]
        let from = try cipherctl(["export", source, path("out.db"), "--key-env", "K", "--to-key-env", "T", "--json"], environment: environment)
        let to = try cipherctl(["export", own, path("out.db"), "--key-env", "O", "--to-key-env", "T", "--to-family", "chacha20", "--json"],
                               environment: environment)
        for result in [from, to] {
            XCTAssertEqual(result.code, 5, result.stderr)
            XCTAssertEqual(try jsonObject(result.stderr)["reason"] as? String, "insufficient-memory", result.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["mc.db", "own.db"])
    }

    /// A page whose tag fails is named and the export ends with exit 4 (damage) and no file;
    /// so is a damaged first page, whose key the later pages' tags prove.
    func testADamagedPageIsNamedAndLeavesNoFile() throws {
        try requireOracle()
        let source = path("mc.db")
        XCTAssertEqual(try multipleCiphers("make", source, Scheme(rows: 60)).code, 0)
        for page in [3, 1] {
            let damaged = path("damaged\(page).db")
            var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
            bytes[(page - 1) * 4096 + 200] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: damaged))
            let result = try cipherctl(["export", damaged, path("out.db"), "--key-env", "K", "--to-key-env", "T"], environment: ["K": Scheme().key, "T": "t"])
            XCTAssertEqual(result.code, 4, result.stderr)
            XCTAssertTrue(result.stderr.contains("page \(page)"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.db")))
        }
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    /// Cut short at a whole page: every page left passes its tag, and SQLite meets the missing
    /// ones while the rows are copied. The damage is the source's, named with its scheme, not
    /// the temporary copy's (which the hint then named too).
    func testATruncatedSourceIsNamedAsDamagedNotItsTemporaryCopy() throws {
        try requireOracle()
        let source = path("mc.db")
        XCTAssertEqual(try multipleCiphers("make", source, Scheme(rows: 300)).code, 0)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: source)[.size] as? Int)
        try FileHandle(forWritingTo: URL(fileURLWithPath: source)).truncate(atOffset: UInt64(size / 4096 / 2 * 4096))
        let result = try cipherctl(["export", source, path("out.db"), "--key-env", "K", "--to-key-env", "T"], environment: ["K": Scheme().key, "T": "t"])
        XCTAssertEqual(result.code, 4, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: '\(source)' (ChaCha20"), result.stderr)
        XCTAssertFalse(result.stderr.contains("cipherctl-tmp"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.db")))
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    /// Both directions under a file-size limit: exit 5, no destination, no temporary file.
    func testAConversionThatRunsOutOfSpaceLeavesNothingBehind() throws {
        try requireOracle()
        let source = path("mc.db")
        XCTAssertEqual(try multipleCiphers("make", source, Scheme(rows: 400)).code, 0)
        let own = try makeShellDatabase("own.db", key: "own key", rows: 4000)
        let runs = [
            ["export", source, path("out.db"), "--key-env", "K", "--to-key-env", "T"],
            ["export", own, path("out.db"), "--key-env", "T", "--to-key-env", "K", "--to-family", "chacha20"],
        ]
        for arguments in runs {
            let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
            let result = try run("/bin/bash", ["-c", "ulimit -f 64 && exec \"$CIPHERCTL\" \(quoted)"], stdin: nil,
                                 environment: ["K": Scheme().key, "T": "own key", "CIPHERCTL": Self.binary])
            XCTAssertFalse(result.signaled, result.stderr)
            XCTAssertEqual(result.code, 5, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: ran out of space writing '\(path("out.db"))'"), result.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["mc.db", "own.db"])
        }
    }

    /// With no standard output, a conversion is done, says the change stands, and exits 7, in both directions.
    func testAConversionWithStandardOutputClosedIsDoneAndExits7() throws {
        try requireOracle()
        let source = path("mc.db")
        XCTAssertEqual(try multipleCiphers("make", source, Scheme()).code, 0)
        let runs = [
            ("out.db", "'\(source)' '\(path("out.db"))' --key-env K --to-key-env T"),
            ("back.db", "'\(path("out.db"))' '\(path("back.db"))' --key-env T --to-key-env K --to-family chacha20"),
        ]
        for (made, arguments) in runs {
            let result = try sh("\"$CIPHERCTL\" export \(arguments) >&-", environment: ["K": Scheme().key, "T": "t"])
            XCTAssertEqual(result.code, 7, result.stderr)
            XCTAssertTrue(result.stderr.contains("the change itself was made"), result.stderr)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path(made)), made)
        }
        XCTAssertEqual(try rowsByOracle(path("back.db"), Scheme(), "closed output"), try rowsByOracle(source, Scheme(), "closed output"))
        XCTAssertEqual(try temporaryLeftovers(), [])
    }

    /// `open` and `audit` with the key of a ChaCha20 file name the scheme the key opens; open still exits 3
    /// (SQLCipher cannot read it); a wrong key gets what the bytes alone show.
    func testOpenAndAuditWithTheKeyOfAChaCha20FileNameTheSchemeTheKeyOpens() throws {
        try requireOracle()
        let source = path("mc.db")
        XCTAssertEqual(try multipleCiphers("make", source, Scheme(kdfIter: 1000)).code, 0)
        let opened = try cipherctl(["open", source, "--key-env", "K", "--kdf-iter", "1000"], environment: ["K": Scheme().key])
        XCTAssertEqual(opened.code, 3, opened.stderr)
        XCTAssertTrue(opened.stderr.contains("ChaCha20-Poly1305, kdf_iter 1000, page size 4096, which the key opens"), opened.stderr)
        XCTAssertTrue(opened.stderr.contains("hint: a ChaCha20, wxSQLite3 AES, RC4 or SQLite3 Multiple Ciphers SQLCipher-scheme file converts"), opened.stderr)
        let audit = try jsonObject(String(try cipherctl(["audit", source, "--key-env", "K", "--kdf-iter", "1000", "--json"], environment: ["K": Scheme().key])
            .stdout.split(separator: "\n").first ?? ""))
        XCTAssertEqual(audit["problem"] as? String, "SQLCipher cannot read it: ChaCha20-Poly1305, kdf_iter 1000, page size 4096, which the key opens")
        let wrong = try cipherctl(["open", source, "--key-env", "K"], environment: ["K": "not the key"])
        XCTAssertEqual(wrong.code, 3, wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("which the key opens"), wrong.stderr)
    }

    /// How many times the busiest thread of an uninterrupted run calls `syscall`.
    private func callCount(_ syscall: String, _ arguments: [String], environment: [String: String], removing made: String) throws -> Int {
        let trace = path("calls.trace")
        let result = try run("/usr/bin/strace", ["-f", "-qq", "-o", trace, "-e", "trace=" + syscall, Self.binary] + arguments, stdin: nil,
                             environment: tracedEnvironment(environment))
        XCTAssertEqual(result.code, 0, result.stderr)
        try FileManager.default.removeItem(atPath: made)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        try FileManager.default.removeItem(atPath: trace)
        return Dictionary(grouping: lines, by: { $0.split(separator: " ").first ?? "" }).values.map(\.count).max() ?? 0
    }

    /// Killed at each write and each fsync, in both directions: the destination is absent, or
    /// whole (killed after the rename) with every row; a rerun after a kill that left none
    /// writes it, and nothing is left beside it.
    func testAConversionKilledAtAnyWriteOrSyncLeavesNoPartialDestination() throws {
        try requireOracle()
        try requireStrace()
        let source = path("mc.db")
        XCTAssertEqual(try multipleCiphers("make", source, Scheme(rows: 40)).code, 0)
        let rows = try rowsByOracle(source, Scheme(), "kill")
        let keys = ["K": Scheme().key, "T": "kill side key"]
        XCTAssertEqual(try cipherctl(["export", source, path("own.db"), "--key-env", "K", "--to-key-env", "T"], environment: keys).code, 0)
        let runs: [(arguments: [String], made: String, read: (String) throws -> String)] = [
            (["export", source, path("sc.db"), "--key-env", "K", "--to-key-env", "T"], path("sc.db"),
             { try self.rowsByShell($0, key: "kill side key", table: true) }),
            (["export", path("own.db"), path("back.db"), "--key-env", "T", "--to-key-env", "K", "--to-family", "chacha20"], path("back.db"),
             { try self.rowsByOracle($0, Scheme(), "kill") }),
        ]
        for run in runs {
            for syscall in ["pwrite64", "write", "fsync"] {
                let calls = try callCount(syscall, run.arguments, environment: keys, removing: run.made)
                for call in 0..<calls {
                    let place = "\(run.arguments[1]) killed at \(syscall) \(call + 1) of \(calls)"
                    let killed = try self.run("/usr/bin/strace", ["-f", "-qq", "-o", "/dev/null", "-e", "inject=\(syscall):signal=KILL:when=\(call + 1)", Self.binary]
                                              + run.arguments, stdin: nil, environment: tracedEnvironment(keys), timeout: 120)
                    if FileManager.default.fileExists(atPath: run.made) {
                        XCTAssertEqual(try run.read(run.made), rows, place)
                    } else {
                        XCTAssertEqual(try cipherctl(run.arguments, environment: keys).code, 0, place + ": " + killed.stderr)
                        XCTAssertEqual(try run.read(run.made), rows, place)
                    }
                    XCTAssertEqual(try temporaryLeftovers(), [], place)
                    try FileManager.default.removeItem(atPath: run.made)
                }
            }
        }
    }

    /// A ChaCha20 destination takes only the settings the scheme has, and a key: anything else is a usage error before any key is read.
    func testAChaCha20DestinationRefusesSettingsItHasNotAndNoKey() throws {
        let own = try makeShellDatabase("own.db", key: "own key", rows: 3)
        for extra in [["--to-hmac-algorithm", "SHA1"], ["--to-compat", "same"], ["--to-salt=" + String(repeating: "ab", count: 16)]] {
            let result = try cipherctl(["export", own, path("mc.db"), "--key-env", "K", "--to-key-env", "K", "--to-family", "chacha20"] + extra, environment: ["K": "own key"])
            XCTAssertEqual(result.code, 2, "\(extra): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: --to-family chacha20 takes no destination cipher options but --to-kdf-iter and --to-page-size"), result.stderr)
        }
        let plaintext = try cipherctl(["export", own, path("mc.db"), "--key-env", "K", "--plaintext", "--to-family", "chacha20"], environment: ["K": "own key"])
        XCTAssertEqual(plaintext.code, 2, plaintext.stderr)
        let unknown = try cipherctl(["export", own, path("mc.db"), "--key-env", "K", "--to-key-env", "K", "--to-family", "rc4"], environment: ["K": "own key"])
        XCTAssertEqual(unknown.code, 2, unknown.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["own.db"])
    }

    /// A ChaCha20 file in WAL mode converts into a SQLCipher copy in WAL mode, and one whose
    /// WAL still holds a commit converts with it, the source and its -wal as they were
    /// (`ForeignWALConversionTests` sweeps every family).
    func testAWALSourceKeepsItsModeAndTheCommitInItsWALIsCopied() throws {
        try requireOracle()
        let clean = path("clean.db"), busy = path("busy.db")
        let program = """
            import sys, shutil, apsw
            c = apsw.Connection(sys.argv[1])
            for s in ["PRAGMA cipher = 'chacha20'", "PRAGMA key = 'wal key'", "PRAGMA journal_mode = WAL", "CREATE TABLE t(x)", "INSERT INTO t VALUES (1)"]:
                list(c.execute(s))
            c.wal_autocheckpoint(0) if hasattr(c, "wal_autocheckpoint") else None
            list(c.execute("INSERT INTO t VALUES (2)"))
            shutil.copyfile(sys.argv[1], sys.argv[2]); shutil.copyfile(sys.argv[1] + "-wal", sys.argv[2] + "-wal")
            c.close()
            """
        let made = try run(Self.multipleCiphersPython, ["-c", program, clean, busy], stdin: nil, environment: [:])
        XCTAssertEqual(made.code, 0, made.stderr)
        for (source, copy) in [(clean, path("copy.db")), (busy, path("busycopy.db"))] {
            let before = try fingerprint(source).0
            let converted = try cipherctl(["export", source, copy, "--key-env", "K", "--to-key-env", "K"], environment: ["K": "wal key"])
            XCTAssertEqual(converted.code, 0, converted.stderr)
            XCTAssertEqual(try sqlcipherOK(copy, "PRAGMA key = 'wal key'; PRAGMA journal_mode; SELECT count(*) FROM t;"), "ok\nwal\n2\n")
            XCTAssertEqual(try fingerprint(source).0, before)
        }
    }
}
