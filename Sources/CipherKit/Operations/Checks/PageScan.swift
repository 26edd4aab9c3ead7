import Dispatch
import FoundationEssentials

/// What a pass over every page of a database found: the pages SQLite would read (each from
/// the WAL where its current version is there), each checked against its HMAC.
public struct PageScan: Equatable, Sendable {
    /// The pages SQLite sees.
    public var pages: Int
    /// Whether pages were checked cryptographically (false for a format without HMACs,
    /// where only the file's length can be checked).
    public var hmacChecked: Bool
    /// The damaged pages, in page order, each with what it belongs to where that was found.
    public var damaged: [DamagedPage]

    public init(pages: Int, hmacChecked: Bool, damaged: [DamagedPage]) {
        self.pages = pages
        self.hmacChecked = hmacChecked
        self.damaged = damaged
    }

    public var isOK: Bool { damaged.isEmpty }

    /// Runs the pass over the database at `path`, with `threads` threads checking HMACs.
    /// With `tornWALTailExpected`, a WAL frame that fails its checksum is not damage (see
    /// `requireUndamaged`). `proven` hears each page of the main file that passed, as soon as
    /// it has (pages whose current version is in the WAL are never marked).
    ///
    /// - Throws: `CipherKitError.fileAccess` when the file cannot be read.
    static func run(
        path: String, codec: PageCodec, threads: Int = ProcessInfo.processInfo.activeProcessorCount, access: DatabaseFileAccess? = nil,
        tornWALTailExpected: Bool = false, proven: ProvenPageMap? = nil
    ) throws -> PageScan {
        let source = try PageSource(path: path, pageSize: codec.pageSize, access: access)
        var damaged = codec.hasHMAC ? try damagedFilePages(source, codec: codec, threads: threads, proven: proven) : []
        if codec.hasHMAC { damaged += try walDamage(source, codec: codec) }
        if let torn = source.damagedWALFrame, let reason = source.droppedCommitsReason, !tornWALTailExpected {
            damaged.append(DamagedPage(page: torn.pgno, inWAL: true, reason: reason))
        }
        if source.fileSize % codec.pageSize != 0, !source.isInWAL(source.fileSize / codec.pageSize + 1) {
            damaged.append(DamagedPage(page: source.fileSize / codec.pageSize + 1, reason: "is cut short: the file ends \(source.fileSize % codec.pageSize) bytes into it"))
        }
        damaged += missingPages(source, codec: codec, damaged: Set(damaged.map(\.page)))
        if let salted = saltDisagreement(source, codec: codec, damaged: damaged) { damaged.append(salted) }
        damaged.sort { $0.page < $1.page }
        if !damaged.isEmpty {
            let owners = PageOwners.map(source: source, codec: codec, damaged: Set(damaged.map(\.page)))
            for index in damaged.indices { damaged[index].owner = owners[damaged[index].page] }
        }
        return PageScan(pages: source.pageCount, hmacChecked: codec.hasHMAC, damaged: damaged)
    }

    /// The committed -wal frames that fail their HMAC.
    private static func walDamage(_ source: PageSource, codec: PageCodec) throws -> [DamagedPage] {
        try source.walPagesFailingHMAC(codec).failing.map { DamagedPage(page: $0, inWAL: true, reason: "fails its HMAC") }
    }

    /// Throws `CipherKitError.damagedPages` when a committed -wal frame fails its HMAC: a
    /// write's connection would checkpoint it into the file as it closes, and the -wal that
    /// showed the damage would be gone. Only the -wal is read; a page of the file stays
    /// SQLite's to meet (a write that reads it fails, and names it).
    static func requireWALUndamaged(_ opened: OpenedDatabase) throws {
        guard (FileOperations.size(of: opened.file.path + "-wal") ?? 0) > 32, let codec = try PageCodec(for: opened), codec.hasHMAC else { return }
        let source = try PageSource(path: opened.file.path, pageSize: codec.pageSize, access: DatabaseFileAccess(opened.connection))
        let damaged = try walDamage(source, codec: codec)
        if !damaged.isEmpty { throw CipherKitError.damagedPages(path: opened.file.path, pages: damaged) }
    }

