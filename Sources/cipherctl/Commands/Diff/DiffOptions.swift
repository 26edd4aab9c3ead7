import CipherKit

/// `diff`'s command line, read once: the two databases, each with its own cipher settings
/// and key sources (the second's under "other-"), and whether rows are listed.
struct DiffOptions {
    static let rows = OptionSpec("--rows", help: "List every row added (+), removed (-) or changed (~), with its key and values.")
    static let group = OptionGroup(title: "DIFF OPTIONS", options: [rows])
    /// The prefix of the second database's key and cipher options (`--other-key-env`).
    static let otherPrefix = "other-"

    let firstPath: String
    let secondPath: String
    let listsRows: Bool
    let settings: CipherSettings
    let otherSettings: CipherSettings
    let key: KeyOptions
    let otherKey: KeyOptions

    /// - Throws: `UsageError` for other than two paths or a bad cipher option;
    ///   `CipherKitError.fileAccess` when a salt file cannot be read.
    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 2 else {
            throw UsageError("diff takes two databases", command: arguments.command)
        }
        (firstPath, secondPath) = (arguments.positionals[0], arguments.positionals[1])
        settings = try CipherOptionsReader.settings(from: arguments)
        otherSettings = try CipherOptionsReader.settings(from: arguments, prefix: Self.otherPrefix)
        key = KeyOptions(arguments)
        otherKey = KeyOptions(arguments, prefix: Self.otherPrefix)
        listsRows = arguments.has(Self.rows)
    }
}
