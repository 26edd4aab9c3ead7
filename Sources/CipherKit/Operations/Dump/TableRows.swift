/// Writes every row of one table as `INSERT INTO t(rowid, a, b) VALUES(…);`, one a line.
///
/// The columns are named, so a table whose generated columns cannot take a value still
/// loads, and the rowid is kept when it is not a column of its own (an INTEGER PRIMARY KEY
/// is), so row order and references by rowid survive the round trip.
enum TableRows {
    /// Writes the rows; returns how many.
    static func write(_ table: String, connection: Connection, to output: OutputBuffer) throws -> Int {
        let columns = try storedColumns(of: table, connection: connection)
        let rowid = try keepsRowid(table, columns: columns, connection: connection)
        let names = (rowid ? ["rowid"] : []) + columns.map { SQLIdentifier.quote($0.name) }
        let selected = (rowid ? ["_rowid_"] : []) + columns.map { SQLIdentifier.quote($0.name) }
        let statement = try connection.prepare("SELECT " + selected.joined(separator: ",") + " FROM " + SQLIdentifier.quote(table))
        let reader = try SQLLiteral.realReader(on: connection)
        let prefix = Array(("INSERT INTO " + SQLIdentifier.quote(table) + "(" + names.joined(separator: ",") + ") VALUES(").utf8)
        var rows = 0
        while try statement.step() {
            try output.append { bytes in
                bytes.append(contentsOf: prefix)
                for index in 0..<names.count {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    SQLLiteral.append(column: index, of: statement, readBackBy: reader, to: &bytes)
                }
                bytes.append(contentsOf: [UInt8(ascii: ")"), UInt8(ascii: ";"), 10])
            }
            rows += 1
        }
        return rows
    }

    private struct Column {
        let name: String
        let type: String
        let primaryKey: Int
    }

    /// The columns that hold values of their own: not generated, not hidden.
    /// See https://www.sqlite.org/pragma.html#pragma_table_xinfo
    private static func storedColumns(of table: String, connection: Connection) throws -> [Column] {
        let statement = try connection.prepare("SELECT name, type, pk, hidden FROM pragma_table_xinfo(?)")
        try statement.bind(.text(table), at: 1)
        var columns: [Column] = []
        while try statement.step() {
            guard statement.int64(at: 3) == 0 else { continue }
            let text = { (index: Int) in statement.withText(at: index) { String(decoding: $0, as: UTF8.self) } }
            columns.append(Column(name: text(0), type: text(1), primaryKey: Int(statement.int64(at: 2))))
        }
        return columns
    }

    /// Whether the table has a rowid that no column stands for (WITHOUT ROWID tables have none;
    /// a sole INTEGER PRIMARY KEY column is the rowid).
    private static func keepsRowid(_ table: String, columns: [Column], connection: Connection) throws -> Bool {
        let keys = columns.filter { $0.primaryKey > 0 }
        if keys.count == 1, keys[0].type.uppercased() == "INTEGER" { return false }
        return (try? connection.prepare("SELECT _rowid_ FROM " + SQLIdentifier.quote(table) + " LIMIT 0")) != nil
    }
}
