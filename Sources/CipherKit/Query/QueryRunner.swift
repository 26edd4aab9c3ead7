import CSQLCipher
import Glibc

/// Runs SQL, or a built query, on a database and streams every result set to a
/// `ResultWriter` as its rows are stepped.
///
/// The connection is read-only unless `write` is asked for, and a statement that would
/// change the database is refused before it runs (a pragma that only reads runs). With
/// `write`, the whole input runs in one transaction (BEGIN IMMEDIATE … COMMIT) and any error
/// rolls all of it back; a statement that cannot run in a transaction (`StatementKind`:
/// VACUUM, a journal mode change, a checkpoint) runs on its own when it is the whole input,
/// and is refused beside other statements before anything runs; an input that holds its own
/// transaction (pragmas, BEGIN, …, COMMIT, as a dump) runs in it, rolled back on any error. Values
/// are bound, never pasted: named values to `:name`, `@name` and `$name`, positional ones
/// to `?` in order across the statements; a placeholder without a value and a value no
/// statement uses are errors (checked before the last statement runs).
/// See https://www.sqlite.org/c3ref/prepare.html and https://www.sqlite.org/c3ref/bind_blob.html
public enum QueryRunner {
    /// - Throws: `QueryError`, what `DatabaseOpener.open` throws, `CipherKitError.cancelled`,
    ///   and whatever the writer's output throws (a closed pipe), after rolling back.
    public static func run(_ request: QueryRequest, writer: ResultWriter, token: CancellationToken = CancellationToken()) throws -> QueryReport {
        try refuseCipherPragmas(request.source)
        var database = request.database
        database.mode = request.write ? .readWrite : .readOnly
        // A look reads the last committed state and creates nothing beside the file.
        database.leavesFilesAlone = database.leavesFilesAlone || !request.write
        // Before the open: a read-write open of a file it cannot write is read-only, and
        // beside a WAL database it makes a -wal and -shm that the refusal would leave.
        if request.write { try FileOperations.requireWritableInPlace(database.path) }
        // A writer's -shm: a read holds its lock there. Without one (a rollback-journal file, or
        // no writer when the look began), a WAL's reader takes no lock a starting writer heeds.
        let sharedMemory = FileOperations.exists(database.path + "-shm")
        let opened = try DatabaseOpener.open(database)
        do {
            if request.write { try PageScan.requireWALUndamaged(opened) }
            return try run(request, opened: opened, sharedMemory: sharedMemory, writer: writer, token: token)
        } catch {
            // Rolled back: the files are left as the open found them.
            // An input with its own transactions may have committed some before the failure.
            if request.write { opened.closeAfterFailedWrite(oneTransaction: (try? writeTransaction(request.source)) != .inputsOwn) }
            throw error
        }
    }

    private static func run(
        _ request: QueryRequest, opened: OpenedDatabase, sharedMemory: Bool, writer: ResultWriter, token: CancellationToken
    ) throws -> QueryReport {
        let connection = opened.connection
        var report = QueryReport(statements: 0, resultSets: 0, rows: 0, changes: 0, format: opened.format, formatAttempts: opened.attempts)
        let before = connection.totalChanges
        let path = request.database.path
        let transaction = request.write ? try writeTransaction(request.source) == .wrapped : false
        try writer.start(statements: statementCount(request.source), write: request.write)
        try token.interrupting(connection) {
            if transaction {
                try CipherKitError.translating(path: path, file: opened.file) { try connection.execute("BEGIN IMMEDIATE") }
            }
            do {
                var binder = Binder(parameters: request.parameters)
                switch request.source {
                case .script(let sql):
                    let snapshot = request.write || !sharedMemory ? nil : readTransactionStart(sql)
                    try runScript(sql, on: connection, access: request.write ? .write : .read(beginBefore: snapshot), binder: &binder, writer: writer, report: &report)
                    if snapshot != nil, !connection.isAutocommit {
                        try CipherKitError.translating(path: path, file: opened.file) { try connection.execute("COMMIT") }
                    }
                case .built(let query):
                    // Its names are quoted: a column that does not exist must be an error.
                    try connection.setDoubleQuotedStrings(false)
                    binder.parameters.positional = query.arguments + binder.parameters.positional
                    try runScript(query.sql, on: connection, access: request.write ? .write : .read(beginBefore: nil), binder: &binder, writer: writer, report: &report)
                }
                try writer.finish()
                if transaction {
                    try CipherKitError.translating(path: path, file: opened.file) { try connection.execute("COMMIT") }
                }
            } catch {
                // What earlier statements printed still reaches the output.
                try? writer.finish()
                if request.write {
                    guard connection.rollBackFailedWrite() else { throw CipherKitError.rollbackPending(path: path) }
                } else if !connection.isAutocommit {
                    try? connection.execute("ROLLBACK")
                }
                throw fileFailure(error, opened: opened, scansPages: !request.write || transaction) ?? error
            }
        }
        report.changes = Int(connection.totalChanges - before)
        return report
    }

