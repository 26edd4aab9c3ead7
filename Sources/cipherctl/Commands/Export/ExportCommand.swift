import CipherKit
import FoundationEssentials
import Glibc

/// `cipherctl export`: copy a database to a new file with another key, settings, or none.
enum ExportCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try ExportOptions(arguments)
        let (source, destination) = (options.source, options.destination)
        let console = context.console
        let key = try options.key.readIfNeeded(for: source, context: context)
        let destinationKey = options.plaintext ? nil : try options.destinationKey.read(for: destination, context: context)
        if options.plaintext {
            console.warning("'\(destination)' will not be encrypted: anyone who can read the file can read the data")
        }
        let engine = options.engine
        let verify = engine.verifies(console: context.console, unchecked: "the copy will not be checked before it replaces or creates '\(destination)'")
        let token = CancellationToken()
        SignalTrap.install(cancelling: token)
        var request = ExportRequest(
            source: context.openRequest(path: source, key: key, settings: options.settings, mode: .readOnly),
            destinationPath: destination, destinationKey: destinationKey, destinationSettings: options.destinationCipher.settings,
            replaceExisting: options.replaceExisting, verify: verify)
        request.keepsSourceFormat = options.destinationCipher.keepsSourceFormat
        request.sourceFamily = options.sourceFamily
        request.destinationFamily = options.destinationFamily
        request.fullVerification = engine.verification == .full
        request.threads = engine.engineThreads(concurrent: 1)
        let bar = ProgressBar.make(label: "'\(source)'", pageSize: options.settings.pageSize ?? 4096, console: console)
        let report = try GeneratedKeyFile.discardingOnFailure(arguments, prefix: options.destinationKey.reader.prefix, console: console) {
            try console.warningOfLeftoversIfItFails { told in
                request.leftoverRemoved = told
                return try Exporter.export(request, token: token, progress: bar?.observer)
            }
        }
        console.formatFound(report.sourceFormat, attempts: report.sourceFormatAttempts, path: report.source)
        let json = OperationFormatter.labelled(OperationFormatter.json(report), keyLabel: ChosenKeyLabels.shared.label(for: report.source))
        console.result(json: json, text: OperationFormatter.text(report), removedLeftovers: report.removedLeftovers)
        return .success
    }
}
