import FoundationEssentials

extension DatabaseOpener {
    /// The page size a plaintext header shows: bytes 16 and 17 of the file, which a header of
    /// 24 bytes or more keeps in plaintext, and which SQLite reads as the page size whatever
    /// SQLCipher is told; nil for other files, shorter headers, and bytes 16 to 23 that are
    /// not SQLite's (a 16-byte header's, encrypted, read under the default 32).
    static func shownPageSize(_ file: DatabaseFile, headerSize: Int?) -> Int? {
        guard file.kind == .plaintextHeader, (headerSize ?? defaultPlaintextHeaderSize) >= 24,
              let head = FileOperations.leadingBytes(of: file.path, count: 24), DatabaseFile.showsPlainHeaderFields(head) else { return nil }
        let stored = Int(head[16]) << 8 | Int(head[17])
        return stored == 1 ? 65536 : stored
    }

    /// `format`'s settings under the request's, at the page size a plaintext header shows;
    /// nil when a plaintext header size given leaves no room in their pages.
    static func formatSettings(_ request: OpenRequest, _ format: CipherFormat, file: DatabaseFile) -> CipherSettings? {
        var settings = request.settings.overriding(format.settings)
        settings.pageSize = shownPageSize(file, headerSize: request.settings.plaintextHeaderSize) ?? settings.pageSize
        return (try? settings.validate()) != nil ? settings : nil
    }

    /// The request for a file whose plaintext header shows its page size, with that size
    /// when settings are given without one (a search takes it in each format: `search`).
    /// A given other size is refused before any connection: SQLCipher then decrypts page 1
    /// past the page SQLite read, which crashed the process, and no page would pass anyway.
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` (`pageSizeShownByHeader`), `CipherSettingsError`
    ///   for a plaintext header size that leaves no room in a page of the size shown.
    static func pinningShownPageSize(_ request: OpenRequest, file: DatabaseFile) throws -> OpenRequest {
        guard let shown = shownPageSize(file, headerSize: request.settings.plaintextHeaderSize) else { return request }
        if let given = request.settings.pageSize, given != shown {
            throw CipherKitError.cannotDecrypt(path: request.path, failure: .pageSizeShownByHeader(given: given, shown: shown))
        }
        // A header size checked against the default page size may not fit the one shown.
        try request.settings.with(\.pageSize, shown).validate()
        var request = request
        if request.settings.specifiesFormat { request.settings.pageSize = shown }
        return request
    }
}
