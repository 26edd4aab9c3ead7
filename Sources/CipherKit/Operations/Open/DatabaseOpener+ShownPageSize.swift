import FoundationEssentials

extension DatabaseOpener {
    /// The page size a plaintext header shows: bytes 16 and 17 of the file, which a header of
    /// 24 bytes or more keeps in plaintext, and which SQLite reads as the page size whatever
    /// SQLCipher is told; nil for other files, shorter headers and sizes SQLite never writes.
    static func shownPageSize(_ file: DatabaseFile, headerSize: Int?) -> Int? {
        guard file.kind == .plaintextHeader, (headerSize ?? defaultPlaintextHeaderSize) >= 24,
              let head = FileOperations.leadingBytes(of: file.path, count: 24), head.count == 24 else { return nil }
        let stored = Int(head[16]) << 8 | Int(head[17])
        let size = stored == 1 ? 65536 : stored
        return (512...65536).contains(size) && size & (size - 1) == 0 ? size : nil
    }

    /// The request for a file whose plaintext header shows its page size, with that size
    /// when settings are given without one (a search takes it in each format: `search`).
    /// A given other size is refused before any connection: SQLCipher then decrypts page 1
    /// past the page SQLite read, which crashed the process, and no page would pass anyway.
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` (`pageSizeShownByHeader`).
    static func pinningShownPageSize(_ request: OpenRequest, file: DatabaseFile) throws -> OpenRequest {
        guard let shown = shownPageSize(file, headerSize: request.settings.plaintextHeaderSize) else { return request }
        if let given = request.settings.pageSize, given != shown {
            throw CipherKitError.cannotDecrypt(path: request.path, failure: .pageSizeShownByHeader(given: given, shown: shown))
        }
        var request = request
        if request.settings.specifiesFormat { request.settings.pageSize = shown }
        return request
    }
}
