/// Prepares the `sqlcipher` shell to open a database as `open` would: the raw key and the
/// settings `RawKeyDeriver` finds and proves, as the shell's start-up script.
public enum ShellKeyer {
    /// - Throws: what `RawKeyDeriver.derive` throws (a wrong key is `cannotDecrypt`);
    ///   `CipherKitError.hotJournal` when a hot journal lies beside the file and the shell
    ///   would open it read-only (SQLite refuses such a read).
    public static func prepare(_ request: ShellRequest) throws -> ShellSession {
        let found = try RawKeyDeriver.derive(request.database)
        if found.hotJournal, !request.writes { throw CipherKitError.hotJournal(path: request.database.path) }
        let script = ShellInitScript(
            key: found.key, settings: found.settings,
            busyTimeoutMilliseconds: request.database.busyTimeoutMilliseconds, startupFile: request.startupFile)
        return ShellSession(
            script: script, key: found.key, settings: found.key == nil ? nil : found.settings, format: found.format, attempts: found.attempts, searchSeconds: found.searchSeconds)
    }
}
