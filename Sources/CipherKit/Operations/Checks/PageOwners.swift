/// Which table, index or list each page belongs to, found by walking the b-trees from the
/// schema on page 1, past pages that are damaged; and, for recover, what the damage cut
/// from each tree: the rowids below a lost page and the rows whose overflow chain is broken.
///
/// Only reads; a damaged page's owner is the tree whose parent page points at it. Pages
/// below a damaged interior page cannot be reached from the schema and stay without an
/// owner, unless orphans are walked too (`orphans`).
/// See https://www.sqlite.org/fileformat2.html#b_tree_pages
struct PageOwners {
    /// The owner of pages that no tree of the schema reaches (below a lost interior page, or
    /// every page when the schema is lost): SQLite's recovery puts their rows in `lost_and_found`.
    static let orphan = "lost_and_found"

    /// A page's plaintext, or nil when it is damaged or missing.
    private let read: (Int) -> [UInt8]?
    private let pageCount: Int
    /// The bytes of a page SQLite uses: the page less the reserved bytes its header records
    /// (SQLCipher may reserve more there than its IV and HMAC take).
    private(set) var usable: Int
    private(set) var owners: [Int: String] = [:]
    /// Per owner, the rowids whose rows were on lost pages of a rowid table (a lost root: all).
    private(set) var lostRowids: [String: [RowidRange]] = [:]
    /// Per owner, the leaf cells whose overflow chain does not deliver their whole payload.
    private(set) var cutShort: [String: Int] = [:]
    /// The largest page number any page read points at (child, overflow, freelist).
    private(set) var highestReference = 0

    /// The tables the schema that was read names (those with a b-tree).
    var tables: Set<String> { Set(owners.values.filter { $0.hasPrefix("table ") }.map { String($0.dropFirst(6)) }) }

    /// Walks every tree of the database `source` reads; pages in `damaged` are named but not read.
    static func map(source: PageSource, codec: PageCodec, damaged: Set<Int>) -> [Int: String] {
        let read = { (pgno: Int) -> [UInt8]? in
            guard !damaged.contains(pgno), pgno >= 1, let page = source.page(pgno), page.count == codec.pageSize else { return nil }
            return codec.decrypt(page, pgno: pgno)
        }
        return walk(pages: source.pageCount, pageSize: codec.pageSize, reserve: codec.reserve, read: read).owners
    }

    /// Walks every tree of a database of `pages` pages whose plaintext pages `read` gives
    /// (nil for a damaged or missing one); with `orphans`, then every b-tree page that no
    /// tree reached, as `orphan`.
    static func walk(pages: Int, pageSize: Int, reserve: Int, orphans: Bool = false, read: @escaping (Int) -> [UInt8]?) -> PageOwners {
        var walker = PageOwners(read: read, pageCount: pages, usable: pageSize - reserve)
        walker.walkAll()
        if orphans { walker.walkOrphans() }
        return walker
    }

    private mutating func walkAll() {
        if let header = read(1) {
            if header[20] > 0 { usable = header.count - Int(header[20]) }
        } else if let found = inferredUsable() {
            usable = found
        }
        var schema: [[UInt8]] = []
        walk(1, owner: "the schema") { schema.append($0) }
        // The names are in the database's text encoding (header offset 56: 2 and 3 are UTF-16).
        let encoding = read(1).map { Int(Self.u32($0, 56)) } ?? 1
        for record in schema {
            let fields = Self.fields(of: record, encoding: encoding)
            guard fields.count >= 4, case .text(let type)? = fields.first, case .text(let name) = fields[1],
                  case .integer(let root) = fields[3], root > 0 else { continue }
            walk(Int(root), owner: "\(type) \(name)", collect: nil)
        }
        guard let header = read(1) else { return }
        walkFreelist(first: Self.u32(header, 32))
        if Self.u32(header, 52) != 0 { markPointerMaps() }
    }

