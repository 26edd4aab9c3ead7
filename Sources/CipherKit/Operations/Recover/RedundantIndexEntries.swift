/// Entries of index pages that SQLite's recovery put in `lost_and_found` (an index page below
/// a lost one: no id, the index's columns and then the rowid) whose rows their table kept with
/// the same values. The recovery makes every index again from the rows kept, so such entries
/// hold nothing that was lost; left in, they read as lost rows. An entry whose row is missing,
/// or differs, stays: it may be all that is left of that row.
/// See https://www.sqlite.org/recovery.html
enum RedundantIndexEntries {
    /// Removes the entries, a page at a time: a page goes only when every entry on it matches
    /// a row through one index (which tells an index page from a WITHOUT ROWID table's).
    /// Drops `lost_and_found` when nothing else is left in it. Nothing is removed when a
    /// WITHOUT ROWID table lost pages: its rows look like index entries. `sourceTables`: the
    /// tables the source had, one of which may be called `lost_and_found` too;
    /// `damagedTables`: those that lost pages.
    ///
    /// - Returns: the entries removed.
    /// - Throws: `DatabaseError`.
    static func remove(_ connection: Connection, sourceTables: Set<String>, damagedTables: Set<String>) throws -> Int {
        guard let orphans = try orphanTable(connection, sourceTables: sourceTables),
              !damagedTables.contains(where: { hasNoRowid($0, connection) }) else { return 0 }
        let fields = try connection.rows("SELECT name FROM pragma_table_info(?)", arguments: [.text(orphans)]).count - 4
        var removed = 0
        for index in try candidates(connection) where index.columns.count < fields {
            try connection.execute(deletion(from: orphans, through: index))
            removed += connection.changes
        }
        if removed > 0, try connection.scalar("SELECT count(*) FROM \(SQLIdentifier.quote(orphans))")?.integerValue == 0 {
            try connection.execute("DROP TABLE \(SQLIdentifier.quote(orphans))")
        }
        return removed
    }

    /// An index of a rowid table on plain columns: its entries are those columns and the rowid.
    private struct Candidate {
        var table: String
        var columns: [String]
        var rowid: String
    }

    /// The recovery's own `lost_and_found` (or `lost_and_found_N`, when the source had a table
    /// of that name): the last one made that the source did not have.
    private static func orphanTable(_ connection: Connection, sourceTables: Set<String>) throws -> String? {
        let names = try connection.rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND (name = 'lost_and_found' OR name GLOB 'lost_and_found_[0-9]*') ORDER BY rowid DESC")
        return names.compactMap { $0.first?.textValue }.first { !sourceTables.contains($0) }
    }

    /// A WITHOUT ROWID table: no alias of the rowid names a column of it.
    private static func hasNoRowid(_ table: String, _ connection: Connection) -> Bool {
        guard table != PageOwners.orphan else { return false }
        return RowidAlias.names.allSatisfy { (try? connection.prepare("SELECT \($0) FROM \(SQLIdentifier.quote(table)) LIMIT 0")) == nil }
    }

    private static func candidates(_ connection: Connection) throws -> [Candidate] {
        let indexes = try connection.rows("SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index'")
        return try indexes.compactMap { row in
            guard let index = row.first?.textValue, let table = row.last?.textValue else { return nil }
            let parts = try connection.rows("SELECT cid, name, key FROM pragma_index_xinfo(?) ORDER BY seqno", arguments: [.text(index)])
            let keys = parts.filter { $0[2].integerValue == 1 }, rest = parts.filter { $0[2].integerValue != 1 }
            // An expression's column (cid -2) or a WITHOUT ROWID table's key (cid >= 0 after the keys) cannot be matched.
            guard !keys.isEmpty, keys.allSatisfy({ ($0[0].integerValue ?? -1) >= 0 }), rest.count == 1, rest[0][0].integerValue == -1 else { return nil }
            let tableColumns = try connection.rows("SELECT name FROM pragma_table_xinfo(?)", arguments: [.text(table)]).compactMap { $0.first?.textValue }
            guard let rowid = RowidAlias.unshadowed(by: tableColumns) else { return nil }
            return Candidate(table: table, columns: keys.compactMap { $0[1].textValue }, rowid: rowid)
        }
    }

    /// Deletes each entry of `index` that matches its table's row, byte for byte (BINARY,
    /// whatever the column's collation), on pages that read as that index's: every id-less
    /// row on them is an entry of it whose row the table kept or lost, and one at least was kept.
    private static func deletion(from orphans: String, through index: Candidate) -> String {
        let table = SQLIdentifier.quote(index.table), count = index.columns.count
        let rowid = "\(table).\(index.rowid) = L.c\(count)"
        let sameValues = index.columns.enumerated().map { position, column in
            "\(table).\(SQLIdentifier.quote(column)) IS L.c\(position) COLLATE BINARY"
        }
        let kept = "EXISTS (SELECT 1 FROM \(table) WHERE \(rowid) AND " + sameValues.joined(separator: " AND ") + ")"
        let lost = "NOT EXISTS (SELECT 1 FROM \(table) WHERE \(rowid))"
        let source = SQLIdentifier.quote(orphans)
        let pages = "SELECT L.pgno FROM \(source) AS L WHERE L.id IS NULL GROUP BY L.pgno HAVING min(L.nfield = \(count + 1) AND (\(kept) OR \(lost))) AND max(\(kept))"
        return "DELETE FROM \(source) AS L WHERE L.id IS NULL AND L.nfield = \(count + 1) AND \(kept) AND L.pgno IN (\(pages))"
    }
}
