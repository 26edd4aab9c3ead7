import CSQLCipher

/// Runs SQL text that arrives in chunks (the output of SQLite's recovery), each statement as
/// soon as it is whole (`sqlite3_complete`), so the text is never held whole. The page size
/// the destination's cipher decided (`PRAGMA page_size`) is skipped; `PRAGMA encoding` runs,
/// since a new file takes its text encoding at its first table.
/// The text must end by committing its one transaction, as SQLite's recovery always does.
struct SQLStreamRunner {
    let connection: Connection
    private var statements = 0
    private var lastWasCommit = false

    init(connection: Connection) {
        self.connection = connection
    }

    /// - Throws: `DatabaseError` for a statement that fails, `IncompleteRecoverySQL` when the
    ///   text ends before its `COMMIT`, and what `next` throws.
    mutating func run(_ next: () throws -> [UInt8]?) throws {
        var pending: [UInt8] = []
        while let chunk = try next() {
            pending += chunk
            var start = 0
            for index in pending.indices where pending[index] == UInt8(ascii: ";") {
                let candidate = Array(pending[start...index])
                guard candidate.withUnsafeBufferPointer({ isComplete($0) }) else { continue }
                try execute(candidate)
                start = index + 1
            }
            pending.removeSubrange(0..<start)
        }
        // A tail without its semicolon is a statement cut short, a bare COMMIT apart: running it
        // would only echo a fragment of a row in SQLite's syntax error.
        if !SQLText.isBlank(String(decoding: pending, as: UTF8.self)) {
            guard isBareCommit(pending) else { throw IncompleteRecoverySQL(statements: statements) }
            try execute(pending)
        }
        guard lastWasCommit, connection.isAutocommit else { throw IncompleteRecoverySQL(statements: statements) }
    }

    private func isBareCommit(_ tail: [UInt8]) -> Bool {
        let tokens = SQLText.leadingTokens(String(decoding: tail, as: UTF8.self), limit: 1)
        return (tokens.first == "COMMIT" || tokens.first == "END") && (tail + [UInt8(ascii: ";")]).withUnsafeBufferPointer { isComplete($0) }
    }

    private func isComplete(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var text = Array(bytes)
        text.append(0)
        return text.withUnsafeBufferPointer { sqlite3_complete(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) != 0 }
    }

    /// Runs the statement's bytes as they came: a value that is not valid UTF-8 keeps them.
    private mutating func execute(_ statement: [UInt8]) throws {
        let tokens = SQLText.leadingTokens(String(decoding: statement, as: UTF8.self), limit: 2)
        statements += 1
        lastWasCommit = tokens.first == "COMMIT" || tokens.first == "END"
        if tokens.first == "PRAGMA", tokens.last == "PAGE_SIZE" { return }
        try connection.execute(bytes: statement)
    }
}