    /// The usable size the pages show when page 1, which records it, is lost: SQLite packs
    /// cells from the end of the usable part of a page, so the end of a page's last cell is
    /// that size on most pages (SQLCipher may reserve more than its settings' IV and HMAC).
    /// Only cells that cannot overflow are measured, and only sizes a page can have (the codec's
    /// usable size, or up to 255 bytes less); nil when no page shows one.
    private func inferredUsable() -> Int? {
        var ends: [Int: Int] = [:]
        for pgno in 2...max(2, min(pageCount, 256)) {
            guard let page = read(pgno), page[0] == 0x0D || page[0] == 0x05 else { continue }
            let cells = Int(page[3]) << 8 | Int(page[4]), pointers = page[0] == 0x05 ? 12 : 8
            var end = 0
            for index in 0..<cells where pointers + 2 * index + 1 < page.count {
                let cell = Int(page[pointers + 2 * index]) << 8 | Int(page[pointers + 2 * index + 1])
                guard cell + 13 < page.count else { continue }
                if page[0] == 0x05 {
                    end = max(end, cell + 4 + Self.varint(page, cell + 4).length)
                    continue
                }
                let (payload, length) = Self.varint(page, cell)
                // A payload this small stays on its page whatever the reserve (at most 255 bytes).
                guard Int(payload) <= page.count - 255 - 35 else { continue }
                end = max(end, cell + length + Self.varint(page, cell + length).length + Int(payload))
            }
            // A page reserves at most 255 bytes, and never less than the codec's own.
            if end >= page.count - 255, end <= usable { ends[end, default: 0] += 1 }
        }
        return ends.max { $0.value < $1.value }?.key
    }

    /// Walks, as `orphan`, each readable b-tree page that no tree reached, in page order.
    private mutating func walkOrphans() {
        for pgno in 1...max(1, pageCount) where owners[pgno] == nil {
            guard let page = read(pgno), [0x02, 0x05, 0x0A, 0x0D].contains(page[pgno == 1 ? 100 : 0]) else { continue }
            walk(pgno, owner: Self.orphan, collect: nil)
        }
    }

    /// One page to visit: its number, the rowids its subtree holds (`above` < rowid <=
    /// `upTo`, nil for no bound), and whether its parent is a rowid table's interior page.
    private struct Visit {
        var pgno: Int
        var above: Int64? = nil
        var upTo: Int64? = nil
        var rowidChild = false
    }

    /// Walks the tree at `root`; `collect` hears each leaf cell's whole payload (the schema's).
    private mutating func walk(_ root: Int, owner: String, collect: (([UInt8]) -> Void)?) {
        var stack = [Visit(pgno: root)]
        while let visit = stack.popLast() {
            let pgno = visit.pgno
            guard pgno >= 1, pgno <= pageCount, owners[pgno] == nil else { continue }
            owners[pgno] = owner
            guard let page = read(pgno) else {
                // A lost root leaves no row of its tree; a lost child of a rowid table's interior page, the rowids between its neighbours.
                let holdsRows = owner.hasPrefix("table ") || owner == Self.orphan
                if holdsRows, pgno == root || visit.rowidChild { lostRowids[owner, default: []].append(RowidRange(above: visit.above, upTo: visit.upTo)) }
                continue
            }
            let start = pgno == 1 ? 100 : 0
            let type = page[start]
            guard [0x02, 0x05, 0x0A, 0x0D].contains(type) else { continue }
            let interior = type == 0x02 || type == 0x05
            let cells = Int(page[start + 3]) << 8 | Int(page[start + 4])
            let pointers = start + (interior ? 12 : 8)
            var above = visit.above
            for index in 0..<cells where pointers + 2 * index + 1 < usable {
                let cell = Int(page[pointers + 2 * index]) << 8 | Int(page[pointers + 2 * index + 1])
                guard cell < usable else { continue }
                if type == 0x05 {
                    guard cell + 4 <= page.count else { continue }
                    let key = Int64(bitPattern: Self.varint(page, cell + 4).value)
                    stack.append(Visit(pgno: reference(Self.u32(page, cell)), above: above, upTo: key, rowidChild: true))
                    above = key
                } else {
                    walkCell(page, at: cell, type: type, owner: owner, stack: &stack, collect: collect)
                }
            }
            if interior { stack.append(Visit(pgno: reference(Self.u32(page, start + 8)), above: above, upTo: visit.upTo, rowidChild: type == 0x05)) }
        }
    }

