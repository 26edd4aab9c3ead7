import CSQLCipher
import FoundationEssentials
import Glibc

/// A look at a file's bytes that tells a plaintext database, a plaintext-header database,
/// an empty or short file and an opaque (encrypted or foreign) file apart.
///
/// The probe only reads: it opens the file read-only, and a plaintext candidate is
/// confirmed by an immutable connection without a key, which creates no file.
public struct DatabaseFile: Equatable, Sendable {
    /// The SQLite file header's first 16 bytes.
    public static let sqliteMagic: [UInt8] = Array("SQLite format 3\u{0}".utf8)
    /// The smallest page SQLite and SQLCipher use.
    public static let smallestPageSize = 512

    public let path: String
    public let kind: DatabaseFileKind
    /// The file's size in bytes (0 when missing).
    public let size: Int
    /// The first 16 bytes: the salt of a standard SQLCipher file.
    public let firstBytes: [UInt8]
    /// For `.notADatabase`, what shows that the file is not a database.
    public var foreignReason: String?
    /// For `.sqlite3MultipleCiphers`, the reserved bytes per page its plain header names,
    /// which tell its scheme.
    public var reservedBytes: Int?

    init(path: String, kind: DatabaseFileKind, size: Int, firstBytes: [UInt8], foreignReason: String? = nil, reservedBytes: Int? = nil) {
        self.path = path
        self.kind = kind
        self.size = size
        self.firstBytes = firstBytes
        self.foreignReason = foreignReason
        self.reservedBytes = reservedBytes
    }

    /// The salt an open under `settings` derives its key with: the one they give, else the
    /// first 16 bytes of an encrypted file without a plaintext header; nil when there is none.
    public func salt(under settings: CipherSettings) -> [UInt8]? {
        if let salt = settings.salt { return salt }
        return kind == .opaque && firstBytes.count >= 16 ? Array(firstBytes.prefix(16)) : nil
    }

    /// The family of encrypted SQLite file its bytes show, without a key: `sqlcipher` (a
    /// plaintext header), `sqlite3mc` (plain bytes 16 to 23), `random` (SQLCipher, or any
    /// family that encrypts the whole file: no telling without the key); nil for a file
    /// that is not an encrypted database.
    public var family: String? {
        switch kind {
        case .plaintextHeader: return "sqlcipher-plaintext-header"
        case .sqlite3MultipleCiphers: return "sqlite3mc"
        case .opaque: return "random"
        default: return nil
        }
    }

    /// SQLite3 Multiple Ciphers' scheme, as far as the reserved bytes tell it.
    public var schemeDescription: String {
        switch reservedBytes {
        case 0?: return "wxSQLite3's AES-128 or AES-256, by its 0 reserved bytes"
        case 32?: return "ChaCha20 (sqleet's format) or Ascon-128, by its 32 reserved bytes"
        case 48?, 64?, 80?: return "its SQLCipher scheme without legacy mode, by its \(reservedBytes!) reserved bytes"
        case let count?: return "a scheme with \(count) reserved bytes"
        case nil: return "an unknown scheme"
        }
    }

