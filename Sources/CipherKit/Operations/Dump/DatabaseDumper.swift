import FoundationEssentials

/// Writes a database as SQL text that rebuilds it: the schema, every row as an INSERT,
/// indexes, views and triggers after the rows, and the header fields `user_version`,
/// `application_id` and `auto_vacuum`, all in one transaction (`BEGIN TRANSACTION` …
/// `COMMIT`). A virtual table is created and its rows inserted through it, which rebuilds
/// its index (an FTS table whose content lives elsewhere has no rows of its own). Rows stream from one read transaction through the output buffer, so memory
/// stays flat whatever the size; values are written as literals that read back exactly
/// (`SQLLiteral`), and rowids are kept. See https://www.sqlite.org/cli.html#converting_an_entire_database_to_a_text_file
public enum DatabaseDumper {
    /// - Throws: what `DatabaseOpener.open` throws, `CipherKitError.database` for a failed
    ///   read, `DumpError.noSuchTable`, and whatever the output throws.
    public static func dump(_ request: DumpRequest, to output: OutputBuffer) throws -> DumpReport {
        var database = request.database
        database.mode = .readOnly
        let opened = try DatabaseOpener.open(database)
        let connection = opened.connection
        var report = DumpReport(tables: 0, rows: 0, format: opened.format, formatAttempts: opened.attempts)
        // A read that fails on a damaged page names it (`namingDamage`).
        try opened.namingDamageOf {
            try connection.execute("BEGIN")
            defer { try? connection.execute("ROLLBACK") }
            let all = try schema(of: connection)
            let entries = try selected(all, tables: request.tables)
            try output.write("PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n")
            if request.tables.isEmpty { try writeAutoVacuum(connection, to: output) }
            try writeTables(entries, connection: connection, output: output, report: &report)
            if all.contains(where: { $0.name == "sqlite_sequence" }) {
                try writeSequence(all, selected: entries, whole: request.tables.isEmpty, connection: connection, output: output, report: &report)
            }
            for entry in entries where entry.type != "table" {
                try output.write(entry.sql + ";\n")
            }
            if request.tables.isEmpty { try writeHeaderFields(connection, to: output) }
            try output.write("COMMIT;\n")
            try output.flush()
        }
        return report
    }

    private static func writeTables(_ entries: [SchemaEntry], connection: Connection, output: OutputBuffer, report: inout DumpReport) throws {
        for table in entries where table.type == "table" && table.name != "sqlite_sequence" {
            try output.write(table.sql + ";\n")
            report.tables += 1
            report.rows += try TableRows.write(table.name, connection: connection, to: output)
        }
    }

    /// `sqlite_sequence` after every table's rows: all of it in a whole dump (or when asked
    /// for), else the rows of the tables dumped.
    private static func writeSequence(
        _ all: [SchemaEntry], selected: [SchemaEntry], whole: Bool, connection: Connection, output: OutputBuffer, report: inout DumpReport
    ) throws {
        let tables = selected.filter { $0.type == "table" }.map(\.name)
        if whole || tables.contains("sqlite_sequence") {
            report.tables += 1
            report.rows += try SequenceRows.writeAll(whole ? all : selected, connection: connection, to: output)
        } else {
            report.rows += try SequenceRows.write(for: tables, connection: connection, to: output)
        }
    }

    /// The schema's entries with SQL, in the order they were made; statistics left out, and
    /// the shadow tables of virtual tables, whose rows the virtual table's own rows make again
    /// (so a dump needs no writable schema, which the sqlite3 shell's defensive mode refuses).
    private static func schema(of connection: Connection) throws -> [SchemaEntry] {
        let shadows = Set(try connection.rows("SELECT name FROM pragma_table_list WHERE type = 'shadow'").compactMap { $0.first?.textValue })
        let statement = try connection.prepare(
            "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\' ORDER BY rowid")
        var entries: [SchemaEntry] = []
        while try statement.step() {
            let text = { (index: Int) in statement.withText(at: index) { String(decoding: $0, as: UTF8.self) } }
            let entry = SchemaEntry(type: text(0), name: text(1), table: text(2), sql: text(3))
            if !shadows.contains(entry.name) { entries.append(entry) }
        }
        return entries
    }

    /// The entries of the tables asked for (all when none), with their indexes and triggers;
    /// views only in a whole dump. Names match as SQLite matches them, ASCII letters in any
    /// case (a trigger's table is recorded as its CREATE TRIGGER spelt it).
    private static func selected(_ entries: [SchemaEntry], tables: [String]) throws -> [SchemaEntry] {
        guard !tables.isEmpty else { return entries }
        let known = entries.filter { $0.type == "table" }.map(\.name)
        if let missing = tables.first(where: { name in !known.contains { SQLIdentifier.matches($0, name) } }) {
            throw DumpError.noSuchTable(missing)
        }
        return entries.filter { entry in entry.type != "view" && tables.contains { SQLIdentifier.matches(entry.table, $0) } }
    }

    private static func writeAutoVacuum(_ connection: Connection, to output: OutputBuffer) throws {
        let mode = try connection.pragmaInteger("auto_vacuum") ?? 0
        if mode != 0 { try output.write("PRAGMA auto_vacuum=\(mode);\n") }
    }

    private static func writeHeaderFields(_ connection: Connection, to output: OutputBuffer) throws {
        for field in ["user_version", "application_id"] {
            let value = try connection.pragmaInteger(field) ?? 0
            if value != 0 { try output.write("PRAGMA \(field)=\(value);\n") }
        }
    }
}
