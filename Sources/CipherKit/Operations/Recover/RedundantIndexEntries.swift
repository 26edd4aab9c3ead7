/// Entries of index pages that SQLite's recovery put in `lost_and_found` (an index page below
/// a lost one: no id, the index's columns and then the rowid) whose rows their table kept with
/// the same values. The recovery makes every index again from the rows kept, so such entries
/// hold nothing that was lost; left in, they read as lost rows. An entry whose row is missing,
/// or differs, stays: it may be all that is left of that row.
/// See https://www.sqlite.org/recovery.html
enum RedundantIndexEntries {
    /// Removes the entries and drops `lost_and_found` when nothing else is left in it. Only
    /// the indexes that lost pages are looked at (theirs are the pages below a lost one), a
    /// page is taken as one's only when every entry on it is an entry of that index whose row
    /// its table kept or lost, and an entry goes only when its row was kept under every index
    /// its page may be of (two tables can hold the same values under the same rowids). Nothing
    /// is removed when a WITHOUT ROWID table lost pages: its rows look like index entries.
    /// `orphans`: the recovery's `lost_and_found` (`orphanTable`).
    ///
    /// - Returns: the entries removed.
    /// - Throws: `DatabaseError`.
    static func remove(_ connection: Connection, from orphans: String, damagedTables: Set<String>, damagedIndexes: Set<String>) throws -> Int {
        guard !damagedTables.contains(where: { hasNoRowid($0, connection) }) else { return 0 }
        let fields = try connection.rows("SELECT name FROM pragma_table_info(?)", arguments: [.text(orphans)]).count - 4
        var keptOnPage: [Int64: [Set<Int64>]] = [:]
        for index in try candidates(connection, among: damagedIndexes) where index.columns.count < fields {
            for (page, kept) in try keptEntries(orphans, through: index, connection) { keptOnPage[page, default: []].append(kept) }
        }
        let redundant = keptOnPage.values.flatMap { sets in sets.dropFirst().reduce(sets[0]) { $0.intersection($1) } }.sorted()
        let source = SQLIdentifier.quote(orphans)
        for start in stride(from: 0, to: redundant.count, by: 500) {
            let chunk = redundant[start..<min(start + 500, redundant.count)].map(String.init).joined(separator: ",")
            try connection.execute("DELETE FROM \(source) WHERE rowid IN (\(chunk))")
        }
        if !redundant.isEmpty, try connection.scalar("SELECT count(*) FROM \(source)")?.integerValue == 0 {
            try connection.execute("DROP TABLE \(source)")
        }
        return redundant.count
    }

    /// An index of a rowid table on plain columns: its entries are those columns and the rowid.
    private struct Candidate {
        var table: String
        var columns: [String]
        var rowid: String
    }

    /// The recovery's own `lost_and_found` (or `lost_and_found_N`, when the source had a table
    /// of that name): the last one made that the source did not have.
    static func orphanTable(_ connection: Connection, sourceTables: Set<String>) throws -> String? {
        let names = try connection.rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND (name = 'lost_and_found' OR name GLOB 'lost_and_found_[0-9]*') ORDER BY rowid DESC")
        return names.compactMap { $0.first?.textValue }.first { !sourceTables.contains($0) }
    }

    /// A WITHOUT ROWID table: no alias of the rowid names a column of it.
    private static func hasNoRowid(_ table: String, _ connection: Connection) -> Bool {
        guard table != PageOwners.orphan else { return false }
        return RowidAlias.names.allSatisfy { (try? connection.prepare("SELECT \($0) FROM \(SQLIdentifier.quote(table)) LIMIT 0")) == nil }
    }

    private static func candidates(_ connection: Connection, among damaged: Set<String>) throws -> [Candidate] {
        let indexes = try connection.rows("SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index'")
        return try indexes.compactMap { row in
            guard let index = row.first?.textValue, let table = row.last?.textValue, damaged.contains(index) else { return nil }
            let parts = try connection.rows("SELECT cid, name, key FROM pragma_index_xinfo(?) ORDER BY seqno", arguments: [.text(index)])
            let keys = parts.filter { $0[2].integerValue == 1 }, rest = parts.filter { $0[2].integerValue != 1 }
            // An expression's column (cid -2) or a WITHOUT ROWID table's key (cid >= 0 after the keys) cannot be matched.
            guard !keys.isEmpty, keys.allSatisfy({ ($0[0].integerValue ?? -1) >= 0 }), rest.count == 1, rest[0][0].integerValue == -1 else { return nil }
            let tableColumns = try connection.rows("SELECT name FROM pragma_table_xinfo(?)", arguments: [.text(table)]).compactMap { $0.first?.textValue }
            guard let rowid = RowidAlias.unshadowed(by: tableColumns) else { return nil }
            return Candidate(table: table, columns: keys.compactMap { $0[1].textValue }, rowid: rowid)
        }
    }

    /// Per page that reads as `index`'s (every id-less row on it an entry of the index whose
    /// row its table kept or lost), the entries whose row the table kept with the same values,
    /// byte for byte (BINARY, whatever the column's collation), by their rowid in `orphans`.
    private static func keptEntries(_ orphans: String, through index: Candidate, _ connection: Connection) throws -> [Int64: Set<Int64>] {
        let table = SQLIdentifier.quote(index.table), count = index.columns.count
        let rowid = "\(table).\(index.rowid) = L.c\(count)"
        let sameValues = index.columns.enumerated().map { position, column in
            "\(table).\(SQLIdentifier.quote(column)) IS L.c\(position) COLLATE BINARY"
        }
        let kept = "EXISTS (SELECT 1 FROM \(table) WHERE \(rowid) AND " + sameValues.joined(separator: " AND ") + ")"
        let lost = "NOT EXISTS (SELECT 1 FROM \(table) WHERE \(rowid))"
        let source = SQLIdentifier.quote(orphans)
        let pages = "SELECT L.pgno FROM \(source) AS L WHERE L.id IS NULL GROUP BY L.pgno HAVING min(L.nfield = \(count + 1) AND (\(kept) OR \(lost)))"
        let rows = try connection.rows(
            "SELECT L.pgno, L.rowid, L.nfield = \(count + 1) AND \(kept) FROM \(source) AS L WHERE L.id IS NULL AND L.pgno IN (\(pages))")
        var found: [Int64: Set<Int64>] = [:]
        for row in rows {
            guard let page = row[0].integerValue, let entry = row[1].integerValue else { continue }
            if row[2].integerValue == 1 { found[page, default: []].insert(entry) } else { found[page, default: []] = found[page] ?? [] }
        }
        return found
    }
}
