/// Writes the rows of `sqlite_sequence`, the next values of AUTOINCREMENT tables, after every
/// table's rows: the inserts of an AUTOINCREMENT table raise its row, so the dumped value must
/// come last to stand (a sequence can be behind its table's largest key, or ahead of it).
/// See https://www.sqlite.org/autoinc.html
enum SequenceRows {
    /// A whole dump: all of them, with their rowids, after emptying the table. `sqlite_sequence`
    /// outlives the last AUTOINCREMENT table dropped; when no table of the dump makes it, an
    /// AUTOINCREMENT table made and dropped at once makes it, so that the load does not fail.
    static func writeAll(_ entries: [SchemaEntry], connection: Connection, to output: OutputBuffer) throws -> Int {
        if try !madeByTables(entries) {
            let scratch = scratchName(avoiding: entries)
            try output.write("CREATE TABLE \(scratch)(id INTEGER PRIMARY KEY AUTOINCREMENT);\nDROP TABLE \(scratch);\n")
        }
        try output.write("DELETE FROM sqlite_sequence;\n")
        return try TableRows.write("sqlite_sequence", connection: connection, to: output)
    }

    /// Whether one of the tables is AUTOINCREMENT, as SQLite itself tells: their CREATE
    /// statements, run in an empty database in memory, make its sqlite_sequence (the keyword
    /// may also be a quoted name or part of a string, which a search of the text would take).
    private static func madeByTables(_ entries: [SchemaEntry]) throws -> Bool {
        let probe = try Connection(path: ":memory:", mode: .readWrite)
        for entry in entries where entry.type == "table" && entry.name != "sqlite_sequence" {
            try? probe.execute(entry.sql)
        }
        return try probe.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_sequence'")?.integerValue == 1
    }

    private static func scratchName(avoiding entries: [SchemaEntry]) -> String {
        var name = "cipherctl_sequence", number = 0
        while entries.contains(where: { SQLIdentifier.matches($0.name, name) }) {
            number += 1
            name = "cipherctl_sequence_\(number)"
        }
        return name
    }

    /// A dump of some tables: their rows only, each replacing the one the inserts made, without
    /// rowids, which the other tables' rows of the database it is loaded into may hold.
    static func write(for tables: [String], connection: Connection, to output: OutputBuffer) throws -> Int {
        let statement = try connection.prepare("SELECT name, seq FROM sqlite_sequence WHERE name = ?")
        let reader = try SQLLiteral.realReader(on: connection)
        var rows = 0
        for table in tables {
            try statement.bind(.text(table), at: 1)
            var bytes: [UInt8] = []
            while try statement.step() {
                if bytes.isEmpty {
                    bytes += Array("DELETE FROM sqlite_sequence WHERE name = ".utf8)
                    SQLLiteral.append(text: Array(table.utf8), to: &bytes)
                    bytes += Array(";\n".utf8)
                }
                bytes += Array("INSERT INTO sqlite_sequence(name,seq) VALUES(".utf8)
                SQLLiteral.append(column: 0, of: statement, readBackBy: reader, to: &bytes)
                bytes.append(UInt8(ascii: ","))
                SQLLiteral.append(column: 1, of: statement, readBackBy: reader, to: &bytes)
                bytes += Array(");\n".utf8)
                rows += 1
            }
            statement.reset()
            let chunk = bytes
            try output.append { $0 += chunk }
        }
        return rows
    }
}
