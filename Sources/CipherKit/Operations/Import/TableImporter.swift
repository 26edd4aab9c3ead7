/// Streams rows from csv, tsv, json or jsonl into a table of an encrypted database, in one
/// transaction: any error (a malformed line, a column the table lacks, a key conflict) rolls
/// all of it back, so nothing is written. A missing table is created, its columns from the
/// header or the first object's keys, each typed INTEGER, REAL or TEXT when every value of
/// the first batch is one (anything else is left untyped); an existing table's columns are
/// matched by name. Rows are bound to prepared INSERTs of many rows (`ChunkedInsert`), never
/// pasted into SQL.
/// See https://www.sqlite.org/datatype3.html#type_affinity
public enum TableImporter {
    /// - Throws: `ImportError`, what `DatabaseOpener.open` throws, `CipherKitError.database`
    ///   for an SQL failure (a constraint), and whatever the input throws.
    public static func run(_ request: ImportRequest) throws -> ImportReport {
        var database = request.database
        database.mode = .readWrite
        let opened = try DatabaseOpener.open(database)
        let connection = opened.connection
        var source: ImportRowSource = request.format == .csv || request.format == .tsv
            ? DelimitedReader(request.input, format: request.format) : JSONReader(request.input, format: request.format)
        return try CipherKitError.translating(path: database.path, file: opened.file) {
            try connection.execute("BEGIN IMMEDIATE")
            do {
                let report = try load(&source, into: connection, request: request)
                try connection.execute("COMMIT")
                return report
            } catch {
                if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    private static func load(_ source: inout ImportRowSource, into connection: Connection, request: ImportRequest) throws -> ImportReport {
        let columns = try source.columns()
        if let key = request.primaryKey, !columns.contains(key) { throw ImportError.unknownPrimaryKey(key) }
        var batch: [ImportRow] = []
        while batch.count < max(1, request.batchSize), let row = try source.next() { batch.append(row) }
        let existing = try tableColumns(request.table, connection: connection)
        if let existing {
            if let unknown = columns.first(where: { !existing.contains($0) }) { throw ImportError.unknownColumn(unknown) }
        } else {
            try connection.execute(ImportSchema.createTable(request.table, columns: columns, rows: batch, primaryKey: request.primaryKey))
        }
        let before = connection.totalChanges
        let insert = ChunkedInsert(connection: connection, table: request.table, columns: columns, conflict: request.conflict)
        for row in batch { try insert.add(row) }
        while let row = try source.next() { try insert.add(row) }
        try insert.flush()
        let rows = insert.rows
        return ImportReport(rows: rows, changes: Int(connection.totalChanges - before), created: existing == nil, columns: columns)
    }

    /// The names of the table's columns that take values; nil when there is no such table.
    private static func tableColumns(_ table: String, connection: Connection) throws -> [String]? {
        let names = try connection.rows("SELECT name FROM pragma_table_xinfo(?) WHERE hidden IN (0, 3)", arguments: [.text(table)])
        return names.isEmpty ? nil : names.compactMap { $0.first?.textValue }
    }
}
