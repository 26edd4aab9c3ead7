/// SQLite's WAL checksums, made again over a -wal whose bytes a test changed: the header's
/// over its first 24 bytes, then each frame's over its first 8 header bytes and its page,
/// carried from the one before, in the byte order the magic's low bit names. A frame changed
/// this way passes SQLite's test, so only its page's own HMAC shows the damage.
/// See https://www.sqlite.org/fileformat2.html#wal_file_format
public enum WALChecksums {
    public static func reseal(_ wal: inout [UInt8], pageSize: Int) {
        guard wal.count >= 32 else { return }
        let bigEndian = wal[3] & 1 == 1
        var sums: (UInt32, UInt32) = (0, 0)
        sums = add(wal, from: 0, count: 24, to: sums, bigEndian: bigEndian)
        put(sums, into: &wal, at: 24)
        var offset = 32
        while offset + 24 + pageSize <= wal.count {
            sums = add(wal, from: offset, count: 8, to: sums, bigEndian: bigEndian)
            sums = add(wal, from: offset + 24, count: pageSize, to: sums, bigEndian: bigEndian)
            put(sums, into: &wal, at: offset + 16)
            offset += 24 + pageSize
        }
    }

    private static func add(_ bytes: [UInt8], from start: Int, count: Int, to sums: (UInt32, UInt32), bigEndian: Bool) -> (UInt32, UInt32) {
        var (s0, s1) = sums
        for index in stride(from: start, to: start + count, by: 8) {
            s0 = s0 &+ word(bytes, index, bigEndian) &+ s1
            s1 = s1 &+ word(bytes, index + 4, bigEndian) &+ s0
        }
        return (s0, s1)
    }

    private static func word(_ bytes: [UInt8], _ index: Int, _ bigEndian: Bool) -> UInt32 {
        let value = UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
        return bigEndian ? value : value.byteSwapped
    }

    /// Checksums are stored big-endian whatever order they were computed in.
    private static func put(_ sums: (UInt32, UInt32), into bytes: inout [UInt8], at offset: Int) {
        for (index, value) in [sums.0, sums.1].enumerated() {
            for byte in 0..<4 { bytes[offset + 4 * index + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte)) }
        }
    }
}
