extension DatabaseOpener {
    /// Refuses a salt given for a file that keeps its own in its first 16 bytes, when the key
    /// opens the file with that one (under the settings given, else under each SQLCipher
    /// version's defaults): SQLCipher reads the file's salt, and only cipherctl's own
    /// derivations would take the given one, under which every page would fail its HMAC and
    /// read as damage. A file whose salt bytes were lost (wiped or damaged) is opened with the
    /// given salt as before, since its own does not open it.
    ///
    /// - Throws: `CipherSettingsError.saltDisagreesWithFile`.
    static func refuseAnotherSalt(_ request: OpenRequest, key: KeyMaterial, file: DatabaseFile) throws {
        let own = file.firstBytes
        guard file.kind == .opaque, let given = request.settings.salt, own.count == 16, given != own, key.kind != .rawKeyWithSalt,
              let head = FileHead.bytes(of: file.path) else { return }
        let candidates = request.settings.specifiesFormat ? [request.settings]
            : [4, 3, 2, 1].map { request.settings.overriding(CipherSettings(compatibility: $0)) }
        if candidates.contains(where: { opensPageOne(head, key: key, salt: own, settings: $0) }) {
            throw CipherSettingsError.saltDisagreesWithFile
        }
    }

    /// Whether page 1 at the start of `head` passes its HMAC under `key`, `salt` and `settings`.
    private static func opensPageOne(_ head: [UInt8], key: KeyMaterial, salt: [UInt8], settings: CipherSettings) -> Bool {
        guard let raw = try? KeyDerivation.rawKey(for: key, salt: salt, settings: settings),
              let codec = try? PageCodec(key: raw, salt: salt, settings: settings), codec.hasHMAC, head.count >= codec.pageSize else { return false }
        return Array(head.prefix(codec.pageSize)).withUnsafeBytes { (try? codec.damagedPages(in: $0, first: 1, count: 1)) == [] }
    }
}
