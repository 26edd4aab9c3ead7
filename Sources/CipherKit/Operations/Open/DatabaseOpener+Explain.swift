import FoundationEssentials

extension DatabaseOpener {
    /// Why the given settings failed: a mask the key finds (then the file opens), a mask named
    /// wrongly, a half rotation whose record is gone, damage, or `failure` as it was. A
    /// passphrase is derived once for all of them, unless the caller has (`derived`).
    static func explain(
        _ request: OpenRequest, key: KeyMaterial, salt: [UInt8]?, file: DatabaseFile, failure: CipherKitError, derived: KeyMaterial? = nil
    ) throws -> OpenedDatabase {
        var tested = derived ?? key
        if derived == nil, key.kind == .passphrase, let salt, salt.count == 16, let raw = try? KeyDerivation.rawKey(for: key, salt: salt, settings: request.settings) {
            tested = raw
        }
        if let opened = try openMasked(request, key: tested, settings: request.settings, file: file, attempts: 1) { return opened }
        try refuseGivenMask(request, key: tested, settings: request.settings, file: file)
        try refuseWrongHeaderSize(request, key: tested, settings: request.settings, file: file)
        if RotationMark.marksPageOne(file: file, key: tested, settings: request.settings) {
            throw CipherKitError.halfRotated(path: request.path, problem: RotationMark.recordMissing)
        }
        if let pages = DamageDiagnosis.diagnose(file: file, key: tested, settings: request.settings, rawKey: key.kind != .passphrase) {
            throw CipherKitError.damagedPages(path: request.path, pages: pages)
        }
        // Settings of SQLCipher 1 to 3 (compatibility 3) derived the key another cipher's takes.
        try nameOtherCipher(request, key: key, tried: [(tested, request.settings)], file: file)
        if saltLost(request, key: key, file: file) { throw CipherKitError.cannotDecrypt(path: request.path, failure: .saltDamaged) }
        throw failure
    }

    /// Why no format opened the file with the key: a mask named wrongly, a half rotation whose
    /// record is gone, or damage, as a key and format tried shows it; a legacy wxSQLite3 AES or RC4 file the key
    /// opens (a millisecond of tries, paid only here); else no format matched. The keys
    /// `PageOneCheck` turned away (`turnedAway`) only name another cipher: the rest would read
    /// the -wal again for each.
    static func explainSearchFailure(
        _ request: OpenRequest, key: KeyMaterial, tried: [(KeyMaterial, CipherSettings)], turnedAway: [(KeyMaterial, CipherSettings)] = [], file: DatabaseFile
    ) throws -> Never {
        for (candidateKey, settings) in tried {
            try refuseGivenMask(request, key: candidateKey, settings: settings, file: file)
            try refuseWrongHeaderSize(request, key: candidateKey, settings: settings, file: file)
        }
        try refuseMarkedOrDamaged(request, rawKey: key.kind != .passphrase, tried: tried, file: file)
        try nameOtherCipher(request, key: key, tried: tried + turnedAway, file: file)
        if saltLost(request, key: key, file: file) { throw CipherKitError.cannotDecrypt(path: request.path, failure: .saltDamaged) }
        // Pages are powers of two of 512 bytes or more: a file under SQLCipher 4's 4096 that is
        // no multiple of 512 may be cut inside its page 1.
        if file.kind == .opaque, file.size % 512 != 0, file.size < 4096 {
            throw CipherKitError.cannotDecrypt(path: request.path, failure: .endsInsideAPage(bytes: file.size))
        }
        // The AES key is right and every HMAC key tried wrong: settings the search leaves out.
        if file.kind == .opaque, tried.contains(where: { HMACKeySearch.decryptsPageOne(file: file, key: $0.0, settings: $0.1) }) {
            throw CipherKitError.cannotDecrypt(path: request.path, failure: .hmacKeyBeyondSearch)
        }
        if file.kind == .opaque, let scheme = randomLookingFamily(of: file, key: key, given: request.settings) {
            throw CipherKitError.cannotDecrypt(path: request.path, failure: .otherFamilyTheKeyOpens(scheme: scheme))
        }
        throw CipherKitError.cannotDecrypt(
            path: request.path, failure: file.kind == .plaintextHeader ? .wrongKeySettingsOrSalt : .noFormatMatched)
    }