    /// The whole pages of the main file that fail their HMAC and are not superseded by the WAL.
    private static func damagedFilePages(_ source: PageSource, codec: PageCodec, threads: Int, proven: ProvenPageMap?) throws -> [DamagedPage] {
        let filePages = source.fileSize / codec.pageSize
        let chunk = max(1, (1 << 20) / codec.pageSize)
        let chunks = (filePages + chunk - 1) / chunk
        let results = ScanResults(count: chunks)
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, chunks))) { worker in
            var index = worker
            while index < chunks {
                let first = index * chunk + 1
                let count = min(chunk, filePages - first + 1)
                let bytes = source.filePages(from: first, count: count)
                let result = bytes.count == count * codec.pageSize
                    ? Result { try bytes.withUnsafeBytes { try codec.damagedPages(in: $0, first: first, count: count) } }
                    : .failure(CipherKitError.fileAccess(path: source.path, reason: "the file changed while it was read"))
                if let proven, case .success(let bad) = result, source.walPageNumbers.isEmpty {
                    proven.mark(first: first, count: count, except: Set(bad))
                }
                results.set(index, result)
                index += max(1, min(threads, chunks))
            }
        }
        return try results.all().filter { !source.isInWAL($0) }.map { DamagedPage(page: $0, reason: "fails its HMAC") }
    }

    /// Page 1, when its first 16 bytes are not the salt its pages pass their HMACs under (a
    /// salt given, the file's wiped or changed): no HMAC covers them, and SQLCipher reads the
    /// salt there. Nil for a plaintext header, which keeps the salt outside the file.
    private static func saltDisagreement(_ source: PageSource, codec: PageCodec, damaged: [DamagedPage]) -> DamagedPage? {
        guard (codec.settings.effective.plaintextHeaderSize ?? 0) == 0, !damaged.contains(where: { $0.page == 1 }),
              let page = source.page(1), page.count >= 16, Array(page.prefix(16)) != codec.salt else { return nil }
        return DamagedPage(page: 1, inWAL: source.isInWAL(1), reason: "its first 16 bytes are not the salt its pages pass their HMACs under (the salt given)")
    }

    /// What page 1's header says of the file's length that the file disagrees with
    /// (`missingPages`), for a copy that reads every page itself (the page engine).
    static func headerDisagreement(path: String, codec: PageCodec, access: DatabaseFileAccess) throws -> [DamagedPage] {
        try missingPages(PageSource(path: path, pageSize: codec.pageSize, access: access), codec: codec, damaged: [])
    }

    /// The pages the header counts beyond the end of the file (a truncated file), or page 1
    /// when a plaintext header counts fewer than the file holds.
    private static func missingPages(_ source: PageSource, codec: PageCodec, damaged: Set<Int>) -> [DamagedPage] {
        guard !damaged.contains(1), let raw = source.page(1), let header = codec.decrypt(raw, pgno: 1), header.count >= 100 else { return [] }
        let counted = PageOwners.u32(header, 28)
        // The header's page count is valid only when its version number matches the change counter.
        guard counted > 0, PageOwners.u32(header, 24) == PageOwners.u32(header, 92) else { return [] }
        let whole = max(source.pageCount, source.fileSize / codec.pageSize)
        // A plaintext header's page count is outside the cipher and its HMAC: fewer pages than
        // the file holds, with no -wal to have shrunk it, makes SQLite cut the trees short.
        if counted < whole, (codec.settings.effective.plaintextHeaderSize ?? 0) >= 32, source.walPageNumbers.isEmpty {
            return [DamagedPage(page: 1, reason: "its plaintext header counts \(counted) pages, and the file holds \(whole)")]
        }
        // The page the file ends inside of is named cut short, not missing as well.
        let present = damaged.contains(whole + 1) ? whole + 1 : whole
        guard counted > present else { return [] }
        let holds = present == whole ? "\(whole)" : "\(whole) and part of the next"
        return [DamagedPage(
            page: present + 1, lastPage: counted > present + 1 ? counted : nil,
            reason: "missing: the header counts \(counted) pages and the file holds \(holds) (a truncated file)")]
    }
}

/// Each chunk's result, filled by the scanning threads.
private final class ScanResults: @unchecked Sendable {
    private let lock = Lock()
    private var results: [Result<[Int], Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<[Int], Error>) {
        lock.lock()
        results[index] = result
        lock.unlock()
    }

    func all() throws -> [Int] {
        try results.flatMap { try $0?.get() ?? [] }
    }
}

