import CCipherProvider
import FoundationEssentials
import Glibc

/// The progress record of a rotation in constant extra space (`LowSpaceRotator`),
/// `NAME.cipherctl-rotation` beside the database, there for as long as the database may hold
/// pages under two keys.
///
/// It holds no key and nothing derived from one: both sides' settings (only the KDF may
/// differ), the page count, page 1 as it was under the old key and as it will be under the
/// new one, each beginning with its side's salt (each key is checked against its
/// own page 1's HMAC, as SQLCipher checks a key), and the chunk being rewritten as it was
/// before, with a checksum, so that a chunk a crash tore is put back whole. The header is
/// written once, atomically (`FileOperations.writeNew`); the chunk after it, in place.
struct RotationRecord: Equatable {
    static let suffix = ".cipherctl-rotation"
    private static let magic = Array("cipherctl-rot-1\n".utf8)
    private static let textBytes = 240

    /// The database's settings under the old key, complete (`CipherSettings.effective`).
    let settings: CipherSettings
    /// Its settings under the new key: the same but for the KDF's (count and digest).
    let newSettings: CipherSettings
    let pages: Int
    let oldPage1: [UInt8]
    let newPage1: [UInt8]

    var pageSize: Int { settings.pageSize ?? 4096 }
    /// What page 1 holds on disk while pages are converted: page 1 under the old key with its
    /// last 16 bytes (HMAC) inverted, which neither key opens, so that no SQLCipher program
    /// reads or writes the file between the keys.
    var poisonedPage1: [UInt8] {
        var page = oldPage1
        for index in (pageSize - 16)..<pageSize { page[index] ^= 0xFF }
        return page
    }
    /// Where the saved chunk begins.
    var headerBytes: Int { Self.headerBytes(pageSize: pageSize) }

    /// Where the saved chunk begins in the record of a file of `pageSize` pages.
    static func headerBytes(pageSize: Int) -> Int { magic.count + textBytes + 2 * pageSize }

    /// The record of the database at `database` (beside the file a symbolic link names).
    static func path(beside database: String) -> String {
        FileOperations.withoutSymbolicLinks(database) + suffix
    }

    /// Whether a rotation of the database at `database` is under way or was interrupted.
    public static func exists(beside database: String) -> Bool {
        let record = path(beside: database)
        return FileOperations.exists(record) || FileOperations.isSymbolicLink(record)
    }

    /// The header's bytes.
    func encoded() -> [UInt8] {
        let fields = [
            "page_size=\(pageSize)", "kdf_iter=\(settings.kdfIterations ?? 256_000)",
            "hmac=\((settings.hmacAlgorithm ?? .sha512).rawValue)", "kdf=\((settings.kdfAlgorithm ?? .pbkdf2SHA512).rawValue)",
            "pgno=\((settings.hmacPageNumber ?? .littleEndian).rawValue)", "pages=\(pages)",
            "new_kdf_iter=\(newSettings.kdfIterations ?? 256_000)", "new_kdf=\((newSettings.kdfAlgorithm ?? .pbkdf2SHA512).rawValue)",
            "fast_kdf_iter=\(settings.fastKDFIterations ?? 2)",
            "hmac_salt_mask=\(Hex.encode([settings.hmacSaltMask ?? 0x3a]))",
        ]
        var text = Array(fields.joined(separator: " ").utf8)
        text += [UInt8](repeating: 0x20, count: max(0, Self.textBytes - 1 - text.count)) + [0x0A]
        return Self.magic + text + oldPage1 + newPage1
    }

