import CipherKit

/// `open`'s command line, read once: the database, what to do with it, its cipher settings,
/// and where its key comes from.
struct OpenOptions {
    static let create = OptionSpec("--create", help: "Create a new encrypted database with the key and cipher options; exit 5 if the file exists.")
    static let check = OptionSpec("--check", help: "Check every page against its HMAC on all cores, then run SQLite's integrity_check (reading the pages just proven without a second HMAC); list every problem; exit 4 if there are any.")
    static let counts = OptionSpec("--counts", help: "Add the row count of every table.")
    static let group = OptionGroup(title: "OPEN OPTIONS", options: [create, check, counts])

    let path: String
    let create: Bool
    let inspection: InspectOptions
    let settings: CipherSettings
    let key: KeyOptions

    /// - Throws: `UsageError` for a missing or extra path or a bad cipher option.
    init(_ arguments: ParsedArguments) throws {
        path = try arguments.databasePath()
        create = arguments.has(Self.create)
        if create, arguments.has(KeyReader(prefix: "").ringOption) {
            throw UsageError("\(Self.create.name) takes the new database's one key, not a key ring", command: arguments.command)
        }
        inspection = InspectOptions(countRows: arguments.has(Self.counts), checkIntegrity: arguments.has(Self.check))
        settings = try CipherOptionsReader.settings(from: arguments)
        key = KeyOptions(arguments)
    }
}
