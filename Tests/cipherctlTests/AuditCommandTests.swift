import Foundation
import TestSupport
import XCTest

/// `cipherctl audit` over folders of mixed files: every file reported as its bytes show, the
/// findings the policy asks for and no others, nothing written, and no FIFO waited on.
final class AuditCommandTests: CLITestCase {
    private let rawKey = String(repeating: "ab", count: 32)
    private var keySQL: String { "PRAGMA key = \"x'\(rawKey)'\";" }
    private let policy = ["--max-mode", "600", "--forbid-plaintext", "--require-hmac", "--require-algorithm", "SHA512"]

    /// What one generated file must be reported as.
    private struct Expected {
        var kind: String
        var findings: Set<String>
    }

    /// The kinds of file the sweep draws from, each with how it is made and what it is.
    private enum Sample: CaseIterable {
        case v4, v4WAL, v3, noHMAC, plaintext, plaintextWAL, damagedPage1, otherKey, randomBytes, text, empty, short,
             damagedHeader, link, brokenLink, fifo, unreadable, leftovers, folderLink

        /// Whether a database file with this mode breaks `--max-mode 600`.
        var isDatabase: Bool {
            [.v4, .v4WAL, .v3, .noHMAC, .plaintext, .plaintextWAL, .damagedPage1, .otherKey, .randomBytes, .damagedHeader, .leftovers, .link]
                .contains(self)
        }
    }

    func testAuditOfSeveralHundredMixedFilesReportsEachAsItsBytesShowAndWritesNothing() throws {
        let (generator, seed) = SeededGenerator.forSweep("audit sweep", variable: "CIPHERCTL_AUDIT_SEED")
        var random = generator
        let count = sweepCases("CIPHERCTL_AUDIT_CASES", quick: 300)
        let templates = try makeTemplates()
        let root = path("fleet")
        try FileManager.default.createDirectory(atPath: path("targets"), withIntermediateDirectories: true)
        var expected: [String: Expected] = [:]
        for index in 0..<count {
            let folder = root + ["", "/a", "/a/b", "/c"].randomElement(using: &random)!
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let sample = Sample.allCases.randomElement(using: &random)!
            let mode = [0o600, 0o640, 0o644, 0o400].randomElement(using: &random)!
            let file = "\(folder)/f\(index)-\(sample).db"
            expected[file] = try make(sample, at: file, mode: mode, templates: templates, random: &random)
        }
        expected[root + "/locked"] = try makeUnreadableFolder(root + "/locked")
        try handOver(root)
        try handOver(path("targets"))
        let before = try tree(root)

        let result = try runAudit(["audit", "-r", root, "--key-env", "K", "--raw-key", "--json", "--jobs", "3"] + policy)
        XCTAssertFalse(result.timedOut, "audit blocked (seed \(seed))")
        XCTAssertEqual(result.code, 8, "seed \(seed): \(result.stderr)")
        let reports = try lines(result.stdout)
        XCTAssertEqual(reports.count - 1, expected.count, "seed \(seed): one line a file, and the summary")
        for report in reports.dropLast() {
            let path = try XCTUnwrap(report["path"] as? String)
            let want = try XCTUnwrap(expected[path], "seed \(seed): unexpected \(path)")
            let codes = Set((report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String })
            XCTAssertEqual(report["kind"] as? String, want.kind, "seed \(seed): \(path): \(report)")
            XCTAssertEqual(codes, want.findings, "seed \(seed): \(path): \(report)")
        }
        let summary = try XCTUnwrap(reports.last?["summary"] as? [String: Any])
        XCTAssertEqual(summary["files"] as? Int, expected.count)
        XCTAssertEqual(summary["with_findings"] as? Int, expected.values.filter { !$0.findings.isEmpty }.count)
        XCTAssertEqual(try tree(root), before, "seed \(seed): audit changed or created a file")
    }

