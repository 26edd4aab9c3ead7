/// The page codec of the database recover reads: the settings an open proves (the format
/// search included, `CipherFormat.searchOrder` and the settings search), or, when damage
/// stops that open, the first candidate format under which a page of the file passes its
/// HMAC, which only the right key and settings can do.
enum SourceCodec {
    /// The pages of the source tried for an HMAC that passes, when damage stops the open.
    static let provingPages = 64

    /// - Throws: what opening the source throws, when no candidate proves itself on a page;
    ///   `CipherKitError.cannotDecrypt` for a plaintext database.
    static func find(_ source: OpenRequest) throws -> PageCodec {
        var request = source
        request.mode = .readOnly
        // No -wal, -shm or checkpoint beside the source: recover reads its WAL itself.
        request.leavesFilesAlone = true
        request.readsPastDroppedCommits = true
        do {
            let opened = try DatabaseOpener.open(request)
            defer { try? opened.connection.close() }
            guard let codec = try PageCodec(for: opened) else { throw CipherKitError.cannotDecrypt(path: source.path, failure: .plaintextDatabase) }
            return codec
        } catch let error as CipherKitError {
            guard mayBeDamage(error) else { throw error }
            if let codec = try provenCodec(source) { return codec }
            throw error
        }
    }

    /// Whether `error` is what a damaged file can make an open throw (a damaged page 1 can look like a wrong key).
    private static func mayBeDamage(_ error: CipherKitError) -> Bool {
        switch error {
        case .damagedPages, .damaged, .database: return true
        case .cannotDecrypt(_, let failure): return [.wrongKeyOrSettings, .noFormatMatched, .wrongKeySettingsOrSalt].contains(failure)
        default: return false
        }
    }

    /// The codec of the first candidate settings that a page of the source proves, or nil.
    private static func provenCodec(_ source: OpenRequest) throws -> PageCodec? {
        guard let key = source.key else { return nil }
        let file = try DatabaseFile.probe(source.path)
        var given = source.settings
        if file.kind == .plaintextHeader, given.plaintextHeaderSize == nil { given.plaintextHeaderSize = DatabaseOpener.defaultPlaintextHeaderSize }
        let candidates = given.specifiesFormat ? [given] : CipherFormat.searchOrder.map { given.overriding($0.settings) }
        for settings in candidates {
            let header = settings.effective.plaintextHeaderSize ?? 0
            guard let salt = settings.salt ?? key.salt ?? (header == 0 ? file.firstBytes : nil), salt.count == 16 else { continue }
            let codec = try PageCodec(key: key, salt: salt, settings: settings)
            if try proves(codec, path: source.path) { return codec }
        }
        return nil
    }

    /// Whether a page of the file passes its HMAC under `codec` (without HMACs: whether page 1
    /// decrypts to SQLite's fixed header bytes).
    private static func proves(_ codec: PageCodec, path: String) throws -> Bool {
        let source = try PageSource(path: path, pageSize: codec.pageSize)
        let pages = Array(1...max(1, min(provingPages, source.fileSize / codec.pageSize))) + source.walPageNumbers.sorted().prefix(provingPages)
        guard codec.hasHMAC else {
            guard let page = source.page(1), let plain = codec.decrypt(page, pgno: 1) else { return false }
            return DamageDiagnosis.fixedHeaderMatches(plain, codec: codec)
        }
        return try source.anyPagePassesHMAC(codec, among: pages)
    }
}
