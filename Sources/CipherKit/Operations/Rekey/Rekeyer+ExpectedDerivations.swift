extension Rekeyer {
    /// The key derivations a rekey of `request` is expected to run, for a batch to derive
    /// ahead (`KeyDerivation.prepare`): the current passphrase's, with the salt the file
    /// starts with (or the one the settings give), and for a change of key alone the new
    /// passphrase's, with the same salt and settings. A guess: the file may turn out to have
    /// other settings, and its rekey then derives as ever. Empty when nothing can be guessed
    /// before the file is opened (a raw key, no salt to read).
    public static func expectedDerivations(_ request: RekeyRequest) -> [KeyDerivation.Expected] {
        let current = request.database
        guard let key = current.key, key.kind == .passphrase,
              let old = KeyDerivation.Expected.opening(current.path, key: key, settings: current.settings) else { return [] }
        guard !changesSettings(request), request.newKey.kind == .passphrase else { return [old] }
        return [old, KeyDerivation.Expected(key: request.newKey, salt: old.salt, settings: current.settings)]
    }
}