    /// The header read back from a record's first bytes; nil when they are not one.
    static func decode(_ bytes: [UInt8]) -> RotationRecord? {
        guard bytes.count >= magic.count + textBytes, Array(bytes[0..<magic.count]) == magic else { return nil }
        let text = String(decoding: bytes[magic.count..<(magic.count + textBytes)], as: UTF8.self)
        var fields: [String: String] = [:]
        for field in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let pageSize = fields["page_size"].flatMap({ Int($0) }), let pages = fields["pages"].flatMap({ Int($0) }),
              let iterations = fields["kdf_iter"].flatMap({ Int($0) }), let hmac = fields["hmac"].flatMap({ HMACAlgorithm(rawValue: $0) }),
              let kdf = fields["kdf"].flatMap({ KDFAlgorithm(rawValue: $0) }), let order = fields["pgno"].flatMap({ HMACPageNumber(rawValue: $0) }),
              let newIterations = fields["new_kdf_iter"].flatMap({ Int($0) }), let newKDF = fields["new_kdf"].flatMap({ KDFAlgorithm(rawValue: $0) }),
              [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536].contains(pageSize), pages > 0 else { return nil }
        let start = magic.count + textBytes
        guard bytes.count >= start + 2 * pageSize else { return nil }
        // Both sides derive their HMAC keys alike; a record without the field has the default.
        let fast = fields["fast_kdf_iter"].flatMap { Int($0) }.flatMap { $0 == 2 ? nil : $0 }
        let mask = fields["hmac_salt_mask"].flatMap { Hex.decode($0)?.first }.flatMap { $0 == 0x3a ? nil : $0 }
        let settings = CipherSettings(pageSize: pageSize, kdfIterations: iterations, hmacAlgorithm: hmac, kdfAlgorithm: kdf, useHMAC: true)
            .with(\.hmacPageNumber, order).with(\.fastKDFIterations, fast)
            .with(\.hmacSaltMask, mask).effective
        let newSettings = settings.with(\.kdfIterations, newIterations).with(\.kdfAlgorithm, newKDF)
        return RotationRecord(
            settings: settings, newSettings: newSettings, pages: pages, oldPage1: Array(bytes[start..<(start + pageSize)]),
            newPage1: Array(bytes[(start + pageSize)..<(start + 2 * pageSize)]))
    }

    /// The saved chunk's bytes in the record: its first page number and page count, a
    /// checksum over them and the pages (SQLite's WAL checksum), then the pages.
    static func chunkBytes(first: Int, pages: UnsafeRawBufferPointer, pageSize: Int) -> [UInt8] {
        var head = [UInt8](repeating: 0, count: 16)
        put(UInt32(first), into: &head, at: 0)
        put(UInt32(pages.count / pageSize), into: &head, at: 4)
        let sum = checksum(Array(head[0..<8]), pages)
        put(sum.0, into: &head, at: 8)
        put(sum.1, into: &head, at: 12)
        return head + Array(pages)
    }

    /// The saved chunk (its first page number and its bytes) from the bytes after the header;
    /// nil when there is none or its checksum fails (a write of it torn by a crash, made
    /// before the database was touched).
    static func savedChunk(_ bytes: ArraySlice<UInt8>, pageSize: Int) -> (first: Int, bytes: [UInt8])? {
        guard bytes.count >= 16 else { return nil }
        let head = Array(bytes.prefix(16))
        let first = Int(get(head, at: 0)), count = Int(get(head, at: 4))
        guard first > 0, count > 0, bytes.count >= 16 + count * pageSize else { return nil }
        let pages = Array(bytes.dropFirst(16).prefix(count * pageSize))
        let sum = pages.withUnsafeBytes { checksum(Array(head[0..<8]), $0) }
        guard sum.0 == get(head, at: 8), sum.1 == get(head, at: 12) else { return nil }
        return (first, pages)
    }

    private static func checksum(_ head: [UInt8], _ pages: UnsafeRawBufferPointer) -> (UInt32, UInt32) {
        var state: [UInt32] = [0, 0]
        cipherpage_wal_checksum(head, Int32(head.count), 0, &state)
        if pages.count > 0 {
            cipherpage_wal_checksum(pages.bindMemory(to: UInt8.self).baseAddress, Int32(pages.count), 0, &state)
        }
        return (state[0], state[1])
    }

    private static func put(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (3 - index))) }
    }

    private static func get(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}
