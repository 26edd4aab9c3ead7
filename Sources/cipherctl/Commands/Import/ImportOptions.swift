import CipherKit
import FoundationEssentials
import Glibc

/// `import`'s command line, read once: the database, the table, the input and its format,
/// what a taken key or a missing column does, the cipher settings and where the key comes from.
struct ImportOptions {
    static let format = OptionSpec(
        "--format", value: "FORMAT", choices: ImportFormat.allCases.map(\.rawValue),
        help: "csv, tsv, json (one array of objects) or jsonl (one object a line); by default from the file's extension.")
    static let primaryKey = OptionSpec("--pk", value: "COL", help: "For a new table: make COL its primary key.")
    static let replace = OptionSpec("--replace", help: "A row whose key is taken replaces the row there (INSERT OR REPLACE).")
    static let ignore = OptionSpec("--ignore", help: "A row whose key is taken is skipped (INSERT OR IGNORE); without either, it fails the import.")
    static let alter = OptionSpec("--alter", help: "Add a column the table lacks (a header name, or a key of a later object), untyped, instead of refusing the input.")
    static let batchSize = OptionSpec("--batch-size", value: "N", help: "Rows read ahead (default 1000): the first batch decides a new table's column types.")
    static let group = OptionGroup(title: "IMPORT OPTIONS", options: [format, primaryKey, replace, ignore, alter, batchSize])

    let path: String
    let table: String
    /// The input file; nil for standard input (`-` or none).
    let file: String?
    let format: ImportFormat
    let primaryKey: String?
    let conflict: ImportConflict
    let alter: Bool
    /// `--batch-size N`; nil for the engine's default.
    let batchSize: Int?
    let settings: CipherSettings
    let key: KeyOptions

    /// - Throws: `UsageError` for a wrong number of arguments, standard input asked to carry
    ///   both the key and the rows, a format not given nor told by the file's name, options
    ///   that exclude each other, or a batch size out of range; `CipherKitError.fileAccess`
    ///   when the salt file cannot be read.
    init(_ arguments: ParsedArguments) throws {
        let positionals = arguments.positionals
        guard positionals.count >= 2, positionals.count <= 3 else {
            throw UsageError("import takes the database, the table and the input file ('-' or none: standard input)", command: arguments.command)
        }
        (path, table) = (positionals[0], positionals[1])
        file = positionals.count == 3 && positionals[2] != "-" ? positionals[2] : nil
        if file.map(KeyReader.namesStandardInput) ?? true {
            try KeyReader.refuseSharedStandardInput(arguments, for: "the rows (standard input)")
        }
        format = try Self.format(arguments, file: file)
        settings = try CipherOptionsReader.settings(from: arguments)
        key = KeyOptions(arguments)
        primaryKey = arguments.value(Self.primaryKey)
        if arguments.has(Self.replace), arguments.has(Self.ignore) {
            throw UsageError("\(Self.replace.name) and \(Self.ignore.name) cannot be given together", command: arguments.command)
        }
        conflict = arguments.has(Self.replace) ? .replace : arguments.has(Self.ignore) ? .ignore : .fail
        alter = arguments.has(Self.alter)
        batchSize = try Self.batchSize(arguments)
    }

    /// `--format`, else the file name's extension.
    private static func format(_ arguments: ParsedArguments, file: String?) throws -> ImportFormat {
        if let name = arguments.value(Self.format) {
            guard let format = ImportFormat(rawValue: name.lowercased()) else {
                throw UsageError("\(Self.format.name) must be csv, tsv, json or jsonl", command: arguments.command)
            }
            return format
        }
        let suffix = file.map { URL(fileURLWithPath: $0).pathExtension.lowercased() } ?? ""
        guard let format = suffix == "ndjson" ? .jsonl : ImportFormat(rawValue: suffix) else {
            throw UsageError("give \(Self.format.name) csv, tsv, json or jsonl (the input's name does not say which)", command: arguments.command)
        }
        return format
    }

    private static func batchSize(_ arguments: ParsedArguments) throws -> Int? {
        guard let text = arguments.value(Self.batchSize) else { return nil }
        guard let size = Int(text), (1...1_000_000).contains(size) else {
            throw UsageError("\(Self.batchSize.name) needs a whole number from 1 to 1000000", command: arguments.command)
        }
        return size
    }
}
