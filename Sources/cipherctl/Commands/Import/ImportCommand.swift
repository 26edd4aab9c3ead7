import CipherKit

/// `cipherctl import`: rows from csv, tsv, json or jsonl into a table, in one transaction.
enum ImportCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try ImportOptions(arguments)
        let (path, table) = (options.path, options.table)
        let key = try options.key.readIfNeeded(for: path, context: context)
        let input = try InputChunks(path: options.file)
        var request = ImportRequest(
            database: context.openRequest(path: path, key: key, settings: options.settings, mode: .readWrite), table: table,
            format: options.format, input: input.next)
        request.primaryKey = options.primaryKey
        request.conflict = options.conflict
        request.alter = options.alter
        if let size = options.batchSize { request.batchSize = size }
        SignalTrap.install(cancelling: request.token)
        let report = try TableImporter.run(request)
        let json = JSONValue.object([
            ("path", .string(path)), ("table", .string(table)), ("rows", .integer(report.rows)), ("changes", .integer(report.changes)),
            ("created", .bool(report.created)), ("columns", .array(report.columns.map(JSONValue.string))),
        ])
        let text = "imported \(report.rows) row\(report.rows == 1 ? "" : "s") into \(report.created ? "the new" : "the") table '\(table)' of '\(path)'"
            + (report.changes == report.rows ? "" : " (\(report.changes) changed the table)") + "\n"
        context.console.result(json: json, text: text, removedLeftovers: [])
        return .success
    }
}
