import CCipherProvider
import FoundationEssentials

/// Whether a raw key may open a database that has a -wal beside it, told from page 1 alone
/// before any connection is made.
///
/// Beside a -wal every connection costs something that grows with it, and a failed key is no
/// exception: the first connection to the WAL index rebuilds it from the whole -wal, and a
/// read-write connection whose key fails still checkpoints the WAL into the file as it closes
/// (SQLite copies the frames without the key) and deletes it. A key that decrypts neither the
/// main file's page 1 nor the WAL's last committed page 1 (`PageSource`) to SQLite's header
/// bytes (`cipherprovider_block_matches`, as the settings search tests a key) cannot open the
/// database, so it gets no connection. Either page passing is enough: the test only turns
/// away. The WAL is walked only for a key the main file's page 1 turns away, once.
final class PageOneCheck {
    private let path: String
    private let walPageSize: Int
    private let filePage: [UInt8]?
    private lazy var walPage: [UInt8]? = {
        guard (512...65536).contains(walPageSize), let source = try? PageSource(path: path, pageSize: walPageSize) else { return nil }
        return source.page(1)
    }()

    /// Nil for a file without a -wal that holds at least its header, or whose salt is not in
    /// the file: such a file's connections are tried as ever. A -wal of a header alone (a
    /// writer killed before its first frame) counts: a failed read-write connection deletes
    /// it, and a failed look beside it ends in SQLite's "locking protocol".
    init?(file: DatabaseFile) {
        guard file.kind == .opaque, (FileOperations.size(of: file.path + "-wal") ?? 0) >= 32,
              let header = FileOperations.leadingBytes(of: file.path + "-wal", count: 32), header.count == 32 else { return nil }
        path = file.path
        walPageSize = header[8..<12].reduce(0) { $0 << 8 | Int($1) }
        filePage = FileHead.bytes(of: file.path)
    }

    /// Whether `key` decrypts page 1's first block to SQLite's header bytes in either page;
    /// true for a passphrase (not derived here), when neither page can be read, and when
    /// OpenSSL fails.
    func mayOpen(with key: KeyMaterial) -> Bool {
        guard key.kind != .passphrase else { return true }
        let raw = key.rawKeyBytes()
        if let filePage, Self.decrypts(raw, filePage) { return true }
        guard let walPage else { return filePage == nil }
        return Self.decrypts(raw, walPage)
    }

    /// Whether the 32 key bytes decrypt `page`'s first encrypted block to SQLite's header bytes.
    private static func decrypts(_ raw: SecureBytes, _ page: [UInt8]) -> Bool {
        var match = cipherprovider_block_match()
        let status = raw.withUnsafeBytes { bytes in
            cipherprovider_block_matches(bytes.bindMemory(to: UInt8.self).baseAddress, page, page.count, &match)
        }
        return status != 0
    }
}
