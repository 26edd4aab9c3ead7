/// Which table, index or list each page belongs to, found by walking the b-trees from the
/// schema on page 1 with `PageCodec`, past pages that are damaged.
///
/// Only reads; a damaged page's owner is the tree whose parent page points at it. Pages
/// below a damaged interior page cannot be reached and stay without an owner.
/// See https://www.sqlite.org/fileformat2.html#b_tree_pages
struct PageOwners {
    private let source: PageSource
    private let codec: PageCodec
    private let damaged: Set<Int>
    /// The bytes of a page SQLite uses: the page less the reserved bytes its header records
    /// (SQLCipher may reserve more there than its IV and HMAC take).
    private var usable: Int
    private(set) var owners: [Int: String] = [:]

    /// Walks every tree of the database `source` reads; pages in `damaged` are named but not read.
    static func map(source: PageSource, codec: PageCodec, damaged: Set<Int>) -> [Int: String] {
        var walker = PageOwners(source: source, codec: codec, damaged: damaged, usable: codec.pageSize - codec.reserve)
        walker.walkAll()
        return walker.owners
    }

    private mutating func walkAll() {
        if let header = plaintext(1), header[20] > 0 { usable = codec.pageSize - Int(header[20]) }
        var schema: [[UInt8]] = []
        walk(1, owner: "the schema", limit: source.pageCount) { schema.append($0) }
        for record in schema {
            let fields = Self.fields(of: record)
            guard fields.count >= 4, case .text(let type)? = fields.first, case .text(let name) = fields[1],
                  case .integer(let root) = fields[3], root > 0 else { continue }
            walk(Int(root), owner: "\(type) \(name)", limit: source.pageCount, collect: nil)
        }
        guard let header = plaintext(1) else { return }
        walkFreelist(first: Self.u32(header, 32))
        if Self.u32(header, 52) != 0 { markPointerMaps() }
    }

    private func plaintext(_ pgno: Int) -> [UInt8]? {
        guard !damaged.contains(pgno), pgno >= 1, let page = source.page(pgno), page.count == codec.pageSize else { return nil }
        return codec.decrypt(page, pgno: pgno)
    }

    /// Walks the tree at `root`; `collect` hears each leaf cell's whole payload (the schema's).
    private mutating func walk(_ root: Int, owner: String, limit: Int, collect: (([UInt8]) -> Void)?) {
        var stack = [root]
        while let pgno = stack.popLast() {
            guard pgno >= 1, pgno <= limit, owners[pgno] == nil else { continue }
            owners[pgno] = owner
            guard let page = plaintext(pgno) else { continue }
            let start = pgno == 1 ? 100 : 0
            let type = page[start]
            guard [0x02, 0x05, 0x0A, 0x0D].contains(type) else { continue }
            let interior = type == 0x02 || type == 0x05
            if interior { stack.append(Self.u32(page, start + 8)) }
            let cells = Int(page[start + 3]) << 8 | Int(page[start + 4])
            let pointers = start + (interior ? 12 : 8)
            for index in 0..<cells where pointers + 2 * index + 1 < usable {
                let cell = Int(page[pointers + 2 * index]) << 8 | Int(page[pointers + 2 * index + 1])
                guard cell < usable else { continue }
                walkCell(page, at: cell, type: type, owner: owner, stack: &stack, collect: collect)
            }
        }
    }

    private mutating func walkCell(_ page: [UInt8], at cell: Int, type: UInt8, owner: String, stack: inout [Int], collect: (([UInt8]) -> Void)?) {
        var offset = cell
        if type == 0x02 || type == 0x05 {
            guard offset + 4 <= page.count else { return }
            stack.append(Self.u32(page, offset))
            offset += 4
            if type == 0x05 { return }
        }
        let (payload, length) = Self.varint(page, offset)
        offset += length
        if type == 0x0D { offset += Self.varint(page, offset).length }
        let local = localPayload(Int(payload), table: type == 0x0D)
        var bytes = Array(page[min(offset, page.count)..<min(offset + local, page.count)])
        if Int(payload) > local, offset + local + 4 <= page.count {
            bytes += walkOverflow(Self.u32(page, offset + local), owner: owner, wanted: Int(payload) - local, keep: collect != nil)
        }
        if type == 0x0D { collect?(bytes) }
    }

