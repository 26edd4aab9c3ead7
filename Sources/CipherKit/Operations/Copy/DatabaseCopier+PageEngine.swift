import FoundationEssentials

extension DatabaseCopier {
    /// The page engine when it can write this copy: an encrypted source whose file is whole
    /// pages, and a destination with the same page size and reserved bytes and a known salt,
    /// or a plaintext destination (`settings` nil), whose pages keep the reserve as unused
    /// space. Anything else goes through SQLite (`copyPages`, `exportRows`).
    static func engine(
        for opened: OpenedDatabase, sourceSettings: CipherSettings, key: KeyMaterial?, settings: CipherSettings?, threads: Int
    ) throws -> PageEngine? {
        guard let source = try PageCodec(for: opened), opened.file.size > 0, opened.file.size % source.pageSize == 0 else { return nil }
        guard let key, let settings else { return PageEngine(source: source, target: nil, threads: threads) }
        let from = sourceSettings.effective, to = settings.effective
        guard from.pageSize == to.pageSize, from.reservedBytes == to.reservedBytes, source.pageSize == (to.pageSize ?? 4096),
              let salt = to.salt, salt.count == 16 else { return nil }
        return PageEngine(source: source, target: try PageCodec(key: key, salt: salt, settings: to), threads: threads)
    }

    /// The page engine encrypting a plaintext database, when its pages already reserve the
    /// space the destination's IV and HMAC take, at the same page size (SQLite's header, bytes
    /// 16-17 and 20, read through the connection's own file); nil otherwise.
    static func encryptingEngine(for opened: OpenedDatabase, key: KeyMaterial, settings: CipherSettings, threads: Int) throws -> PageEngine? {
        let to = settings.effective
        var header = [UInt8](repeating: 0, count: 100)
        guard let salt = to.salt, salt.count == 16, opened.file.size >= 100, let access = DatabaseFileAccess(opened.connection),
              access.read(into: &header, count: header.count, at: 0) else { return nil }
        let stored = Int(header[16]) << 8 | Int(header[17])
        let pageSize = stored == 1 ? 65536 : stored
        guard pageSize == (to.pageSize ?? 4096), Int(header[20]) == (to.reservedBytes ?? -1), opened.file.size % pageSize == 0 else { return nil }
        return PageEngine(source: nil, target: try PageCodec(key: key, salt: salt, settings: to), threads: threads)
    }

    /// Writes the copy with the page engine (`PageEngine`), inside a read transaction on the
    /// source that keeps its file still; nil, with nothing written, when the source's WAL
    /// holds frames (their pages are newer than the file's, and only SQLite reads them) or the
    /// file is not whole pages.
    ///
    /// Each page is proven as it is written (a decrypted page is the plaintext whose HMAC was
    /// checked); then SQLCipher itself opens the copy with the new key (or none), sets its
    /// journal mode, and reads its schema and header fields, which must match the source's.
    /// Closes the source's connection when it returns a copy.
    static func copyWithEngine(_ job: CopyJob, engine: PageEngine) throws -> DatabaseCopy? {
        let (opened, source, target) = (job.opened, job.source, job.target)
        let connection = opened.connection
        var snapshot: DatabaseSnapshot
        let pages: Int
        do {
            try CipherKitError.translating(path: source.path, file: opened.file) { try connection.execute("BEGIN") }
            defer { if !connection.isAutocommit { try? connection.execute("ROLLBACK") } }
            snapshot = try CipherKitError.translating(path: source.path, file: opened.file) {
                try DatabaseSnapshot.read(from: connection, countRows: target.countRows && target.fullVerification)
            }
            // Read inside the transaction, which keeps the file as it is now: with no WAL frames
            // now, none can reach the file before it ends, and its size is the snapshot's.
            let size = FileOperations.size(of: source.path) ?? 0
            guard (FileOperations.size(of: source.path + "-wal") ?? 0) == 0, size > 0, size % engine.pageSize == 0,
                  let reader = DatabaseFileAccess(connection) else { return nil }
            pages = size / engine.pageSize
            try convertPages(pages, of: job, reader: reader, engine: engine)
        }
        try connection.close()
        if let wal = target.wal { snapshot.journalMode = wal ? "wal" : "delete" }
        let (pageSize, destinationSettings) = try openCopy(target, expected: snapshot, logLevel: source.logLevel)
        return DatabaseCopy(
            snapshot: snapshot, sourceSettings: job.sourceSettings, destinationSettings: destinationSettings, pageSize: pageSize,
            destinationKey: target.key, sourceFormat: opened.format, sourceAttempts: opened.attempts, method: .pageEngine,
            pagesProven: pages)
    }

