/// Reads a database's 16-byte salt: from the file's first bytes without a key (the salt is
/// not secret), or with the key from `PRAGMA cipher_salt`, which proves it.
///
/// A plaintext-header database keeps its salt outside the file, and a plaintext database
/// has none; both are said so rather than guessed.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_salt
public enum SaltReader {
    /// The salt of the database `request` names; `request.key` nil reads the file header.
    ///
    /// - Throws: `CipherKitError.noSalt` for a plaintext file, a plaintext-header file
    ///   whose salt was not given, or, read without a key, a file whose salt is zeros; what `DatabaseOpener.open` throws with a key; and
    ///   `verificationFailed` if the pragma and the file disagree.
    public static func read(_ request: OpenRequest) throws -> SaltReport {
        let path = request.path
        let file = try DatabaseFile.probe(path)
        switch file.kind {
        case .plaintext:
            throw CipherKitError.noSalt(path: path, reason: "it is a plaintext SQLite database, which has no salt")
        case .plaintextHeader where request.key == nil || (request.settings.salt == nil && request.key?.kind != .rawKeyWithSalt):
            throw CipherKitError.noSalt(path: path, reason: CipherKitError.saltKeptOutside)
        case .opaque where request.key == nil && file.firstBytes.allSatisfy { $0 == 0 }:
            // SQLCipher draws salts at random: zeros there are a page 1 wiped.
            throw CipherKitError.noSalt(path: path, reason: "its first 16 bytes, where SQLCipher keeps the salt, are zeros (page 1 is damaged)")
        case .opaque where request.key == nil:
            return SaltReport(path: path, salt: file.firstBytes, source: .fileHeader, format: nil, formatAttempts: 0)
        default:
            break
        }
        var readOnly = request
        readOnly.mode = .readOnly
        readOnly.leavesFilesAlone = true
        let opened = try DatabaseOpener.open(readOnly, probed: file)
        let text = try CipherKitError.translating(path: path, file: file) { try opened.connection.pragmaText("cipher_salt") }
        guard let salt = text.flatMap(Hex.decode), salt.count == 16 else {
            throw CipherKitError.verificationFailed(path: path, problems: ["PRAGMA cipher_salt gave no 16-byte salt"])
        }
        if file.kind == .opaque, salt != file.firstBytes {
            throw CipherKitError.verificationFailed(path: path, problems: ["PRAGMA cipher_salt differs from the file's first 16 bytes"])
        }
        return SaltReport(path: path, salt: salt, source: .pragma, format: opened.format, formatAttempts: opened.attempts)
    }
}
