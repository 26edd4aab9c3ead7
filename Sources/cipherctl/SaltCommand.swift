import CipherKit

/// `cipherctl salt`: print a database's salt, from its header or confirmed with the key.
enum SaltCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw UsageError(arguments.positionals.isEmpty ? "missing the database path" : "salt takes one database path", command: "salt")
        }
        let settings = try CipherOptionsReader.settings(from: arguments)
        let keys = KeyReader(prefix: "")
        var request = OpenRequest(
            path: path, key: nil, settings: settings, mode: .readOnly,
            busyTimeoutMilliseconds: context.busyTimeoutMilliseconds, logLevel: context.logLevel)
        if keys.hasSource(arguments) {
            request.key = try keys.read(arguments, for: path, console: context.console, environment: context.environment)
        }
        let report = try SaltReader.read(request)
        context.console.formatFound(report.format, attempts: report.formatAttempts, path: path)
        if let output = arguments.value("--output") {
            try FileOperations.writeNew(output, contents: Array((Hex.encode(report.salt) + "\n").utf8))
            context.console.note("wrote the salt of '\(path)' to '\(output)'")
        }
        context.console.result(
            json: OperationFormatter.json(report, output: arguments.value("--output")), text: OperationFormatter.text(report), removedLeftovers: [])
        return .success
    }
}
