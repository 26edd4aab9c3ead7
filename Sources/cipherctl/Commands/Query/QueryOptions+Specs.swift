import CipherKit

/// `query`'s own options, which the catalog lists and `QueryOptions` reads.
extension QueryOptions {
    static let file = OptionSpec("--file", value: "PATH", traits: .path, help: "Read SQL from a file (before any SQL arguments).")
    static let write = OptionSpec("--write", help: "Open read-write and run the whole input in one transaction; any error rolls it all back.")
    static let parameter = OptionSpec("--param", value: "NAME=VALUE", traits: .repeatable, help: "Bind VALUE to :NAME, @NAME and $NAME.")
    // --where is spelled out: its help names this option, and two statics that read each
    // other while they start never finish starting.
    static let argument = OptionSpec("--arg", value: "VALUE", traits: .repeatable, help: "Bind VALUE to the next '?' (in order across statements, or in --where).")
    static let table = OptionSpec("--table", value: "NAME", help: "Read this table without SQL (name quoted, any characters).")
    static let columns: OptionSpec = OptionSpec("--columns", value: "A,B", help: "With \(table.name): only these columns, in this order.")
    static let condition: OptionSpec = OptionSpec("--where", value: "EXPR", help: "With \(table.name): an SQL condition; its values through \(parameter.name) or \(argument.name).")
    static let order: OptionSpec = OptionSpec("--order", value: "COL [asc|desc],...", help: "With \(table.name): sort by these columns.")
    static let limit: OptionSpec = OptionSpec("--limit", value: "N", help: "With \(table.name): at most N rows.")
    static let offset: OptionSpec = OptionSpec("--offset", value: "N", help: "With \(table.name): skip the first N rows.")
    static let group = OptionGroup(title: "QUERY OPTIONS", options: [file, write, parameter, argument, table, columns, condition, order, limit, offset])
    /// The options that shape a `--table` read, refused without it.
    static let tableReadOptions = [columns, condition, order, limit, offset]

    static let format = OptionSpec(
        "--format", value: "FORMAT", choices: ResultFormat.allCases.map(\.rawValue),
        help: "table (the default on a terminal), csv (the default otherwise; as the sqlite3 shell's .mode csv, with CRLF line ends), tsv, json (one JSON document), jsonl, markdown, line or value (one column, raw, not escaped, one value a line; more columns are exit 2).")
    static let noHeader = OptionSpec("--no-header", help: "Leave out the column names (csv, tsv, table; accepted by value, which has none).")
    static let nullText = OptionSpec("--null", value: "TEXT", help: "How NULL prints in the text formats (default: empty).")
    static let blob = OptionSpec(
        "--blob", value: "raw|hex|base64", choices: BlobEncoding.allCases.map(\.rawValue),
        help: "How blobs print: raw bytes by default in csv, tsv and value; hex in table, markdown and line; in JSON an object {\"$base64\": true, \"encoded\": ...} that import reads back as a blob (base64 or hex: a plain string).")
    static let formatGroup = OptionGroup(title: "FORMAT OPTIONS", options: [format, noHeader, nullText, blob])
}
