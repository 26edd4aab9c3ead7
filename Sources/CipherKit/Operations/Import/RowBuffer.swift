/// The text of a chunk of delimited rows, copied end to end into memory that this owns, so
/// that each field can be bound without SQLite copying it
/// (`Statement.bind(unretainedText:count:at:)`): the memory stays put until the next chunk
/// is copied in, and it is freed last. JSON rows' values are bound as usual.
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
        let needed = rows.reduce(0) { $0 + $1.bytes.count }
        if needed > storage.count {
            // Every parameter is bound again below, so none points into the old memory.
            storage.deallocate()
            storage = .allocate(byteCount: needed * 2, alignment: 1)
        }
        var used = 0, parameter = 1
        for row in rows {
            guard row.isDelimited else {
                for value in row.values {
                    try Self.bind(value, to: statement, at: parameter)
                    parameter += 1
                }
                continue
            }
            let base = storage.baseAddress! + used
            row.bytes.withUnsafeBytes { source in
                if let from = source.baseAddress { base.copyMemory(from: from, byteCount: source.count) }
            }
            var start = 0
            for end in row.ends {
                // An empty field points at (or just past) memory this owns: a pointer, not NULL,
                // makes it the empty string, and SQLite reads none of it.
                try statement.bind(unretainedText: base + start, count: end - start, at: parameter)
                start = end
                parameter += 1
            }
            used += row.bytes.count
        }
    }

    private static func bind(_ value: ImportValue, to statement: Statement, at parameter: Int) throws {
        switch value {
        case .null: try statement.bind(.null, at: parameter)
        case .integer(let integer): try statement.bind(.integer(integer), at: parameter)
        case .real(let real): try statement.bind(.real(real), at: parameter)
        case .text(let bytes): try statement.bind(textBytes: bytes, at: parameter)
        case .blob(let bytes): try statement.bind(.blob(bytes), at: parameter)
        }
    }
}
