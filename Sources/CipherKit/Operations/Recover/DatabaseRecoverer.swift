import FoundationEssentials

/// Salvages every readable row of a damaged encrypted database into a new one, with no
/// plaintext on any disk: the source, WAL included, is decrypted page by page into a file in
/// memory (`PlaintextImage`; pages that fail their HMAC or that a truncated file lacks
/// become zeros and are reported lost, with what each table lost on them: `PageOwners`),
/// SQLite's own recovery (the `.recover` of a shell, which the caller runs on that memory
/// file and streams back as SQL) reads it, and the SQL runs straight into the new
/// encrypted database, written beside the destination under a temporary name, checked, and
/// renamed into place. See https://www.sqlite.org/recovery.html
public enum DatabaseRecoverer {
    /// `extract` is given the memory file's descriptor and returns the recovery's SQL, a
    /// chunk at a time (nil at its end).
    ///
    /// - Throws: `CipherKitError.fileExists` when the destination exists, what opening the
    ///   source throws but damage, `CipherKitError.database` when the SQL fails,
    ///   `IncompleteRecoverySQL` when it ends before its `COMMIT`, and what `extract` throws.
    ///   On any failure no destination and no temporary file are left.
    /// A cancelled `token` stops the recovery before its rename, with nothing left behind.
    public static func recover(
        _ request: RecoverRequest, token: CancellationToken = CancellationToken(), extract: (Int32) throws -> () throws -> [UInt8]?
    ) throws -> RecoveryReport {
        let destination = request.destination
        // What killed runs left beside the destination goes first, whatever this run then does.
        _ = TemporaryDatabase.removeLeftovers(beside: destination, told: request.leftoverRemoved)
        if FileOperations.exists(destination) || FileOperations.isSymbolicLink(destination) { throw CipherKitError.fileExists(path: destination) }
        try Exporter.refuseCompanions(of: destination)
        try FileOperations.requireWritableDirectory(for: destination, purpose: "the recovered database is written there, then renamed")
        let codec = try SourceCodec.find(request.source)
        let request = request.keepsSourceFormat ? pinningSourceFormat(request, codec: codec) : request
        // The committed state: a hot journal's pages in place of the half-written file's.
        let reader = try SnapshotReader(path: request.source.path, waitingMilliseconds: request.source.busyTimeoutMilliseconds)
        var walSetAside = false
        var image = try withExtendedLifetime(reader) {
            var source = try PageSource(path: request.source.path, pageSize: codec.pageSize, access: reader.access)
            walSetAside = try holdsNoFrameTheKeyReads(source, codec: codec)
            if walSetAside { source.setWALAside() }
            return try PlaintextImage.make(from: source, codec: codec)
        }
        defer { image.close() }
        let survey = try survey(&image, codec: codec)
        let wal = image.namesWAL
        try image.sealFirstPage(reserve: codec.pageSize - survey.usable)
        let losses = losses(image, survey)
        let written = try writeAndRename(
            RecoveryWriter(request: request, path: TemporaryDatabase.path(beside: destination), wal: wal), chunks: { try extract(image.descriptor) },
            damaged: RecoveryDamage(losses: losses, survey: survey), token: token)
        // The rename is the commit: the destination is whole, whatever the folder's sync says.
        do {
            try FileOperations.syncDirectory(of: destination)
        } catch {
            throw CipherKitError.afterCommit(error, path: destination, opensWith: "the destination key (\(request.destinationSettings.summary))")
        }
        var report = RecoveryReport(
            pages: image.pages, lostPages: image.lostPages.sorted(), tables: written.tables, losses: losses, rebuiltIndexes: written.rebuilt,
            droppedWALFrame: image.droppedWALFrame)
        report.walSetAside = walSetAside
        report.indexEntriesLeftOut = written.indexEntriesLeftOut
        report.lostAndFoundTable = written.lostAndFound
        return report
    }

