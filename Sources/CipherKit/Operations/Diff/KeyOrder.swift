/// SQLite's order of values under the BINARY collation, for walking two tables' keys side by
/// side: NULL, then numbers by value, then text and blobs by their bytes.
/// See https://www.sqlite.org/datatype3.html#sort_order
enum KeyOrder {
    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    static func compare(_ a: [DatabaseValue], _ b: [DatabaseValue]) -> Int {
        for (left, right) in zip(a, b) {
            let order = compare(left, right)
            if order != 0 { return order }
        }
        return 0
    }

    static func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        let (rankA, rankB) = (rank(a), rank(b))
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : x > y ? 1 : 0
        case (.text(let x), .text(let y)): return bytes(Array(x.utf8), Array(y.utf8))
        case (.blob(let x), .blob(let y)): return bytes(x, y)
        default:
            let (x, y) = (number(a), number(b))
            return x < y ? -1 : x > y ? 1 : 0
        }
    }

    private static func rank(_ value: DatabaseValue) -> Int {
        switch value {
        case .null: return 0
        case .integer, .real: return 1
        case .text: return 2
        case .blob: return 3
        }
    }

    private static func number(_ value: DatabaseValue) -> Double {
        switch value {
        case .integer(let x): return Double(x)
        case .real(let x): return x
        default: return 0
        }
    }

    private static func bytes(_ x: [UInt8], _ y: [UInt8]) -> Int {
        for (left, right) in zip(x, y) where left != right { return left < right ? -1 : 1 }
        return x.count < y.count ? -1 : x.count > y.count ? 1 : 0
    }
}
