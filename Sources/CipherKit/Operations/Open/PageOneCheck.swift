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
/// away.
struct PageOneCheck {
    private let pages: [[UInt8]]

    /// Nil for a file without a -wal holding frames, or whose salt is not in the file: such a
    /// file's connections are tried as ever.
    init?(file: DatabaseFile) {
        guard file.kind == .opaque, (FileOperations.size(of: file.path + "-wal") ?? 0) > 32,
              let header = FileOperations.leadingBytes(of: file.path + "-wal", count: 32), header.count == 32 else { return nil }
        let walPageSize = header[8..<12].reduce(0) { $0 << 8 | Int($1) }
        var pages: [[UInt8]] = []
        if let first = FileOperations.leadingBytes(of: file.path, count: DatabaseOpener.searchedBytes) { pages.append(first) }
        if (512...65536).contains(walPageSize), let source = try? PageSource(path: file.path, pageSize: walPageSize),
           let page = source.page(1) {
            pages.append(page)
        }
        self.pages = pages
    }

    /// Whether `key` decrypts page 1's first block to SQLite's header bytes in either page;
    /// true for a passphrase (not derived here) and when OpenSSL fails.
    func mayOpen(with key: KeyMaterial) -> Bool {
        guard key.kind != .passphrase else { return true }
        let raw = key.rawKeyBytes()
        return pages.contains { page in
            var match = cipherprovider_block_match()
            let status = raw.withUnsafeBytes { bytes in
                cipherprovider_block_matches(bytes.bindMemory(to: UInt8.self).baseAddress, page, page.count, &match)
            }
            return status != 0
        }
    }
}
