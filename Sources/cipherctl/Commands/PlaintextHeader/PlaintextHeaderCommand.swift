import CipherKit

/// `cipherctl plaintext-header`: say whether a database has a plaintext header, or move it
/// to one (or back).
enum PlaintextHeaderCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let path = try arguments.databasePath()
        let console = context.console
        guard arguments.has("--size") else {
            if arguments.has("--salt-output") {
                throw UsageError("--salt-output saves the salt when the header changes; add --size N", command: "plaintext-header")
            }
            let file = try DatabaseFile.probe(path)
            try file.requireDatabase()
            console.result(json: OperationFormatter.json(headerOf: file), text: OperationFormatter.text(headerOf: file), removedLeftovers: [])
            return .success
        }
        let size: Int
        if let text = arguments.value("--size") {
            guard let value = Int(text) else { throw UsageError("--size needs a whole number of bytes", command: "plaintext-header") }
            size = value
        } else {
            size = DatabaseOpener.defaultPlaintextHeaderSize
        }
        guard size >= 0, size % 16 == 0 else {
            throw UsageError("--size must be 0 or a multiple of 16", command: "plaintext-header")
        }
        let settings = try CipherOptionsReader.settings(from: arguments)
        let key = try KeyReader(prefix: "").read(arguments, for: path, console: console, environment: context.environment)
        if size > 0, !arguments.has("--salt-output"), settings.salt == nil, key.kind != .rawKeyWithSalt {
            // Killed after its rename, a move that printed the salt nowhere would lose it with the data.
            throw UsageError(
                "a plaintext header takes the salt out of the file: save it with --salt-output PATH (written before anything changes)",
                command: "plaintext-header", hint: "or give the salt you keep with --salt HEX or --salt-file PATH")
        }
        let verify = try EngineOptions(arguments, levels: [.none, .full]).verifies(console: context.console, unchecked: "the result will not be checked before it replaces '\(path)'")
        let token = CancellationToken()
        SignalTrap.install(cancelling: token)
        var request = PlaintextHeaderRequest(
            database: context.openRequest(path: path, key: key, settings: settings, mode: .readWrite),
            size: size, saltOutputPath: arguments.value("--salt-output"), verify: verify)
        let report = try console.warningOfLeftoversIfItFails { told in
            request.leftoverRemoved = told
            return try PlaintextHeaderMover.move(request, token: token)
        }
        console.formatFound(report.format, attempts: report.formatAttempts, path: path)
        console.result(json: OperationFormatter.json(report), text: OperationFormatter.text(report), removedLeftovers: report.removedLeftovers)
        return .success
    }
}
