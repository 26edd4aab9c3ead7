import CipherKit

/// `export`'s command line, read once: the source and its key and settings, the destination
/// and its key and settings (or none, with `--plaintext`), and how the copy is made and proven.
struct ExportOptions {
    static let plaintext = OptionSpec("--plaintext", help: "Write a plaintext (unencrypted) SQLite database; warned about.")
    static let force = OptionSpec("--force", help: "Replace an existing destination file (never a symbolic link).")
    static let fromFamily = OptionSpec(
        "--from-family", value: "FAMILY", choices: CipherFamily.allCases.map(\.rawValue),
        help: "Read the source as this family: chacha20 for SQLite3 Multiple Ciphers' ChaCha20 in legacy (sqleet) mode with settings other than sqleet's; aes128cbc, aes256cbc (wxSQLite3) or rc4 (System.Data.SQLite), which a passphrase alone finds too; sqlite3mc-sqlcipher, which its header shows anyway; sqlcipher-other-cipher for a SQLCipher 1 to 3 file written under a PRAGMA cipher other than aes-256-cbc, which a passphrase alone finds too; or sqlcipher to try nothing else.")
    static let toFamily = OptionSpec(
        "--to-family", value: "FAMILY", choices: CipherFamily.writable.map(\.rawValue),
        help: "Write the copy in this family: sqlcipher (the default) or chacha20, SQLite3 Multiple Ciphers' default scheme.")
    static let group = OptionGroup(title: "DESTINATION OPTIONS", options: [plaintext, force, fromFamily, toFamily] + EngineOptions.specs)
    /// The destination's key and cipher options: `--to-key-env`, `--to-page-size`.
    static let destinationPrefix = "to-"

    let source: String
    let destination: String
    /// Write no key: a decrypted copy.
    let plaintext: Bool
    let replaceExisting: Bool
    let settings: CipherSettings
    let destinationCipher: DestinationCipherOptions
    let key: KeyOptions
    let destinationKey: KeyOptions
    let engine: EngineOptions
    let sourceFamily: CipherFamily?
    let destinationFamily: CipherFamily

    /// - Throws: `UsageError` for paths other than a source and a destination, a bad cipher
    ///   option, or `--plaintext` with a destination key or cipher option.
    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 2 else {
            throw UsageError("\(arguments.command) takes a source and a destination path", command: arguments.command)
        }
        (source, destination) = (arguments.positionals[0], arguments.positionals[1])
        settings = try CipherOptionsReader.settings(from: arguments)
        destinationCipher = try DestinationCipherOptions(arguments, prefix: Self.destinationPrefix)
        key = KeyOptions(arguments)
        destinationKey = KeyOptions(arguments, prefix: Self.destinationPrefix)
        plaintext = arguments.has(Self.plaintext)
        if plaintext, destinationKey.given || arguments.has(destinationKey.reader.rawOption) {
            throw UsageError("\(Self.plaintext.name) writes no key; drop the \(destinationKey.reader.valueOption) options", command: arguments.command)
        }
        if plaintext, destinationCipher.given {
            throw UsageError("\(Self.plaintext.name) takes no --\(Self.destinationPrefix) cipher options", command: arguments.command)
        }
        replaceExisting = arguments.has(Self.force)
        engine = try EngineOptions(arguments)
        sourceFamily = try Self.family(arguments, Self.fromFamily)
        destinationFamily = try Self.family(arguments, Self.toFamily, among: CipherFamily.writable) ?? .sqlcipher
        if let family = sourceFamily, !family.takesRawKey, arguments.has(key.reader.rawOption) {
            throw UsageError("\(Self.fromFamily.name) \(family.rawValue) takes a passphrase: its scheme has no raw key", command: arguments.command)
        }
        if let family = sourceFamily, !family.takesRawKey, !settings.isEmpty {
            throw UsageError("\(Self.fromFamily.name) \(family.rawValue) takes no cipher options: the scheme's settings are fixed, or read from the file", command: arguments.command)
        }
        var beyondChaCha = destinationCipher.settings
        (beyondChaCha.kdfIterations, beyondChaCha.pageSize) = (nil, nil)
        if destinationFamily == .chacha20, !beyondChaCha.isEmpty || destinationCipher.keepsSourceFormat {
            let names = CipherOptionNames(prefix: Self.destinationPrefix)
            throw UsageError("\(Self.toFamily.name) chacha20 takes no destination cipher options but \(names.kdfIter) and \(names.pageSize)", command: arguments.command)
        }
        if plaintext, destinationFamily != .sqlcipher {
            throw UsageError("\(Self.plaintext.name) writes no key, and \(Self.toFamily.name) \(destinationFamily.rawValue) needs one", command: arguments.command)
        }
    }

    /// The family an option names; nil when it is not given.
    private static func family(_ arguments: ParsedArguments, _ option: OptionSpec, among known: [CipherFamily] = CipherFamily.allCases) throws -> CipherFamily? {
        guard let value = arguments.value(option) else { return nil }
        guard let family = CipherFamily(rawValue: value), known.contains(family) else {
            let known = known.map(\.rawValue).joined(separator: ", ")
            throw UsageError("\(option.name) takes one of \(known)", command: arguments.command)
        }
        return family
    }
}
