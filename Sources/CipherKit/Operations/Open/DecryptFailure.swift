/// Why a file could not be read as a database with the key and settings given.
///
/// SQLCipher answers all of these with the same "file is not a database"; CipherKit
/// tells them apart where the file itself shows the cause.
public enum DecryptFailure: Equatable, Sendable {
    /// The key or the cipher settings do not match the file.
    case wrongKeyOrSettings
    /// No cipher setting was given, and the key opens the file in none of the SQLCipher
    /// formats searched (`CipherFormat.searchOrder`).
    case noFormatMatched
    /// The key or settings do not match, and the file has a plaintext header, so the salt may be the cause.
    case wrongKeySettingsOrSalt
    /// The file is a plaintext SQLite database, and a key was given.
    case plaintextDatabase
    /// The file has a SQLCipher plaintext header, whose salt is kept outside the file, and no salt was given.
    case plaintextHeader
    /// The file is not a SQLite or SQLCipher database at all; `reason` says what shows it.
    case notADatabase(reason: String)
    /// The file has no bytes.
    case emptyFile
    /// The file is shorter than the smallest database page.
    case tooShort(bytes: Int)
    /// The file is encrypted (or not a database) and no key was given.
    case keyRequired
}
