/// What an audit found a path to be.
public enum AuditedKind: String, CaseIterable, Sendable {
    /// A SQLite database that opens without a key.
    case plaintext
    /// A SQLCipher database: a key opened it, or proved a page of it damaged.
    case sqlcipher
    /// Bytes that look random, which no key showed to be SQLCipher's: SQLCipher, or another
    /// family that encrypts the whole file (random bytes look the same). Only a key tells.
    case encrypted
    /// A SQLCipher database whose header is left in plaintext (its salt is kept elsewhere).
    case plaintextHeader = "plaintext-header"
    /// A SQLite3 Multiple Ciphers database (bytes 16 to 23 of its header plain), which
    /// SQLCipher cannot read.
    case sqlite3mc
    /// Text, a size that is not a whole number of pages, a damaged SQLite header, or a file
    /// shorter than a page.
    case notADatabase = "not-a-database"
    /// A file with no bytes (SQLite would take it for an empty database).
    case empty
    /// A directory reached through a symbolic link, a FIFO, a socket or a device: never opened.
    case notRegularFile = "not-a-regular-file"
    /// Nothing at the path, or a symbolic link to nothing.
    case missing
    /// A file or folder that could not be read.
    case unreadable
}
