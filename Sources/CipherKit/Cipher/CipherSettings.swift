/// The cipher settings a database is opened or written with. Every field is optional:
/// nil leaves SQLCipher's default (SQLCipher 4) or, with `compatibility`, that version's value.
///
/// Shared by every command. `pragmas` gives the statements in the order SQLCipher needs
/// them after the key: compatibility first, since it resets the others.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/
public struct CipherSettings: Equatable, Sendable {
    /// SQLCipher major version whose defaults to use (1 to 4).
    public var compatibility: Int?
    /// Page size in bytes: a power of two from 512 to 65536.
    public var pageSize: Int?
    /// PBKDF2 iterations for a passphrase.
    public var kdfIterations: Int?
    /// Page HMAC algorithm.
    public var hmacAlgorithm: HMACAlgorithm?
    /// Passphrase KDF algorithm.
    public var kdfAlgorithm: KDFAlgorithm?
    /// Whether pages carry an HMAC.
    public var useHMAC: Bool?
    /// The byte order of the page number in each page's HMAC (big-endian only for files
    /// SQLCipher 2.0 wrote on a big-endian machine).
    public var hmacPageNumber: HMACPageNumber?
    /// Bytes at the start of the file left unencrypted (0, or a multiple of 16).
    public var plaintextHeaderSize: Int?
    /// The 16-byte salt, for a database whose salt is not in the file.
    public var salt: [UInt8]?
    /// PBKDF2 iterations from the page key to the HMAC key: 2, unless the file was written
    /// under SQLCipher's deprecated `PRAGMA fast_kdf_iter` (nil: 2).
    public var fastKDFIterations: Int?
    /// The byte the salt is XORed with for the HMAC key: 0x3a, unless the file was written
    /// under SQLCipher's deprecated `PRAGMA cipher_hmac_salt_mask` (nil: 0x3a). SQLCipher
    /// keeps it per process, so every connection of one run shares it.
    public var hmacSaltMask: UInt8?

    /// Settings of the on-disk format; the rest (`hmacPageNumber`, and where the salt lives)
    /// are set on the value, or with `with(_:_:)`.
    public init(
        compatibility: Int? = nil, pageSize: Int? = nil, kdfIterations: Int? = nil,
        hmacAlgorithm: HMACAlgorithm? = nil, kdfAlgorithm: KDFAlgorithm? = nil, useHMAC: Bool? = nil
    ) {
        self.compatibility = compatibility
        self.pageSize = pageSize
        self.kdfIterations = kdfIterations
        self.hmacAlgorithm = hmacAlgorithm
        self.kdfAlgorithm = kdfAlgorithm
        self.useHMAC = useHMAC
    }

    /// A salt kept outside the encrypted file: the plaintext header's size, and the salt.
    public init(plaintextHeaderSize: Int?, salt: [UInt8]? = nil) {
        self.plaintextHeaderSize = plaintextHeaderSize
        self.salt = salt
    }

    /// Only the salt, for a database whose salt is not in the file.
    public init(salt: [UInt8]?) {
        self.salt = salt
    }

    /// These settings with one of them changed.
    public func with<Value>(_ setting: WritableKeyPath<CipherSettings, Value>, _ value: Value) -> CipherSettings {
        var changed = self
        changed[keyPath: setting] = value
        return changed
    }

    /// Whether no setting is given, so SQLCipher's defaults apply.
    public var isEmpty: Bool { self == CipherSettings() }

    /// Whether any setting of the on-disk format is given (compatibility, page size, KDF,
    /// HMAC). Without one, the format is searched for (`FormatSearch`); the plaintext header
    /// size and the salt say where the salt lives, not the format, and do not count.
    public var specifiesFormat: Bool {
        compatibility != nil || pageSize != nil || kdfIterations != nil || hmacAlgorithm != nil || kdfAlgorithm != nil
            || useHMAC != nil || hmacPageNumber != nil || fastKDFIterations != nil
    }

    /// The settings each SQLCipher major version uses by default.
    public static func defaults(forCompatibility version: Int) -> CipherSettings? {
        switch version {
        case 4:
            return CipherSettings(pageSize: 4096, kdfIterations: 256_000, hmacAlgorithm: .sha512, kdfAlgorithm: .pbkdf2SHA512, useHMAC: true)
        case 3:
            return CipherSettings(pageSize: 1024, kdfIterations: 64_000, hmacAlgorithm: .sha1, kdfAlgorithm: .pbkdf2SHA1, useHMAC: true)
        case 2:
            return CipherSettings(pageSize: 1024, kdfIterations: 4_000, hmacAlgorithm: .sha1, kdfAlgorithm: .pbkdf2SHA1, useHMAC: true)
        case 1:
            return CipherSettings(pageSize: 1024, kdfIterations: 4_000, hmacAlgorithm: .sha1, kdfAlgorithm: .pbkdf2SHA1, useHMAC: false)
        default:
            return nil
        }
    }