    /// A statement that failed for a reason of the run, not of its SQL, as that reason: an
    /// interrupt, a full disk (which the README promises is exit 5, rolled back), or damaged
    /// pages, named by a scan of every page. `scansPages`: nothing the run did was committed,
    /// so "nothing was changed" holds. A file that cannot be written was refused before the run.
    private static func fileFailure(_ error: Error, opened: OpenedDatabase, scansPages: Bool) -> Error? {
        guard let failure = error as? QueryError, case .statementFailed(_, _, let database) = failure else { return nil }
        let path = opened.file.path
        if database.resultCode == SQLITE_INTERRUPT { return CipherKitError.cancelled(path: path) }
        if database.isOutOfSpace { return CipherKitError.outOfSpace(path: path) }
        return scansPages ? opened.namingDamage(error) : nil
    }

    /// - Throws: `QueryError.cipherPragma` for the first pragma that would change the key or
    ///   the cipher settings, before anything is opened.
    private static func refuseCipherPragmas(_ source: QuerySource) throws {
        guard case .script(let sql) = source else { return }
        for (index, statement) in SQLText.statements(sql).enumerated() where StatementKind(sql: statement) == .cipherPragma {
            throw QueryError.cipherPragma(number: index + 1, pragma: StatementKind.pragmaName(statement))
        }
    }

    private static func statementCount(_ source: QuerySource) -> Int {
        guard case .script(let sql) = source else { return 1 }
        return SQLText.statements(sql).count
    }

    /// How a writing run holds its transaction.
    private enum WriteTransaction {
        /// BEGIN IMMEDIATE before the input, COMMIT after it.
        case wrapped
        /// None: the input is one statement that cannot run inside one.
        case alone
        /// The input's own: pragmas, then BEGIN, and COMMIT last (as a dump writes it).
        case inputsOwn
    }

    /// - Throws: `QueryError.mustRunAlone` when a statement that cannot run in a transaction
    ///   comes with others.
    private static func writeTransaction(_ source: QuerySource) throws -> WriteTransaction {
        guard case .script(let sql) = source else { return .wrapped }
        let statements = SQLText.statements(sql)
        let kinds = statements.map { StatementKind(sql: $0) }
        if let index = kinds.firstIndex(of: .outsideTransaction) {
            guard statements.count == 1 else { throw QueryError.mustRunAlone(number: index + 1, firstLine: SQLText.shownLine(statements[index])) }
            return .alone
        }
        if let begin = kinds.firstIndex(of: .transactionStart), kinds.last == .transactionEnd,
           kinds[..<begin].allSatisfy({ $0 == .settingPragma || $0 == .readOnlyPragma }) {
            return .inputsOwn
        }
        return .wrapped
    }

    /// The statement number before which a read-only input begins the one read transaction
    /// its statements all share, so they read one committed state (a writer may commit
    /// between two of them): the first after its leading setting pragmas. nil when the input
    /// holds a statement that cannot run in a transaction (its own BEGIN or COMMIT, ATTACH,
    /// a savepoint, VACUUM INTO, a pragma SQLite will not set inside one), or only setting
    /// pragmas. See https://www.sqlite.org/isolation.html
    private static func readTransactionStart(_ sql: String) -> Int? {
        let statements = SQLText.statements(sql)
        let kinds = statements.map { StatementKind(sql: $0) }
        let first = kinds.firstIndex { $0 != .settingPragma } ?? kinds.count
        let outside: Set<String> = ["ATTACH", "DETACH", "SAVEPOINT", "RELEASE", "ROLLBACK"]
        let notInTransaction: Set<String> = ["temp_store", "temp_store_directory", "data_store_directory"]
        guard first < kinds.count, kinds[first...].allSatisfy({ [.ordinary, .readOnlyPragma, .settingPragma].contains($0) }),
              !statements[first...].contains(where: { notInTransaction.contains(StatementKind.pragmaName($0)) }),
              !statements.contains(where: { SQLText.leadingTokens($0, limit: 1).first.map(outside.contains) ?? false }) else { return nil }
        return first + 1
    }

    /// Begins the read transaction and takes its snapshot. A reader of a -shm it may not
    /// write finds no read mark at a writer's newest commit now and then, and SQLite then
    /// answers SQLITE_READONLY (or BUSY) at once; nothing has been read yet, so it tries again.
    private static func beginRead(on connection: Connection) throws {
        for attempt in 1...200 {
            try connection.execute("BEGIN")
            do {
                _ = try connection.scalar("SELECT count(*) FROM sqlite_schema")
                return
            } catch let error as DatabaseError where attempt < 200 && (error.resultCode == SQLITE_READONLY || error.resultCode == SQLITE_BUSY) {
                try connection.execute("ROLLBACK")
                usleep(1_000)
            }
        }
    }

