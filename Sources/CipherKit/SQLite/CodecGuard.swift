import CCipherProvider
import CSQLCipher
import FoundationEssentials

/// Checks once per process that the SQLite the process is linked to has the SQLCipher
/// codec, at version 4 or later. Without it, a "keyed" database would be written in
/// plaintext without a word; with it missing, every connection refuses to open.
///
/// It also turns SQLCipher's memory security on for the process before any key is given:
/// SQLCipher then locks the memory it allocates and zeroes it when freed, so key material
/// and decrypted pages do not linger in freed memory or reach swap. Once on, SQLCipher
/// keeps it on for the life of the process.
///
/// With SQLCipher 4.6 and its OpenSSL provider, it then installs the provider of
/// `Sources/CCipherProvider`: the same AES and HMAC through OpenSSL, with OpenSSL's contexts kept
/// between pages instead of made and freed for each one (about a tenth of an in-place rekey).
/// With any other version SQLCipher's own provider stays.
///
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_version and
/// https://www.zetetic.net/sqlcipher/sqlcipher-api/#cipher_memory_security
final class CodecGuard: @unchecked Sendable {
    static let shared = CodecGuard()

    private let lock = Lock()
    private var verifiedVersion: String?
    private var memorySecured = false
    private var cachedProvider = false

    /// Whether connections keyed from now on use the provider of `Sources/CCipherProvider`
    /// (SQLCipher 4.6 with OpenSSL) rather than SQLCipher's own OpenSSL provider.
    var usesCachedProvider: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cachedProvider && cipherprovider_active() == 1
    }

    /// Throws `CipherKitError.codecUnavailable` unless `PRAGMA cipher_version` names SQLCipher 4 or later.
    /// `securingMemory` false (a connection that never holds a secret) leaves memory security
    /// for the next connection to turn on.
    func check(_ connection: Connection, securingMemory: Bool = true) throws {
        lock.lock()
        defer { lock.unlock() }
        let version = try verifiedVersion ?? codecVersion(connection)
        if securingMemory, !memorySecured {
            _ = try connection.pragmaText("cipher_memory_security = ON")
            memorySecured = true
        }
        if verifiedVersion == nil, version.hasPrefix("4.6.") {
            cachedProvider = cipherprovider_install() == 1
        }
        verifiedVersion = version
    }

    private func codecVersion(_ connection: Connection) throws -> String {
        let version = try connection.pragmaText("cipher_version") ?? ""
        guard let major = version.split(separator: ".").first.flatMap({ Int($0) }), major >= 4 else {
            let linked = String(cString: sqlite3_libversion())
            throw CipherKitError.codecUnavailable(found: version.isEmpty ? "SQLite \(linked) without SQLCipher" : "SQLCipher \(version)")
        }
        return version
    }
}
