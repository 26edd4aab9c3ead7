/// Finds the raw key, with its salt, that opens a database without key derivation: the key
/// proved and the settings found as `open` finds them (the known formats, then the search),
/// the passphrase derived once, and the raw key proved again with exactly the settings it
/// is returned with, so that whoever uses the two (the `sqlcipher` shell, an app) opens what
/// CipherKit opened.
///
/// Everything here only reads, and leaves every file beside the database alone.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#key (raw key data with an explicit salt)
public enum RawKeyDeriver {
    /// - Throws: what `DatabaseOpener.open` throws (a wrong key is `cannotDecrypt`);
    ///   `CipherKitError.noSalt` when the salt the key opened the file with is not known.
    public static func derive(_ request: OpenRequest) throws -> DerivedRawKey {
        var look = request
        look.mode = .readOnly
        look.leavesFilesAlone = true
        let found = try open(look)
        if let key = found.key {
            var proof = look
            (proof.key, proof.settings, proof.searchesSettings) = (key, found.settings, false)
            _ = try DatabaseOpener.open(proof)
        }
        return found
    }

    /// What the first open found; its connection and reader's lock are gone on return, so
    /// that the proof's own lock is the process's only one.
    private static func open(_ look: OpenRequest) throws -> DerivedRawKey {
        let opened = try DatabaseOpener.open(look)
        guard let key = opened.key else {
            return DerivedRawKey(key: nil, settings: CipherSettings(), format: nil, attempts: opened.attempts, searchSeconds: nil, hotJournal: opened.readPastHotJournal)
        }
        let salt = opened.settings.salt ?? key.salt ?? (opened.file.kind == .opaque ? Array(opened.file.firstBytes.prefix(16)) : nil)
        guard let salt, salt.count == 16 else {
            throw CipherKitError.noSalt(path: look.path, reason: "the salt the key opened the file with is not known")
        }
        let raw = try KeyDerivation.rawKey(for: key, salt: salt, settings: opened.settings)
        return DerivedRawKey(
            key: raw, settings: namedSettings(opened.settings), format: opened.format, attempts: opened.attempts,
            searchSeconds: opened.searchSeconds, hotJournal: opened.readPastHotJournal)
    }

    /// Every setting SQLCipher ran with, named, so that a SQLCipher 4 of another release
    /// reads the file alike; the salt only where the file does not keep it.
    static func namedSettings(_ settings: CipherSettings) -> CipherSettings {
        let effective = settings.effective
        return (effective.plaintextHeaderSize ?? 0) > 0 ? effective : effective.with(\.salt, nil)
    }
}
