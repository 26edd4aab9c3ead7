import Foundation

/// A look at a file's bytes that tells a plaintext database, a plaintext-header database,
/// an empty or short file and an opaque (encrypted or foreign) file apart.
///
/// The probe only reads: it opens the file read-only, and a plaintext candidate is
/// confirmed by a read-only connection without a key.
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

    /// Looks at the file at `path`.
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
        let kind: DatabaseFileKind
        if header.starts(with: sqliteMagic) {
            kind = opensWithoutKey(path) ? .plaintext : .plaintextHeader
        } else {
            kind = .opaque
        }
        return DatabaseFile(path: path, kind: kind, size: size, firstBytes: Array(header.prefix(16)))
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

    private static func opensWithoutKey(_ path: String) -> Bool {
        guard let connection = try? Connection(path: path, mode: .readOnly) else { return false }
        return (try? connection.verifyReadable()) != nil && (try? connection.scalar("PRAGMA schema_version")) != nil
    }
}

extension DatabaseFile {
    /// Whether opening `path` needs a key: false for a plaintext database and for files that
    /// fail before any key matters (missing, empty, a directory); true otherwise.
    public static func needsKey(_ path: String) -> Bool {
        guard let file = try? probe(path) else { return true }
        switch file.kind {
        case .plaintextHeader, .opaque: return true
        case .missing, .notRegularFile, .empty, .tooShort, .plaintext: return false
        }
    }
}
