import CipherKit
import Foundation

/// `cipherctl export`: copy a database to a new file with another key, settings, or none.
enum ExportCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        guard arguments.positionals.count == 2 else {
            throw UsageError("export takes a source and a destination path", command: "export")
        }
        let (source, destination) = (arguments.positionals[0], arguments.positionals[1])
        let console = context.console
        let settings = try CipherOptionsReader.settings(from: arguments)
        let destinationSettings = try CipherOptionsReader.settings(from: arguments, prefix: "to-")
        let toKeys = KeyReader(prefix: "to-")
        let plaintext = arguments.has("--plaintext")
        if plaintext, toKeys.hasSource(arguments) || arguments.has("--to-raw-key") {
            throw UsageError("--plaintext writes no key; drop the --to-key options", command: "export")
        }
        if plaintext, !destinationSettings.isEmpty || arguments.has("--to-compat") {
            throw UsageError("--plaintext takes no --to- cipher options", command: "export")
        }
        let key = try KeyReader(prefix: "").readIfNeeded(arguments, for: source, context: context)
        let destinationKey = plaintext ? nil : try toKeys.read(arguments, for: destination, console: console, environment: context.environment)
        if plaintext {
            console.warning("'\(destination)' will not be encrypted: anyone who can read the file can read the data")
        }
        let engine = try EngineOptions(arguments)
        let verify = engine.verifies(console: context.console, unchecked: "the copy will not be checked before it replaces or creates '\(destination)'")
        let token = CancellationToken()
        SignalTrap.install(cancelling: token)
        var request = ExportRequest(
            source: context.openRequest(path: source, key: key, settings: settings, mode: .readOnly),
            destinationPath: destination, destinationKey: destinationKey, destinationSettings: destinationSettings,
            replaceExisting: arguments.has("--force"), verify: verify)
        request.keepsSourceFormat = arguments.value("--to-compat")?.lowercased() == "same"
        request.fullVerification = engine.verification == .full
        request.threads = engine.engineThreads(concurrent: 1)
        let bar = ProgressBar.make(label: "'\(source)'", pageSize: settings.pageSize ?? 4096, console: console)
        let report = try GeneratedKeyFile.discardingOnFailure(arguments, prefix: "to-", console: console) {
            try console.warningOfLeftoversIfItFails { told in
                request.leftoverRemoved = told
                return try Exporter.export(request, token: token, progress: bar?.observer)
            }
        }
        console.formatFound(report.sourceFormat, attempts: report.sourceFormatAttempts, path: report.source)
        console.result(json: OperationFormatter.json(report), text: OperationFormatter.text(report), removedLeftovers: report.removedLeftovers)
        return .success
    }
}
