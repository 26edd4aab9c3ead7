/// The text fields of a chunk of rows, copied end to end into memory that this owns, so that
/// they can be bound without SQLite copying them (`Statement.bind(unretainedText:count:at:)`):
/// the memory stays put until the next chunk is copied in, and it is freed last.
final class RowBuffer {
    private var storage: UnsafeMutableRawBufferPointer

    init() {
        storage = .allocate(byteCount: 1 << 16, alignment: 1)
    }

    deinit {
        storage.deallocate()
    }

    /// Binds every value of `rows` to `statement`, row after row from parameter 1.
    func bind(_ rows: [ImportRow], to statement: Statement) throws {
        let needed = rows.reduce(0) { total, row in
            row.values.reduce(total) { sum, value in
                if case .text(let bytes) = value { return sum + max(1, bytes.count) }
                return sum
            }
        }
        if needed > storage.count {
            // Every parameter is bound again below, so none points into the old memory.
            storage.deallocate()
            storage = .allocate(byteCount: needed * 2, alignment: 1)
        }
        var used = 0, parameter = 1
        for row in rows {
            for value in row.values {
                switch value {
                case .text(let bytes):
                    let start = storage.baseAddress! + used
                    bytes.withUnsafeBytes { source in
                        if let base = source.baseAddress { start.copyMemory(from: base, byteCount: source.count) }
                    }
                    try statement.bind(unretainedText: start, count: bytes.count, at: parameter)
                    used += max(1, bytes.count)
                case .value(let value):
                    try statement.bind(value, at: parameter)
                }
                parameter += 1
            }
        }
    }
}
