import FoundationEssentials
import Glibc

/// A rekey in constant extra space: every page rewritten in place, chunk by chunk, under a
/// progress record beside the file (`RotationRecord`, `RotationPass`), for a disk with no
/// room for a second copy.
///
/// The contract is weaker than a copy's: until the run finishes, the file holds pages under
/// both keys and only this rotator can finish it (or, undoing, put it back under the old
/// key); any other open is refused while the record is there (`halfRotated`). Both keys are
/// needed to go on; each is checked against its own page 1 in the record before anything is
/// written. The key changes, and the salt and the KDF may; page size and reserve stay, since
/// the pages' layout does, and pages need an HMAC, which is how a chunk's key is told. At the
/// end every page is proven under the target key by its HMAC and SQLCipher opens the file
/// (the schema and header fields of before; quick_check and row counts on request), and
/// only then is the record removed.
enum LowSpaceRotator {
    /// Starts, finishes, or (with `request.undo`) rolls back a rotation.
    ///
    /// - Throws: `CipherKitError` (`refused`, `cannotDecrypt`, `damagedPages`, `busy`,
    ///   `hotJournal`, `halfRotated` when a failure leaves the file between the keys, …).
    static func rotate(_ request: RekeyRequest, token: CancellationToken) throws -> RekeyReport {
        let path = request.database.path, recordPath = RotationRecord.path(beside: path)
        // Temporary files of killed runs: the record's, half made, and the database's.
        let removed = [recordPath, path].flatMap { TemporaryDatabase.removeLeftovers(beside: $0, told: request.leftoverRemoved) }
        var report: RekeyReport
        if FileOperations.exists(recordPath) {
            report = try resume(request, token: token)
        } else {
            if request.undo { throw CipherKitError.refused(path: path, refusal: .nothingToUndo) }
            if !changesOnlyTheKDF(request.newSettings) || request.newKey.kind == .rawKeyWithSalt {
                throw CipherKitError.refused(path: path, refusal: .changeNeedsCopy)
            }
            report = try startAlone(request, token: token)
        }
        report.removedLeftovers = removed
        return report
    }

    /// A fresh rotation; a failure while another run's record appeared beside the file (it
    /// took the file first, and its pages may be mid-way between the keys) is busy.
    private static func startAlone(_ request: RekeyRequest, token: CancellationToken) throws -> RekeyReport {
        do {
            return try start(request, token: token)
        } catch let error as CipherKitError {
            if case .halfRotated = error { throw error }
            guard RotationRecord.exists(beside: request.database.path) else { throw error }
            throw CipherKitError.busy(path: request.database.path)
        }
    }

    /// Whether `settings` asks for nothing the pages' layout would change with: at most a KDF
    /// count and digest (the salt is asked for apart).
    private static func changesOnlyTheKDF(_ settings: CipherSettings) -> Bool {
        settings.with(\.kdfIterations, nil).with(\.kdfAlgorithm, nil).with(\.salt, nil).isEmpty
    }

    /// A fresh rotation: the old key opens the file, every page is checked, the record is
    /// made, then the pass.
    static func start(_ request: RekeyRequest, token: CancellationToken) throws -> RekeyReport {
        let started = Date()
        var current = request.database
        current.mode = .readWrite
        let path = current.path
        if try DatabaseFile.probe(path).kind == .plaintext { throw CipherKitError.refused(path: path, refusal: .plaintextSource) }
        var status = stat()
        if stat(path, &status) == 0, status.st_nlink > 1 { throw CipherKitError.refused(path: path, refusal: .rotationOfALinkedFile) }
        let file = try DatabaseOpener.precheck(current)
        guard let currentKey = current.key else { throw CipherKitError.cannotDecrypt(path: path, failure: .keyRequired) }
        if request.newKey.hasSameSecret(as: currentKey), request.newSettings.isEmpty, !request.newSalt {
            throw CipherKitError.refused(path: path, refusal: .sameKey)
        }
        // Before the open, which beside a WAL database it cannot write would make a -wal and -shm.
        try FileOperations.requireWritableInPlace(path)
        let opened: OpenedDatabase
        do {
            opened = try DatabaseOpener.open(current, probed: file)
        } catch CipherKitError.cannotDecrypt(let failedPath, let failure) {
            if let report = try alreadyRotated(request, file: file, started: started) { return report }
            throw CipherKitError.cannotDecrypt(path: failedPath, failure: failure)
        }
        let (record, codecs, snapshot) = try prepare(opened, request: request)
        let pass = try RotationPass(path: path, record: record, busyMilliseconds: current.busyTimeoutMilliseconds)
        try pass.requireNoCompanions()
        // A writer between the close and the lock would have written page 1 anew; another
        // rotation would have left it under another key (or poisoned).
        try requireUnchangedPage1(pass, expected: record.oldPage1)
        guard try pass.pageOneOpens(with: codecs.from) else { throw CipherKitError.busy(path: path) }
        try requireRoom(pass)
        try FileOperations.writeNew(pass.recordPath, contents: record.encoded())
        return try finish(pass, codecs: codecs, request: request, expected: snapshot, started: started, token: token)
    }