    func testAuditOfALiveWALDatabaseReadsItsWALAndLeavesEveryFileAsItWas() throws {
        let db = try makeShellDatabase("live.db", key: "live key", rows: 50, extraSQL: "PRAGMA journal_mode = WAL;")
        let (holder, input) = try startShellHolding(db, "PRAGMA key = 'live key'; PRAGMA wal_autocheckpoint = 0; INSERT INTO items(name) VALUES ('in the wal');")
        defer { try? input.fileHandleForWriting.close(); holder.waitUntilExit() }
        let before = try tree(directory.path)
        let result = try cipherctl(["audit", db, "--key-env", "K", "--json", "--check"], environment: ["K": "live key"])
        XCTAssertEqual(result.code, 0, result.stderr)
        let report = try XCTUnwrap(try lines(result.stdout).first)
        XCTAssertEqual(report["opened"] as? Bool, true)
        XCTAssertEqual(report["journal_mode"] as? String, "wal")
        XCTAssertEqual(report["wal_file"] as? Bool, true)
        XCTAssertEqual(report["integrity_problems"] as? [String], [])
        XCTAssertEqual(try tree(directory.path), before)
    }

    func testAuditOfAClosedWALDatabaseCreatesNoWALOrShm() throws {
        let db = try makeShellDatabase("closed.db", key: "closed key", rows: 20, extraSQL: "PRAGMA journal_mode = WAL;")
        let plain = path("plain.db")
        try sqlcipherOK(plain, "PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let before = try tree(directory.path)
        let result = try cipherctl(["audit", db, plain, "--key-env", "K", "--json"], environment: ["K": "closed key"])
        XCTAssertEqual(result.code, 0, result.stderr)
        XCTAssertEqual(try lines(result.stdout).prefix(2).map { $0["journal_mode"] as? String }, ["wal", "wal"])
        XCTAssertEqual(try tree(directory.path), before, "no -wal or -shm beside either database")
    }

    func testAWriterHoldingTheFileIsWaitedForThenReportedBusyAndItsJournalIsNotHot() throws {
        let db = try makeShellDatabase("held.db", key: "held key", rows: 2000)
        let (holder, input) = try startShellHolding(db, "PRAGMA key = 'held key'; PRAGMA cache_size = 5; BEGIN; UPDATE items SET name = name || ' changed';")
        defer { try? input.fileHandleForWriting.close(); holder.waitUntilExit() }
        let started = Date()
        let result = try cipherctl(["audit", db, "--json", "--busy-timeout", "300"])
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.3, "waited for the writer first")
        XCTAssertEqual(result.code, 8, result.stderr)
        let report = try XCTUnwrap(try lines(result.stdout).first)
        XCTAssertEqual((report["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String }, ["busy"])
        XCTAssertEqual(report["hot_journal"] as? Bool, false, "a live writer's journal is not hot")
    }

    func testAHotJournalIsAFindingAndIsNotCheckedAsDamage() throws {
        let db = try makeShellDatabase("hot.db", key: "hot key", rows: 2000)
        try leaveHotJournal(db, key: "hot key")
        let before = try tree(directory.path)
        let result = try cipherctl(["audit", db, "--key-env", "K", "--check", "--json"], environment: ["K": "hot key"])
        XCTAssertEqual(result.code, 8, result.stderr)
        let report = try XCTUnwrap(try lines(result.stdout).first)
        XCTAssertEqual((report["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String }, ["hot-journal"])
        XCTAssertEqual(try tree(directory.path), before, "the journal is left for the next writer to roll back")
    }

    func testWeakPassphraseSettingsAreFindingsButARawKeyIsNotHeldToTheKDFPolicy() throws {
        let weak = try makeShellDatabase("weak.db", key: "weak key", rows: 5, extraSQL: "PRAGMA cipher_compatibility = 3;")
        let strong = try makeShellDatabase("strong.db", key: "weak key", rows: 5)
        let raw = path("raw.db")
        try sqlcipherOK(raw, "\(keySQL) PRAGMA kdf_iter = 1000; CREATE TABLE t(x);")
        let policy = ["--min-kdf-iter", "256000", "--require-algorithm", "SHA512", "--json"]
        let passphrase = try cipherctl(["audit", weak, strong, "--key-env", "K"] + policy, environment: ["K": "weak key"])
        XCTAssertEqual(passphrase.code, 8, passphrase.stderr)
        let reports = try lines(passphrase.stdout)
        XCTAssertEqual(Set((reports[0]["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []), ["kdf-iter", "algorithm"])
        XCTAssertEqual((reports[1]["findings"] as? [[String: Any]])?.count, 0)
        XCTAssertEqual(reports[0]["format"] as? String, "SQLCipher 3")
        let rawResult = try cipherctl(["audit", raw, "--key-env", "K", "--raw-key"] + policy, environment: ["K": rawKey])
        XCTAssertEqual(rawResult.code, 0, rawResult.stdout + rawResult.stderr)
        XCTAssertEqual(try lines(rawResult.stdout).first?["key_kind"] as? String, "raw-key")
    }

    func testPolicyThatNeedsSettingsWithoutAKeyAndAFolderWithoutRecursiveAreUsageErrors() throws {
        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: true)
        for arguments in [["audit", path("folder"), "--require-hmac"], ["audit", path("folder")], ["audit"], ["audit", path("x"), "--max-mode", "999"]] {
            let result = try cipherctl(arguments)
            XCTAssertEqual(result.code, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherctl: error: "), result.stderr)
        }
        let clean = try cipherctl(["audit", "-r", path("folder")])
        XCTAssertEqual(clean.code, 0, clean.stderr)
        XCTAssertTrue(clean.stdout.contains("0 files: none; 0 with findings"), clean.stdout)
    }

    func testALongAuditShowsProgressOnATerminal() throws {
        // A passphrase on random bytes searches every setting (most of a second each, in
        // C compiled with optimisation even in debug builds): four of them outlast the
        // counter's one-second delay.
        let randoms = try (1...4).map { index -> String in
            let random = path("random\(index).db")
            try Data((0..<8192).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: random))
            return random
        }
        let db = try makeShellDatabase("a.db", key: "progress key", rows: 5)
        let (code, screen) = try cipherctlOnTerminal(["audit"] + randoms + [db, "--key-env", "K", "--jobs", "1"], answers: [], environment: ["K": "progress key"])
        XCTAssertEqual(code, 8, screen)
        XCTAssertNotNil(screen.range(of: "auditing [1-4]/5 files", options: .regularExpression), screen)
        XCTAssertTrue(screen.contains("cannot-open"), screen)
    }

    // MARK: - The generated folder

    private struct Templates {
        let v4, v4WAL, v3, noHMAC, plaintext, plaintextWAL, otherKey: String
    }

    private func makeTemplates() throws -> Templates {
        try FileManager.default.createDirectory(atPath: path("templates"), withIntermediateDirectories: true)
        func make(_ name: String, _ sql: String) throws -> String {
            let file = path("templates/" + name)
            try sqlcipherOK(file, sql + " CREATE TABLE t(x, y); INSERT INTO t VALUES (1, randomblob(3000)), (2, 'two');")
            return file
        }
        return Templates(
            v4: try make("v4.db", keySQL),
            v4WAL: try make("v4wal.db", keySQL + " PRAGMA journal_mode = WAL;"),
            v3: try make("v3.db", keySQL + " PRAGMA cipher_compatibility = 3;"),
            noHMAC: try make("v1.db", keySQL + " PRAGMA cipher_compatibility = 1;"),
            plaintext: try make("plain.db", ""),
            plaintextWAL: try make("plainwal.db", "PRAGMA journal_mode = WAL;"),
            otherKey: try make("other.db", "PRAGMA key = \"x'\(String(repeating: "cd", count: 32))'\";"))
    }

    /// Makes `sample` at `file` with `mode`; returns what audit must say of it.
    private func make(_ sample: Sample, at file: String, mode: Int, templates: Templates, random: inout SeededGenerator) throws -> Expected {
        let manager = FileManager.default
        let loose = sample.isDatabase && mode & ~0o600 != 0 ? ["mode"] : [String]()
        func copy(_ template: String) throws { try manager.copyItem(atPath: template, toPath: file) }
        func bytes(_ data: [UInt8]) throws { try Data(data).write(to: URL(fileURLWithPath: file)) }
        var expected: Expected
        switch sample {
        case .v4: try copy(templates.v4); expected = Expected(kind: "sqlcipher", findings: [])
        case .v4WAL: try copy(templates.v4WAL); expected = Expected(kind: "sqlcipher", findings: [])
        case .v3: try copy(templates.v3); expected = Expected(kind: "sqlcipher", findings: ["algorithm"])
        case .noHMAC: try copy(templates.noHMAC); expected = Expected(kind: "sqlcipher", findings: ["no-hmac"])
        case .plaintext: try copy(templates.plaintext); expected = Expected(kind: "plaintext", findings: ["plaintext"])
        case .plaintextWAL: try copy(templates.plaintextWAL); expected = Expected(kind: "plaintext", findings: ["plaintext"])
        case .otherKey: try copy(templates.otherKey); expected = Expected(kind: "encrypted", findings: ["cannot-open"])
        case .randomBytes: try bytes((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) }); expected = Expected(kind: "encrypted", findings: ["cannot-open"])
        case .damagedPage1:
            var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: templates.v4)))
            data[200 + Int.random(in: 0..<3000, using: &random)] ^= 0x40
            try bytes(data)
            expected = Expected(kind: "sqlcipher", findings: ["damaged"])
        case .damagedHeader:
            var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: templates.plaintext)))
            data[16] = 0x03  // a page size that is no power of two
            data[17] = 0x01
            try bytes(data)
            expected = Expected(kind: "not-a-database", findings: ["damaged"])
        case .text: try bytes(Array(String(repeating: "a line of text\n", count: 50).utf8)); expected = Expected(kind: "not-a-database", findings: [])
        case .empty: try bytes([]); expected = Expected(kind: "empty", findings: [])
        case .short: try bytes((0..<100).map { _ in UInt8.random(in: 0...255, using: &random) }); expected = Expected(kind: "not-a-database", findings: [])
        case .link:
            // The target lies outside the audited folder, so it is reported once, through the link.
            let target = path("targets/" + UUID().uuidString + ".db")
            try manager.copyItem(atPath: templates.v4, toPath: target)
            chmod(target, mode_t(mode))
            try manager.createSymbolicLink(atPath: file, withDestinationPath: target)
            return Expected(kind: "sqlcipher", findings: Set(loose))
        case .brokenLink:
            try manager.createSymbolicLink(atPath: file, withDestinationPath: "nowhere-\(UUID().uuidString)")
            return Expected(kind: "missing", findings: ["missing"])
        case .folderLink:
            try manager.createSymbolicLink(atPath: file, withDestinationPath: ".")
            return Expected(kind: "not-a-regular-file", findings: [])
        case .fifo:
            XCTAssertEqual(mkfifo(file, mode_t(mode)), 0)
            return Expected(kind: "not-a-regular-file", findings: [])
        case .unreadable:
            try copy(templates.v4)
            chmod(file, 0)
            return Expected(kind: "unreadable", findings: ["unreadable"])
        case .leftovers:
            try copy(templates.v4)
            try Data().write(to: URL(fileURLWithPath: file + ".cipherctl-tmp-2147483647-x1"))
            expected = Expected(kind: "sqlcipher", findings: ["leftovers"])
        }
        chmod(file, mode_t(mode))
        expected.findings.formUnion(loose)
        return expected
    }

    /// A folder audit cannot list, with a database in it.
    private func makeUnreadableFolder(_ folder: String) throws -> Expected {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(repeating: 1, count: 4096).write(to: URL(fileURLWithPath: folder + "/inside.db"))
        chmod(folder, 0)
        return Expected(kind: "unreadable", findings: ["unreadable"])
    }

    /// Under root, gives the tree to `nobody`, as whom audit then runs: root reads anything.
    private func handOver(_ root: String) throws {
        guard getuid() == 0 else { return }
        _ = try sh("chown -hR 65534:65534 '\(root)'")
    }

    /// Runs cipherctl as `nobody` under root, else as this user; stops it after two minutes.
    private func runAudit(_ arguments: [String]) throws -> CommandResult {
        try cipherctlAsNobody(arguments, environment: ["K": rawKey], timeout: 120)
    }

    /// Every name under `root` with its type, mode, size, modification time and bytes.
    private func tree(_ root: String) throws -> [String: String] {
        let listing = try sh("cd '\(root)' && find . -printf '%p %y %m %s %T@\\n' 2>/dev/null | sort; find . -type f -perm -u+r -exec sha1sum {} + 2>/dev/null | sort")
        var result: [String: String] = [:]
        for (index, line) in listing.stdout.split(separator: "\n").enumerated() { result["\(index)"] = String(line) }
        return result
    }

    private func lines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { try jsonObject(String($0)) }
    }
}
