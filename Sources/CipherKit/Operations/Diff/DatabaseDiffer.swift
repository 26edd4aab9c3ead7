/// Compares two databases, each opened read-only with its own key and settings (found by the
/// settings search as `open` finds them), and each read in one read transaction, so both are
/// snapshots: the schema objects only in one or with other SQL, the header fields
/// applications keep data in (`user_version`, `application_id`), and every table both have
/// (`sqlite_sequence` too), row by row by primary key or rowid, values compared exactly. No
/// key is ever part of SQL: each database has a connection of its own. The shadow tables of
/// virtual tables are compared through their virtual table's rows.
public enum DatabaseDiffer {
    /// - Throws: what `DatabaseOpener.open` throws for either database, and
    ///   `CipherKitError.database` for a failed read.
    public static func diff(_ request: DiffRequest) throws -> DatabaseDifference {
        var firstRequest = request.first, secondRequest = request.second
        firstRequest.mode = .readOnly
        secondRequest.mode = .readOnly
        // Each snapshot is taken as its database is opened: the first before the second's key
        // is derived, so that a writer's commit meanwhile is not read into the first.
        let first = try DatabaseOpener.open(firstRequest)
        try CipherKitError.translating(path: firstRequest.path, file: first.file) { try beginSnapshot(first.connection) }
        defer { try? first.connection.execute("ROLLBACK") }
        let second = try DatabaseOpener.open(secondRequest)
        try CipherKitError.translating(path: secondRequest.path, file: second.file) { try beginSnapshot(second.connection) }
        defer { try? second.connection.execute("ROLLBACK") }
        var difference = DatabaseDifference()
        // One statement reads both: a failure that may mean damage names the side that has it.
        try first.namingDamageOf(also: second) {
            let a = try schema(of: first.connection), b = try schema(of: second.connection)
            difference.schema = changes(from: a, to: b)
            difference.header = try headerChanges(first.connection, second.connection)
            var listing: [RowChange]? = request.listsRows ? [] : nil
            for name in a.keys.sorted() where a[name]?.type == "table" && b[name]?.type == "table" {
                difference.tables.append(try TableComparison.compare(name, first: first.connection, second: second.connection, listing: &listing))
            }
            difference.rows = listing ?? []
        }
        return difference
    }

    /// Starts the read transaction that holds the connection's snapshot until the diff ends.
    private static func beginSnapshot(_ connection: Connection) throws {
        try connection.execute("BEGIN")
        _ = try connection.rows("SELECT count(*) FROM sqlite_schema")
    }

    /// The header fields applications keep data in, which `dump` carries. How the file is
    /// stored (`auto_vacuum`, the page size) is not content: a restore into an existing
    /// database keeps its own.
    static let headerFields = ["user_version", "application_id"]

    private static func headerChanges(_ first: Connection, _ second: Connection) throws -> [HeaderFieldChange] {
        try headerFields.compactMap { field in
            let a = try first.pragmaInteger(field) ?? 0, b = try second.pragmaInteger(field) ?? 0
            return a == b ? nil : HeaderFieldChange(field: field, first: a, second: b)
        }
    }

    private struct Entry: Equatable {
        let type: String
        let sql: String
    }

    /// Every object of the schema by name, but SQLite's own (`sqlite_sequence` apart: the next
    /// values of AUTOINCREMENT tables are content) and shadow tables.
    private static func schema(of connection: Connection) throws -> [String: Entry] {
        let shadows = Set(try connection.rows("SELECT name FROM pragma_table_list WHERE type = 'shadow'").compactMap { $0.first?.textValue })
        var entries: [String: Entry] = [:]
        for row in try connection.rows(
            "SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' OR name = 'sqlite_sequence'") {
            guard let name = row[1].textValue, !shadows.contains(name) else { continue }
            entries[name] = Entry(type: row[0].textValue ?? "", sql: row[2].textValue ?? "")
        }
        return entries
    }

    private static func changes(from a: [String: Entry], to b: [String: Entry]) -> [SchemaChange] {
        Set(a.keys).union(b.keys).sorted().compactMap { name in
            switch (a[name], b[name]) {
            case (let x?, nil): return SchemaChange(type: x.type, name: name, kind: .removed)
            case (nil, let y?): return SchemaChange(type: y.type, name: name, kind: .added)
            case (let x?, let y?) where x != y: return SchemaChange(type: y.type, name: name, kind: .changed)
            default: return nil
            }
        }
    }
}
