import CipherKit
import Foundation

/// `cipherctl import`: rows from csv, tsv, json or jsonl into a table, in one transaction.
enum ImportCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let positionals = arguments.positionals
        guard positionals.count >= 2, positionals.count <= 3 else {
            throw UsageError("import takes the database, the table and the input file ('-' or none: standard input)", command: "import")
        }
        let (path, table) = (positionals[0], positionals[1])
        let file = positionals.count == 3 && positionals[2] != "-" ? positionals[2] : nil
        if file == nil { try KeyReader.refuseSharedStandardInput(arguments, for: "the rows (standard input)") }
        let format = try importFormat(arguments, file: file)
        let console = context.console
        let settings = try CipherOptionsReader.settings(from: arguments)
        let key = try KeyReader(prefix: "").readIfNeeded(arguments, for: path, context: context)
        let input = try InputChunks(path: file)
        var request = ImportRequest(
            database: context.openRequest(path: path, key: key, settings: settings, mode: .readWrite), table: table, format: format,
            input: input.next)
        try configure(&request, arguments)
        let report = try TableImporter.run(request)
        let json = JSONValue.object([
            ("path", .string(path)), ("table", .string(table)), ("rows", .integer(report.rows)), ("changes", .integer(report.changes)),
            ("created", .bool(report.created)), ("columns", .array(report.columns.map(JSONValue.string))),
        ])
        let text = "imported \(report.rows) row\(report.rows == 1 ? "" : "s") into \(report.created ? "the new" : "the") table '\(table)' of '\(path)'"
            + (report.changes == report.rows ? "" : " (\(report.changes) changed the table)") + "\n"
        console.result(json: json, text: text, removedLeftovers: [])
        return .success
    }

    /// `--format`, else the file name's extension.
    private static func importFormat(_ arguments: ParsedArguments, file: String?) throws -> ImportFormat {
        if let name = arguments.value("--format") {
            guard let format = ImportFormat(rawValue: name.lowercased()) else {
                throw UsageError("--format must be csv, tsv, json or jsonl", command: "import")
            }
            return format
        }
        let suffix = file.map { URL(fileURLWithPath: $0).pathExtension.lowercased() } ?? ""
        guard let format = suffix == "ndjson" ? .jsonl : ImportFormat(rawValue: suffix) else {
            throw UsageError("give --format csv, tsv, json or jsonl (the input's name does not say which)", command: "import")
        }
        return format
    }

    private static func configure(_ request: inout ImportRequest, _ arguments: ParsedArguments) throws {
        request.primaryKey = arguments.value("--pk")
        if arguments.has("--replace"), arguments.has("--ignore") {
            throw UsageError("--replace and --ignore cannot be given together", command: "import")
        }
        request.conflict = arguments.has("--replace") ? .replace : arguments.has("--ignore") ? .ignore : .fail
        request.alter = arguments.has("--alter")
        if let text = arguments.value("--batch-size") {
            guard let size = Int(text), (1...1_000_000).contains(size) else {
                throw UsageError("--batch-size needs a whole number from 1 to 1000000", command: "import")
            }
            request.batchSize = size
        }
    }
}

/// The input of an import, 64 KiB at a time: a file, or standard input.
private final class InputChunks: @unchecked Sendable {
    private let descriptor: Int32
    private let path: String

    init(path: String?) throws {
        self.path = path ?? "standard input"
        guard let path else {
            descriptor = STDIN_FILENO
            return
        }
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
    }

    deinit {
        if descriptor != STDIN_FILENO { close(descriptor) }
    }

    func next() throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { return Array(chunk[0..<count]) }
            if count == 0 { return nil }
            guard errno == EINTR else { throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno))) }
        }
    }
}
