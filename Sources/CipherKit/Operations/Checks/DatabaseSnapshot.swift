/// What a database holds, as far as verification compares it: the schema, the header
/// fields that `sqlcipher_export()` does not carry, and every table's row count.
public struct DatabaseSnapshot: Equatable, Sendable {
    public var schema: [SchemaObject]
    public var userVersion: Int
    public var applicationID: Int
    public var autoVacuum: Int
    public var journalMode: String
    public var rowCounts: [TableRowCount]
    /// Whether `rowCounts` was filled (counting scans every table; work that is not verified skips it).
    public var rowsCounted: Bool = true

    public init(schema: [SchemaObject], userVersion: Int, applicationID: Int, autoVacuum: Int, journalMode: String, rowCounts: [TableRowCount]) {
        self.schema = schema
        self.userVersion = userVersion
        self.applicationID = applicationID
        self.autoVacuum = autoVacuum
        self.journalMode = journalMode
        self.rowCounts = rowCounts
    }

    /// The total number of rows over every table.
    public var totalRows: Int { rowCounts.reduce(0) { $0 + $1.rows } }

    /// The number of ordinary tables in the schema.
    public var tableCount: Int {
        schema.filter { $0.type == "table" && !$0.name.hasPrefix("sqlite_") }.count
    }

    /// Reads the snapshot of schema `schemaName` (`main`, or an attached name) on `connection`;
    /// `countRows` false leaves `rowCounts` empty.
    public static func read(from connection: Connection, schema schemaName: String = "main", countRows: Bool = true) throws -> DatabaseSnapshot {
        let qualifier = SQLIdentifier.quote(schemaName)
        let rows = try connection.rows("SELECT type, name, tbl_name, sql FROM \(qualifier).sqlite_master")
        let schema = rows.map { row in
            SchemaObject(type: row[0].textValue ?? "", name: row[1].textValue ?? "", table: row[2].textValue ?? "", sql: row[3].textValue)
        }.sorted()
        let tables = schema.filter { $0.type == "table" && !$0.name.hasPrefix("sqlite_") && !($0.sql ?? "").uppercased().hasPrefix("CREATE VIRTUAL") }
        let counts = try (countRows ? tables : []).map { table in
            let count = try connection.scalar("SELECT count(*) FROM \(qualifier).\(SQLIdentifier.quote(table.name))")?.integerValue ?? 0
            return TableRowCount(table: table.name, rows: Int(count))
        }
        func pragma(_ name: String) throws -> String? {
            try connection.pragmaText("\(qualifier).\(name)")
        }
        var snapshot = DatabaseSnapshot(
            schema: schema,
            userVersion: Int(try pragma("user_version") ?? "") ?? 0,
            applicationID: Int(try pragma("application_id") ?? "") ?? 0,
            autoVacuum: Int(try pragma("auto_vacuum") ?? "") ?? 0,
            journalMode: try pragma("journal_mode") ?? "unknown",
            rowCounts: counts)
        snapshot.rowsCounted = countRows
        return snapshot
    }

    /// What differs from `expected`, one phrase per difference; empty when they agree.
    public func differences(from expected: DatabaseSnapshot) -> [String] {
        var problems: [String] = []
        if schema != expected.schema {
            let missing = Set(expected.schema).subtracting(schema).map(\.name).sorted()
            let extra = Set(schema).subtracting(expected.schema).map(\.name).sorted()
            problems.append("schema differs (missing: \(missing.joined(separator: ", ")); unexpected: \(extra.joined(separator: ", ")))")
        }
        if userVersion != expected.userVersion { problems.append("user_version is \(userVersion), expected \(expected.userVersion)") }
        if applicationID != expected.applicationID { problems.append("application_id is \(applicationID), expected \(expected.applicationID)") }
        if autoVacuum != expected.autoVacuum { problems.append("auto_vacuum is \(autoVacuum), expected \(expected.autoVacuum)") }
        if journalMode.lowercased() != expected.journalMode.lowercased() {
            problems.append("journal_mode is \(journalMode), expected \(expected.journalMode)")
        }
        let actual = Dictionary(uniqueKeysWithValues: rowCounts.map { ($0.table, $0.rows) })
        for count in expected.rowCounts where actual[count.table] != count.rows {
            problems.append("table '\(count.table)' has \(actual[count.table].map(String.init) ?? "no") rows, expected \(count.rows)")
        }
        return problems
    }
}
