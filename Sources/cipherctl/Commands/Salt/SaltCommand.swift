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
            // What a run killed while it wrote the file left beside it.
            for leftover in TemporaryDatabase.removeLeftovers(beside: output) {
                context.console.note("removed '\(leftover)', a temporary file left by an interrupted run")
            }
            try FileOperations.writeNew(output, contents: Array((Hex.encode(report.salt) + "\n").utf8))
            context.console.note("wrote the salt of '\(path)' to '\(output)'")
        }
        context.console.result(
            json: OperationFormatter.json(report, output: arguments.value("--output")), text: OperationFormatter.text(report), removedLeftovers: [])
        return .success
    }
}
