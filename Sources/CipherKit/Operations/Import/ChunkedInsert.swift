import CSQLCipher

/// Inserts rows many to a statement (`INSERT … VALUES (…), (…), …`): SQLite then opens its
/// cursors once a chunk instead of once a row, and with SQLCipher's memory security each of
/// those allocations costs an mlock and an munlock. When a chunk fails on a row's own fault
/// (a key conflict, a NOT NULL or CHECK constraint, a STRICT type), SQLite undoes the chunk's
/// statement and the rows are tried one at a time, so the error names the row's line.
final class ChunkedInsert {
    private let connection: Connection
    private let prefix: String
    private let columns: Int
    private let chunkSize: Int
    private var statements: [Int: Statement] = [:]
    private var pending: [ImportRow] = []
    private let buffer = RowBuffer()

    init(connection: Connection, table: String, columns: [String], conflict: ImportConflict) {
        self.connection = connection
        let verb = conflict == .replace ? "INSERT OR REPLACE" : conflict == .ignore ? "INSERT OR IGNORE" : "INSERT"
        prefix = verb + " INTO " + SQLIdentifier.quote(table) + "(" + columns.map(SQLIdentifier.quote).joined(separator: ",") + ") VALUES"
        self.columns = columns.count
        // SQLite takes at most 32766 parameters a statement.
        chunkSize = max(1, min(200, 32_766 / max(1, columns.count)))
    }

    deinit {
        // No parameter points into the buffer once it is gone.
        for statement in statements.values { statement.clearBindings() }
    }

    func add(_ row: ImportRow) throws {
        pending.append(row)
        if pending.count == chunkSize { try flush() }
    }

    /// Inserts what is left.
    ///
    /// - Throws: `ImportError.malformed` naming the line of a row SQLite refused, and any
    ///   other `DatabaseError` (a full disk, an I/O error, an interrupt) as it is.
    func flush() throws {
        guard !pending.isEmpty else { return }
        let statement = try self.statement(rows: pending.count)
        try buffer.bind(pending, to: statement)
        do {
            defer { statement.reset() }
            _ = try statement.step()
        } catch let error as DatabaseError where Self.isRowFault(error) {
            try insertOneAtATime(failure: error)
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Finds the pending row SQLite refuses; the ones before it are inserted on the way,
    /// which the import's rollback undoes.
    private func insertOneAtATime(failure: DatabaseError) throws {
        let single = try statement(rows: 1)
        for row in pending {
            try buffer.bind([row], to: single)
            do {
                defer { single.reset() }
                _ = try single.step()
            } catch let error as DatabaseError where Self.isRowFault(error) {
                throw ImportError.malformed(line: row.line, reason: error.message)
            }
        }
        // Each row alone went in: the chunk failed as a whole, so name its lines.
        throw ImportError.malformed(line: pending[0].line, reason: failure.message + " (in lines \(pending[0].line)-\(pending[pending.count - 1].line))")
    }

    /// A failure that one row's values cause, rather than the database or the disk.
    private static func isRowFault(_ error: DatabaseError) -> Bool {
        [SQLITE_CONSTRAINT, SQLITE_MISMATCH, SQLITE_TOOBIG].contains(error.resultCode)
    }

    private func statement(rows count: Int) throws -> Statement {
        if let statement = statements[count] { return statement }
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ",") + ")"
        let statement = try connection.prepare(prefix + Array(repeating: row, count: count).joined(separator: ","))
        statements[count] = statement
        return statement
    }
}
