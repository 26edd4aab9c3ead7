/// SQLite's order of values under the BINARY collation, for walking two tables' keys side by
/// side: NULL, then numbers by value (an integer against a real exactly, as SQLite compares
/// them), then text and blobs by their bytes.
/// See https://www.sqlite.org/datatype3.html#sort_order
enum KeyOrder {
    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    static func compare(_ a: [ExactValue], _ b: [ExactValue]) -> Int {
        for (left, right) in zip(a, b) {
            let order = compare(left, right)
            if order != 0 { return order }
        }
        return 0
    }

    static func compare(_ a: ExactValue, _ b: ExactValue) -> Int {
        let (rankA, rankB) = (rank(a), rank(b))
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch (a.storage, b.storage) {
        case (.integer(let x), .integer(let y)): return order(x, y)
        case (.real(let x), .real(let y)): return order(Double(bitPattern: x), Double(bitPattern: y))
        case (.integer(let x), .real(let y)): return compare(x, Double(bitPattern: y))
        case (.real(let x), .integer(let y)): return -compare(y, Double(bitPattern: x))
        case (.text(let x), .text(let y)), (.blob(let x), .blob(let y)): return bytes(x, y)
        default: return 0
        }
    }

    private static func rank(_ value: ExactValue) -> Int {
        switch value.storage {
        case .null: return 0
        case .integer, .real: return 1
        case .text: return 2
        case .blob: return 3
        }
    }

    private static func order<T: Comparable>(_ x: T, _ y: T) -> Int {
        x < y ? -1 : x > y ? 1 : 0
    }

    /// An integer against a real without rounding the integer to a double (2^53 + 1 is more
    /// than 2^53 as a real), as SQLite's sqlite3IntFloatCompare does.
    private static func compare(_ integer: Int64, _ real: Double) -> Int {
        if real.isNaN { return 1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        let truncated = Int64(real)
        if integer != truncated { return order(integer, truncated) }
        return order(Double(integer), real)
    }

    private static func bytes(_ x: [UInt8], _ y: [UInt8]) -> Int {
        for (left, right) in zip(x, y) where left != right { return left < right ? -1 : 1 }
        return order(x.count, y.count)
    }
}
