import CSQLCipher
import Foundation

/// Checks once per process that the SQLite the process is linked to has the SQLCipher
/// codec, at version 4 or later. Without it, a "keyed" database would be written in
/// plaintext without a word; with it missing, every connection refuses to open.
///
/// It also turns SQLCipher's memory security on for the process before any key is given:
/// SQLCipher then locks the memory it allocates and zeroes it when freed, so key material
/// and decrypted pages do not linger in freed memory or reach swap. Once on, SQLCipher
/// keeps it on for the life of the process.
///
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_version and
/// https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_memory_security
final class CodecGuard: @unchecked Sendable {
    static let shared = CodecGuard()

    private let lock = NSLock()
    private var verifiedVersion: String?

    /// Throws `CipherKitError.codecUnavailable` unless `PRAGMA cipher_version` names SQLCipher 4 or later.
    func check(_ connection: Connection) throws {
        lock.lock()
        defer { lock.unlock() }
        if verifiedVersion != nil { return }
        let version = try connection.pragmaText("cipher_version") ?? ""
        guard let major = version.split(separator: ".").first.flatMap({ Int($0) }), major >= 4 else {
            let linked = String(cString: sqlite3_libversion())
            throw CipherKitError.codecUnavailable(found: version.isEmpty ? "SQLite \(linked) without SQLCipher" : "SQLCipher \(version)")
        }
        _ = try connection.pragmaText("cipher_memory_security = ON")
        verifiedVersion = version
    }
}
