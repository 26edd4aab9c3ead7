import CipherKit

/// `cipherctl salt`: print a database's salt, from its header or confirmed with the key.
enum SaltCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try SaltOptions(arguments)
        let path = options.path
        var request = context.openRequest(path: path, key: nil, settings: options.settings, mode: .readOnly)
        if options.key.given {
            request.key = try options.key.read(for: path, context: context)
        }
        let report = try SaltReader.read(request)
        context.console.formatFound(report.format, attempts: report.formatAttempts, path: path)
        if let output = options.output {
            let console = context.console
            try SaltFile.write(report.salt, to: output) { console.note("removed '\($0)', a temporary file left by an interrupted run") }
            context.console.note("wrote the salt of '\(path)' to '\(output)'")
        }
        context.console.result(
            json: OperationFormatter.json(report, output: options.output), text: OperationFormatter.text(report), removedLeftovers: [])
        return .success
    }
}
