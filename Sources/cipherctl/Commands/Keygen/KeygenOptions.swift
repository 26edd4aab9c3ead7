import CipherKit

/// `keygen`'s command line, read once: where the key goes, and, with `--derive`, the
/// database whose raw key is derived, with its key and settings.
struct KeygenOptions {
    static let output = OptionSpec("--output", value: "FILE", traits: .path, help: "Write the key to this new file (mode 0600) instead of standard output; exit 5 if it exists.")
    static let outputDescriptor = OptionSpec("--output-fd", value: "N", help: "Write the key to open file descriptor N instead of standard output; never to a terminal (exit 2).")
    static let derive = OptionSpec("--derive", value: "DB", traits: .path, help: "Instead of a random key, write the raw key and salt that open DB without key derivation (found with the key and cipher options, as open finds them); only to --output or --output-fd.")
    static let group = OptionGroup(title: "KEYGEN OPTIONS", options: [output, outputDescriptor, derive])

    // keygen's own words for the shared output options: its JSON and its quiet output differ.
    static let json = OptionSpec(OutputOptions.json.name, help: "Report as one JSON object: the file written, or the key itself without \(output.name).")
    static let quiet = OptionSpec(OutputOptions.quiet.name, help: "Print nothing but errors and the key when it goes to standard output.")
    static let outputGroup = OptionGroup(title: OutputOptions.group.title, options: [json, quiet, OutputOptions.fips, CommandCatalog.helpOption])

    /// Whether a successful run changed files: it wrote the key file.
    static func changesFiles(_ arguments: ParsedArguments) -> Bool { arguments.has(output) }

    /// The new key file, or nil.
    let output: String?
    /// The descriptor the key goes to, or nil.
    let descriptor: Int32?
    /// The database whose raw key is derived, or nil for a random key.
    let database: String?
    let settings: CipherSettings
    let key: KeyOptions

    /// - Throws: `UsageError` for any argument, two destinations, a bad descriptor, a derived
    ///   key with nowhere safe to go, or key and cipher options without `--derive`.
    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else {
            throw UsageError("\(arguments.command) takes no arguments; \(Self.output.synopsis) names the key file", command: arguments.command)
        }
        (output, database) = (arguments.value(Self.output), arguments.value(Self.derive))
        descriptor = try arguments.value(Self.outputDescriptor).map { try Self.descriptor($0, command: arguments.command) }
        settings = try CipherOptionsReader.settings(from: arguments)
        key = KeyOptions(arguments)
        try check(command: arguments.command)
    }

    private func check(command: String) throws {
        if output != nil, descriptor != nil {
            throw UsageError("give the key one place to go, not \(Self.output.name) and \(Self.outputDescriptor.name)", command: command)
        }
        if database == nil, key.given || !settings.isEmpty {
            throw UsageError("key and cipher options go with \(Self.derive.name) DB", command: command,
                             hint: "'cipherctl \(command)' alone makes a random key")
        }
        if database != nil, output == nil, descriptor == nil {
            throw UsageError("\(Self.derive.name) writes the key only to a new file or a descriptor, never to standard output", command: command,
                             hint: "add \(Self.output.name) FILE (mode 0600) or \(Self.outputDescriptor.name) N")
        }
    }

    /// A descriptor number, open for writing and not a terminal.
    private static func descriptor(_ text: String, command: String) throws -> Int32 {
        guard let number = Int32(text), number >= 0 else {
            throw UsageError("\(outputDescriptor.name) takes a descriptor number, not '\(text)'", command: command)
        }
        try KeyOutput.requireWritable(number, option: outputDescriptor.name, command: command)
        return number
    }
}