    /// How `runScript` may touch the database.
    private enum Access {
        case write
        /// Read-only, in one read transaction begun before statement `beginBefore`, if any.
        case read(beginBefore: Int?)
    }

    private static func runScript(
        _ sql: String, on connection: Connection, access: Access, binder: inout Binder, writer: ResultWriter, report: inout QueryReport
    ) throws {
        let (write, beginBefore): (Bool, Int?)
        switch access {
        case .write: (write, beginBefore) = (true, nil)
        case .read(let number): (write, beginBefore) = (false, number)
        }
        var rest = sql
        while !SQLText.isBlank(rest) {
            let number = report.statements + 1
            if number == beginBefore, connection.isAutocommit {
                do {
                    try beginRead(on: connection)
                } catch let error as DatabaseError {
                    throw QueryError.statementFailed(number: number, firstLine: SQLText.shownLine(rest), error: error.shown(for: rest))
                }
            }
            let prepared: (Statement?, rest: String)
            do {
                prepared = try connection.prepareFirst(of: rest)
            } catch let error as DatabaseError {
                throw QueryError.statementFailed(number: number, firstLine: SQLText.shownLine(rest), error: error.shown(for: rest))
            }
            rest = prepared.rest
            guard let statement = prepared.0 else { continue }
            report.statements = number
            let firstLine = SQLText.shownLine(statement.sql)
            if !write, !statement.isReadOnly, StatementKind(sql: statement.sql) != .readOnlyPragma {
                throw QueryError.needsWrite(number: number, firstLine: firstLine)
            }
            try binder.bind(statement, number: number, firstLine: firstLine)
            if SQLText.isBlank(rest) { try binder.checkAllUsed() }
            let columns = statement.columnCount
            if let most = writer.mostColumns, columns > most {
                throw QueryError.tooManyColumns(number: number, firstLine: firstLine, columns: Int(columns), most: most)
            }
            if columns > 0 {
                try writer.begin(columns: statement.columnNames)
                report.resultSets += 1
            }
            let target = write ? VacuumTarget(statement: statement.sql, connection: connection) : nil
            do {
                report.rows += try writer.writeRows(of: statement)
            } catch let error as DatabaseError {
                target?.removeIfMade()
                if let target, error.isOutOfSpace { throw CipherKitError.outOfSpace(path: target.path) }
                throw QueryError.statementFailed(number: number, firstLine: firstLine, error: error.shown(for: statement.sql))
            }
            target?.makePrivate()
            if columns > 0 { try writer.end() }
        }
        if report.statements == 0 { throw QueryError.noStatements }
    }

    /// Hands out the values as statements ask for them, and remembers which were used.
    private struct Binder {
        var parameters: QueryParameters
        var nextPositional = 0
        var usedNames = Set<String>()
        var highestNumbered = 0

        mutating func bind(_ statement: Statement, number: Int, firstLine: String) throws {
            let count = statement.parameterCount
            guard count > 0 else { return }
            for index in 1...count {
                let name = statement.parameterName(at: index)
                let value: DatabaseValue?
                if let name, let prefix = name.first, prefix == ":" || prefix == "@" || prefix == "$" {
                    let bare = String(name.dropFirst())
                    value = parameters.named[bare]
                    if value != nil { usedNames.insert(bare) }
                } else if let name, name.hasPrefix("?"), let position = Int(name.dropFirst()) {
                    // ?NNN: the NNN-th positional value.
                    value = position >= 1 && position <= parameters.positional.count ? parameters.positional[position - 1] : nil
                    highestNumbered = max(highestNumbered, position)
                } else {
                    value = nextPositional < parameters.positional.count ? parameters.positional[nextPositional] : nil
                    nextPositional += 1
                }
                guard let value else {
                    throw QueryError.unboundPlaceholder(name: name ?? "?\(nextPositional)", number: number, firstLine: firstLine)
                }
                do {
                    try statement.bind(value, at: index)
                } catch let error as DatabaseError {
                    throw QueryError.statementFailed(number: number, firstLine: firstLine, error: error.shown(for: statement.sql))
                }
            }
        }

        func checkAllUsed() throws {
            if let unused = parameters.named.keys.sorted().first(where: { !usedNames.contains($0) }) {
                throw QueryError.unusedParameter(name: unused)
            }
            let used = max(nextPositional, highestNumbered)
            if parameters.positional.count > used {
                throw QueryError.unusedArguments(given: parameters.positional.count, used: used)
            }
        }
    }
}