    /// Notes `pgno` as referenced, and returns it.
    private mutating func reference(_ pgno: Int) -> Int {
        highestReference = max(highestReference, pgno)
        return pgno
    }

    private mutating func walkCell(_ page: [UInt8], at cell: Int, type: UInt8, owner: String, stack: inout [Visit], collect: (([UInt8]) -> Void)?) {
        var offset = cell
        if type == 0x02 {
            guard offset + 4 <= page.count else { return }
            stack.append(Visit(pgno: reference(Self.u32(page, offset))))
            offset += 4
        }
        let (payload, length) = Self.varint(page, offset)
        offset += length
        if type == 0x0D { offset += Self.varint(page, offset).length }
        let local = localPayload(Int(payload), table: type == 0x0D)
        var bytes = Array(page[min(offset, page.count)..<min(offset + local, page.count)])
        if Int(payload) > local {
            let rest = offset + local + 4 <= page.count
                ? walkOverflow(reference(Self.u32(page, offset + local)), owner: owner, wanted: Int(payload) - local, keep: collect != nil) : nil
            // A table's row whose chain breaks is still recovered, with its value cut short (an index's entry is rebuilt).
            guard let rest else {
                if type == 0x0D || (type == 0x0A && owner.hasPrefix("table ")) { cutShort[owner, default: 0] += 1 }
                return
            }
            bytes += rest
        }
        if type == 0x0D { collect?(bytes) }
    }

    /// Names the pages of an overflow chain; returns their content (empty unless `keep`), or
    /// nil when the chain breaks before `wanted` bytes (a page lost, missing or out of range).
    private mutating func walkOverflow(_ first: Int, owner: String, wanted: Int, keep: Bool) -> [UInt8]? {
        var next = first, content: [UInt8] = [], remaining = wanted
        while remaining > 0 {
            guard next >= 1, next <= pageCount, owners[next] == nil else { return nil }
            owners[next] = owner
            guard let page = read(next) else { return nil }
            let taken = min(usable - 4, remaining)
            if keep { content += page[4..<4 + taken] }
            remaining -= taken
            next = reference(Self.u32(page, 0))
        }
        return content
    }

    private mutating func walkFreelist(first: Int) {
        var trunk = reference(first)
        while trunk >= 1, trunk <= pageCount, owners[trunk] == nil {
            owners[trunk] = "the freelist"
            guard let page = read(trunk) else { break }
            let leaves = min(Self.u32(page, 4), (usable - 8) / 4)
            for index in 0..<leaves {
                let leaf = reference(Self.u32(page, 8 + 4 * index))
                if owners[leaf] == nil { owners[leaf] = "the freelist" }
            }
            trunk = reference(Self.u32(page, 0))
        }
    }

    private mutating func markPointerMaps() {
        var pgno = 2
        while pgno <= pageCount {
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

    /// The values of a record, as far as it goes: integers and text only (the schema's columns),
    /// text in `encoding` as the header's field numbers it (1 UTF-8, 2 UTF-16le, 3 UTF-16be).
    static func fields(of record: [UInt8], encoding: Int = 1) -> [DatabaseValue] {
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
            case _ where type >= 13 && type % 2 == 1: values.append(.text(Self.text(bytes, encoding: encoding)))
            default: values.append(.null)
            }
            at += size
        }
        return values
    }

    private static func text(_ bytes: ArraySlice<UInt8>, encoding: Int) -> String {
        guard encoding == 2 || encoding == 3 else { return String(decoding: bytes, as: UTF8.self) }
        let units = stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map { at in
            encoding == 2 ? UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 : UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
        }
        return String(decoding: units, as: UTF16.self)
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
