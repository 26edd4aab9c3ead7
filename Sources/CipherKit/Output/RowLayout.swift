import CRowFormat

/// What the C row writers (`CRowFormat`) need to know of a result set, in memory of its own
/// for as long as the result set is written: its column count, how NULL and blobs are
/// written, and (json) each column's key, quoted and followed by a colon.
final class RowLayout {
    let pointer: UnsafeMutablePointer<rowformat_layout>
    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private let lengths: UnsafeMutableBufferPointer<Int>

    /// `blobEncoding` nil is json's tagged object (`JSONTag`).
    init(columns: Int, keys: [[UInt8]] = [], nullText: String, blobEncoding: BlobEncoding?, lines: Bool = false) {
        let null = Array(nullText.utf8)
        let keyBytes = keys.flatMap { $0 }
        bytes = .allocate(capacity: max(1, null.count + keyBytes.count))
        _ = bytes.initialize(from: null + keyBytes)
        lengths = .allocate(capacity: max(1, keys.count))
        _ = lengths.initialize(from: keys.map(\.count))
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: rowformat_layout(
            columns: Int32(columns), blob_encoding: Self.code(blobEncoding), null_text: UnsafePointer(bytes.baseAddress),
            null_length: null.count, keys: UnsafePointer(bytes.baseAddress.map { $0 + null.count }),
            key_lengths: UnsafePointer(lengths.baseAddress), lines: lines ? 1 : 0))
    }

    deinit {
        pointer.deallocate()
        bytes.deallocate()
        lengths.deallocate()
    }

    private static func code(_ encoding: BlobEncoding?) -> Int32 {
        switch encoding {
        case .raw: return Int32(ROWFORMAT_BLOB_RAW)
        case .hex: return Int32(ROWFORMAT_BLOB_HEX)
        case .base64: return Int32(ROWFORMAT_BLOB_BASE64)
        case nil: return Int32(ROWFORMAT_BLOB_TAGGED)
        }
    }
}
