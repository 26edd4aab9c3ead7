import CipherKit

/// `plaintext-header`'s command line, read once: the database, and for a move the header
/// size, where the salt is saved, how the result is proven, the settings and the key.
struct PlaintextHeaderOptions {
    static let size = OptionSpec("--size", value: "N", help: "Move to a plaintext header of N bytes (32 is what SQLCipher recommends): a multiple of 16 smaller than the page's usable size; 0 removes it.")
    static let saltOutput = OptionSpec("--salt-output", value: "PATH", traits: .path, help: "Save the salt, in hex, to a new file (mode 0600) before anything changes; needed for a move to a header unless the salt is given. A file with this salt is kept (a rerun); another salt is exit 5.")
    static let verify = EngineOptions.verifyOption(levels: [.full, .none], help: "What proves the result: full (the default: the key with the new header size and the salt, integrity, schema, row counts), or none (warned about).")
    static let group = OptionGroup(title: "PLAINTEXT HEADER OPTIONS", options: [size, saltOutput, verify, EngineOptions.noVerify])

    let path: String
    /// The header size to move to; nil without `--size`, when the header is only shown.
    let size: Int?
    let saltOutputPath: String?
    /// The settings and the proof, read only for a move.
    let settings: CipherSettings
    let engine: EngineOptions?
    let key: KeyOptions

    /// - Throws: `UsageError` for a missing or extra path, `--salt-output` without `--size`,
    ///   a size that is not 0 or a multiple of 16, or a bad cipher or `--verify` option.
    init(_ arguments: ParsedArguments) throws {
        path = try arguments.databasePath()
        saltOutputPath = arguments.value(Self.saltOutput)
        key = KeyOptions(arguments)
        guard arguments.has(Self.size) else {
            if saltOutputPath != nil {
                throw UsageError("\(Self.saltOutput.name) saves the salt when the header changes; add \(Self.size.name) N", command: arguments.command)
            }
            (size, settings, engine) = (nil, CipherSettings(), nil)
            return
        }
        size = try Self.size(arguments.value(Self.size), command: arguments.command)
        settings = try CipherOptionsReader.settings(from: arguments)
        engine = try EngineOptions(arguments, levels: [.none, .full])
    }

    /// The size `--size` gives (SQLCipher's recommended one when it has no value).
    private static func size(_ text: String?, command: String) throws -> Int {
        var size = DatabaseOpener.defaultPlaintextHeaderSize
        if let text {
            guard let value = Int(text) else { throw UsageError("\(Self.size.name) needs a whole number of bytes", command: command) }
            size = value
        }
        guard size >= 0, size % 16 == 0 else {
            throw UsageError("\(Self.size.name) must be 0 or a multiple of 16", command: command)
        }
        return size
    }
}
