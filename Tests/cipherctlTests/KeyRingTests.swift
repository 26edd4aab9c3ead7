import Foundation
import TestSupport
import XCTest

/// `--key-ring FILE`: generated rings of keys in every encoding and from every source, over
/// databases each under one of them (or none): `open`, `query`, `audit` and a `rekey` batch
/// must each name the entry that opens each file, and never print a key. A line may declare
/// several encodings, each then tried. The seed replays a run.
final class KeyRingTests: CLITestCase {
    private struct RingKey {
        let label: String
        let secret: String
        let encoding: String
        /// The SQL that keys the sqlcipher shell with it.
        var keySQL: String { encoding == "raw" ? "PRAGMA key = \"x'\(secret)'\";" : "PRAGMA key = '\(secret)';" }
        /// What the ring's source gives: a passphrase, its hex, or the raw key's digits.
        var ringBytes: String { encoding == "hex" ? Data(secret.utf8).map { String(format: "%02x", $0) }.joined() : secret }
    }

    /// A ring of `count` keys in random encodings, written with each source kind, in a random
    /// order among comments; the environment its env: entries read.
    private func makeRing(_ count: Int, using generator: inout SeededGenerator) throws -> ([RingKey], [String: String]) {
        var keys: [RingKey] = [], lines = ["# label  source  encoding", ""], environment: [String: String] = [:]
        for index in 0..<count {
            let encoding = ["passphrase", "hex", "raw"].randomElement(using: &generator)!
            let secret = encoding == "raw" ? (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
                : "ring key \(index) " + String(UInt64.random(in: 0...UInt64.max, using: &generator), radix: 36)
            let key = RingKey(label: "key-\(index)", secret: secret, encoding: encoding)
            let source: String
            switch Int.random(in: 0...2, using: &generator) {
            case 0:
                environment["RING_\(index)"] = key.ringBytes
                source = "env:RING_\(index)"
            case 1: source = "file:" + (try writeFile("ring-\(index).key", key.ringBytes + "\n"))
            default: source = "cmd:cat '" + (try writeFile("ring-\(index).cmdkey", key.ringBytes)) + "'"
            }
            keys.append(key)
            // The encoding given, left out (a passphrase), or among others, each then tried.
            let others = ["passphrase", "hex", "raw"].filter { $0 != encoding }.shuffled(using: &generator).prefix(Int.random(in: 1...2, using: &generator))
            let declared = switch Int.random(in: 0...2, using: &generator) {
            case 0: encoding == "passphrase" ? "" : "  \(encoding)"
            case 1: "  " + ([encoding] + others).shuffled(using: &generator).joined(separator: ",")
            default: "  \(encoding)"
            }
            lines.append("\(key.label)  \(source)" + declared)
        }
        try writeFile("fleet.ring", lines.shuffled(using: &generator).joined(separator: "\n") + "\n")
        return (keys, environment)
    }

    func testEveryFileIsOpenedAuditedAndRotatedByTheRingEntryThatOpensIt() throws {
        var (generator, seed) = SeededGenerator.forSweep("key ring", variable: "CIPHERCTL_RING_SEED")
        let (keys, environment) = try makeRing(Int.random(in: 2...4, using: &generator), using: &generator)
        try FileManager.default.createDirectory(atPath: path("fleet"), withIntermediateDirectories: false)
        var owners: [String: RingKey] = [:]
        for index in 0..<sweepCases("CIPHERCTL_RING_CASES", quick: 5) {
            let key = keys.randomElement(using: &generator)!
            let database = path("fleet/db\(index).db")
            try sqlcipherOK(database, key.keySQL + "\nCREATE TABLE t(x); INSERT INTO t VALUES (\(index));")
            owners[database] = key
        }
        let stranger = path("fleet/stranger.db")
        try sqlcipherOK(stranger, "PRAGMA key = 'no ring key';\nCREATE TABLE t(x);")
        let secrets = keys.flatMap { [$0.secret, $0.ringBytes] } + ["no ring key"]
        let label = "seed \(seed)"

        for (database, key) in owners.sorted(by: { $0.key < $1.key }) {
            let opened = try cipherctl(["open", database, "--key-ring", path("fleet.ring"), "--json"], environment: environment)
            XCTAssertEqual(opened.code, 0, "\(label) \(database): \(opened.stderr)")
            XCTAssertEqual(try jsonObject(opened.stdout)["key_label"] as? String, key.label, label)
            XCTAssertFalse(secrets.contains { opened.allOutput.contains($0) }, "\(label): a key was printed")
        }
        for (database, key) in owners.sorted(by: { $0.key < $1.key }).shuffled(using: &generator).prefix(2) {
            let queried = try cipherctl(["query", database, "--key-ring", path("fleet.ring"), "--format", "value", "SELECT x FROM t"], environment: environment)
            XCTAssertEqual(queried.code, 0, "\(label) query \(database): \(queried.stderr)")
            XCTAssertEqual(queried.stdout, String(database.split(separator: "/").last!.dropFirst(2).dropLast(3)) + "\n", label)
            XCTAssertTrue(queried.stderr.contains("'\(key.label)'"), "\(label) query names the entry: \(queried.stderr)")
            XCTAssertFalse(secrets.contains { queried.allOutput.contains($0) }, "\(label): query printed a key")
            // A statement that fails still names the entry whose key opened the file.
            let failed = try cipherctl(["query", database, "--key-ring", path("fleet.ring"), "--json", "--format", "json", "SELECT nosuch FROM t"], environment: environment)
            XCTAssertEqual(failed.code, 1, "\(label): \(failed.stderr)")
            XCTAssertEqual(try jsonObject(String(failed.stderr.split(separator: "\n").last ?? ""))["key_label"] as? String, key.label, label)
        }
        let refused = try cipherctl(["open", stranger, "--key-ring", path("fleet.ring")], environment: environment)
        XCTAssertEqual(refused.code, 3, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("none of the key ring's ") && refused.stderr.contains("opens it"), refused.stderr)

        let audit = try cipherctl(["audit", "-r", path("fleet"), "--key-ring", path("fleet.ring"), "--json"], environment: environment)
        XCTAssertEqual(audit.code, 8, "\(label): the stranger is a finding: \(audit.stderr)")
        let lines = audit.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        for line in lines where line["path"] != nil {
            let file = URL(fileURLWithPath: line["path"] as! String).standardizedFileURL.path
            XCTAssertEqual(line["key_label"] as? String, owners[file]?.label, "\(label) audit of \(file)")
        }
        XCTAssertFalse(secrets.contains { audit.allOutput.contains($0) }, "\(label): audit printed a key")

        let databases = owners.keys.sorted()
        let rotated = try cipherctl(["rekey"] + databases + ["--key-ring", path("fleet.ring"), "--new-key-env", "NEW", "--json"],
                                    environment: environment.merging(["NEW": "the new fleet key"]) { $1 })
        XCTAssertEqual(rotated.code, 0, "\(label): \(rotated.stderr)")
        let summary = try XCTUnwrap(try jsonObject(String(rotated.stdout.split(separator: "\n").last ?? ""))["summary"] as? [String: Any])
        var expected: [String: Int] = [:]
        for key in owners.values { expected[key.label, default: 0] += 1 }
        XCTAssertEqual(summary["key_labels"] as? [String: Int], expected, label)
        XCTAssertEqual(summary["rekeyed"] as? Int, databases.count, label)
        for (database, _) in owners {
            XCTAssertEqual(try sqlcipher(database, "PRAGMA key = 'the new fleet key';\nSELECT count(*) FROM t;").stdout, "ok\n1\n", "\(label) \(database)")
        }
        let again = try cipherctl(["rekey"] + databases + ["--key-ring", path("fleet.ring"), "--new-key-env", "NEW", "--json"],
                                  environment: environment.merging(["NEW": "the new fleet key"]) { $1 })
        XCTAssertEqual(again.code, 0, "\(label) rerun: \(again.stderr)")
        XCTAssertTrue(again.stdout.contains("\"already_done\":\(databases.count)"), "\(label) rerun: \(again.stdout)")
        // A ring that holds the new key too, first: a file under it is done, not "the same key".
        let withNew = try writeFile("with-new.ring", "new env:NEW\n" + (try String(contentsOfFile: path("fleet.ring"), encoding: .utf8)))
        let third = try cipherctl(["rekey"] + databases + ["--key-ring", withNew, "--new-key-env", "NEW", "--json"],
                                  environment: environment.merging(["NEW": "the new fleet key"]) { $1 })
        XCTAssertEqual(third.code, 0, "\(label) rerun with the new key in the ring: \(third.stderr)")
        XCTAssertTrue(third.stdout.contains("\"already_done\":\(databases.count)"), "\(label) rerun with the new key in the ring: \(third.stdout)")
    }

    /// `--new-key-label` takes rekey's new key from the ring: its other entries are the
    /// current keys, each file is rotated to the labelled one and counted by the entry that
    /// opened it, a rerun finds them done; a label without a ring, one the ring lacks or gives
    /// in several encodings, or beside another new-key source, is exit 2 with nothing changed.
    func testARingGivesRekeysNewKeyByItsLabelAndItsOtherEntriesAreTheCurrentKeys() throws {
        var (generator, seed) = SeededGenerator.forSweep("ring new key", variable: "CIPHERCTL_RING_SEED")
        let (keys, ringEnvironment) = try makeRing(Int.random(in: 3...4, using: &generator), using: &generator)
        let ring = path("fleet.ring")
        let newKey = keys.randomElement(using: &generator)!
        let lines = try String(contentsOfFile: ring, encoding: .utf8).split(separator: "\n").map(String.init)
        // The new key's entry in one encoding, as the option needs.
        // (makeRing writes LABEL, SOURCE and the encodings apart by two spaces.)
        let single = lines.map { $0.hasPrefix(newKey.label + " ") ? $0.components(separatedBy: "  ").prefix(2).joined(separator: "  ") + "  \(newKey.encoding)" : $0 }
        try writeFile("fleet.ring", single.joined(separator: "\n") + "\n")
        var owners: [String: RingKey] = [:]
        for index in 0..<4 {
            let key = keys.filter { $0.label != newKey.label }.randomElement(using: &generator)!
            let database = path("n\(index).db")
            try sqlcipherOK(database, key.keySQL + "\nCREATE TABLE t(x); INSERT INTO t VALUES (\(index));")
            owners[database] = key
        }
        let databases = owners.keys.sorted()
        let label = "seed \(seed) new '\(newKey.label)'"
        for refused in [["--new-key-label", "nobody"], ["--new-key-label", newKey.label, "--new-key-env", "X"], ["--new-key-label", newKey.label, "--new-raw-key"]] {
            let before = try databases.map { try fingerprint($0).0 }
            let result = try cipherctl(["rekey"] + databases + ["--key-ring", ring] + refused, environment: ringEnvironment.merging(["X": "x"]) { $1 })
            XCTAssertEqual(result.code, 2, "\(label) \(refused): \(result.stderr)")
            XCTAssertEqual(try databases.map { try fingerprint($0).0 }, before, "\(label) \(refused)")
        }
        XCTAssertEqual(try cipherctl(["rekey", databases[0], "--key-env", "X", "--new-key-label", newKey.label], environment: ["X": "x"]).code, 2)
        // An entry declaring several encodings, whichever its bytes fit, is no new key.
        let several = try writeFile("several.ring", single.map { $0.hasPrefix(newKey.label + " ") ? $0 + ",passphrase,hex,raw" : $0 }.joined(separator: "\n") + "\n")
        XCTAssertEqual(try cipherctl(["rekey"] + databases + ["--key-ring", several, "--new-key-label", newKey.label], environment: ringEnvironment).code, 2, label)
        let rotated = try cipherctl(["rekey"] + databases + ["--key-ring", ring, "--new-key-label", newKey.label, "--json"], environment: ringEnvironment)
        XCTAssertEqual(rotated.code, 0, "\(label): \(rotated.stderr)")
        let summary = try XCTUnwrap(try jsonObject(String(rotated.stdout.split(separator: "\n").last ?? ""))["summary"] as? [String: Any])
        var expected: [String: Int] = [:]
        for key in owners.values { expected[key.label, default: 0] += 1 }
        XCTAssertEqual(summary["key_labels"] as? [String: Int], expected, label)
        for database in databases {
            XCTAssertEqual(try sqlcipher(database, newKey.keySQL + "\nSELECT count(*) FROM t;").stdout, "ok\n1\n", "\(label) \(database)")
        }
        let again = try cipherctl(["rekey"] + databases + ["--key-ring", ring, "--new-key-label", newKey.label, "--json"], environment: ringEnvironment)
        XCTAssertEqual(again.code, 0, "\(label) rerun: \(again.stderr)")
        XCTAssertTrue(again.stdout.contains("\"already_done\":\(databases.count)"), "\(label) rerun: \(again.stdout)")
    }

    func testAMalformedRingOrASecondKeySourceIsExit2NamingTheLine() throws {
        let database = try makeShellDatabase("one.db", key: "a ring key", rows: 1)
        let cases: [(String, String, [String: String])] = [
            ("a env:K\na env:K\n", "line 2", ["K": "a ring key"]),
            ("a vault:K\n", "line 1", [:]),
            ("justalabel\n", "line 1", [:]),
            ("# nothing\n", "names no key", [:]),
            ("a env:UNSET_HERE\n", "'UNSET_HERE' is not set", [:]),
            ("a env:K raw\n", "line 1", ["K": "a ring key"]),
            ("a env:K\nb cmd:cat keys/{name}.key\n", "takes no {path} or {name}", ["K": "a ring key"]),
            ("a env:K bogus\n", "only an encoding may follow", ["K": "a ring key"]),
        ]
        for (index, (ring, expected, environment)) in cases.enumerated() {
            let file = try writeFile("bad\(index).ring", ring)
            let result = try cipherctl(["open", database, "--key-ring", file], environment: environment)
            XCTAssertEqual(result.code, 2, "\(ring.debugDescription): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(expected), "\(ring.debugDescription): \(result.stderr)")
            XCTAssertFalse(result.allOutput.contains("a ring key"))
        }
        let ring = try writeFile("good.ring", "a env:K\n")
        let twoSources = try cipherctl(["open", database, "--key-ring", ring, "--key-env", "K"], environment: ["K": "a ring key"])
        XCTAssertEqual(twoSources.code, 2, twoSources.stderr)
        let created = try cipherctl(["open", path("new.db"), "--create", "--key-ring", ring], environment: ["K": "a ring key"])
        XCTAssertEqual(created.code, 2, created.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("new.db")))
    }
}
