import Foundation

extension DatabaseCopier {
    /// The two codecs when the page engine can write this copy: both sides encrypted, the
    /// same page size and reserved bytes, the salt known, and the file whole pages that the
    /// header does not count beyond. Anything else goes through SQLite (`copyPages`,
    /// `exportRows`).
    static func engineCodecs(
        for opened: OpenedDatabase, sourceSettings: CipherSettings, key: KeyMaterial, settings: CipherSettings
    ) throws -> (source: PageCodec, target: PageCodec)? {
        let from = sourceSettings.effective, to = settings.effective
        guard from.pageSize == to.pageSize, from.reservedBytes == to.reservedBytes, let salt = to.salt, salt.count == 16,
              let source = try PageCodec(for: opened) else { return nil }
        let pageSize = source.pageSize
        guard pageSize == (to.pageSize ?? 4096), opened.file.size > 0, opened.file.size % pageSize == 0 else { return nil }
        let target = try PageCodec(key: key, salt: salt, settings: to)
        return (source, target)
    }

    /// Writes the copy with the page engine (`PageEngine`), inside a read transaction on the
    /// source that keeps its file still; nil, with nothing written, when the source's WAL
    /// holds frames (their pages are newer than the file's, and only SQLite reads them).
    ///
    /// Each page is proven as it is written; then SQLCipher itself opens the copy with the new
    /// key, sets its journal mode, and reads its schema and header fields, which must match
    /// the source's. Closes the source's connection when it returns a copy.
    static func copyWithEngine(
        from opened: OpenedDatabase, source: OpenRequest, sourceSettings: CipherSettings, codecs: (source: PageCodec, target: PageCodec),
        to target: CopyTarget, key: KeyMaterial, settings: CipherSettings, token: CancellationToken
    ) throws -> DatabaseCopy? {
        let connection = opened.connection
        var snapshot: DatabaseSnapshot
        do {
            try CipherKitError.translating(path: source.path, file: opened.file) { try connection.execute("BEGIN") }
            defer { if !connection.isAutocommit { try? connection.execute("ROLLBACK") } }
            snapshot = try CipherKitError.translating(path: source.path, file: opened.file) {
                try DatabaseSnapshot.read(from: connection, countRows: target.countRows && target.fullVerification)
            }
            // Read inside the transaction: with no frames now, none can reach the file before it ends.
            guard (FileOperations.size(of: source.path + "-wal") ?? 0) == 0 else { return nil }
            let pages = opened.file.size / codecs.source.pageSize
            try convertPages(pages, source: source.path, codecs: codecs, target: target, token: token, opened: opened)
        }
        try connection.close()
        if let wal = target.wal { snapshot.journalMode = wal ? "wal" : "delete" }
        let (pageSize, destinationSettings) = try openCopy(target, key: key, settings: settings, expected: snapshot, logLevel: source.logLevel)
        return DatabaseCopy(
            snapshot: snapshot, sourceSettings: sourceSettings, destinationSettings: destinationSettings, pageSize: pageSize,
            destinationKey: key, sourceFormat: opened.format, sourceAttempts: opened.attempts, method: .pageEngine,
            pagesProven: opened.file.size / pageSize)
    }

    /// Runs the engine; a damaged source is reported as the page scan describes it.
    private static func convertPages(
        _ pages: Int, source path: String, codecs: (source: PageCodec, target: PageCodec), target: CopyTarget, token: CancellationToken,
        opened: OpenedDatabase
    ) throws {
        let engine = PageEngine(source: codecs.source, target: codecs.target, threads: target.threads)
        do {
            try engine.convert(path, pages: pages, into: target.path, token: token)
        } catch PageEngine.Failure.damagedSource(let pages) {
            let scanned = try PageScan.run(on: opened)?.damaged ?? []
            let damaged = scanned.isEmpty ? pages.map { DamagedPage(page: $0, reason: "fails its HMAC") } : scanned
            throw CipherKitError.damagedPages(path: path, pages: damaged)
        } catch PageEngine.Failure.roundTrip(let pages) {
            let listed = pages.prefix(5).map(String.init).joined(separator: ", ")
            throw CipherKitError.verificationFailed(
                path: target.reportedPath, problems: ["\(pages.count) written page(s) do not decrypt back to their source (pages \(listed))"])
        }
    }

    /// SQLCipher's own open of the written copy, before it is renamed anywhere: the new key
    /// opens it, page 1 and the schema read, and they match `expected` (rows are not counted:
    /// the pages were proven one by one). Sets the copy's journal mode. Returns its page size
    /// and settings as SQLCipher reports them.
    private static func openCopy(
        _ target: CopyTarget, key: KeyMaterial, settings: CipherSettings, expected: DatabaseSnapshot, logLevel: CipherLogLevel
    ) throws -> (Int, CipherSettings) {
        try CipherKitError.translating(path: target.path) {
            let copy = try Connection(path: target.path, mode: .readWrite, logLevel: logLevel)
            defer { try? copy.close() }
            try copy.key(key)
            try copy.apply(settings)
            _ = try copy.pragmaText("journal_mode = \(expected.journalMode.lowercased() == "wal" ? "WAL" : "DELETE")")
            var found = try DatabaseSnapshot.read(from: copy, countRows: false)
            found.rowCounts = expected.rowCounts
            let differences = found.differences(from: expected)
            guard differences.isEmpty else { throw CipherKitError.verificationFailed(path: target.reportedPath, problems: differences) }
            let result = (try copy.pragmaInteger("page_size") ?? 4096, try DatabaseInspector.cipherSettings(of: copy))
            try copy.close()
            return result
        }
    }
}
