import CipherKit

/// Where one key of a command line comes from (`--key-…`, `--new-key-…`, `--to-key-…`),
/// kept to be read when the command needs it: reading may prompt or run a command, so it
/// happens once, at the moment the key is used.
struct KeyOptions {
    let reader: KeyReader
    let arguments: ParsedArguments

    init(_ arguments: ParsedArguments, prefix: String = "") {
        self.reader = KeyReader(prefix: prefix)
        self.arguments = arguments
    }

    /// Whether any source of this key was given.
    var given: Bool { reader.hasSource(arguments) }

    /// Reads the key for `path` (prompting on a terminal when no source was given).
    func read(for path: String, context: CommandContext) throws -> KeyMaterial {
        try reader.read(arguments, for: path, console: context.console, environment: context.environment)
    }

    /// Reads the key for `path` when one was given or the file needs one; nil otherwise.
    func readIfNeeded(for path: String, context: CommandContext) throws -> KeyMaterial? {
        try reader.readIfNeeded(arguments, for: path, context: context)
    }
}