    /// Names the pages of an overflow chain; returns their content when `keep`.
    private mutating func walkOverflow(_ first: Int, owner: String, wanted: Int, keep: Bool) -> [UInt8] {
        var next = first, content: [UInt8] = []
        while next >= 1, next <= source.pageCount, owners[next] == nil {
            owners[next] = owner
            guard let page = plaintext(next) else { break }
            if keep { content += page[4..<min(usable, 4 + wanted - content.count)] }
            next = Self.u32(page, 0)
        }
        return content
    }

    private mutating func walkFreelist(first: Int) {
        var trunk = first
        while trunk >= 1, trunk <= source.pageCount, owners[trunk] == nil {
            owners[trunk] = "the freelist"
            guard let page = plaintext(trunk) else { break }
            let leaves = min(Self.u32(page, 4), (usable - 8) / 4)
            for index in 0..<leaves where owners[Self.u32(page, 8 + 4 * index)] == nil {
                owners[Self.u32(page, 8 + 4 * index)] = "the freelist"
            }
            trunk = Self.u32(page, 0)
        }
    }

    private mutating func markPointerMaps() {
        var pgno = 2
        while pgno <= source.pageCount {
            if owners[pgno] == nil { owners[pgno] = "the pointer map" }
            pgno += usable / 5 + 1
        }
    }

    /// The bytes of a payload of `total` bytes kept on the page itself (the rest overflows).
    private func localPayload(_ total: Int, table: Bool) -> Int {
        let most = table ? usable - 35 : (usable - 12) * 64 / 255 - 23
        guard total > most else { return total }
        let least = (usable - 12) * 32 / 255 - 23
        let spill = least + (total - least) % (usable - 4)
        return spill <= most ? spill : least
    }

    /// The values of a record, as far as it goes: integers and text only (the schema's columns).
    static func fields(of record: [UInt8]) -> [DatabaseValue] {
        guard !record.isEmpty else { return [] }
        let (headerSize, first) = varint(record, 0)
        var types: [Int] = [], offset = first
        while offset < Int(headerSize), offset < record.count {
            let (type, length) = varint(record, offset)
            types.append(Int(type))
            offset += length
        }
        var values: [DatabaseValue] = [], at = Int(headerSize)
        for type in types {
            let size = [0, 1, 2, 3, 4, 6, 8, 8, 0, 0][safe: type] ?? (type >= 12 ? (type - 12) / 2 : 0)
            guard at + size <= record.count else { break }
            let bytes = record[at..<at + size]
            switch type {
            case 1...6: values.append(.integer(bytes.reduce(Int64(Int8(bitPattern: bytes.first ?? 0)) >> 8) { $0 << 8 | Int64($1) }))
            case 8: values.append(.integer(0))
            case 9: values.append(.integer(1))
            case _ where type >= 13 && type % 2 == 1: values.append(.text(String(decoding: bytes, as: UTF8.self)))
            default: values.append(.null)
            }
            at += size
        }
        return values
    }

    static func varint(_ bytes: [UInt8], _ at: Int) -> (value: UInt64, length: Int) {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard at + index < bytes.count else { return (value, index) }
            let byte = bytes[at + index]
            if index == 8 { return (value << 8 | UInt64(byte), 9) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return (value, index + 1) }
        }
        return (value, 9)
    }

    static func u32(_ bytes: [UInt8], _ at: Int) -> Int {
        guard at + 4 <= bytes.count else { return 0 }
        return Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }
}

private extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
