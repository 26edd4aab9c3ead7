@testable import cipherctl
import Foundation
import TestSupport
import XCTest

/// Thousands of mutated command lines, made from a seed drawn anew each run and printed, so
/// any failure can be replayed (`CIPHERCTL_FUZZ_SEED`, `CIPHERCTL_FUZZ_RUNS`): cipherctl never dies from a signal or
/// hangs, always exits with a documented code, explains every failure on standard error,
/// and never prints or writes the keys it was given.
final class ArgumentFuzzTests: CLITestCase {
    private let passphrase = "FuzzSecretPassphrase-zq7X"
    private let rawKey = "5eC0FFEE".lowercased() + String(repeating: "9d4b", count: 14)

    private final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var messages: [String] = []
        private(set) var codes: [Int32: Int] = [:]
        func record(code: Int32, failure: String?) {
            lock.lock()
            defer { lock.unlock() }
            codes[code, default: 0] += 1
            if let failure, messages.count < 20 { messages.append(failure) }
        }
    }

    /// Command lines that are valid, or nearly, for every command: what the mutations start from.
    private let seeds: [[String]] = [
        ["open", "enc.db", "--key-env", "K", "--kdf-iter", "1000"],
        ["open", "enc.db", "--key-env", "K", "--kdf-iter", "1000", "--check", "--counts", "--json"],
        ["open", "raw.db", "--key-env", "KRAW", "--raw-key"],
        ["open", "plain.db"],
        ["open", "new.db", "--create", "--key-file", "key.txt", "--kdf-iter", "1000"],
        ["open", "hdr.db", "--key-env", "K", "--kdf-iter", "1000", "--salt-file", "hdr.salt"],
        ["query", "enc.db", "--key-env", "K", "--kdf-iter", "1000", "SELECT * FROM t WHERE a > :n", "--param", "n=1", "--format", "json"],
        ["query", "enc.db", "--key-env", "K", "--kdf-iter", "1000", "--table", "t", "--columns", "a,b", "--where", "a > ?", "--arg", "int:1",
         "--order", "a desc", "--limit", "2"],
        ["query", "plain.db", "--write", "INSERT INTO t VALUES (?, ?)", "--arg", "blob:CAFE", "--arg", "null"],
        ["rekey", "enc.db", "--key-env", "K", "--new-key-env", "K", "--kdf-iter", "1000", "--new-kdf-iter", "1000", "--dry-run"],
        ["rekey", "raw.db", "--key-env", "KRAW", "--raw-key", "--new-key-env", "KRAW", "--new-raw-key", "--new-page-size", "8192"],
        ["export", "enc.db", "copy.db", "--key-env", "K", "--kdf-iter", "1000", "--plaintext", "--force"],
        ["export", "plain.db", "enc-copy.db", "--to-key-env", "K", "--to-kdf-iter", "1000", "--to-compat", "3", "--force"],
        ["salt", "enc.db", "--json"],
        ["salt", "enc.db", "--key-env", "K", "--kdf-iter", "1000", "--output", "out.salt"],
        ["plaintext-header", "enc.db"],
        ["plaintext-header", "hdr.db", "--size", "0", "--key-env", "K", "--kdf-iter", "1000", "--salt-file", "hdr.salt"],
        ["audit", "enc.db", "plain.db", "raw.db", "--key-env", "K", "--kdf-iter", "1000", "--require-hmac", "--json"],
        ["audit", "-r", "folder", "enc.db", "--forbid-plaintext", "--max-mode", "600", "--jobs", "2", "--check"],
        ["dump", "enc.db", "--key-env", "K", "--kdf-iter", "1000", "--table", "t"],
        ["open", "enc.db", "--key-ring", "fleet.ring", "--kdf-iter", "1000", "--json"],
        ["audit", "enc.db", "raw.db", "plain.db", "--key-ring", "fleet.ring", "--json"],
        ["shell", "enc.db", "--key-env", "K", "--kdf-iter", "1000", "--", "-json", "SELECT * FROM t"],
        ["shell", "hdr.db", "--write", "--key-env", "K", "--kdf-iter", "1000", "--salt-file", "hdr.salt", "--", "-cmd", ".tables"],
        ["import", "plain.db", "rows", "rows.csv", "--format", "csv", "--pk", "id"],
        ["import", "enc.db", "t", "-", "--format", "jsonl", "--key-env", "K", "--kdf-iter", "1000", "--replace"],
        ["diff", "enc.db", "raw.db", "--key-env", "K", "--kdf-iter", "1000", "--other-key-env", "KRAW", "--other-raw-key", "--rows", "--json"],
        ["recover", "enc.db", "recovered.db", "--key-env", "K", "--kdf-iter", "1000", "--to-key-env", "K", "--to-kdf-iter", "1000"],
        ["keygen", "--output", "new.key", "--json"],
        ["keygen"],
        ["keygen", "--derive", "enc.db", "--key-env", "K", "--kdf-iter", "1000", "--output", "derived.key", "--json"],
        ["completion", "bash"],
        ["help", "rekey"],
        ["--version", "--json"],
    ]

    private var optionNames: [String] {
        var names = Set(CommandCatalog.topLevelOptions.map(\.name))
        for command in CommandCatalog.commands {
            for option in command.options {
                names.insert(option.name)
                if let short = option.short { names.insert(short) }
            }
        }
        return names.sorted()
    }

    private let values = [
        "", "-", "--", "=", "0", "-1", "1", "3", "4", "5", "16", "32", "512", "4096", "65536", "99999999999999999999", "auto", "be", "on", "off",
        "SHA1", "PBKDF2_HMAC_SHA256", "K", "K2", "KRAW", "NOPE", "--json", "--quiet", "--verbose", "enc.db", "plain.db", "raw.db", "hdr.db", "missing.db", "folder", "key.txt", "hdr.salt",
        "csv", "json", "jsonl", "table", "value", "hex", "base64", "raw", "SELECT 1", "SELECT * FROM t", "DELETE FROM t", "SELECT", "x'00'",
        "int:abc", "real:NaN", "blob:XYZ", "text:", "null", "n=1", "n=", "=1", "a,b", "a desc", "'; DROP TABLE t; --", "é\u{202E}ü",
        String(repeating: "A", count: 5000), "%s%n%x", "../", "-h", "--help", "\t", " ",
    ]

    private func mutate(_ line: [String], using generator: inout SeededGenerator) -> [String] {
        var tokens = line
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let position = Int.random(in: 0...tokens.count, using: &generator)
            switch Int.random(in: 0..<9, using: &generator) {
            case 0 where !tokens.isEmpty:
                tokens.remove(at: min(position, tokens.count - 1))
            case 1:
                tokens.insert(optionNames.randomElement(using: &generator)!, at: position)
            case 2:
                tokens.insert(values.randomElement(using: &generator)!, at: position)
            case 3 where !tokens.isEmpty:
                let index = min(position, tokens.count - 1)
                tokens[index] = values.randomElement(using: &generator)!
            case 4 where tokens.count > 1:
                tokens.swapAt(Int.random(in: 0..<tokens.count, using: &generator), Int.random(in: 0..<tokens.count, using: &generator))
            case 5 where !tokens.isEmpty:
                let index = min(position, tokens.count - 1)
                tokens.insert(tokens[index], at: index)
            case 6:
                tokens.insert(optionNames.randomElement(using: &generator)! + "=" + values.randomElement(using: &generator)!, at: position)
            case 7 where !tokens.isEmpty:
                let index = min(position, tokens.count - 1)
                let token = tokens[index]
                tokens[index] = String(token.prefix(Int.random(in: 0...token.count, using: &generator)))
            default:
                tokens.append(optionNames.randomElement(using: &generator)!)
            }
        }
        return tokens
    }

    private func makeFixtures() throws {
        try sqlcipherOK(path("enc.db"), "PRAGMA key = '\(passphrase)'; PRAGMA kdf_iter = 1000; CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x'), (2, x'00ff');")
        try sqlcipherOK(path("raw.db"), "PRAGMA key = \"x'\(rawKey)'\"; CREATE TABLE t(a); INSERT INTO t VALUES (1);")
        try sqlcipherOK(path("plain.db"), "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 2);")
        try sqlcipherOK(path("hdr.db"), """
            PRAGMA key = '\(passphrase)'; PRAGMA kdf_iter = 1000; PRAGMA cipher_plaintext_header_size = 32;
            PRAGMA cipher_salt = "x'0102030405060708090a0b0c0d0e0f10'"; CREATE TABLE t(a); INSERT INTO t VALUES (1);
            """)
        _ = try writeFile("hdr.salt", "0102030405060708090a0b0c0d0e0f10\n")
        _ = try writeFile("key.txt", passphrase + "\n")
        _ = try writeFile("fleet.ring", "# the fleet\nold env:K2\nmain env:K\nraw env:KRAW raw\n")
        _ = try writeFile("rows.csv", "id,name\n1,one\n2,\"two, quoted\"\n")
        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: false)
    }

    func testTheStartingLinesNameEveryCommand() {
        let started = Set(seeds.compactMap(\.first))
        XCTAssertEqual(Set(CommandCatalog.commands.map(\.name)).subtracting(started), [])
    }

    func testMutatedCommandLinesExitWithDocumentedCodesAndNeverLeakTheKey() throws {
        try makeFixtures()
        let runs = sweepCases("CIPHERCTL_FUZZ_RUNS", quick: 2000)
        var (generator, seed) = SeededGenerator.forSweep("argument fuzz", variable: "CIPHERCTL_FUZZ_SEED")
        let lines = (0..<runs).map { _ in mutate(seeds.randomElement(using: &generator)!, using: &generator) }
        let secrets = [passphrase, rawKey, rawKey.uppercased(), Data(passphrase.utf8).map { String(format: "%02x", $0) }.joined()]
        let keys = ["K": passphrase, "KRAW": rawKey, "K2": "a wrong passphrase"]
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for index in stride(from: worker, to: lines.count, by: 2) {
                let line = lines[index]
                let shown = "#\(index) (seed \(seed)): cipherctl " + line.map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 }.joined(separator: " ")
                guard let result = try? run(Self.binary, line, stdin: nil, environment: keys, timeout: 60), !result.timedOut else {
                    failures.record(code: -1, failure: "\(shown): could not run, or still running after 60 s")
                    continue
                }
                let out = result.stdout, err = result.stderr
                var failure: String?
                // The command word may follow global options: `cipherctl --json shell`.
                let command = line.first { !$0.hasPrefix("-") }
                // Once `shell` has become the sqlcipher shell, the exit code and the messages are the shell's.
                let shellsOwn = command == "shell" && !err.contains("cipherctl: ")
                if result.signaled {
                    failure = "\(shown): killed by signal \(result.code)"
                } else if !(0...6).contains(result.code), result.code != 8, !shellsOwn {
                    failure = "\(shown): undocumented exit code \(result.code)"
                } else if let secret = secrets.first(where: { out.contains($0) || err.contains($0) }) {
                    failure = "\(shown): printed key material (\(secret.count) characters)"
                } else if result.code != 0, !err.contains("error"), !(command == "diff" && result.code == 8), !(shellsOwn && err.contains("Error")) {
                    // (diff's exit 8 says the databases differ: an answer, not an error.)
                    failure = "\(shown): exit \(result.code) without an error message: \(err.prefix(200))"
                }
                failures.record(code: result.signaled ? -2 : result.code, failure: failure)
            }
        }
        XCTAssertEqual(failures.messages, [])
        XCTAssertEqual(failures.codes.values.reduce(0, +), runs)
        // A fuzz run that only ever hit usage errors would prove little.
        XCTAssertGreaterThan(failures.codes[0, default: 0], runs / 50, "\(failures.codes)")
        XCTAssertGreaterThan(failures.codes[2, default: 0], runs / 10, "\(failures.codes)")
        print("argument fuzz: \(runs) command lines, seed \(seed), exit codes \(failures.codes.sorted { $0.key < $1.key })")

        // Nothing written during the run holds a key either.
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        while let name = enumerator?.nextObject() as? String {
            guard name != "key.txt", let data = FileManager.default.contents(atPath: path(name)) else { continue }
            // A key file keygen --derive wrote (96 hex digits and a newline) holds a key by design.
            if data.count == 97, data.last == 0x0a, data.dropLast().allSatisfy({ Character(UnicodeScalar($0)).isHexDigit }) { continue }
            for secret in secrets {
                XCTAssertNil(data.range(of: Data(secret.utf8)), "\(name) holds key material")
            }
        }
    }
}