    /// Looks at the file at `path`. A file under two of the smallest pages whose size is not
    /// a whole number of them is no database; a larger one (cut mid-page, or with bytes added)
    /// may be one, which only a key that opens page 1 tells, and then its partial page is
    /// damage (`PageScan`).
    ///
    /// - Throws: `CipherKitError.fileAccess` when the file exists but cannot be read.
    public static func probe(_ path: String) throws -> DatabaseFile {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR {
                return DatabaseFile(path: path, kind: .missing, size: 0, firstBytes: [])
            }
            throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            return DatabaseFile(path: path, kind: .notRegularFile, size: 0, firstBytes: [])
        }
        let size = Int(status.st_size)
        if size == 0 {
            return DatabaseFile(path: path, kind: .empty, size: 0, firstBytes: [])
        }
        let header = try readHeader(path)
        if size < smallestPageSize {
            return DatabaseFile(path: path, kind: .tooShort, size: size, firstBytes: Array(header.prefix(16)))
        }
        let first = Array(header.prefix(16))
        if header.starts(with: sqliteMagic) {
            let reserved = header.count > 20 ? header[20] : 0
            switch openWithoutKey(path) {
            case .opens:
                return DatabaseFile(path: path, kind: .plaintext, size: size, firstBytes: first)
            case _ where reserved > 0 || !header.dropFirst(21).starts(with: [64, 32, 32]):
                // SQLite leaves no reserved bytes per page; SQLCipher's plaintext header shows its own
                // (80 for 4.x), or, 16 bytes long, encrypts bytes 16 on: the reserved count and the
                // payload fractions SQLite always writes (64, 32, 32) as well.
                return DatabaseFile(path: path, kind: .plaintextHeader, size: size, firstBytes: first)
            case .notADatabase:
                return DatabaseFile(
                    path: path, kind: .notADatabase, size: size, firstBytes: first,
                    foreignReason: "it begins like a SQLite database, but its header is damaged")
            case .otherFailure:
                // A lock or a permission problem: the real open names it.
                return DatabaseFile(path: path, kind: .plaintext, size: size, firstBytes: first)
            }
        }
        if header.count == 100, header.allSatisfy(isTextByte) {
            return DatabaseFile(path: path, kind: .notADatabase, size: size, firstBytes: first, foreignReason: "it holds text")
        }
        if size % smallestPageSize != 0, size < 2 * smallestPageSize {
            return DatabaseFile(
                path: path, kind: .notADatabase, size: size, firstBytes: first,
                foreignReason: "its size (\(size) bytes) is not a whole number of pages; a truncated copy?")
        }
        if showsPlainHeaderFields(header) {
            return DatabaseFile(path: path, kind: .sqlite3MultipleCiphers, size: size, firstBytes: first, reservedBytes: Int(header[20]))
        }
        return DatabaseFile(path: path, kind: .opaque, size: size, firstBytes: first)
    }

    /// Whether bytes 16 to 23 are a SQLite header's own: a page size, file format versions 1
    /// or 2, any reserved bytes, and the payload fractions 64, 32, 32. Random bytes pass
    /// about once in 2^50 files.
    static func showsPlainHeaderFields(_ header: [UInt8]) -> Bool {
        guard header.count >= 24, header[21] == 64, header[22] == 32, header[23] == 32,
              (1...2).contains(header[18]), (1...2).contains(header[19]) else { return false }
        let pageSize = Int(header[16]) << 8 | Int(header[17])
        return pageSize == 1 || (pageSize >= 512 && pageSize & (pageSize - 1) == 0)
    }

    /// Printable ASCII, tab, CR and LF: 100 such bytes in a row do not occur in encrypted pages.
    private static func isTextByte(_ byte: UInt8) -> Bool {
        (0x20...0x7E).contains(byte) || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func readHeader(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 100)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 100) }
        guard count >= 0 else {
            throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno)))
        }
        return Array(buffer.prefix(count))
    }

    private enum KeylessOpen { case opens, notADatabase, otherFailure }

    /// Tries the file as plaintext SQLite, immutable: a plaintext WAL database gets no -wal
    /// or -shm made beside it by the look (a read-only open would make them).
    private static func openWithoutKey(_ path: String) -> KeylessOpen {
        do {
            let connection = try Connection(path: SQLiteURI.untouched(path, .fileAlone), mode: .readOnly, uriFilenames: true)
            _ = try connection.scalar("PRAGMA schema_version")
            _ = try connection.scalar("SELECT count(*) FROM sqlite_master")
            return .opens
        } catch let error as DatabaseError where error.resultCode == SQLITE_NOTADB || error.resultCode == SQLITE_CORRUPT {
            return .notADatabase
        } catch let error as DatabaseError where error.resultCode == SQLITE_ERROR && error.message == "unsupported file format" {
            // Header fields past what SQLite reads (a schema format from page 1's encrypted part).
            return .notADatabase
        } catch {
            return .otherFailure
        }
    }
}

extension DatabaseFile {
    /// Throws unless the probe found something that may be a database: a missing, non-regular,
    /// empty or short file, or one that is not a database, is named as such.
    ///
    /// - Throws: `CipherKitError.fileNotFound`, `notARegularFile`, or `cannotDecrypt` with the failure.
    public func requireDatabase() throws {
        switch kind {
        case .missing:
            throw CipherKitError.fileNotFound(path: path)
        case .notRegularFile:
            throw CipherKitError.notARegularFile(path: path)
        case .empty:
            throw CipherKitError.cannotDecrypt(path: path, failure: .emptyFile)
        case .tooShort:
            throw CipherKitError.cannotDecrypt(path: path, failure: .tooShort(bytes: size))
        case .notADatabase:
            throw CipherKitError.cannotDecrypt(path: path, failure: .notADatabase(reason: foreignReason ?? "unknown format"))
        case .sqlite3MultipleCiphers:
            throw CipherKitError.cannotDecrypt(path: path, failure: .otherFamily(scheme: "bytes 16 to 23 of its header are plain: " + schemeDescription))
        case .plaintext, .plaintextHeader, .opaque:
            return
        }
    }

    /// Whether opening `path` needs a key: false for a plaintext database and for files that
    /// fail before any key matters (missing, empty, a directory); true otherwise.
    public static func needsKey(_ path: String) -> Bool {
        guard let file = try? probe(path) else { return true }
        switch file.kind {
        case .plaintextHeader, .opaque: return true
        case .missing, .notRegularFile, .empty, .tooShort, .plaintext, .notADatabase, .sqlite3MultipleCiphers: return false
        }
    }
}