    /// Reads what the record needs from the open database and closes it: the settings, which
    /// must be the engine's (an HMAC, the salt in the file), every page checked, the snapshot
    /// to compare with at the end, both codecs, and page 1 under each key.
    /// A refusal before the checkpoint leaves the files as the open found them.
    private static func prepare(
        _ opened: OpenedDatabase, request: RekeyRequest
    ) throws -> (RotationRecord, (from: PageCodec, to: PageCodec), DatabaseSnapshot) {
        let path = request.database.path, connection = opened.connection
        connection.setCheckpointOnClose(false)
        let snapshot: DatabaseSnapshot
        do {
            let settings = try CipherKitError.translating(path: path) { try DatabaseInspector.cipherSettings(of: connection) }
            guard settings.useHMAC != false, (settings.plaintextHeaderSize ?? 0) == 0 else { throw CipherKitError.refused(path: path, refusal: .rotationNeedsHMAC) }
            try PageScan.requireUndamaged(opened)
            snapshot = try CipherKitError.translating(path: path) { try DatabaseSnapshot.read(from: connection, countRows: request.fullVerification) }
            try CipherKitError.translating(path: path) { try requireRoomBeforeCheckpoint(connection, path: path) }
        } catch {
            opened.closeRemovingWALFilesItMade()
            throw error
        }
        connection.setCheckpointOnClose(true)
        defer { try? connection.close() }
        if try connection.journalMode() == "wal" {
            try connection.waitUntilNoOtherProcessHoldsIt()
            try connection.checkpointWAL()
        }
        guard let from = try PageCodec(for: opened), from.hasHMAC, let access = DatabaseFileAccess(connection) else {
            throw CipherKitError.refused(path: path, refusal: .rotationNeedsHMAC)
        }
        var target = from.settings.with(\.salt, nil)
        target.kdfIterations = request.newSettings.kdfIterations ?? target.kdfIterations
        target.kdfAlgorithm = request.newSettings.kdfAlgorithm ?? target.kdfAlgorithm
        let chosen = request.newSaltValue ?? request.newSettings.salt
        let salt = request.newSalt || chosen != nil ? chosen ?? KeyDerivation.randomSalt() : from.salt
        let to = try PageCodec(key: request.newKey, salt: salt, settings: target)
        let pageSize = from.pageSize, size = FileOperations.size(of: path) ?? 0
        guard size > 0, size % pageSize == 0 else { throw CipherKitError.refused(path: path, refusal: .rotationNeedsHMAC) }
        var page1 = [UInt8](repeating: 0, count: pageSize), newPage1 = page1
        guard access.read(into: &page1, count: pageSize, at: 0) else {
            throw CipherKitError.fileAccess(path: path, reason: "the file ended or changed while it was read")
        }
        // Read without SQLite's lock: another rotation may have rewritten it since the check.
        guard try page1.withUnsafeBytes({ try from.damagedPages(in: $0, first: 1, count: 1) }).isEmpty else { throw CipherKitError.busy(path: path) }
        _ = try page1.withUnsafeBytes { old in
            try newPage1.withUnsafeMutableBytes { try from.convert(old, first: 1, count: 1, to: to, into: $0) }
        }
        let record = RotationRecord(
            settings: from.settings.with(\.salt, nil), newSettings: to.settings.with(\.salt, nil), pages: size / pageSize, oldPage1: page1, newPage1: newPage1)
        return (record, (from, to), snapshot)
    }

    private static func requireUnchangedPage1(_ pass: RotationPass, expected: [UInt8]) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: expected.count, alignment: 16)
        defer { buffer.deallocate() }
        try pass.read(into: buffer, count: expected.count, at: 0)
        guard Array(buffer) == expected else { throw CipherKitError.busy(path: pass.path) }
    }

    /// The file opened read-only with the new key under the target settings: as given when
    /// they name a version, else each known format's with the new settings over it, since a
    /// rotation keeps the format the file was in (a SQLCipher 3 file given a new KDF count
    /// stays SQLCipher 3's otherwise); nil when none opens it.
    private static func openedWithNewKey(_ request: RekeyRequest, file: DatabaseFile) -> OpenedDatabase? {
        var withNew = request.database
        withNew.key = request.newKey
        withNew.mode = .readOnly
        withNew.leavesFilesAlone = true
        let target = request.newSettings.overriding(request.database.settings)
        let candidates = target.compatibility != nil ? [target] : CipherFormat.searchOrder.map { target.overriding($0.settings) }
        for settings in candidates {
            withNew.settings = settings
            if let opened = try? DatabaseOpener.open(withNew, probed: file) { return opened }
        }
        // Settings only the search finds (a page size, a KDF count the run asked for before).
        guard target.compatibility == nil, !request.database.settings.specifiesFormat else { return nil }
        withNew.settings = request.database.settings
        withNew.searchesSettings = true
        return try? DatabaseOpener.open(withNew, probed: file)
    }

    /// The new key already opens the file and no record is beside it: an earlier run finished.
    /// Every page is proven under the new key again, as at the end of a run.
    ///
    /// - Throws: `CipherKitError.damagedPages` when a page fails its HMAC under the new key.
    private static func alreadyRotated(_ request: RekeyRequest, file: DatabaseFile, started: Date) throws -> RekeyReport? {
        guard let opened = openedWithNewKey(request, file: file),
              let snapshot = try? DatabaseSnapshot.read(from: opened.connection, countRows: false) else { return nil }
        defer { try? opened.connection.close() }
        let settings = (try? DatabaseInspector.cipherSettings(of: opened.connection)) ?? opened.settings
        try PageScan.requireUndamaged(opened)
        var done = report(request, action: .alreadyDone, settings: (settings, settings), snapshot: snapshot, started: started)
        done.verification = VerificationReport(
            integrity: IntegrityReport(cipherProblems: [], sqliteProblems: []), differences: [], oldKeyRejected: true, pagesProven: done.pages,
            fullChecks: false)
        return done
    }
}
