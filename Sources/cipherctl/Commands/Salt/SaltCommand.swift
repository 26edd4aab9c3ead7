import CipherKit

/// `cipherctl salt`: print a database's salt, from its header or confirmed with the key.
enum SaltCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let path = try arguments.databasePath()
        let settings = try CipherOptionsReader.settings(from: arguments)
        let keys = KeyReader(prefix: "")
        var request = context.openRequest(path: path, key: nil, settings: settings, mode: .readOnly)
        if keys.hasSource(arguments) {
            request.key = try keys.read(arguments, for: path, console: context.console, environment: context.environment)
        }
        let report = try SaltReader.read(request)
        context.console.formatFound(report.format, attempts: report.formatAttempts, path: path)
        if let output = arguments.value("--output") {
            let console = context.console
            try SaltFile.write(report.salt, to: output) { console.note("removed '\($0)', a temporary file left by an interrupted run") }
            context.console.note("wrote the salt of '\(path)' to '\(output)'")
        }
        context.console.result(
            json: OperationFormatter.json(report, output: arguments.value("--output")), text: OperationFormatter.text(report), removedLeftovers: [])
        return .success
    }
}