extension PageScan {
    /// The pass over the database `opened` holds, with the key and settings that opened it,
    /// reading the main file through the connection's own open file (so that no lock the
    /// process holds on it is dropped); nil for a plaintext database, or when the salt is not known.
    static func run(on opened: OpenedDatabase, tornWALTailExpected: Bool = false) throws -> PageScan? {
        guard let codec = try PageCodec(for: opened) else { return nil }
        return try run(path: opened.file.path, codec: codec, access: DatabaseFileAccess(opened.connection), tornWALTailExpected: tornWALTailExpected)
    }

    /// For a database `run(on:)` has no codec for (plaintext), what its -wal alone can show:
    /// a frame where SQLite's recovery stops before a later commit, whose commits a read
    /// through SQLite never sees. Nil without such a -wal.
    static func walOnly(on opened: OpenedDatabase) throws -> PageScan? {
        guard let pageSize = PageSource.walPageSize(beside: opened.file.path) else { return nil }
        let source = try PageSource(path: opened.file.path, pageSize: pageSize, access: DatabaseFileAccess(opened.connection))
        guard let torn = source.damagedWALFrame, let reason = source.droppedCommitsReason else { return nil }
        return PageScan(pages: source.pageCount, hmacChecked: false, damaged: [DamagedPage(page: torn.pgno, inWAL: true, reason: reason)])
    }

    /// Throws `CipherKitError.damagedPages` when any page of the database `opened` holds is
    /// damaged. A format without HMACs is checked by SQLite's `quick_check` on `opened`'s
    /// connection instead. Only reads.
    ///
    /// `tornWALTailExpected`: the WAL is the remnant of cipherctl's own rekey, cut off by a
    /// crash before its commit was synced (an interrupted run left its mark). A power loss
    /// may then keep a later frame, even the commit frame, and lose an earlier one, which
    /// SQLite's recovery drops with everything after it: that is the state before the rekey,
    /// whose pages are still checked one by one. Damage, anywhere, still fails them. (The
    /// WAL a database had before the first run was checked by that run, before it wrote.)
    /// A refusal closes `opened`'s connection and removes the -wal and -shm its open made
    /// (`OpenedDatabase.closeRemovingWALFilesItMade`): nothing is left beside a file that
    /// was refused.
    static func requireUndamaged(_ opened: OpenedDatabase, tornWALTailExpected: Bool = false) throws {
        let path = opened.file.path
        guard let scan = try run(on: opened, tornWALTailExpected: tornWALTailExpected) else { return }
        if !scan.isOK {
            opened.closeRemovingWALFilesItMade()
            throw CipherKitError.damagedPages(path: path, pages: scan.damaged)
        }
        guard !scan.hmacChecked || hasPlaintextHeader(opened) else { return }
        try requireSQLiteCheck(opened)
    }

    /// Whether page 1 keeps header fields past its first 16 bytes plain, where no HMAC covers them.
    static func hasPlaintextHeader(_ opened: OpenedDatabase) -> Bool {
        (opened.settings.effective.plaintextHeaderSize ?? 0) > 16
    }

    /// Throws `CipherKitError.damagedPages` when SQLite's `quick_check` finds a problem: what
    /// no HMAC shows, in a format without them or in a plaintext header's fields (a page size,
    /// reserve or page count that makes SQLite misread pages whose HMACs pass).
    static func requireSQLiteCheck(_ opened: OpenedDatabase) throws {
        let path = opened.file.path
        let problems = try CipherKitError.translating(path: path) { try opened.connection.pragmaTexts("quick_check") }
        if problems != ["ok"] {
            opened.closeRemovingWALFilesItMade()
            throw CipherKitError.damagedPages(path: path, pages: [DamagedPage(page: 0, reason: "SQLite's quick_check: " + (problems.first ?? "failed"))])
        }
    }
}

extension PageCodec {
    /// The codec for the database `opened` holds; nil for plaintext or an unknown salt.
    convenience init?(for opened: OpenedDatabase) throws {
        guard let key = opened.key else { return nil }
        let settings = opened.settings.effective
        let header = settings.plaintextHeaderSize ?? 0
        guard let salt = settings.salt ?? key.salt ?? (header == 0 ? opened.file.firstBytes : nil), salt.count == 16 else { return nil }
        try self.init(key: key, salt: salt, settings: settings)
    }
}
