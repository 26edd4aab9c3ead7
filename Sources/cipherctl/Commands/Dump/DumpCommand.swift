import CipherKit
import FoundationEssentials
import Glibc

/// `cipherctl dump`: the database as SQL text on standard output, streamed.
enum DumpCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try DumpOptions(arguments)
        let path = options.path
        let console = context.console
        let key = try options.key.readIfNeeded(for: path, context: context)
        if StandardOutput.isTerminal {
            console.warning("the dump is plaintext: every row of '\(path)' is shown unencrypted; redirect it to a pipe, or to a file you protect")
        }
        var database = context.openRequest(path: path, key: key, settings: options.settings, mode: .readOnly)
        database.leavesFilesAlone = true
        let request = DumpRequest(database: database, tables: options.tables)
        let token = CancellationToken()
        SignalTrap.install(cancelling: token)
        do {
            let report = try DatabaseDumper.dump(request, to: OutputBuffer(sink: StandardOutput.write))
            console.formatFound(report.format, attempts: report.formatAttempts, path: path)
            console.note("'\(path)': \(report.rows) rows of \(report.tables) tables dumped")
        } catch let closed as OutputClosed {
            if let reason = closed.reason { throw UnwrittenResult(committed: false, problem: reason) }
        }
        return .success
    }
}
