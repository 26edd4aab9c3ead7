/// Which family a source is read as.
extension FamilyExporter {
    /// The source's scheme when it is not SQLCipher's: ChaCha20 as `ChaChaImage.scheme` finds
    /// it; else, for a family the request names, a file whose plain header shows no reserved
    /// bytes (which only wxSQLite3's AES schemes write), or, with no cipher settings given, a
    /// file that looks random, the first of wxSQLite3's AES and RC4 schemes the key opens. nil
    /// when the source is (or may be) SQLCipher's.
    ///
    /// - Throws: `FIPSRefusal.cipher` in FIPS mode for a file or family only those schemes
    ///   have, before any key is tried; `CipherKitError.cannotDecrypt` (`wrongKeyForScheme`)
    ///   when the key opens such a file in none of them.
    static func foreignScheme(of file: DatabaseFile, request: ExportRequest) throws -> ForeignScheme? {
        let family = request.sourceFamily, given = request.source.settings
        if let scheme = try sqlcipherScheme(of: file, request: request) { return .sqlite3mcSQLCipher(scheme) }
        if family == .sqlite3mcSQLCipher {
            // Named, but the header shows no such file (bytes 16 to 23 plain, 48 to 80 reserved).
            throw CipherKitError.cannotDecrypt(path: file.path, failure: .wrongKeyForScheme(scheme: "SQLCipher scheme outside legacy mode, which its header does not show"))
        }
        if family == nil || family == .chacha20 || family == .sqlcipher,
           let scheme = ChaChaImage.scheme(of: file, family: family, given: given, key: request.source.key) {
            return .chacha20(scheme)
        }
        guard family != .sqlcipher, family != .chacha20, let key = request.source.key else { return nil }
        if family == .sqlcipherOtherCipher { return try legacyCipherScheme(of: file, key: key, named: true) }
        let named = family != nil, plainAES = file.kind == .sqlite3MultipleCiphers && file.reservedBytes == 0
        let name = family.map { WxScheme(family: $0, legacy: true, pageSize: 0).cipherName } ?? "wxSQLite3 AES-128-CBC or AES-256-CBC"
        if named || plainAES { try FIPSPolicy.requireApproved(cipher: name) }
        // Its header shows the family, and no raw key opens it: say so, not "wrong key".
        if plainAES, key.kind != .passphrase { throw KeyMaterialError.rawKeyNotTaken(scheme: "SQLite3 Multiple Ciphers' " + name) }
        guard named || plainAES || given.isEmpty else { return nil }
        if let scheme = WxImage.scheme(of: file, family: family, key: key) { return .wx(scheme) }
        guard named || plainAES else { return nil }
        throw CipherKitError.cannotDecrypt(path: file.path, failure: .wrongKeyForScheme(scheme: name))
    }

    /// The scheme of a SQLCipher 1 to 3 file under another `PRAGMA cipher` than AES-256-CBC
    /// (`LegacyCipherImage.scheme`), tried on a file that looks random with a passphrase when
    /// the request names the family, or once no SQLCipher format opens it (`Exporter`); nil
    /// when the key opens it in none, unless the request names the family.
    ///
    /// - Throws: `FIPSRefusal.cipher` in FIPS mode when the family is named (unnamed, no such
    ///   file is looked for in FIPS mode); `CipherKitError.cannotDecrypt` when it is named and
    ///   the key opens the file in none of them.
    static func legacyCipherScheme(of file: DatabaseFile, key: KeyMaterial, named: Bool) throws -> ForeignScheme? {
        let name = "SQLCipher 1 to 3 with PRAGMA cipher other than aes-256-cbc"
        if named { try FIPSPolicy.requireApproved(cipher: name) }
        switch LegacyCipherImage.pageOne(of: file, key: key) {
        case .opens(let scheme)?:
            return .legacyCipher(scheme)
        case .damaged(let scheme)? where named:
            throw LegacyCipherImage.damagedPageOne(under: scheme, path: file.path)
        case .hmacKeyUnknown(let scheme)? where named:
            throw LegacyCipherImage.unknownHMACKey(under: scheme, path: file.path)
        default:
            guard named else { return nil }
        }
        throw CipherKitError.cannotDecrypt(path: file.path, failure: .wrongKeyForScheme(scheme: name))
    }

    /// The settings of a file in SQLite3 Multiple Ciphers' own SQLCipher scheme outside legacy
    /// mode (`SQLCipherSchemeImage`), unless another family is named; nil for another file.
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` (`wrongKeyForScheme`) when the key opens it
    ///   with none of the settings tried.
    private static func sqlcipherScheme(of file: DatabaseFile, request: ExportRequest) throws -> CipherSettings? {
        guard request.sourceFamily == nil || request.sourceFamily == .sqlite3mcSQLCipher, let key = request.source.key,
              file.kind == .sqlite3MultipleCiphers, let reserve = file.reservedBytes, (48...80).contains(reserve) else { return nil }
        if let settings = SQLCipherSchemeImage.settings(of: file, given: request.source.settings, key: key) { return settings }
        throw CipherKitError.cannotDecrypt(path: file.path, failure: .wrongKeyForScheme(scheme: "SQLCipher scheme outside legacy mode"))
    }
}
