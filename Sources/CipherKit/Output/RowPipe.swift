import CRowFormat
import CSQLCipher

/// Writes a statement's rows as csv or json through `rowformat_pipe`: SQLite steps on the
/// calling thread while a second one formats the rows (a million-row query spent about as
/// long formatting as stepping) and hands them to the output buffer, which only that thread
/// touches until the pipe returns.
enum RowPipe {
    /// What the formatting thread writes to, and the first error the output threw.
    private final class Target {
        let output: OutputBuffer
        var error: Error?

        init(output: OutputBuffer) {
            self.output = output
        }
    }

    /// Writes the statement's current row and every one after it; returns the rows written.
    /// - Throws: what the output threw (a closed pipe), else the failed step's `DatabaseError`.
    static func run(_ statement: Statement, layout: RowLayout, json: Bool, output: OutputBuffer) throws -> Int {
        let target = Target(output: output)
        var run = rowformat_run(
            statement: statement.rawHandle, layout: layout.pointer, json: json ? 1 : 0,
            write: { context, bytes, count in
                let target = Unmanaged<Target>.fromOpaque(context!).takeUnretainedValue()
                do {
                    try target.output.appendBytes(UnsafeRawBufferPointer(start: bytes, count: count))
                    return 0
                } catch {
                    target.error = error
                    return 1
                }
            },
            context: Unmanaged.passUnretained(target).toOpaque(), rows: 0)
        let code = withExtendedLifetime(target) { rowformat_pipe(&run) }
        if let error = target.error { throw error }
        guard code == SQLITE_DONE else { throw statement.failure(code) }
        return run.rows
    }
}
