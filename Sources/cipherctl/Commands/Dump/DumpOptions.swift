import CipherKit

/// `dump`'s command line, read once: the database, the tables asked for, the cipher settings
/// and where the key comes from.
struct DumpOptions {
    static let table = OptionSpec(
        "--table", value: "NAME", traits: .repeatable,
        help: "Dump only this table (its name in any case of ASCII letters, as SQLite matches it), with its indexes, triggers and sqlite_sequence row (repeatable); no views or header pragmas.")
    static let group = OptionGroup(title: "DUMP OPTIONS", options: [table])

    let path: String
    /// The tables to dump; empty for the whole database.
    let tables: [String]
    let settings: CipherSettings
    let key: KeyOptions

    /// - Throws: `UsageError` for a missing or extra path or a bad cipher option;
    ///   `CipherKitError.fileAccess` when the salt file cannot be read.
    init(_ arguments: ParsedArguments) throws {
        path = try arguments.databasePath()
        settings = try CipherOptionsReader.settings(from: arguments)
        key = KeyOptions(arguments)
        tables = arguments.allValues(Self.table)
    }
}
