/// Why a file could not be read as a database with the key and settings given.
///
/// SQLCipher answers all of these with the same "file is not a database"; CipherKit
/// tells them apart where the file itself shows the cause.
public enum DecryptFailure: Equatable, Sendable {
    /// The key or the cipher settings do not match the file.
    case wrongKeyOrSettings
    /// No cipher setting was given, and the key opens the file in none of the SQLCipher
    /// formats (`CipherFormat.searchOrder`) nor with any settings `SettingsSearch` tried.
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
    /// No key tried proves page 1, and the file ends inside a page (its size no whole number
    /// of the smallest page): cut inside page 1, where no key can be proven, or a wrong key.
    case endsInsideAPage(bytes: Int)
    /// The file is encrypted (or not a database) and no key was given.
    case keyRequired
    /// The salt, the first 16 bytes of page 1, is damaged (all zeros), and the passphrase needs it.
    case saltDamaged
    /// None of the `keys` keys of a key ring opens the file (`KeyChooser`).
    case noKeyOfTheRing(keys: Int)
    /// The file is of SQLite3 Multiple Ciphers' family (its header's bytes 16 to 23 plain),
    /// which SQLCipher cannot read; `scheme` says what its reserved bytes tell.
    case otherFamily(scheme: String)
    /// As `otherFamily`, and the key opens it in `scheme` (with its settings): it is the file's key.
    case otherFamilyTheKeyOpens(scheme: String)
    /// The key, or the scheme's settings, do not open a file of SQLite3 Multiple Ciphers'
    /// `scheme` (its first page fails its tag).
    case wrongKeyForScheme(scheme: String)
    /// The key is right, but the file's pages pass their HMACs under the salt mask `opens`,
    /// not the `given` one.
    case wrongSaltMask(given: UInt8, opens: UInt8)
    /// A SQLCipher 1 to 3 file written under another `PRAGMA cipher` than AES-256-CBC, which
    /// SQLCipher 4 cannot read and the key opens (`LegacyCipherScheme.summary`).
    case otherCipher(scheme: String)
    /// A file whose page size it does not show was read with `given`, while the -wal beside
    /// it holds pages of `shown` bytes, which SQLite writes only as the database's page size.
    case pageSizeShownByWAL(given: Int, shown: Int)
    /// A file with a plaintext header of `opens` bytes, which the key opens, was read with `given`.
    case wrongPlaintextHeaderSize(given: Int, opens: Int)
    /// A file whose plaintext header shows its page size, `shown`, was to be read with `given`.
    case pageSizeShownByHeader(given: Int, shown: Int)
    /// The key decrypts page 1 to SQLite's header, and neither page 1 nor page 2 passes its
    /// HMAC under any salt mask or `fast_kdf_iter` count the search tries (`HMACKeySearch`).
    case hmacKeyBeyondSearch
    /// A key given to finish or undo an interrupted rotation in constant extra space
    /// (`LowSpaceRotator`) does not open its side of it: the old side's page 1 the record
    /// keeps (`newSide` false), or the new side's under the settings asked for; `otherSide`
    /// when it opens the other side's (the keys were given the other way round).
    case notTheRotationsKey(newSide: Bool, otherSide: Bool)
    /// A SQLCipher 1 to 3 file under another `PRAGMA cipher` (`LegacyCipherScheme.summary`)
    /// whose page 1 the key decrypts while neither page 1 nor page 2 passes its HMAC under
    /// any salt mask: written with an HMAC key made otherwise (`fast_kdf_iter`).
    case otherCipherHMACKeyUnknown(scheme: String)

    /// The machine-readable name of the failure.
    public var reason: FailureReason {
        switch self {
        case .wrongKeyOrSettings: return .wrongKey
        case .noFormatMatched: return .noFormatMatched
        case .wrongKeySettingsOrSalt: return .wrongSaltOrKey
        case .plaintextDatabase: return .plaintextDatabase
        case .plaintextHeader: return .saltRequired
        case .notADatabase: return .notADatabase
        case .emptyFile: return .emptyFile
        case .tooShort, .endsInsideAPage: return .tooShort
        case .keyRequired: return .keyRequired
        case .saltDamaged: return .saltRequired
        case .noKeyOfTheRing: return .wrongKey
        case .otherFamily, .otherFamilyTheKeyOpens: return .otherFamily
        case .wrongKeyForScheme: return .wrongKey
        case .wrongSaltMask: return .wrongKey
        case .otherCipher, .otherCipherHMACKeyUnknown: return .otherFamily
        case .pageSizeShownByWAL, .pageSizeShownByHeader, .wrongPlaintextHeaderSize, .hmacKeyBeyondSearch, .notTheRotationsKey: return .wrongKey
        }
    }

