import CipherKit

/// `salt`'s command line, read once: the database, its cipher settings, its key if one was
/// given, and the file to save the salt to.
struct SaltOptions {
    static let output = OptionSpec("--output", value: "PATH", traits: .path, help: "Also write the salt, in hex and a newline, to a new file (mode 0600); exit 5 if it exists.")
    static let group = OptionGroup(title: "SALT OPTIONS", options: [output])

    /// Whether a successful run changed files: it wrote the salt file.
    static func changesFiles(_ arguments: ParsedArguments) -> Bool { arguments.has(output) }

    let path: String
    let settings: CipherSettings
    let key: KeyOptions
    /// The new file to write the salt to, if any.
    let output: String?

    /// - Throws: `UsageError` for a missing or extra path or a bad cipher option.
    init(_ arguments: ParsedArguments) throws {
        path = try arguments.databasePath()
        settings = try CipherOptionsReader.settings(from: arguments)
        key = KeyOptions(arguments)
        output = arguments.value(Self.output)
    }
}
