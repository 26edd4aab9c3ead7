/// Inserts rows many to a statement (`INSERT … VALUES (…), (…), …`): SQLite then opens its
/// cursors once a chunk instead of once a row, and with SQLCipher's memory security each of
/// those allocations costs an mlock and an munlock.
final class ChunkedInsert {
    private let connection: Connection
    private let prefix: String
    private let columns: Int
    private let chunkSize: Int
    private var statements: [Int: Statement] = [:]
    private var pending: [ImportRow] = []
    private let buffer = RowBuffer()
    private(set) var rows = 0

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
    func flush() throws {
        guard let first = pending.first, let last = pending.last else { return }
        let statement = try self.statement(rows: pending.count)
        try buffer.bind(pending, to: statement)
        do {
            _ = try statement.step()
        } catch let error as DatabaseError {
            let lines = first.line == last.line ? "\(first.line)" : "\(first.line)-\(last.line)"
            throw ImportError.malformed(line: first.line, reason: error.message + " (in lines \(lines))")
        }
        statement.reset()
        rows += pending.count
        pending.removeAll(keepingCapacity: true)
    }

    private func statement(rows count: Int) throws -> Statement {
        if let statement = statements[count] { return statement }
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ",") + ")"
        let statement = try connection.prepare(prefix + Array(repeating: row, count: count).joined(separator: ","))
        statements[count] = statement
        return statement
    }
}
