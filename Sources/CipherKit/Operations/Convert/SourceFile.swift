/// The whole of a source file another family's reader decrypts in memory.
enum SourceFile {
    /// The bytes of the file at `path`, which must hold at least one page of `pageSize`.
    ///
    /// - Throws: `CipherKitError.fileAccess` when it cannot be read, `cannotDecrypt`
    ///   (`tooShort`) when it holds less than a page.
    static func read(_ path: String, pageSize: Int) throws -> [UInt8] {
        guard let file = OpenFile(reading: path) else { throw CipherKitError.fileAccess(path: path, reason: "cannot open for reading") }
        let raw = try file.readToEnd()
        guard raw.count >= pageSize else { throw CipherKitError.cannotDecrypt(path: path, failure: .tooShort(bytes: raw.count)) }
        return raw
    }
}
