import CipherKit
import FoundationEssentials
import Glibc

/// A key ring (`--key-ring FILE`): the keys a fleet's files may be under, one a line, each
/// with a label that reports name instead of the key:
///
///     # label   source                   encoding
///     old-2023  env:KEY_2023
///     old-2024  file:/etc/keys/2024.key  raw
///     new       cmd:pass show db/new
///
/// Every key is read once, when the ring is read, in the ring's order; `KeyChooser` then
/// finds which opens each file.
struct KeyRing {
    let entries: [KeyRingEntry]

    /// Reads and parses the ring file at `path`.
    ///
    /// - Throws: `UsageError` naming the line for a malformed ring or a duplicate label;
    ///   `CipherKitError.fileAccess` when the file cannot be read.
    init(path: String, option: String, command: String) throws {
        let text = String(decoding: try Self.contents(of: path, naming: path), as: UTF8.self)
        var entries: [KeyRingEntry] = []
        do {
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingWhitespace()
                guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
                let entry = try KeyRingEntry(parsing: Substring(trimmed), line: index + 1)
                guard !entries.contains(where: { $0.label == entry.label }) else {
                    throw KeyRingError(line: index + 1, problem: "the label '\(entry.label)' is given twice")
                }
                entries.append(entry)
            }
        } catch let error as KeyRingError {
            throw UsageError("key ring '\(path)', line \(error.line): \(error.problem)", command: command)
        }
        guard !entries.isEmpty else { throw UsageError("key ring '\(path)' (\(option)) names no key", command: command) }
        self.entries = entries
    }

    /// The environment variables the ring's `env:` entries read: each holds a key.
    var variables: [String] {
        entries.compactMap { entry in if case .environment(let name) = entry.source { return name } else { return nil } }
    }

    /// Every key of the ring, read from its source, once for each encoding its line names.
    ///
    /// - Throws: `UsageError` naming the entry's label when its source cannot be read or its
    ///   bytes are not what its encoding says.
    func keys(context: CommandContext, arguments: ParsedArguments) throws -> [LabeledKey] {
        try entries.flatMap { entry -> [LabeledKey] in
            var bytes = try read(entry, context: context, arguments: arguments)
            defer { SecureBytes.wipe(&bytes) }
            // Of several encodings, those the bytes cannot be are no candidates; one that none fits is a mistake.
            var keys: [LabeledKey] = [], firstProblem: Error?
            for encoding in entry.encodings {
                do {
                    keys.append(LabeledKey(label: entry.label, encoding: encoding.rawValue, key: try Self.material(bytes, encoding: encoding, entry: entry, command: arguments.command)))
                } catch {
                    firstProblem = firstProblem ?? error
                }
            }
            if keys.isEmpty, let firstProblem { throw firstProblem }
            return keys
        }
    }

    private func read(_ entry: KeyRingEntry, context: CommandContext, arguments: ParsedArguments) throws -> [UInt8] {
        let named = "key ring entry '\(entry.label)' (line \(entry.line))"
        switch entry.source {
        case .environment(let name):
            guard let value = context.environment[name] else {
                throw UsageError("\(named): " + (KeySourceName.shown(name, variable: true).map { "environment variable '\($0)' is not set" } ?? "its environment variable is not set"), command: arguments.command)
            }
            return ProcessEnvironment.bytes(of: name) ?? Array(value.utf8)
        case .file(let path):
            return try KeyReader(prefix: "").readKeyFile(path, console: context.console)
        case .command(let command):
            let environment = KeyCommand.withoutKeys(context.environment, arguments: arguments, extra: variables)
            return try KeyCommand(command: command, timeout: try KeyReader.commandTimeout(arguments), option: named, environment: environment).run(subcommand: arguments.command)
        }
    }

    /// A whole file.
    ///
    /// - Throws: `CipherKitError.fileAccess` naming the file as `naming`.
    private static func contents(of path: String, naming: String) throws -> [UInt8] {
        guard let file = OpenFile(reading: path) else { throw CipherKitError.fileAccess(path: naming, reason: String(cString: strerror(errno))) }
        do {
            return try file.readToEnd()
        } catch let failure as OpenFile.Failure {
            throw CipherKitError.fileAccess(path: naming, reason: failure.reason)
        }
    }

    private static func material(_ bytes: [UInt8], encoding: KeyRingEntry.Encoding, entry: KeyRingEntry, command: String) throws -> KeyMaterial {
        let named = "key ring entry '\(entry.label)' (line \(entry.line))"
        do {
            switch encoding {
            case .passphrase: return try KeyMaterial.passphrase(bytes)
            case .raw: return try KeyMaterial.rawKey(hex: bytes)
            case .hex:
                guard var decoded = Hex.decode(bytes) else { throw UsageError("\(named): its key is not hex, as 'hex' says", command: command) }
                defer { SecureBytes.wipe(&decoded) }
                return try KeyMaterial.passphrase(decoded)
            }
        } catch let error as KeyMaterialError {
            throw UsageError("\(named): " + (error == .empty ? "its key is empty" : error.description), command: command)
        }
    }
}
