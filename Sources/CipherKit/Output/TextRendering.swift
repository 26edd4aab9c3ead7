import CSQLCipher

/// Appends values as text to a byte array, without per-value allocations: integers in
/// decimal, reals as SQLite renders them, blobs in an encoding, and a column of the
/// current row of a statement.
enum TextRendering {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let base64Digits: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func append(integer value: Int64, to bytes: inout [UInt8]) {
        if value == 0 { return bytes.append(UInt8(ascii: "0")) }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        var magnitude = value.magnitude
        while magnitude > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        }
        // Swap in place: reversing `bytes[start...]` copies the slice (an allocation per
        // integer, which callgrind showed as two per row of a query).
        var low = start, high = bytes.count - 1
        while low < high {
            bytes.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// SQLite's text form of a REAL (`%!.15g`: `0.1`, `1.0`, `1.0e+20`); with `roundTrip`,
    /// 17 digits when 15 do not read back as the same double.
    static func append(real value: Double, roundTrip: Bool, to bytes: inout [UInt8]) {
        appendFormatted(to: &bytes) { csqlcipher_format_real(value, roundTrip ? 1 : 0, $0, $1) }
    }

    /// Appends what a C formatter writes into a 40-byte buffer; `format` gets the buffer and
    /// its size and returns the length it wrote.
    static func appendFormatted(to bytes: inout [UInt8], _ format: (UnsafeMutablePointer<CChar>, Int32) -> Int32) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 40))
        let count = bytes.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.advanced(by: start).withMemoryRebound(to: CChar.self, capacity: 40) { pointer in
                Int(format(pointer, 40))
            }
        }
        bytes.removeLast(40 - count)
    }

    static func append(blob: UnsafeRawBufferPointer, encoding: BlobEncoding, to bytes: inout [UInt8]) {
        switch encoding {
        case .raw:
            bytes.append(contentsOf: blob)
        case .hex:
            for byte in blob {
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        case .base64:
            var index = 0
            while index + 3 <= blob.count {
                let chunk = UInt32(blob[index]) << 16 | UInt32(blob[index + 1]) << 8 | UInt32(blob[index + 2])
                bytes.append(base64Digits[Int((chunk >> 18) & 63)])
                bytes.append(base64Digits[Int((chunk >> 12) & 63)])
                bytes.append(base64Digits[Int((chunk >> 6) & 63)])
                bytes.append(base64Digits[Int(chunk & 63)])
                index += 3
            }
            let left = blob.count - index
            if left > 0 {
                let chunk = UInt32(blob[index]) << 16 | (left == 2 ? UInt32(blob[index + 1]) << 8 : 0)
                bytes.append(base64Digits[Int((chunk >> 18) & 63)])
                bytes.append(base64Digits[Int((chunk >> 12) & 63)])
                bytes.append(left == 2 ? base64Digits[Int((chunk >> 6) & 63)] : UInt8(ascii: "="))
                bytes.append(UInt8(ascii: "="))
            }
        }
    }

    /// Column `index` of the statement's current row as text: NULL as `nullText`. `type` is
    /// the column's storage class when the caller has it already.
    static func append(column index: Int, of statement: Statement, type: Int32? = nil, options: ResultOptions, to bytes: inout [UInt8]) {
        switch type ?? statement.columnType(at: index) {
        case SQLITE_INTEGER:
            append(integer: statement.int64(at: index), to: &bytes)
        case SQLITE_FLOAT:
            append(real: statement.double(at: index), roundTrip: false, to: &bytes)
        case SQLITE_TEXT:
            statement.withText(at: index) { bytes.append(contentsOf: $0) }
        case SQLITE_BLOB:
            // A text format always has an encoding (`ResultFormat.makeWriter`).
            statement.withBlob(at: index) { append(blob: $0, encoding: options.blobEncoding ?? .hex, to: &bytes) }
        default:
            bytes.append(contentsOf: options.nullText.utf8)
        }
    }
}
