/// Writes the new database from the recovery's SQL: creates it with the destination key and
/// settings, runs the SQL as it streams in, then, on a fresh connection (which reads the
/// schema the SQL wrote into `sqlite_schema`, virtual tables among it), leaves out of
/// `lost_and_found` the index entries whose rows were kept, rebuilds each full-text index
/// whose tables lost pages from the rows kept, and counts every table's rows.
struct RecoveryWriter {
    struct Written {
        var tables: [TableRowCount]
        /// The FTS5 tables whose index was rebuilt.
        var rebuilt: [String]
        /// The index entries left out of `lost_and_found`: their rows are in their tables.
        var indexEntriesLeftOut: Int
        /// The table of rows the recovery could not place, when it made one.
        var lostAndFound: String?
    }

    let request: RecoverRequest
    let path: String
    /// Whether the source was a WAL database, which the new one becomes too.
    let wal: Bool

    /// `damaged`: the tables and indexes that lost pages or values, and every table the
    /// source's schema names.
    ///
    /// - Throws: `DatabaseError` for SQL that fails, `IncompleteRecoverySQL` for SQL that
    ///   ends before its `COMMIT`, and what `next` throws.
    func write(_ next: () throws -> [UInt8]?, damaged: RecoveryDamage) throws -> Written {
        var create = OpenRequest(path: path, key: request.destinationKey, settings: request.destinationSettings, mode: .readWrite)
        create.logLevel = request.source.logLevel
        try DatabaseCreator.create(create)
        let streamed = try connect()
        var runner = SQLStreamRunner(connection: streamed)
        try runner.run(next)
        try streamed.close()
        let connection = try connect()
        // The source may have had a lost_and_found of its own: the recovery's is named apart.
        var orphans = try RedundantIndexEntries.orphanTable(connection, sourceTables: damaged.sourceTables)
        let leftOut = try orphans.map {
            try RedundantIndexEntries.remove(connection, from: $0, damagedTables: damaged.tables, damagedIndexes: damaged.indexes)
        } ?? 0
        let rebuilt = try rebuildFullTextIndexes(connection, damagedTables: damaged.tables)
        let tables = try rowCounts(connection)
        if !tables.contains(where: { $0.table == orphans }) { orphans = nil }
        // Kept in the header; the close checkpoints and removes the -wal and -shm it makes.
        if wal { try connection.execute("PRAGMA journal_mode = WAL") }
        try connection.close()
        return Written(tables: tables, rebuilt: rebuilt, indexEntriesLeftOut: leftOut, lostAndFound: orphans)
    }

    private func connect() throws -> Connection {
        let connection = try Connection(path: path, mode: .readWrite, logLevel: request.source.logLevel)
        try connection.key(request.destinationKey)
        try connection.apply(request.destinationSettings)
        return connection
    }

    /// An FTS5 table whose shadow tables (`NAME_content`, `NAME_data`, ...) lost rows would
    /// still find rows that are gone, or miss rows kept: its index is made again from the
    /// rows kept ('rebuild'). One whose content lives elsewhere, or nowhere, is left as it is.
    /// See https://www.sqlite.org/fts5.html#the_rebuild_command
    private func rebuildFullTextIndexes(_ connection: Connection, damagedTables: Set<String>) throws -> [String] {
        let tables = try connection.rows("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'")
        var rebuilt: [String] = []
        for row in tables {
            guard let name = row.first?.textValue, let sql = row.last?.textValue, !sql.lowercased().contains("content="),
                  damagedTables.contains(where: { $0.hasPrefix(name + "_") }) else { continue }
            try connection.execute("INSERT INTO \(SQLIdentifier.quote(name))(\(SQLIdentifier.quote(name))) VALUES ('rebuild')")
            rebuilt.append(name)
        }
        return rebuilt
    }

    private func rowCounts(_ connection: Connection) throws -> [TableRowCount] {
        let tables = try connection.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
            .compactMap { $0.first?.textValue }
        return try tables.map { table in
            TableRowCount(table: table, rows: Int(try connection.scalar("SELECT count(*) FROM \(SQLIdentifier.quote(table))")?.integerValue ?? 0))
        }
    }
}
