import CipherKit
import Glibc

extension KeygenCommand {
    /// `keygen --derive DB`: the raw key and salt that open DB without key derivation, into
    /// a new file or a descriptor, and the options that open DB with it.
    static func derive(_ database: String, options: KeygenOptions, context: CommandContext) throws -> ExitCode {
        var request = context.openRequest(path: database, key: nil, settings: options.settings, mode: .readOnly)
        request.key = try options.key.readIfNeeded(for: database, context: context)
        let found = try RawKeyDeriver.derive(request)
        guard let line = found.fileLine else {
            throw CipherKitError.noSalt(path: database, reason: "a plaintext database has no key to derive")
        }
        let place: String
        if let descriptor = options.descriptor, KeyOutput.isSameFile(descriptor, as: database) {
            throw UsageError("descriptor \(descriptor) (\(KeygenOptions.outputDescriptor.name)) is '\(database)' itself, which the key would be written into", command: CommandCatalog.keygen.name)
        }
        if let output = options.output {
            try KeyGenerator.writeKeyFile(output, line: line) { context.console.warnRemovedLeftover($0) }
            place = "'\(output)' (mode 0600)"
        } else {
            try KeyOutput.write(line, to: options.descriptor ?? -1)
            place = "descriptor \(options.descriptor ?? -1)"
        }
        let keys = KeyReader(prefix: "")
        // A raw key skips the key's derivation, so the count is beside the point; not the
        // algorithm, which still derives the HMAC key.
        var pins = CipherOptionsReader.options(pinning: found.settings.with(\.kdfIterations, nil))
        // The header size too, when there is one: SQLCipher itself assumes none.
        let header = CipherOptionNames().plaintextHeaderSize
        if let size = found.settings.plaintextHeaderSize, size > 0, !pins.contains(header) { pins += [header, String(size)] }
        let use = ([keys.fileOption, options.output.map(ShellQuoting.quoted) ?? "FILE", keys.rawOption] + pins).joined(separator: " ")
        // On standard output the key is the whole output, as keygen's own key is.
        guard options.descriptor != STDOUT_FILENO else { return .success }
        context.console.result(
            json: .object([
                ("database", .string(database)), ("output", .string(options.output)), ("output_fd", .integer(options.descriptor.map(Int.init))),
                ("bits", .integer(256)), ("format", .string("raw-hex-with-salt")), ("cipher", ProfileFormatter.json(cipher: found.settings)),
                ("options", .array(pins.map(JSONValue.string))),
            ]),
            text: "wrote the raw key and salt that open '\(database)' without key derivation to \(place); open it with \(use)\n", removedLeftovers: [])
        return .success
    }
}