    /// Whether the key is shown to be the file's although it did not open it: it decrypts
    /// page 1 under settings other than the ones given or searched.
    public var provesTheKey: Bool {
        switch self {
        case .wrongSaltMask, .wrongPlaintextHeaderSize, .hmacKeyBeyondSearch, .otherCipherHMACKeyUnknown: return true
        default: return false
        }
    }

    /// What failed, for the file at `path`.
    func message(for path: String) -> String {
        switch self {
        case .wrongKeyOrSettings:
            return "cannot decrypt '\(path)': wrong key or cipher settings"
        case .noFormatMatched:
            // FIPS mode runs no search for a passphrase (FIPSPolicy).
            let searched = CryptoMode.current == .fips ? "not searched further in FIPS mode" : "other page sizes, KDF settings and HMACs searched"
            return "cannot decrypt '\(path)': wrong key (the SQLCipher 4, 3, 2 and 1 formats were tried, and \(searched))"
        case .wrongKeySettingsOrSalt:
            return "cannot decrypt '\(path)': wrong salt or key; the file has a plaintext header, so its salt is kept outside it"
        case .plaintextDatabase:
            return "cannot decrypt '\(path)': the file is a plaintext SQLite database, not an encrypted one"
        case .plaintextHeader:
            return "cannot decrypt '\(path)': the file has a SQLCipher plaintext header, so its salt is not in the file, and no salt was given"
        case .notADatabase(let reason):
            return "'\(path)' is not a SQLite or SQLCipher database: \(reason)"
        case .emptyFile:
            return "cannot decrypt '\(path)': the file is empty"
        case .tooShort(let bytes):
            return "cannot decrypt '\(path)': the file is too short to hold one database page (\(bytes) bytes)"
        case .endsInsideAPage(let bytes):
            return "cannot decrypt '\(path)': no key tried opens it, and it ends inside a page (\(bytes) bytes): cut short inside page 1, which no key can be proven on, or the key is wrong"
        case .keyRequired:
            return "'\(path)' is encrypted or not a database, and no key was given"
        case .saltDamaged:
            return "cannot decrypt '\(path)': its salt (the first 16 bytes of page 1) is damaged, and a passphrase needs it to make the key"
        case .otherFamily(let scheme):
            return "'\(path)' is a SQLite3 Multiple Ciphers database (\(scheme)), which SQLCipher cannot read"
        case .otherFamilyTheKeyOpens(let scheme):
            return "'\(path)' is a SQLite3 Multiple Ciphers database (\(scheme), which the key opens), which SQLCipher cannot read"
        case .wrongKeyForScheme(let scheme):
            return Self.wrongKeyMessage(for: path, scheme: scheme)
        case .wrongSaltMask(let given, let opens):
            return "cannot decrypt '\(path)': the key opens it under HMAC salt mask 0x\(Hex.encode([opens])), not 0x\(Hex.encode([given])) as given"
        case .otherCipher(let scheme):
            return "'\(path)' is \(scheme), which the key opens and SQLCipher 4 cannot read"
        case .pageSizeShownByWAL(let given, let shown):
            return "cannot decrypt '\(path)': it was read with pages of \(given) bytes, and the -wal beside it holds pages of \(shown)"
        case .wrongPlaintextHeaderSize(let given, let opens):
            return "cannot decrypt '\(path)': the key opens it with a plaintext header of \(opens) bytes, not \(given)"
        case .pageSizeShownByHeader(let given, let shown):
            return "cannot decrypt '\(path)': pages of \(given) bytes were given, and its plaintext header shows pages of \(shown)"
        case .hmacKeyBeyondSearch:
            return "cannot decrypt '\(path)': the key decrypts its first page, which fails its HMAC under every HMAC salt mask and fast_kdf_iter count tried"
        case .otherCipherHMACKeyUnknown(let scheme):
            return "'\(path)' is \(scheme), whose first page the key decrypts while no page passes its HMAC: written with a fast_kdf_iter other than 2, which is not read under another cipher"
        case .notTheRotationsKey(let newSide, let otherSide):
            return Self.rotationMessage(for: path, newSide: newSide, otherSide: otherSide)
        case .noKeyOfTheRing(let keys):
            return "cannot decrypt '\(path)': none of the key ring's \(keys) key\(keys == 1 ? "" : "s") opens it (each was tried in the SQLCipher formats, then by a settings search)"
        }
    }
}
