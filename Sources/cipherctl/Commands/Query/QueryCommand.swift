import CipherKit
import Foundation

/// `cipherctl query`: run SQL (or read a table) and stream the results in a format.
enum QueryCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        guard let path = arguments.positionals.first else {
            throw UsageError("missing the database path", command: "query")
        }
        let console = context.console
        if arguments.positionals.dropFirst().contains("-") || arguments.value("--file") == "-" {
            try KeyReader.refuseSharedStandardInput(arguments, for: "the SQL ('-')")
        }
        let source = try querySource(arguments)
        let format = try resultFormat(arguments, console: console)
        let options = try resultOptions(arguments, format: format)
        var parameters = try queryParameters(arguments)
        if case .built = source {
            // --arg values belong to the --where text; the built query carries them.
            parameters.positional = []
        }
        let settings = try CipherOptionsReader.settings(from: arguments)
        let key = try KeyReader(prefix: "").readIfNeeded(arguments, for: path, context: context)
        let write = arguments.has("--write")
        let request = QueryRequest(
            database: context.openRequest(path: path, key: key, settings: settings, mode: write ? .readWrite : .readOnly),
            source: source, parameters: parameters, write: write)
        let token = CancellationToken()
        SignalTrap.install(cancelling: token)
        let output = OutputBuffer(sink: StandardOutput.write)
        let writer = format.makeWriter(output: output, options: options)
        let report: QueryReport
        do {
            report = try QueryRunner.run(request, writer: writer, token: token)
        } catch let closed as OutputClosed {
            if write {
                console.warning("standard output closed; the transaction was rolled back, nothing was changed")
                return .failure
            }
            if let reason = closed.reason { throw CipherKitError.fileAccess(path: "standard output", reason: reason) }
            return .success
        }
        console.formatFound(report.format, attempts: report.formatAttempts, path: path)
        if write { try summarize(report, format: format, output: output, console: console) }
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

    /// SQL from the arguments after the path, `--file PATH`, or standard input (`-`); or a
    /// table read built from `--table` and its options.
    static func querySource(_ arguments: ParsedArguments) throws -> QuerySource {
        let sqlArguments = Array(arguments.positionals.dropFirst())
        let tableOptions = ["--columns", "--where", "--order", "--limit", "--offset"]
        if let table = arguments.value("--table") {
            guard sqlArguments.isEmpty, !arguments.has("--file") else {
                throw UsageError("--table reads a table without SQL; drop the SQL arguments or --file", command: "query")
            }
            return .built(try builtQuery(table: table, arguments: arguments))
        }
        if let option = tableOptions.first(where: arguments.has) {
            throw UsageError("\(option) goes with --table", command: "query")
        }
        var pieces: [String] = []
        if let file = arguments.value("--file") {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CipherKitError.fileAccess(path: file, reason: "cannot read the SQL file")
            }
            pieces.append(String(decoding: data, as: UTF8.self))
        }
        for piece in sqlArguments {
            if piece == "-" {
                pieces.append(String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self))
            } else {
                pieces.append(piece)
            }
        }
        guard !pieces.isEmpty else {
            throw UsageError("no SQL given: pass it after the path, with --file PATH, or '-' for standard input (or use --table)", command: "query")
        }
        // Each piece ends its last statement, so 'SELECT 1' 'SELECT 2' are two statements.
        return .script(pieces.joined(separator: ";\n"))
    }

    private static func builtQuery(table name: String, arguments: ParsedArguments) throws -> SQLQuery {
        var table = Table(name)
        if let list = arguments.value("--columns") {
            let columns = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !columns.isEmpty, !columns.contains(where: \.isEmpty) else {
                throw UsageError("--columns needs column names separated by commas", command: "query")
            }
            table = table.select(columns)
        }
        if let condition = arguments.value("--where") {
            let values = try arguments.allValues("--arg").map(DatabaseValue.init(parsing:))
            table = table.filter(.raw(condition, arguments: values))
        } else if arguments.has("--arg") {
            throw UsageError("--arg values bind '?' in SQL or in --where; there is neither", command: "query")
        }
        if let order = arguments.value("--order") {
            let terms = order.split(separator: ",").map { OrderTerm(parsing: String($0)) }
            guard !terms.isEmpty, terms.allSatisfy({ $0 != nil }) else {
                throw UsageError("--order needs 'column [asc|desc]' terms separated by commas", command: "query")
            }
            table = table.order(terms.compactMap { $0 })
        }
        func count(_ option: String) throws -> Int? {
            guard let text = arguments.value(option) else { return nil }
            guard let value = Int(text), value >= 0 else { throw UsageError("\(option) needs a whole number, 0 or more", command: "query") }
            return value
        }
        let limit = try count("--limit"), offset = try count("--offset")
        if limit != nil || offset != nil { table = table.limit(limit, offset: offset) }
        return table.query
    }

    private static func queryParameters(_ arguments: ParsedArguments) throws -> QueryParameters {
        var parameters = QueryParameters()
        for pair in arguments.allValues("--param") {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw UsageError("--param needs NAME=VALUE", command: "query")
            }
            var name = String(pair[..<equals])
            if let first = name.first, ":@$".contains(first) { name.removeFirst() }
            guard parameters.named[name] == nil else { throw UsageError("--param '\(name)' is given more than once", command: "query") }
            parameters.named[name] = try DatabaseValue(parsing: String(pair[pair.index(after: equals)...]))
        }
        parameters.positional = try arguments.allValues("--arg").map(DatabaseValue.init(parsing:))
        return parameters
    }

    /// `--format`, else table on a terminal and csv otherwise. `--json` shapes only errors and
    /// the run's report, never the rows: given alone it would be ambiguous, so it is refused.
    private static func resultFormat(_ arguments: ParsedArguments, console: Console) throws -> ResultFormat {
        guard let name = arguments.value("--format") else {
            if console.json {
                throw UsageError("--json shapes errors and the report, not the rows", command: "query", hint: "add --format json (or jsonl) for JSON rows")
            }
            return StandardOutput.isTerminal ? .table : .csv
        }
        guard let format = ResultFormat(rawValue: name.lowercased()) else {
            throw UsageError("--format must be one of " + ResultFormat.allCases.map(\.rawValue).joined(separator: ", "), command: "query")
        }
        return format
    }

    private static func resultOptions(_ arguments: ParsedArguments, format: ResultFormat) throws -> ResultOptions {
        var options = ResultOptions()
        if arguments.has("--no-header") {
            // value prints no header: the option is accepted there, so that switching a
            // script from csv or tsv to value needs no other change.
            guard format.hasHeader || format == .value else {
                throw UsageError("--no-header applies to the csv, tsv, table and value formats", command: "query")
            }
            options.header = false
        }
        if let text = arguments.value("--null") {
            guard !format.isJSON else { throw UsageError("--null applies to the text formats; JSON writes null", command: "query") }
            options.nullText = text
        }
        if let name = arguments.value("--blob") {
            guard let encoding = BlobEncoding(rawValue: name.lowercased()) else {
                throw UsageError("--blob must be raw, hex or base64", command: "query")
            }
            if format.isJSON, encoding == .raw { throw UsageError("JSON cannot hold raw bytes: use --blob hex or base64", command: "query") }
            options.blobEncoding = encoding
        }
        return options
    }
}
