import Glibc

/// Prepares the `sqlcipher` shell to open a database as `open` would: the raw key and the
/// settings `RawKeyDeriver` finds and proves, as the shell's start-up script.
public enum ShellKeyer {
    /// - Throws: what `RawKeyDeriver.derive` throws (a wrong key is `cannotDecrypt`);
    ///   `CipherKitError.hotJournal` when a hot journal lies beside the file and the shell
    ///   would open it read-only (SQLite refuses such a read).
    public static func prepare(_ request: ShellRequest) throws -> ShellSession {
        let found = try RawKeyDeriver.derive(request.database)
        if found.hotJournal, !request.writes { throw CipherKitError.hotJournal(path: request.database.path) }
        if !request.writes { try requireSharedMemory(request.database.path) }
        let script = ShellInitScript(
            key: found.key, settings: found.settings,
            busyTimeoutMilliseconds: request.database.busyTimeoutMilliseconds, startupFile: request.startupFile)
        return ShellSession(
            script: script, key: found.key, settings: found.key == nil ? nil : found.settings, format: found.format, attempts: found.attempts, searchSeconds: found.searchSeconds)
    }

    /// Throws when SQLite cannot open `path` read-only: its `-wal` holds frames, no `-shm` lies
    /// beside it, and this process cannot make one in the folder. cipherctl's own reads need
    /// no `-shm`; the shell reads only through SQLite, which fails at its first statement.
    ///
    /// - Throws: `CipherKitError.fileAccess` naming the folder.
    private static func requireSharedMemory(_ path: String) throws {
        let file = FileOperations.withoutSymbolicLinks(path)
        var status = stat()
        guard stat(file + "-wal", &status) == 0, status.st_size > 0, !FileOperations.exists(file + "-shm") else { return }
        guard access(FileOperations.directory(of: file), W_OK) != 0 else { return }
        throw CipherKitError.fileAccess(
            path: path, reason: "its -wal holds commits and has no -shm beside it, and the folder is not writable to make one, which SQLite needs to read it")
    }
}