    /// Checks every given value against what SQLCipher accepts.
    ///
    /// - Throws: `CipherSettingsError` naming the first value out of range, `FIPSRefusal`
    ///   for a value FIPS mode refuses (`FIPSPolicy`).
    public func validate() throws {
        if let compatibility, !(1...4).contains(compatibility) {
            throw CipherSettingsError.compatibility(compatibility)
        }
        if let pageSize, !(pageSize >= 512 && pageSize <= 65536 && pageSize & (pageSize - 1) == 0) {
            throw CipherSettingsError.pageSize(pageSize)
        }
        if let kdfIterations, kdfIterations < 1 {
            throw CipherSettingsError.kdfIterations(kdfIterations)
        }
        if let fastKDFIterations, fastKDFIterations < 1 {
            throw CipherSettingsError.fastKDFIterations(fastKDFIterations)
        }
        if let plaintextHeaderSize {
            let usable = (pageSize ?? 4096) - 80
            if plaintextHeaderSize < 0 || plaintextHeaderSize % 16 != 0 || plaintextHeaderSize >= usable {
                throw CipherSettingsError.plaintextHeaderSize(plaintextHeaderSize)
            }
        }
        if let salt, salt.count != 16 {
            throw CipherSettingsError.saltLength(salt.count)
        }
        try FIPSPolicy.check(self)
    }

    /// Checks that a page of these (complete) settings leaves SQLite the 480 usable bytes it
    /// needs once SQLCipher's IV and HMAC are reserved: 512-byte pages work only without an
    /// HMAC. SQLCipher itself writes such a database and cannot read it back.
    ///
    /// - Throws: `CipherSettingsError.usablePageSize`.
    /// See https://www.sqlite.org/fileformat2.html#the_database_header (reserved space)
    public func validateUsablePageSize() throws {
        if let pageSize, pageSize - reservedBytes < 480 {
            throw CipherSettingsError.usablePageSize(pageSize: pageSize, reserved: reservedBytes)
        }
    }

    /// The PRAGMA statements that apply these settings to a keyed connection, in order.
    ///
    /// Every value is a validated number or a fixed name, so the text holds nothing a user typed.
    public var pragmas: [String] { pragmas(schema: nil) }

    /// The same statements for one schema of the connection (`PRAGMA src.kdf_iter = …`).
    /// `schema` is one of CipherKit's own fixed names, never user text.
    func pragmas(schema: String?) -> [String] {
        let prefix = "PRAGMA " + (schema.map { $0 + "." } ?? "")
        var statements: [String] = []
        if let compatibility { statements.append(prefix + "cipher_compatibility = \(compatibility)") }
        if let pageSize { statements.append(prefix + "cipher_page_size = \(pageSize)") }
        if let kdfIterations { statements.append(prefix + "kdf_iter = \(kdfIterations)") }
        if let fastKDFIterations { statements.append(prefix + "fast_kdf_iter = \(fastKDFIterations)") }
        if let useHMAC { statements.append(prefix + "cipher_use_hmac = \(useHMAC ? "ON" : "OFF")") }
        if let hmacAlgorithm { statements.append(prefix + "cipher_hmac_algorithm = \(hmacAlgorithm.rawValue)") }
        if let hmacPageNumber { statements.append(prefix + "cipher_hmac_pgno = \(hmacPageNumber.rawValue)") }
        if let kdfAlgorithm { statements.append(prefix + "cipher_kdf_algorithm = \(kdfAlgorithm.rawValue)") }
        if let plaintextHeaderSize { statements.append(prefix + "cipher_plaintext_header_size = \(plaintextHeaderSize)") }
        if let salt { statements.append(prefix + "cipher_salt = \"x'\(Hex.encode(salt))'\"") }
        return statements
    }

    /// The statement that sets SQLCipher's HMAC salt mask, when one is given. Not among
    /// `pragmas`: the mask is one value for the whole process, which connections set through
    /// `SaltMaskGate`; a process of its own (the `sqlcipher` shell) runs it as it is.
    public var hmacSaltMaskPragma: String? {
        hmacSaltMask.map { "PRAGMA cipher_hmac_salt_mask = \"x'\(Hex.encode([$0]))'\"" }
    }