    /// The scheme of SQLite3 Multiple Ciphers' whose file looks random that `key` opens the
    /// file in: wxSQLite3's AES or RC4, or sqleet's ChaCha20 under sqleet's own settings
    /// (one derivation of 12,345 iterations, paid only here); nil when none does.
    private static func randomLookingFamily(of file: DatabaseFile, key: KeyMaterial, given: CipherSettings) -> String? {
        if let scheme = WxImage.scheme(of: file, family: nil, key: key) { return scheme.summary }
        return ChaChaImage.scheme(of: file, family: nil, given: given, key: key)?.summary
    }

    /// Throws when a key and settings tried show page 1 marked by an interrupted rotation whose
    /// record is gone, or pages damaged (`DamageDiagnosis`). `rawKey`: the request's key was raw.
    static func refuseMarkedOrDamaged(_ request: OpenRequest, rawKey: Bool, tried: [(KeyMaterial, CipherSettings)], file: DatabaseFile) throws {
        for (candidateKey, settings) in tried {
            if RotationMark.marksPageOne(file: file, key: candidateKey, settings: settings) {
                throw CipherKitError.halfRotated(path: request.path, problem: RotationMark.recordMissing)
            }
            if let pages = DamageDiagnosis.diagnose(file: file, key: candidateKey, settings: settings, rawKey: rawKey) {
                throw CipherKitError.damagedPages(path: request.path, pages: pages)
            }
        }
    }

    /// Throws when the passphrase's keys for SQLCipher 1 to 3 that the search derived open page
    /// 1 under another `PRAGMA cipher` (named, for export to convert), or decrypt its header
    /// there while its HMAC fails (damage to the schema's page).
    private static func nameOtherCipher(_ request: OpenRequest, key: KeyMaterial, tried: [(KeyMaterial, CipherSettings)], file: DatabaseFile) throws {
        guard key.kind == .passphrase, let found = LegacyCipherImage.pageOne(of: file, derived: tried) else { return }
        switch found {
        case .opens(let scheme):
            throw CipherKitError.cannotDecrypt(path: request.path, failure: .otherCipher(scheme: scheme.summary))
        case .damaged(let scheme):
            throw LegacyCipherImage.damagedPageOne(under: scheme, path: request.path)
        case .hmacKeyUnknown(let scheme):
            throw LegacyCipherImage.unknownHMACKey(under: scheme, path: request.path)
        }
    }

    /// Whether the salt a passphrase needs is gone: no salt was given, and page 1's first 16
    /// bytes, where the file keeps it, are zeros. SQLCipher draws salts at random, so zeros
    /// there are a page 1 wiped, not a salt, and no search of settings can find a key.
    static func saltLost(_ request: OpenRequest, key: KeyMaterial, file: DatabaseFile) -> Bool {
        guard key.kind == .passphrase, key.salt == nil, request.settings.salt == nil, file.kind == .opaque else { return false }
        return file.firstBytes.count == 16 && file.firstBytes.allSatisfy { $0 == 0 }
    }

    /// Throws when the request names an HMAC salt mask and the key opens the file under another.
    static func refuseGivenMask(_ request: OpenRequest, key: KeyMaterial, settings: CipherSettings, file: DatabaseFile) throws {
        guard let given = request.settings.hmacSaltMask,
              let opens = HMACKeySearch.find(file: file, key: key, settings: settings, fastKDFCounts: false)?.hmacSaltMask else { return }
        throw CipherKitError.cannotDecrypt(path: request.path, failure: .wrongSaltMask(given: given, opens: opens))
    }
}
