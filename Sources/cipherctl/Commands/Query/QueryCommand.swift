import CipherKit
import FoundationEssentials
import Glibc

/// `cipherctl query`: run SQL (or read a table) and stream the results in a format.
enum QueryCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try QueryOptions(arguments)
        let console = context.console
        let source = try querySource(options)
        let key = try options.key.readIfNeeded(for: options.path, context: context)
        let request = QueryRequest(
            database: context.openRequest(path: options.path, key: key, settings: options.settings, mode: options.write ? .readWrite : .readOnly),
            source: source, parameters: options.parameters, write: options.write)
        let token = CancellationToken()
        SignalTrap.install(cancelling: token)
        let output = OutputBuffer(sink: StandardOutput.write)
        let writer = options.format.makeWriter(output: output, options: options.result)
        let report: QueryReport
        do {
            report = try QueryRunner.run(request, writer: writer, token: token)
        } catch let failure as QueryError {
            // SQL read from the key's file by mistake must not be quoted back.
            throw key.map(failure.hidingText) ?? failure
        } catch let closed as OutputClosed {
            if options.write { throw UnwrittenResult(committed: false, problem: closed.reason ?? "its reader closed it", rolledBack: true) }
            if let reason = closed.reason { throw UnwrittenResult(committed: false, problem: reason) }
            return .success
        }
        console.formatFound(report.format, attempts: report.formatAttempts, path: options.path)
        if options.write { try summarize(report, format: options.format, output: output, console: console) }
        return .success
    }

    /// The statement and change counts of a run that wrote: they close the `json` document's
    /// object, are a last `jsonl` line under --json, and else a line on standard error (a
    /// JSON object under --json).
    private static func summarize(_ report: QueryReport, format: ResultFormat, output: OutputBuffer, console: Console) throws {
        let counts = #""statements":\#(report.statements),"changes":\#(report.changes)}"#
        let text: String
        if format == .json {
            text = "," + counts + "\n"
        } else if format == .jsonl, console.json {
            text = "{" + counts + "\n"
        } else {
            if console.json {
                console.errorLine("{" + counts)
            } else if !console.quiet {
                console.errorLine("cipherctl: \(report.changes) row\(report.changes == 1 ? "" : "s") changed by \(report.statements) statement\(report.statements == 1 ? "" : "s")")
            }
            return
        }
        do { try output.write(text); try output.flush() } catch is OutputClosed {}
    }

    /// The table read the options built, or the SQL: `--file PATH`, then the arguments after
    /// the path, `-` reading standard input.
    ///
    /// - Throws: `CipherKitError.fileAccess` when the SQL file cannot be read.
    static func querySource(_ options: QueryOptions) throws -> QuerySource {
        if let read = options.tableRead { return .built(read) }
        var pieces: [String] = []
        if let file = options.file {
            // Read as a stream, so that a pipe (`--file <(…)`, /dev/stdin) works as a file does.
            var status = stat()
            let isFolder = stat(file, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
            guard !isFolder, let handle = OpenFile(reading: file), let data = try? handle.readToEnd() else {
                throw CipherKitError.fileAccess(path: file, reason: isFolder ? "it is a folder, not an SQL file" : "cannot read the SQL file")
            }
            pieces.append(String(decoding: data, as: UTF8.self))
        }
        for piece in options.sql {
            if piece == "-" {
                pieces.append(String(decoding: (try? OpenFile.standardInput.readToEnd()) ?? [], as: UTF8.self))
            } else {
                pieces.append(piece)
            }
        }
        // Each piece ends its last statement, so 'SELECT 1' 'SELECT 2' are two statements.
        return .script(pieces.joined(separator: ";\n"))
    }
}
