import CCipherProvider
import FoundationEssentials

/// Whether a raw key may open a database that has a -wal or a hot journal beside it, told
/// from page 1 alone before any connection is made.
///
/// Beside a -wal every connection costs something that grows with it, and a failed key is no
/// exception: the first connection to the WAL index rebuilds it from the whole -wal, and a
/// read-write connection whose key fails still checkpoints the WAL into the file as it closes
/// (SQLite copies the frames without the key) and deletes it. Beside a hot journal, such a
/// connection rolls the journal back into the file (no key needed either) and deletes it. A
/// key that decrypts none of the main file's page 1, the WAL's last committed page 1
/// (`PageSource`) and the journal's page 1 from before its transaction to SQLite's header
/// bytes (`cipherprovider_block_matches`, as the settings search tests a key) cannot open the
/// database, so it gets no connection. Nor does one whose page 1 fails its HMAC under the
/// settings a connection would take (`proves`). Any page passing is enough: the test
/// only turns away.
/// The WAL and journal are read only for a key the main file's page 1 turns away, once.
final class PageOneCheck {
    private let path: String
    private let walPageSize: Int?
    private let filePage: [UInt8]?
    private let walked: PageSource?
    /// Whether page 1 is encrypted from its 16th byte, whose first block the block test knows.
    private let opaque: Bool
    private lazy var walPage: [UInt8]? = {
        if let walked { return walked.page(1) }
        guard let walPageSize, let source = try? PageSource(path: path, pageSize: walPageSize) else { return nil }
        return source.page(1)
    }()
    private lazy var journalPage: [UInt8]? = FileOperations.journalPageOne(beside: path)

    /// Nil for a file with neither a -wal that holds at least its header nor a journal that
    /// holds a transaction, or that is not encrypted (whole, or past a plaintext header): such
    /// a file's connections are tried as ever. A -wal of a header alone (a writer killed
    /// before its first frame) counts: a failed read-write connection deletes it, and a failed
    /// look beside it ends in SQLite's "locking protocol". `walked` is a walk of the -wal made
    /// already, read instead of walking it again.
    init?(file: DatabaseFile, walked: PageSource? = nil) {
        guard file.kind == .opaque || file.kind == .plaintextHeader else { return nil }
        opaque = file.kind == .opaque
        let hasWAL = (FileOperations.size(of: file.path + "-wal") ?? 0) >= 32
        guard hasWAL || FileOperations.journalHoldsTransaction(beside: file.path) else { return nil }
        path = file.path
        self.walked = walked
        walPageSize = hasWAL ? PageSource.walPageSize(beside: file.path) : nil
        filePage = FileHead.bytes(of: file.path)
    }

    /// Whether `key` decrypts page 1's first block to SQLite's header bytes in any of the
    /// pages; true for a passphrase (not derived here), when none can be read, when OpenSSL
    /// fails, and for a plaintext header, whose first encrypted block holds no known bytes
    /// (`proves` tells there).
    func mayOpen(with key: KeyMaterial) -> Bool {
        guard key.kind != .passphrase, opaque else { return true }
        let raw = key.rawKeyBytes()
        if let filePage, Self.decrypts(raw, filePage) { return true }
        let others = [walPage, journalPage].compactMap { $0 }
        guard !others.isEmpty else { return filePage == nil }
        return others.contains { Self.decrypts(raw, $0) }
    }

    /// Whether page 1 (the file's, else the -wal's or the journal's, as in `mayOpen`) proves
    /// the raw `key` under `settings`: it passes its HMAC, or, without HMACs, decrypts to
    /// SQLite's fixed header bytes at the settings' page size (`DamageDiagnosis`). The block
    /// test of `mayOpen` passes for the right key under any page size or HMAC, and a
    /// connection under wrong ones would still roll the journal back or checkpoint the -wal
    /// before its read fails. True when it cannot tell: a passphrase, no salt, or OpenSSL
    /// failing. A file shorter than the page size, or a -wal's or journal's page 1 of another
    /// size, fails.
    func proves(_ key: KeyMaterial, settings: CipherSettings, salt: [UInt8]?) -> Bool {
        guard key.kind != .passphrase, let salt = salt ?? key.salt, salt.count == 16,
              let codec = try? PageCodec(key: key, salt: salt, settings: settings) else { return true }
        if let filePage, filePage.count >= codec.pageSize, Self.passes(codec, Array(filePage.prefix(codec.pageSize))) { return true }
        let others = [walPage, journalPage].compactMap { $0 }
        guard !others.isEmpty else { return filePage == nil }
        return others.contains { $0.count == codec.pageSize && Self.passes(codec, $0) }
    }

    /// Whether `page` (page 1, of `codec`'s size) passes as `proves` says; true when OpenSSL fails.
    private static func passes(_ codec: PageCodec, _ page: [UInt8]) -> Bool {
        if codec.hasHMAC { return page.withUnsafeBytes { (try? codec.damagedPages(in: $0, first: 1, count: 1)) != [1] } }
        guard var plain = codec.decrypt(page, pgno: 1) else { return true }
        defer { SecureBytes.wipe(&plain) }
        return DamageDiagnosis.fixedHeaderMatches(plain, codec: codec)
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
