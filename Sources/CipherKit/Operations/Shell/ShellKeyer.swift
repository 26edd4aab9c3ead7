/// Prepares the `sqlcipher` shell to open a database as `open` would: the key proved, the
/// settings found (by the same search), then turned into the raw key and settings of a
/// start-up script, proved once more exactly as the script gives them, so that the shell
/// opens what CipherKit opened.
///
/// Everything here only reads, and leaves every file beside the database alone.
public enum ShellKeyer {
    /// - Throws: what `DatabaseOpener.open` throws (a wrong key is `cannotDecrypt`);
    ///   `CipherKitError.hotJournal` when a hot journal lies beside the file and the shell
    ///   would open it read-only (SQLite refuses such a read); `noSalt` when the salt is unknown.
    public static func prepare(_ request: ShellRequest) throws -> ShellSession {
        var look = request.database
        look.mode = .readOnly
        look.leavesFilesAlone = true
        let found = try open(look, writes: request.writes)
        var settings: CipherSettings?
        if let key = found.key {
            settings = found.settings
            var proof = look
            (proof.key, proof.settings, proof.searchesSettings) = (key, found.settings, false)
            _ = try DatabaseOpener.open(proof)
        }
        let script = ShellInitScript(
            key: found.key, settings: settings ?? CipherSettings(),
            busyTimeoutMilliseconds: look.busyTimeoutMilliseconds, startupFile: request.startupFile)
        return ShellSession(script: script, settings: settings, format: found.format, attempts: found.attempts, searchSeconds: found.searchSeconds)
    }

    /// What the first open found; its connection and reader's lock are gone on return, so
    /// that the proof's own lock is the process's only one.
    private static func open(_ look: OpenRequest, writes: Bool) throws -> (key: KeyMaterial?, settings: CipherSettings, format: CipherFormat?, attempts: Int, searchSeconds: Double?) {
        let opened = try DatabaseOpener.open(look, deriveOnce: true)
        if opened.readPastHotJournal, !writes { throw CipherKitError.hotJournal(path: look.path) }
        guard let key = opened.key else { return (nil, CipherSettings(), nil, opened.attempts, nil) }
        let salt = opened.settings.salt ?? (opened.file.kind == .opaque ? Array(opened.file.firstBytes.prefix(16)) : nil)
        guard let salt, salt.count == 16 else {
            throw CipherKitError.noSalt(path: look.path, reason: "the salt the key opened the file with is not known")
        }
        let raw = try KeyDerivation.rawKey(for: key, salt: salt, settings: opened.settings)
        return (raw, scriptSettings(opened.settings), opened.format, opened.attempts, opened.searchSeconds)
    }

    /// Every setting SQLCipher ran with, named, so that a shell of another SQLCipher 4
    /// release reads the file alike; the salt only where the file does not keep it.
    static func scriptSettings(_ settings: CipherSettings) -> CipherSettings {
        let effective = settings.effective
        return (effective.plaintextHeaderSize ?? 0) > 0 ? effective : effective.with(\.salt, nil)
    }
}