    /// Runs the engine; a damaged source is reported as the page scan describes it.
    private static func convertPages(_ pages: Int, of job: CopyJob, reader: DatabaseFileAccess, engine: PageEngine) throws {
        let (path, opened, target) = (job.source.path, job.opened, job.target)
        // The engine copies the pages the file holds; a header that counts others is damage it would copy.
        if let codec = try PageCodec(for: opened) {
            let disagreement = try PageScan.headerDisagreement(path: path, codec: codec, access: reader)
            guard disagreement.isEmpty else {
                opened.closeRemovingWALFilesItMade()
                throw CipherKitError.damagedPages(path: path, pages: disagreement)
            }
        }
        // A plaintext header's fields no HMAC covers: SQLite's check reads the pages as they say.
        if PageScan.hasPlaintextHeader(opened) { try PageScan.requireSQLiteCheck(opened) }
        do {
            try engine.convert(path, reading: reader, pages: pages, into: target.path, token: job.token)
        } catch PageEngine.Failure.damagedSource(let pages) {
            let scanned = try PageScan.run(on: opened)?.damaged ?? []
            let damaged = scanned.isEmpty ? pages.map { DamagedPage(page: $0, reason: "fails its HMAC") } : scanned
            opened.closeRemovingWALFilesItMade()
            throw CipherKitError.damagedPages(path: path, pages: damaged)
        } catch PageEngine.Failure.roundTrip(let pages) {
            let listed = pages.prefix(5).map(String.init).joined(separator: ", ")
            throw CipherKitError.verificationFailed(
                path: target.reportedPath, problems: ["\(pages.count) written page(s) do not decrypt back to their source (pages \(listed))"])
        }
    }

    /// SQLCipher's own open of the written copy, before it is renamed anywhere: the target's key
    /// opens it, page 1 and the schema read, and they match `expected` (rows are not counted:
    /// the pages were proven one by one). Sets the copy's journal mode. Returns its page size
    /// and settings as SQLCipher reports them.
    private static func openCopy(_ target: CopyTarget, expected: DatabaseSnapshot, logLevel: CipherLogLevel) throws -> (Int, CipherSettings?) {
        let (key, settings) = (target.key, target.settings)
        return try CipherKitError.translating(path: target.path) {
            let copy = try Connection(path: target.path, mode: .readWrite, logLevel: logLevel)
            defer { try? copy.close() }
            if let key, let settings {
                try copy.key(key)
                try copy.apply(settings)
            }
            _ = try copy.pragmaText("journal_mode = \(expected.journalMode.lowercased() == "wal" ? "WAL" : "DELETE")")
            var found = try DatabaseSnapshot.read(from: copy, countRows: false)
            found.rowCounts = expected.rowCounts
            let differences = found.differences(from: expected)
            guard differences.isEmpty else { throw CipherKitError.verificationFailed(path: target.reportedPath, problems: differences) }
            let result = (try copy.pragmaInteger("page_size") ?? 4096, key == nil ? nil : try DatabaseInspector.cipherSettings(of: copy))
            try copy.close()
            return result
        }
    }
}
