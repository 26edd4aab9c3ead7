import CipherKit

/// `cipherctl plaintext-header`: say whether a database has a plaintext header, or move it
/// to one (or back).
enum PlaintextHeaderCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try PlaintextHeaderOptions(arguments)
        let (path, console) = (options.path, context.console)
        guard let size = options.size, let engine = options.engine else {
            let file = try DatabaseFile.probe(path)
            try file.requireDatabase()
            console.result(json: OperationFormatter.json(headerOf: file), text: OperationFormatter.text(headerOf: file), removedLeftovers: [])
            return .success
        }
        let key = try options.key.read(for: path, context: context)
        if size > 0, options.saltOutputPath == nil, options.settings.salt == nil, key.kind != .rawKeyWithSalt {
            // Killed after its rename, a move that printed the salt nowhere would lose it with the data.
            throw UsageError(
                "a plaintext header takes the salt out of the file: save it with \(PlaintextHeaderOptions.saltOutput.name) PATH (written before anything changes)",
                command: arguments.command, hint: "or give the salt you keep with \(CipherOptionNames(prefix: "").salt) HEX or \(CipherOptionNames(prefix: "").saltFile) PATH")
        }
        let verify = engine.verifies(console: console, unchecked: "the result will not be checked before it replaces '\(path)'")
        let token = CancellationToken()
        SignalTrap.install(cancelling: token)
        var request = PlaintextHeaderRequest(
            database: context.openRequest(path: path, key: key, settings: options.settings, mode: .readWrite),
            size: size, saltOutputPath: options.saltOutputPath, verify: verify)
        let report = try console.warningOfLeftoversIfItFails { told in
            request.leftoverRemoved = told
            return try PlaintextHeaderMover.move(request, token: token)
        }
        console.formatFound(report.format, attempts: report.formatAttempts, path: path)
        console.result(json: OperationFormatter.json(report), text: OperationFormatter.text(report), removedLeftovers: report.removedLeftovers)
        return .success
    }
}
