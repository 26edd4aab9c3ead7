/// Writes every row of one table as `INSERT INTO t(rowid, a, b) VALUES(…);`, one a line.
///
/// The columns are named, so a table whose generated columns cannot take a value still
/// loads, and the rowid is kept when it is not a column of its own (an INTEGER PRIMARY KEY
/// is), so row order and references by rowid survive the round trip. The rowid is named by
/// an alias no column shadows (`rowid`, `oid`, `_rowid_`); when columns take all three, it
/// cannot be named and is left out, as the sqlite3 shell's `.dump` leaves it.
enum TableRows {
    /// Writes the rows; returns how many.
    static func write(_ table: String, connection: Connection, to output: OutputBuffer) throws -> Int {
        let columns = try self.columns(of: table, connection: connection)
        let stored = columns.filter { $0.hidden == 0 }.map { SQLIdentifier.quote($0.name) }
        let names = (try rowidAlias(table, columns: columns, connection: connection).map { [$0] } ?? []) + stored
        let statement = try connection.prepare("SELECT " + names.joined(separator: ",") + " FROM " + SQLIdentifier.quote(table))
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
        let primaryKey: Int
        /// 0 for an ordinary column, 1 hidden (of a virtual table), 2 and 3 generated.
        let hidden: Int
    }

    /// Every column, hidden and generated ones too: any of them shadows a rowid alias.
    /// See https://www.sqlite.org/pragma.html#pragma_table_xinfo
    private static func columns(of table: String, connection: Connection) throws -> [Column] {
        let statement = try connection.prepare("SELECT name, pk, hidden FROM pragma_table_xinfo(?)")
        try statement.bind(.text(table), at: 1)
        var columns: [Column] = []
        while try statement.step() {
            let name = statement.withText(at: 0) { String(decoding: $0, as: UTF8.self) }
            columns.append(Column(name: name, primaryKey: Int(statement.int64(at: 1)), hidden: Int(statement.int64(at: 2))))
        }
        return columns
    }

    /// The alias to write the rowid under; nil when the table has no rowid (WITHOUT ROWID), an
    /// INTEGER PRIMARY KEY column stands for it, or columns shadow every alias.
    private static func rowidAlias(_ table: String, columns: [Column], connection: Connection) throws -> String? {
        guard let alias = RowidAlias.unshadowed(by: columns.map(\.name)),
              try !hasIntegerPrimaryKey(table, columns: columns, connection: connection),
              // A WITHOUT ROWID table (or a virtual table without rowids) has no such column.
              (try? connection.prepare("SELECT " + alias + " FROM " + SQLIdentifier.quote(table) + " LIMIT 0")) != nil
        else { return nil }
        return alias
    }

    /// Whether a column is the rowid: the table's primary key is one column and has no index
    /// of its own. A declared type other than INTEGER, or `INTEGER PRIMARY KEY DESC`, makes an
    /// ordinary column with an index (origin `pk`), and the rowid stays apart from it.
    /// See https://www.sqlite.org/lang_createtable.html#rowids_and_the_integer_primary_key
    private static func hasIntegerPrimaryKey(_ table: String, columns: [Column], connection: Connection) throws -> Bool {
        guard columns.filter({ $0.primaryKey > 0 }).count == 1 else { return false }
        let indexed = try connection.scalar("SELECT count(*) FROM pragma_index_list(?) WHERE origin = 'pk'", arguments: [.text(table)])
        return indexed?.integerValue == 0
    }
}
