/// Streams rows from csv, tsv, json or jsonl into a table of an encrypted database, in one
/// transaction: any error (a malformed line, a column the table lacks, a value that does not
/// fit the type its column was given, a key conflict, a full disk) rolls all of it back on
/// the same connection (`Connection.rollBackFailedWrite`), so nothing is written and no
/// journal is left. A missing table is created, its columns from the header or from the keys
/// of the first batch's objects in the order they first appear, each typed by the first
/// batch (`ImportColumnType`); an existing table's columns are matched by name. A column the
/// table lacks is an error, or under `alter` added untyped. Rows are bound to prepared
/// INSERTs of many rows (`ChunkedInsert`), never pasted into SQL.
/// See https://www.sqlite.org/datatype3.html#type_affinity
public enum TableImporter {
    /// - Throws: `ImportError`, what `DatabaseOpener.open` throws, `CipherKitError.fileAccess`
    ///   when the file or its folder cannot be written, `outOfSpace` for a full disk,
    ///   `rollbackPending` when a failed write could not be rolled back, `CipherKitError.database`
    ///   for another SQL failure, and whatever the input throws.
    public static func run(_ request: ImportRequest) throws -> ImportReport {
        var database = request.database
        database.mode = .readWrite
        // Before the open, which beside a WAL database it cannot write would make a -wal and -shm.
        try FileOperations.requireWritableInPlace(database.path)
        let opened = try DatabaseOpener.open(database)
        do {
            try PageScan.requireWALUndamaged(opened)
            return try run(request, opened: opened)
        } catch {
            // Rolled back: the files are left as the open found them.
            opened.closeAfterFailedWrite(oneTransaction: true)
            throw error
        }
    }

    private static func run(_ request: ImportRequest, opened: OpenedDatabase) throws -> ImportReport {
        let (database, token) = (request.database, request.token)
        let connection = opened.connection
        // Each chunk of input is a point where a cancellation stops the import.
        let input = { () throws -> [UInt8]? in
            try token.check(database.path)
            return try request.input()
        }
        var source: ImportRowSource = request.format == .csv || request.format == .tsv
            ? DelimitedReader(input, format: request.format) : JSONReader(input, format: request.format)
        return try CipherKitError.translating(path: database.path, file: opened.file) {
            try token.interrupting(connection) {
                try connection.execute("BEGIN IMMEDIATE")
                do {
                    let report = try load(&source, into: connection, request: request)
                    try token.check(database.path)
                    try connection.execute("COMMIT")
                    return report
                } catch {
                    guard connection.rollBackFailedWrite() else { throw CipherKitError.rollbackPending(path: database.path) }
                    if token.isCancelled { throw CipherKitError.cancelled(path: database.path) }
                    throw error
                }
            }
        }
    }

    private static func load(_ source: inout ImportRowSource, into connection: Connection, request: ImportRequest) throws -> ImportReport {
        let header = try source.header()
        var batch: [ImportRow] = []
        while batch.count < max(1, request.batchSize), let row = try source.next() { batch.append(row) }
        var columns = try header.map { try ImportColumns(header: $0) } ?? ImportColumns(keysOf: batch)
        let existing = try tableColumns(request.table, connection: connection)
        guard !columns.names.isEmpty else {
            // An empty input (what query writes for a table without rows) adds nothing to a
            // table, but cannot make one.
            guard existing != nil, batch.isEmpty else { throw ImportError.noColumns }
            return ImportReport(rows: 0, changes: 0, created: false, columns: [])
        }
        if let key = request.primaryKey, columns.index(of: key) == nil { throw ImportError.unknownPrimaryKey(key) }
        var table = existing ?? columns
        for name in columns.names where table.index(of: name) == nil {
            guard request.alter else { throw ImportError.unknownColumn(name, line: header == nil ? firstLine(naming: name, in: batch) : 1) }
            try connection.execute(ImportSchema.addColumn(request.table, column: name))
            table.add(name)
        }
        if header == nil { batch = try batch.map(columns.arrange) }
        var loader = RowLoader(connection: connection, request: request, columns: columns, tableColumns: table)
        if existing == nil {
            let types = columns.names.indices.map { ImportColumnType.of(batch, column: $0) }
            try connection.execute(ImportSchema.createTable(request.table, columns: columns.names, types: types, primaryKey: request.primaryKey))
            loader.types = types
        }
        let before = connection.totalChanges
        for row in batch { try loader.add(row, checked: false) }
        while let row = try source.next() { try loader.add(row, checked: true) }
        try loader.finish()
        columns = loader.columns
        return ImportReport(rows: loader.rows, changes: Int(connection.totalChanges - before), created: existing == nil, columns: columns.names)
    }

    /// The line of the first object of the batch with the key `name` (as the columns match it).
    private static func firstLine(naming name: String, in batch: [ImportRow]) -> Int {
        let column = try? ImportColumns(header: [name])
        return batch.first { row in row.keys.contains { column?.index(of: $0) != nil } }?.line ?? 1
    }

    /// The columns of the table that take values; nil when there is no such table.
    private static func tableColumns(_ table: String, connection: Connection) throws -> ImportColumns? {
        let names = try connection.rows("SELECT name FROM pragma_table_xinfo(?) WHERE hidden IN (0, 3)", arguments: [.text(table)])
        return names.isEmpty ? nil : try ImportColumns(header: names.compactMap { $0.first?.textValue })
    }
}
