import CipherKit

/// `recover`'s command line, read once: the damaged source with its key and settings, and the
/// new database with its key and settings.
struct RecoverOptions {
    /// The new database's key and cipher options: `--to-key-env`, `--to-compat`.
    static let destinationPrefix = "to-"

    let source: String
    let destination: String
    let settings: CipherSettings
    let destinationCipher: DestinationCipherOptions
    let key: KeyOptions
    let destinationKey: KeyOptions

    /// - Throws: `UsageError` for paths other than a source and a destination, or a bad
    ///   cipher option.
    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 2 else {
            throw UsageError("\(arguments.command) takes the damaged database and the new one", command: arguments.command)
        }
        (source, destination) = (arguments.positionals[0], arguments.positionals[1])
        settings = try CipherOptionsReader.settings(from: arguments)
        destinationCipher = try DestinationCipherOptions(arguments, prefix: Self.destinationPrefix)
        key = KeyOptions(arguments)
        destinationKey = KeyOptions(arguments, prefix: Self.destinationPrefix)
    }
}