    /// Writes the new database by `writer`, under its temporary name, from the recovery's SQL
    /// (`chunks` starts it) and renames it into place; on any failure, or a cancellation,
    /// removes it.
    private static func writeAndRename(
        _ writer: RecoveryWriter, chunks: () throws -> () throws -> [UInt8]?, damaged: RecoveryDamage, token: CancellationToken
    ) throws -> RecoveryWriter.Written {
        let (source, destination, temporary) = (writer.request.source.path, writer.request.destination, writer.path)
        do {
            try token.check(source)
            let written = try CipherKitError.translating(path: destination) {
                let next = try chunks()
                return try writer.write({
                    try token.check(source)
                    return try next()
                }, damaged: damaged)
            }
            try FileOperations.sync(temporary)
            try token.check(source)
            try FileOperations.move(temporary, to: destination, replace: false)
            return written
        } catch {
            FileOperations.removeDatabase(temporary)
            // A signal that cancelled the run may have ended the shell too: the cancellation is what happened.
            if token.isCancelled { throw CipherKitError.cancelled(path: source) }
            throw error
        }
    }

    /// Whether the -wal holds committed frames and none passes its HMAC under the key that
    /// proves the file's pages: another database's (copied beside it), whose commit would
    /// otherwise make the file as small as that database and every page of it lost.
    private static func holdsNoFrameTheKeyReads(_ source: PageSource, codec: PageCodec) throws -> Bool {
        guard codec.hasHMAC, !source.walPageNumbers.isEmpty else { return false }
        let walked = try source.walPagesFailingHMAC(codec)
        return walked.failing.count == walked.checked
    }

    /// `request` with the source's settings under the destination settings it gives, as an
    /// export keeps them: a salt of its own, and a plaintext header only with a salt given.
    private static func pinningSourceFormat(_ request: RecoverRequest, codec: PageCodec) -> RecoverRequest {
        var source = codec.settings.effective
        source.salt = nil
        if request.destinationSettings.salt == nil { source.plaintextHeaderSize = nil }
        var pinned = request
        pinned.destinationSettings = request.destinationSettings.overriding(source)
        if pinned.destinationSettings.compatibility == nil { pinned.destinationSettings.compatibility = 4 }
        return pinned
    }

    /// Walks the image's b-trees, orphans included. When no valid header says how many pages
    /// the file had, pages its b-trees point at past its end are missing too, and the image
    /// grows to hold them (as lost).
    private static func survey(_ image: inout PlaintextImage, codec: PageCodec) throws -> PageOwners {
        func walk(_ image: PlaintextImage) -> PageOwners {
            PageOwners.walk(pages: image.pages, pageSize: codec.pageSize, reserve: codec.reserve, orphans: true, read: image.page)
        }
        let first = walk(image)
        // Pointers come from pages that passed their HMAC; one this far out is a misread cell, not a truncation.
        guard !image.countedByHeader, first.highestReference > image.pages, first.highestReference <= 16 * image.pages + 256 else { return first }
        try image.extend(to: first.highestReference)
        return walk(image)
    }

    /// What each owner lost: its lost pages, the rowids on them, its values cut short.
    private static func losses(_ image: PlaintextImage, _ survey: PageOwners) -> [RecoveryLoss] {
        var byOwner: [String?: RecoveryLoss] = [:]
        for pgno in image.lostPages.sorted() {
            let owner = survey.owners[pgno]
            byOwner[owner, default: RecoveryLoss(owner: owner)].pages.append(pgno)
        }
        for (owner, ranges) in survey.lostRowids { byOwner[owner, default: RecoveryLoss(owner: owner)].rowids = merged(ranges) }
        for (owner, count) in survey.cutShort { byOwner[owner, default: RecoveryLoss(owner: owner)].rowsCutShort = count }
        return byOwner.values.sorted { ($0.pages.first ?? .max, $0.owner ?? "") < ($1.pages.first ?? .max, $1.owner ?? "") }
    }

    /// `ranges` in order, neighbours joined (lost siblings leave one gap of rowids).
    private static func merged(_ ranges: [RowidRange]) -> [RowidRange] {
        let sorted = ranges.sorted { ($0.above ?? .min, $0.upTo ?? .max) < ($1.above ?? .min, $1.upTo ?? .max) }
        return sorted.reduce(into: []) { result, range in
            if let last = result.last, let end = last.upTo, let start = range.above, start <= end {
                result[result.count - 1].upTo = range.upTo.map { max($0, end) }
            } else {
                result.append(range)
            }
        }
    }
}
