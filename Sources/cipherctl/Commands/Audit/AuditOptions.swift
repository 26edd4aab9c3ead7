import CipherKit
import FoundationEssentials
import Glibc

/// `audit`'s command line, read once: the paths, how to walk them, the policy, and the key
/// that opens the encrypted files.
struct AuditOptions {
    static let recursive = OptionSpec("--recursive", short: "-r", help: "Look at every file under the folders given; symbolic links are looked at but not followed into folders.")
    static let check = OptionSpec("--check", help: "With a key, also check every page against its HMAC and run SQLite's integrity_check (as open --check); problems are damaged findings. Files of another family are not read: their problem says not checked (export checks every page's tag).")
    static let group = OptionGroup(title: "AUDIT OPTIONS", options: [recursive, EngineOptions.jobs, check])

    static let forbidPlaintext = OptionSpec("--forbid-plaintext", help: "A plaintext SQLite database is a finding.")
    static let maxMode = OptionSpec("--max-mode", value: "OCTAL", help: "Permission bits beyond these (600: only the owner reads and writes) are a finding.")
    static let minKDFIter = OptionSpec("--min-kdf-iter", value: "N", help: "Fewer PBKDF2 iterations than N is a finding, for a passphrase (a raw key has no KDF). Needs a key.")
    static let requireHMAC = OptionSpec("--require-hmac", help: "Pages without an HMAC are a finding. Needs a key.")
    static let requireAlgorithm = OptionSpec("--require-algorithm", value: "NAME", choices: HMACAlgorithm.allCases.map(\.shortName),
                                             help: "A page HMAC, or a passphrase's KDF, with another hash than NAME (SHA1, SHA256 or SHA512) is a finding. Needs a key.")
    static let policyGroup = OptionGroup(title: "POLICY OPTIONS", options: [forbidPlaintext, maxMode, minKDFIter, requireHMAC, requireAlgorithm])

    /// The files to look at: the paths given, and with `--recursive` the files under folders.
    let targets: [AuditTarget]
    let checksIntegrity: Bool
    let policy: AuditPolicy
    /// Threads in all: `--jobs`, else one per core.
    let jobs: Int
    let settings: CipherSettings
    let key: KeyOptions
    /// Whether a key was given (a source, or `--raw-key` alone, which then prompts).
    let hasKey: Bool

    /// - Throws: `UsageError` for no paths, a policy value out of range, a policy that needs
    ///   a key without one, a folder without `--recursive`, or a bad cipher option or `--jobs`.
    init(_ arguments: ParsedArguments) throws {
        guard !arguments.positionals.isEmpty else { throw UsageError("missing the paths to audit", command: arguments.command) }
        policy = try Self.policy(arguments)
        key = KeyOptions(arguments)
        let keys = key.reader
        hasKey = key.given || arguments.has(keys.rawOption)
        if policy.needsSettings, !hasKey {
            throw UsageError(
                "\(Self.minKDFIter.name), \(Self.requireHMAC.name) and \(Self.requireAlgorithm.name) need a key to read the settings", command: arguments.command,
                hint: "give the key with \(keys.envOption), \(keys.fileOption), \(keys.fdOption) or \(keys.commandOption)")
        }
        // The paths are read here, files under folders included: a folder without --recursive
        // is a mistake on the command line.
        let walk = AuditWalker.targets(arguments.positionals, recursive: arguments.has(Self.recursive))
        if let folder = walk.folder {
            throw UsageError("'\(folder)' is a folder", command: arguments.command, hint: "add \(Self.recursive.name) to look at the files under it")
        }
        targets = walk.targets
        checksIntegrity = arguments.has(Self.check)
        jobs = try EngineOptions(arguments).jobs ?? ProcessInfo.processInfo.activeProcessorCount
        settings = try CipherOptionsReader.settings(from: arguments)
    }

    /// The policy the options set.
    ///
    /// - Throws: `UsageError` for a value out of range.
    private static func policy(_ arguments: ParsedArguments) throws -> AuditPolicy {
        var policy = AuditPolicy()
        policy.forbidsPlaintext = arguments.has(forbidPlaintext)
        policy.requiresHMAC = arguments.has(requireHMAC)
        if let text = arguments.value(minKDFIter) {
            guard let value = Int(text), value >= 1 else { throw UsageError("\(minKDFIter.name) needs a whole number from 1", command: arguments.command) }
            policy.minimumKDFIterations = value
        }
        if let text = arguments.value(requireAlgorithm) {
            guard let algorithm = HMACAlgorithm(name: text) else {
                throw UsageError("\(requireAlgorithm.name) takes SHA1, SHA256 or SHA512", command: arguments.command)
            }
            policy.requiredAlgorithm = algorithm
        }
        if let text = arguments.value(maxMode) {
            guard !text.isEmpty, text.count <= 5, let mode = UInt32(text, radix: 8), mode <= 0o7777 else {
                throw UsageError("\(maxMode.name) needs permission bits in octal, such as 600 or 0640", command: arguments.command)
            }
            policy.maximumMode = mode
        }
        return policy
    }
}
