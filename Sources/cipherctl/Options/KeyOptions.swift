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

    /// Whether each file has a key of its own: a key command template (`{path}`, `{name}`),
    /// read again for every file.
    var isPerFile: Bool { KeyCommand.isTemplate(arguments.value(reader.commandOption) ?? "") }

    /// Whether any source of this key was given.
    var given: Bool { reader.hasSource(arguments) }

    /// Reads the key for `path` (prompting on a terminal when no source was given); from a
    /// key ring, the first of its keys that opens `path`, which is said on standard error.
    func read(for path: String, context: CommandContext) throws -> KeyMaterial {
        if let ring = try ring(context: context) { return try choose(from: ring, for: path, context: context).key }
        return try reader.read(arguments, for: path, console: context.console, environment: context.environment)
    }

    /// The keys of the key ring, read once, when `--key-ring` was given.
    ///
    /// - Throws: `UsageError` for another key source or `--raw-key` beside it, and what
    ///   reading the ring throws.
    func ring(context: CommandContext) throws -> [LabeledKey]? {
        guard let file = arguments.value(reader.ringOption) else { return nil }
        let others = reader.sourcesGiven(arguments).filter { $0 != reader.ringOption } + (arguments.has(reader.rawOption) ? [reader.rawOption] : [])
        if let other = others.first {
            throw UsageError("\(reader.ringOption) gives the keys and their encodings; \(other) cannot go with it", command: arguments.command)
        }
        return try KeyRing(path: file, option: reader.ringOption, command: arguments.command).keys(context: context, arguments: arguments)
    }

    /// The environment variables the key ring's entries read, when `--key-ring` was given.
    ///
    /// - Throws: what parsing the ring throws.
    func ringVariables() throws -> [String] {
        guard let file = arguments.value(reader.ringOption) else { return [] }
        return try KeyRing(path: file, option: reader.ringOption, command: arguments.command).variables
    }

    /// Which key of `ring` opens `path`, with the cipher options of this key's database.
    ///
    /// - Throws: what `KeyChooser.choose` throws.
    func choose(from ring: [LabeledKey], for path: String, context: CommandContext) throws -> LabeledKey {
        let settings = try CipherOptionsReader.settings(from: arguments, prefix: reader.prefix)
        let chosen = try KeyChooser.choose(context.openRequest(path: path, key: nil, settings: settings, mode: .readOnly), from: ring)
        context.console.keyChosen(chosen, path: path)
        return chosen
    }

    /// Reads the key for `path` when one was given or the file needs one; nil otherwise.
    func readIfNeeded(for path: String, context: CommandContext) throws -> KeyMaterial? {
        guard given || DatabaseFile.needsKey(path) else { return nil }
        return try read(for: path, context: context)
    }
}
