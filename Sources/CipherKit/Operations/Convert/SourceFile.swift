/// The whole of a source file another family's reader decrypts in memory, as SQLite sees it:
/// each page from the last committed frame of a -wal beside it that holds it (`PageSource`),
/// else from the file. Such a family's WAL frames are its own encrypted pages, as the file's
/// are, so the reader decrypts both alike.
enum SourceFile {
    /// The encrypted pages, page 1 first, which must hold at least one page of `pageSize`.
    ///
    /// - Throws: `CipherKitError.fileAccess` when it cannot be read, `cannotDecrypt`
    ///   (`tooShort`) when it holds less than a page, `pageSizeShownByWAL` when its -wal is of
    ///   another page size than one assumed, `damagedPages` when of another than the file's,
    ///   `damagedPages` when a WAL frame before a commit fails its checksum, a page the last
    ///   commit counts is missing, or, for a `salted` scheme (page 1 begins with the salt its
    ///   keys are derived with), the WAL's page 1 carries another salt than the file's: the
    ///   -wal is another database's, whose pages the file's keys cannot read.
    /// `pageSizeAssumed` says the page size was given or a default, not shown or proven by the
    /// file; it is asked only beside a -wal of another page size.
    static func read(_ path: String, pageSize: Int, salted: Bool, pageSizeAssumed: @autoclosure () -> Bool = false) throws -> [UInt8] {
        guard (FileOperations.size(of: path + "-wal") ?? 0) > 32 else { return try readAlone(path, pageSize: pageSize) }
        let source = try PageSource(path: path, pageSize: pageSize)
        if let torn = source.damagedWALFrame, let reason = source.droppedCommitsReason {
            throw CipherKitError.damagedPages(path: path, pages: [DamagedPage(page: torn.pgno, inWAL: true, reason: reason)])
        }
        guard source.walDatabasePages != nil else {
            try requireWALPageSize(path, pageSize: pageSize, assumed: pageSizeAssumed)
            return try readAlone(path, pageSize: pageSize)
        }
        var pages: [UInt8] = []
        pages.reserveCapacity(source.pageCount * pageSize)
        for pgno in 1...max(1, source.pageCount) {
            guard let page = source.page(pgno), page.count == pageSize else {
                SecureBytes.wipe(&pages)
                throw CipherKitError.damagedPages(path: path, pages: [DamagedPage(page: pgno, reason: "is missing: the last commit counts \(source.pageCount) pages")])
            }
            pages += page
        }
        if salted, source.isInWAL(1), let salt = FileOperations.leadingBytes(of: path, count: 16), salt.count == 16, Array(pages[0..<16]) != salt {
            SecureBytes.wipe(&pages)
            throw CipherKitError.damagedPages(path: path, pages: [DamagedPage(page: 1, inWAL: true, reason: "carries another salt than the file's: the -wal is another database's")])
        }
        return pages
    }

    private static func readAlone(_ path: String, pageSize: Int) throws -> [UInt8] {
        guard let file = OpenFile(reading: path) else { throw CipherKitError.fileAccess(path: path, reason: "cannot open for reading") }
        let raw = try file.readToEnd()
        guard raw.count >= pageSize else { throw CipherKitError.cannotDecrypt(path: path, failure: .tooShort(bytes: raw.count)) }
        return raw
    }

    /// Refuses a -wal whose header is a WAL's of another page size than the file's: its frames
    /// would be read as nothing, while SQLite reading it sees them or calls the file damaged.
    /// A page size the file shows or proves makes the -wal another database's: damage. One
    /// `assumed` (given, or a default) is what the -wal shows to be wrong.
    private static func requireWALPageSize(_ path: String, pageSize: Int, assumed: () -> Bool) throws {
        guard let walPageSize = PageSource.walPageSize(beside: path), walPageSize != pageSize else { return }
        if assumed() { throw CipherKitError.cannotDecrypt(path: path, failure: .pageSizeShownByWAL(given: pageSize, shown: walPageSize)) }
        throw CipherKitError.damagedPages(path: path, pages: [DamagedPage(page: 0, inWAL: true, reason: "its -wal holds pages of \(walPageSize) bytes, not the file's \(pageSize)")])
    }
}
