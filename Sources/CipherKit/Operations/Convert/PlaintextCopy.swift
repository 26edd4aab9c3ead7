import CCipherProvider
import CSQLCipher
import FoundationEssentials
import Glibc

/// A SQLCipher (or plaintext) source's rows written by `sqlcipher_export()` into a plaintext
/// database in memory whose pages reserve ChaCha20's 32 bytes, checked against the source
/// (schema, header fields, row counts) before its bytes are taken: what a ChaCha20 copy encrypts.
struct PlaintextCopy {
    let bytes: [UInt8]
    let pageSize: Int
    let snapshot: DatabaseSnapshot
    let sourceSettings: CipherSettings?
    let sourceFormat: CipherFormat?
    let sourceAttempts: Int

    /// - Throws: what opening the source throws, `damagedPages`, `verificationFailed` when
    ///   the plaintext does not hold what the source does, `cancelled`.
    static func make(of request: ExportRequest, token: CancellationToken) throws -> PlaintextCopy {
        // Read-write, as every copy reads its source (SQLCipher's export needs it); only read.
        var reading = request.source
        reading.mode = .readWrite
        let file = try DatabaseOpener.precheck(reading)
        try DatabaseCopier.refuseHotJournal(reading, file: file)
        let opened = try DatabaseOpener.open(reading, probed: file)
        opened.connection.setCheckpointOnClose(false)
        defer { try? opened.connection.close() }
        try PageScan.requireUndamaged(opened)
        let connection = opened.connection
        return try CipherKitError.translating(path: reading.path, file: opened.file) {
            let sourceSettings = reading.key == nil ? nil : try DatabaseInspector.cipherSettings(of: connection)
            let pageSize = try request.destinationSettings.pageSize ?? connection.pragmaInteger("main.page_size") ?? 4096
            let (snapshot, bytes) = try token.interrupting(connection) {
                try export(connection, pageSize: pageSize, path: request.destinationPath, token: token)
            }
            return PlaintextCopy(
                bytes: bytes, pageSize: pageSize, snapshot: snapshot, sourceSettings: sourceSettings, sourceFormat: opened.format,
                sourceAttempts: opened.attempts)
        }
    }

    /// Exports the source into `plain`, an in-memory database attached without a key, and returns what the source held and the plaintext pages.
    private static func export(_ connection: Connection, pageSize: Int, path: String, token: CancellationToken) throws -> (DatabaseSnapshot, [UInt8]) {
        try connection.execute("ATTACH DATABASE ':memory:' AS plain KEY ''")
        defer { try? connection.execute("DETACH DATABASE plain") }
        var reserve = Int32(CHACHAPAGE_RESERVE)
        let reserved = sqlite3_file_control(connection.handle, "plain", SQLITE_FCNTL_RESERVE_BYTES, &reserve)
        guard reserved == SQLITE_OK else { throw CipherKitError.database(path: path, error: DatabaseError(code: reserved, connection: connection.handle)) }
        try connection.execute("PRAGMA plain.page_size = \(pageSize)")
        try connection.execute("PRAGMA plain.auto_vacuum = \(try connection.pragmaInteger("main.auto_vacuum") ?? 0)")
        try connection.execute("BEGIN")
        let snapshot: DatabaseSnapshot
        do {
            snapshot = try DatabaseSnapshot.read(from: connection)
            _ = try connection.scalar("SELECT sqlcipher_export('plain')")
            try connection.execute("PRAGMA plain.user_version = \(snapshot.userVersion)")
            try connection.execute("PRAGMA plain.application_id = \(snapshot.applicationID)")
            try token.check(path)
            try connection.execute("COMMIT")
        } catch {
            if !connection.isAutocommit { try? connection.execute("ROLLBACK") }
            throw error
        }
        var written = try DatabaseSnapshot.read(from: connection, schema: "plain")
        // The copy's journal mode is the scheme's file's, not the memory database's.
        written.journalMode = snapshot.journalMode
        let differences = written.differences(from: snapshot)
        guard differences.isEmpty else { throw CipherKitError.verificationFailed(path: path, problems: differences) }
        return (snapshot, try serialize(connection, path: path))
    }

    /// The plaintext database's pages; the library's copy is wiped before it is freed.
    /// See https://www.sqlite.org/c3ref/serialize.html
    private static func serialize(_ connection: Connection, path: String) throws -> [UInt8] {
        var size: sqlite3_int64 = 0
        guard let data = sqlite3_serialize(connection.handle, "plain", &size, 0) else {
            throw CipherKitError.outOfSpace(path: "memory")
        }
        defer {
            memset(data, 0, Int(size))
            sqlite3_free(data)
        }
        let bytes = Array(UnsafeBufferPointer(start: data, count: Int(size)))
        guard bytes.count >= 21, bytes[20] == UInt8(CHACHAPAGE_RESERVE) else {
            throw CipherKitError.verificationFailed(path: path, problems: ["the plaintext copy does not reserve \(CHACHAPAGE_RESERVE) bytes a page"])
        }
        return bytes
    }
}
