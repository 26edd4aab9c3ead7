import FoundationEssentials

extension DatabaseOpener {
    /// Searches for the settings of a file that no known format opens (`SettingsSearch`) and
    /// proves each candidate with a real open that only reads; nil when none opens it.
    /// `attempts` counts the formats tried before; `derived` holds the keys their tries derived,
    /// which are tested first (a known KDF with another page size or HMAC needs no search).
    static func searchSettings(
        _ request: OpenRequest, key: KeyMaterial, file: DatabaseFile, attempts: Int, derived: [KeyDerivation.Parameters: KeyMaterial]
    ) throws -> OpenedDatabase? {
        let started = Date()
        guard let page1 = FileHead.bytes(of: request.path) else { return nil }
        for (parameters, raw) in derived {
            guard let found = try SettingsSearch.check(raw, derivedWith: parameters, page1: page1) else { continue }
            if let opened = try openFound(request, found: found, file: file, attempts: attempts, started: started) { return opened }
        }
        guard let found = try SettingsSearch.search(key, page1: page1) else { return nil }
        return try openFound(request, found: found, file: file, attempts: attempts, started: started)
    }

    /// Searches the settings for the keys of all `requests` at once, in one pass over the cores
    /// (`SettingsSearch.search(_:page1:)`), and opens the file with the request whose key
    /// matched: its index and the database; nil when none opens it. For a caller whose requests
    /// have each failed in the known formats already (`searchesSettings` off): those are not
    /// tried again, and only the requests an open would search (no format given, the salt in
    /// the file) take part.
    static func searchSettings(_ requests: [OpenRequest], file: DatabaseFile) throws -> (index: Int, opened: OpenedDatabase)? {
        let started = Date()
        let searched = requests.indices.filter { requests[$0].key != nil && !requests[$0].settings.specifiesFormat }
        guard file.kind == .opaque, !searched.isEmpty,
              let page1 = FileHead.bytes(of: file.path),
              let (which, found) = try SettingsSearch.search(searched.compactMap { requests[$0].key }, page1: page1) else { return nil }
        let index = searched[which]
        let opened = try opening(requests[index]) { request in
            try openFound(request, found: found, file: file, attempts: CipherFormat.searchOrder.count, started: started)
        }
        return opened.map { (index, $0) }
    }

    /// Opens the file under the HMAC salt mask or `fast_kdf_iter` count its page 1 passes with
    /// `key` and `settings` (`HMACKeySearch`), each searched when none was given, and when the
    /// key decrypts page 1; nil otherwise.
    /// `format` is the known format `settings` came from, reported with the mask beside it.
    static func openMasked(
        _ request: OpenRequest, key: KeyMaterial, settings: CipherSettings, format: CipherFormat? = nil, file: DatabaseFile, attempts: Int
    ) throws -> OpenedDatabase? {
        let masks = request.settings.hmacSaltMask == nil, counts = request.settings.fastKDFIterations == nil
        guard masks || counts, let found = HMACKeySearch.find(file: file, key: key, settings: settings, masks: masks, fastKDFCounts: counts) else { return nil }
        var candidate = request
        candidate.key = key
        candidate.settings = found
        candidate.logLevel = .none
        let connection: Connection
        do {
            connection = try open(candidate, checked: file)
        } catch CipherKitError.cannotDecrypt(let path, let failure) {
            // The mask was found on page 2: page 1 itself is damaged.
            if let pages = DamageDiagnosis.diagnose(file: file, key: key, settings: candidate.settings, rawKey: key.kind != .passphrase) {
                throw CipherKitError.damagedPages(path: path, pages: pages)
            }
            throw CipherKitError.cannotDecrypt(path: path, failure: failure)
        }
        try CipherKitError.translating(path: request.path) { try connection.setLogLevel(request.logLevel) }
        return OpenedDatabase(connection: connection, file: file, key: key, settings: candidate.settings, format: format, attempts: attempts + 1)
    }

    /// Opens the file with the key the search found and the first of its candidate settings
    /// that proves itself; nil when none does. Beside a -wal or a hot journal, settings under
    /// which page 1 fails (`PageOneCheck.proves`) get no connection, as in the known formats.
    private static func openFound(
        _ request: OpenRequest, found: SettingsSearch.Found, file: DatabaseFile, attempts: Int, started: Date
    ) throws -> OpenedDatabase? {
        var tried = attempts
        let pageOne = PageOneCheck(file: file)
        for settings in found.candidates {
            var candidate = request
            candidate.key = found.key
            candidate.settings = request.settings.overriding(settings)
            candidate.logLevel = .none
            tried += 1
            let connection: Connection
            do {
                if let pageOne, !pageOne.proves(found.key, settings: candidate.settings, salt: candidate.settings.salt ?? file.firstBytes) {
                    throw CipherKitError.cannotDecrypt(path: request.path, failure: .wrongKeyOrSettings)
                }
                connection = try open(candidate, checked: file)
            } catch CipherKitError.cannotDecrypt, CipherKitError.damaged {
                // An HMAC salt mask beside other settings; else the other HMAC settings come
                // next. A lock or an unreadable file is not a candidate's fault.
                guard var opened = try openMasked(request, key: found.key, settings: candidate.settings, file: file, attempts: tried) else { continue }
                opened.searchSeconds = Date().timeIntervalSince(started)
                return opened
            }
            try CipherKitError.translating(path: request.path) { try connection.setLogLevel(request.logLevel) }
            var opened = OpenedDatabase(
                connection: connection, file: file, key: found.key, settings: candidate.settings, format: nil, attempts: tried)
            opened.searchSeconds = Date().timeIntervalSince(started)
            return opened
        }
        // The key decrypts page 1 under settings the search found, and no HMAC key opened it:
        // a rotation's mark, damage, or HMAC key settings beyond the search.
        let decrypting = found.candidates.map { request.settings.overriding($0) }.filter { HMACKeySearch.decryptsPageOne(file: file, key: found.key, settings: $0) }
        guard !decrypting.isEmpty else { return nil }
        for settings in decrypting { try refuseGivenMask(request, key: found.key, settings: settings, file: file) }
        try refuseMarkedOrDamaged(request, rawKey: true, tried: decrypting.map { (found.key, $0) }, file: file)
        throw CipherKitError.cannotDecrypt(path: request.path, failure: .hmacKeyBeyondSearch)
    }
}
