/// `keygen`'s command line, read once: where the new key goes.
struct KeygenOptions {
    static let output = OptionSpec("--output", value: "FILE", traits: .path, help: "Write the key to this new file (mode 0600) instead of standard output; exit 5 if it exists.")
    static let group = OptionGroup(title: "KEYGEN OPTIONS", options: [output])

    // keygen's own words for the shared output options: its JSON and its quiet output differ.
    static let json = OptionSpec(OutputOptions.json.name, help: "Report as one JSON object: the file written, or the key itself without \(output.name).")
    static let quiet = OptionSpec(OutputOptions.quiet.name, help: "Print nothing but errors and the key when it goes to standard output.")
    static let outputGroup = OptionGroup(title: OutputOptions.group.title, options: [json, quiet, CommandCatalog.helpOption])

    /// Whether a successful run changed files: it wrote the key file.
    static func changesFiles(_ arguments: ParsedArguments) -> Bool { arguments.has(output) }

    /// The new key file, or nil for standard output.
    let output: String?

    /// - Throws: `UsageError` for any argument.
    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else {
            throw UsageError("\(arguments.command) takes no arguments; \(Self.output.synopsis) names the key file", command: arguments.command)
        }
        output = arguments.value(Self.output)
    }
}
