import CSQLCipher

/// Runs SQL text that arrives in chunks (the output of SQLite's recovery), each statement as
/// soon as it is whole (`sqlite3_complete`), so the text is never held whole. Settings that
/// the destination's cipher decides (`PRAGMA page_size`, `PRAGMA encoding`) are skipped.
struct SQLStreamRunner {
    let connection: Connection

    /// - Throws: `DatabaseError` for a statement that fails, and what `next` throws.
    func run(_ next: () throws -> [UInt8]?) throws {
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
        if !SQLText.isBlank(String(decoding: pending, as: UTF8.self)) { try execute(pending) }
    }

    private func isComplete(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var text = Array(bytes)
        text.append(0)
        return text.withUnsafeBufferPointer { sqlite3_complete(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) != 0 }
    }

    /// Runs the statement's bytes as they came: a value that is not valid UTF-8 keeps them.
    private func execute(_ statement: [UInt8]) throws {
        let tokens = SQLText.leadingTokens(String(decoding: statement, as: UTF8.self), limit: 2)
        if tokens.first == "PRAGMA", tokens.last == "PAGE_SIZE" || tokens.last == "ENCODING" { return }
        try connection.execute(bytes: statement)
    }
}