    /// Refuses to write a plaintext-header database whose salt nobody chose: such a file keeps
    /// its salt outside itself, so a random one would be lost with the data behind it. The
    /// salt may come from these settings or from a raw key that carries one.
    ///
    /// - Throws: `CipherKitError.refused` naming `path`.
    public func requireKeptSalt(key: KeyMaterial?, path: String) throws {
        guard (plaintextHeaderSize ?? 0) > 0, salt == nil, key?.kind != .rawKeyWithSalt else { return }
        throw CipherKitError.refused(path: path, refusal: .saltNotChosen)
    }

    /// Checks that a salt given here is the one a raw key with salt carries, if both are
    /// given: SQLCipher takes the key's and ignores this one without a word.
    ///
    /// - Throws: `CipherSettingsError.saltDisagreesWithKey`.
    public func validateSalt(against key: KeyMaterial?) throws {
        guard let salt, key?.kind == .rawKeyWithSalt, let carried = key?.salt, carried != salt else { return }
        throw CipherSettingsError.saltDisagreesWithKey
    }

    /// What SQLCipher runs with for these settings: each one given, else the defaults of
    /// their compatibility (SQLCipher 4's when none is given).
    public var effective: CipherSettings {
        overriding(CipherSettings.defaults(forCompatibility: compatibility ?? 4) ?? CipherSettings())
    }

    /// These settings where given, `base` elsewhere.
    public func overriding(_ base: CipherSettings) -> CipherSettings {
        CipherSettings(
            compatibility: compatibility ?? base.compatibility,
            pageSize: pageSize ?? base.pageSize,
            kdfIterations: kdfIterations ?? base.kdfIterations,
            hmacAlgorithm: hmacAlgorithm ?? base.hmacAlgorithm,
            kdfAlgorithm: kdfAlgorithm ?? base.kdfAlgorithm,
            useHMAC: useHMAC ?? base.useHMAC)
            .with(\.hmacPageNumber, hmacPageNumber ?? base.hmacPageNumber)
            .with(\.plaintextHeaderSize, plaintextHeaderSize ?? base.plaintextHeaderSize)
            .with(\.salt, salt ?? base.salt)
            .with(\.fastKDFIterations, fastKDFIterations ?? base.fastKDFIterations)
            .with(\.hmacSaltMask, hmacSaltMask ?? base.hmacSaltMask)
    }

    /// The SQLCipher major version whose defaults these settings are, if any.
    /// Only page size, KDF iterations, the algorithms and HMAC use are compared.
    public var matchingCompatibility: Int? {
        guard (fastKDFIterations ?? 2) == 2, (hmacSaltMask ?? 0x3a) == 0x3a else { return nil }
        for version in [4, 3, 2, 1] {
            guard let defaults = CipherSettings.defaults(forCompatibility: version) else { continue }
            if defaults.pageSize == pageSize, defaults.kdfIterations == kdfIterations, defaults.useHMAC == useHMAC,
               defaults.kdfAlgorithm == kdfAlgorithm, (useHMAC == false || defaults.hmacAlgorithm == hmacAlgorithm) {
                return version
            }
        }
        return nil
    }

    /// The settings as one phrase: `page size 1024, KDF iterations 64000, HMAC-SHA1,
    /// PBKDF2-HMAC-SHA1`, with the HMAC page-number order and plaintext header when unusual.
    public var summary: String {
        var parts: [String] = []
        if let pageSize { parts.append("page size \(pageSize)") }
        if let kdfIterations { parts.append("KDF iterations \(kdfIterations)") }
        if useHMAC == false {
            parts.append("no HMAC")
        } else if let hmacAlgorithm {
            parts.append(hmacAlgorithm.rawValue.replacing("_", with: "-"))
        }
        if let kdfAlgorithm { parts.append(kdfAlgorithm.rawValue.replacing("_", with: "-")) }
        if hmacPageNumber == .bigEndian { parts.append("HMAC page numbers big-endian") }
        if let fast = fastKDFIterations, fast != 2 { parts.append("HMAC key KDF iterations \(fast)") }
        if let mask = hmacSaltMask, mask != 0x3a { parts.append("HMAC salt mask 0x\(Hex.encode([mask]))") }
        if let size = plaintextHeaderSize, size > 0 { parts.append("plaintext header \(size) bytes") }
        return parts.joined(separator: ", ")
    }

    /// The bytes SQLCipher reserves at the end of each page for these settings: the 16-byte
    /// IV and the HMAC, rounded up to the 16-byte cipher block (80 for SQLCipher 4 defaults).
    public var reservedBytes: Int {
        let hmac: Int
        if useHMAC == false {
            hmac = 0
        } else {
            switch hmacAlgorithm ?? .sha512 {
            case .sha1: hmac = 20
            case .sha256: hmac = 32
            case .sha512: hmac = 64
            }
        }
        return (16 + hmac + 15) / 16 * 16
    }
}
