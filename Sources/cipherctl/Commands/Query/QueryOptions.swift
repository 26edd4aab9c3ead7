import CipherKit

/// `query`'s command line, read once: the database, where its SQL comes from (or the table
/// read that stands for it), the values bound to it, how the rows print, the cipher settings
/// and where the key comes from.
struct QueryOptions {
    let path: String
    /// The SQL arguments after the path, in order; "-" stands for standard input.
    let sql: [String]
    /// `--file PATH`, read before the SQL arguments.
    let file: String?
    /// The query `--table` and its options build; nil when SQL is given.
    let tableRead: SQLQuery?
    let write: Bool
    /// `--param` and `--arg` values (a table read's `--arg`s are in its query instead).
    let parameters: QueryParameters
    let format: ResultFormat
    let result: ResultOptions
    let settings: CipherSettings
    let key: KeyOptions

    /// - Throws: `UsageError` for a missing path, SQL given twice or not at all, an option
    ///   that does not go with the others or the format, or a malformed value;
    ///   `CipherKitError.fileAccess` when the salt file cannot be read.
    init(_ arguments: ParsedArguments) throws {
        guard let path = arguments.positionals.first else {
            throw UsageError("missing the database path", command: arguments.command)
        }
        self.path = path
        sql = Array(arguments.positionals.dropFirst())
        file = arguments.value(Self.file)
        if sql.contains("-") || file.map(KeyReader.namesStandardInput) == true {
            // A key file redirected in as the SQL file too would run the key as a statement,
            // and SQLite's message would quote it.
            try KeyReader.refuseSharedStandardInput(arguments, for: sql.contains("-") || file == "-" ? "the SQL ('-')" : "the SQL")
        }
        tableRead = try Self.tableRead(arguments, sqlGiven: !sql.isEmpty || file != nil)
        if tableRead == nil, sql.isEmpty, file == nil {
            throw UsageError(
                "no SQL given: pass it after the path, with \(Self.file.name) PATH, or '-' for standard input (or use \(Self.table.name))",
                command: arguments.command)
        }
        write = arguments.has(Self.write)
        format = try Self.format(arguments)
        result = try Self.resultOptions(arguments, format: format)
        var parameters = try Self.parameters(arguments)
        if tableRead != nil {
            // --arg values belong to the --where text; the built query carries them.
            parameters.positional = []
        }
        self.parameters = parameters
        settings = try CipherOptionsReader.settings(from: arguments)
        key = KeyOptions(arguments)
    }

    /// `--param NAME=VALUE` by name (without its `:`, `@` or `$`) and `--arg VALUE` in order.
    private static func parameters(_ arguments: ParsedArguments) throws -> QueryParameters {
        var parameters = QueryParameters()
        for pair in arguments.allValues(Self.parameter) {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw UsageError("\(Self.parameter.name) needs NAME=VALUE", command: arguments.command)
            }
            var name = String(pair[..<equals])
            if let first = name.first, ":@$".contains(first) { name.removeFirst() }
            guard parameters.named[name] == nil else {
                throw UsageError("\(Self.parameter.name) '\(name)' is given more than once", command: arguments.command)
            }
            parameters.named[name] = try DatabaseValue(parsing: String(pair[pair.index(after: equals)...]))
        }
        parameters.positional = try arguments.allValues(Self.argument).map(DatabaseValue.init(parsing:))
        return parameters
    }
}
