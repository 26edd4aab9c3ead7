import FoundationEssentials
import Glibc

/// The rest of a rotation in constant extra space: going on after an interruption, the pass,
/// the proof, and the record's removal.
extension LowSpaceRotator {
    /// An interrupted rotation finished (or, with `request.undo`, rolled back): the old key
    /// checked against the record's page 1, the file locked; a record whose run wrote no page
    /// is dropped and the rotation starts over; else the new key and settings checked, the
    /// chunk the record saved put back, then the pass.
    static func resume(_ request: RekeyRequest, token: CancellationToken) throws -> RekeyReport {
        let started = Date(), path = request.database.path
        let recordPath = RotationRecord.path(beside: path)
        guard let bytes = FileManager.default.contents(atPath: recordPath).map({ [UInt8]($0) }), let record = RotationRecord.decode(bytes) else {
            throw CipherKitError.halfRotated(path: path, problem: "its progress record cannot be read")
        }
        guard let oldKey = request.database.key else { throw CipherKitError.cannotDecrypt(path: path, failure: .keyRequired) }
        let old = try PageCodec(key: oldKey, salt: Array(record.oldPage1.prefix(16)), settings: record.settings)
        if try !opens(old, record.oldPage1) {
            let swapped = try PageCodec(key: oldKey, salt: Array(record.newPage1.prefix(16)), settings: record.newSettings)
            throw CipherKitError.cannotDecrypt(path: path, failure: .notTheRotationsKey(newSide: false, otherSide: try opens(swapped, record.newPage1)))
        }
        let pass = try RotationPass(path: path, record: record, busyMilliseconds: request.database.busyTimeoutMilliseconds)
        // Page 1 is poisoned before any page is written: under the old key, nothing was, and
        // other programs may have written to the file since. The record is stale.
        if try pass.pageOneOpens(with: old) { return try abandon(pass, request: request, settings: record.settings, token: token) }
        let new = try newCodec(request, record: record)
        // Page 1 goes last, after the rest is synced: under the new key, the rotation was done
        // but for the record's removal, and other programs may have written since.
        let done = try pass.pageOneOpens(with: new)
        if done, request.undo { throw CipherKitError.refused(path: path, refusal: .rotationFinished) }
        if done {
            try pass.adoptFileSize()
        } else {
            try pass.requireNoCompanions()
            try requireRoom(pass)
            do {
                try pass.restoreSavedChunk(old, new)
            } catch {
                throw CipherKitError.halfRotated(path: path, problem: problem(error))
            }
        }
        var report = try finish(pass, codecs: request.undo ? (new, old) : (old, new), request: request, expected: nil, started: started, token: token)
        report.finishedInterrupted = true
        return report
    }

    /// The new side's codec, once the request asks for the recorded run: a salt or KDF asked
    /// for now that differs from it is another change, refused as a wrong setting would be,
    /// and the new key must open the recorded page 1.
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` (`notTheRotationsKey`).
    private static func newCodec(_ request: RekeyRequest, record: RotationRecord) throws -> PageCodec {
        let path = request.database.path, newSalt = Array(record.newPage1.prefix(16))
        let other = CipherKitError.cannotDecrypt(path: path, failure: .notTheRotationsKey(newSide: true, otherSide: false))
        if let asked = request.newSaltValue ?? request.newSettings.salt, asked != newSalt { throw other }
        // A fresh random salt asked of a rotation that keeps the salt is another rotation too.
        if request.newSalt, request.newSaltValue == nil, request.newSettings.salt == nil, newSalt == Array(record.oldPage1.prefix(16)) { throw other }
        if request.newSettings.with(\.salt, nil).overriding(record.newSettings) != record.newSettings { throw other }
        let new = try PageCodec(key: request.newKey, salt: newSalt, settings: record.newSettings)
        if try !opens(new, record.newPage1) {
            let swapped = try PageCodec(key: request.newKey, salt: Array(record.oldPage1.prefix(16)), settings: record.settings)
            throw CipherKitError.cannotDecrypt(path: path, failure: .notTheRotationsKey(newSide: true, otherSide: try opens(swapped, record.oldPage1)))
        }
        return new
    }

    /// Whether a key's codec passes the HMAC of the page 1 it writes: a wrong key changes nothing.
    private static func opens(_ codec: PageCodec, _ page1: [UInt8]) throws -> Bool {
        try page1.withUnsafeBytes { try codec.damagedPages(in: $0, first: 1, count: 1) }.isEmpty
    }

    /// The pass from one codec to the other, the proof of every page, SQLCipher's open, and
    /// the record removed. A failure once a page was written leaves the file half-rotated.
    static func finish(
        _ pass: RotationPass, codecs: (from: PageCodec, to: PageCodec), request: RekeyRequest, expected: DatabaseSnapshot?, started: Date,
        token: CancellationToken
    ) throws -> RekeyReport {
        let path = pass.path
        do {
            try pass.convert(from: codecs.from, to: codecs.to, fresh: expected != nil, threads: max(1, request.threads), token: token)
            try pass.proveEveryPage(codecs.to)
            try pass.forgetSavedChunk()
        } catch {
            throw interrupted(error, pass: pass, fresh: expected != nil, from: codecs.from)
        }
        pass.release()
        let changed = Date()
        let key = request.undo ? request.database.key : request.newKey
        let record = pass.record, settings = request.undo ? record.settings : record.newSettings
        let snapshot: DatabaseSnapshot
        do {
            snapshot = try opensWhole(path, key: key, settings: settings, expected: expected, fully: request.fullVerification)
        } catch {
            throw CipherKitError.halfRotated(path: path, problem: problem(error))
        }
        guard unlink(pass.recordPath) == 0 else {
            throw CipherKitError.halfRotated(path: path, problem: "its record could not be removed: " + String(cString: strerror(errno)))
        }
        do {
            try FileOperations.syncDirectory(of: pass.recordPath)
        } catch {
            throw CipherKitError.afterCommit(error, path: path, opensWith: RekeyReport.opensWith(settings))
        }
        let sides = (old: record.settings.with(\.salt, Array(record.oldPage1.prefix(16))), new: record.newSettings.with(\.salt, Array(record.newPage1.prefix(16))))
        var report = report(request, action: request.undo ? .undone : .lowSpace, settings: request.undo ? (sides.new, sides.old) : sides, snapshot: snapshot,
                            started: started)
        report.seconds = changed.timeIntervalSince(started)
        report.verificationSeconds = Date().timeIntervalSince(changed)
        report.verification = VerificationReport(
            integrity: IntegrityReport(cipherProblems: [], sqliteProblems: []), differences: [], oldKeyRejected: nil,
            pagesProven: pass.record.pages, fullChecks: false)
        return report
    }

    /// The error a failed pass ends with: a fresh run that wrote no page, or whose page 1
    /// still opens under the old key (page 1 is poisoned before any other page is written),
    /// removes its record and ends with the cause (the file is as it was); any other is
    /// half-rotated.
    private static func interrupted(_ error: Error, pass: RotationPass, fresh: Bool, from: PageCodec) -> Error {
        let untouched = !pass.changedDatabase || (try? pass.pageOneOpens(with: from)) == true
        if fresh, untouched, unlink(pass.recordPath) == 0, (try? FileOperations.syncDirectory(of: pass.recordPath)) != nil {
            return error
        }
        return CipherKitError.halfRotated(path: pass.path, problem: problem(error))
    }

    /// A record of a rotation that wrote no page removed; then, unless undoing (which has
    /// nothing to put back), a fresh rotation. Either way the report says it finished one.
    private static func abandon(_ pass: RotationPass, request: RekeyRequest, settings: CipherSettings, token: CancellationToken) throws -> RekeyReport {
        let path = pass.path, started = Date()
        guard unlink(pass.recordPath) == 0 else { throw CipherKitError.fileAccess(path: pass.recordPath, reason: String(cString: strerror(errno))) }
        try FileOperations.syncDirectory(of: pass.recordPath)
        pass.release()
        var report: RekeyReport
        if request.undo {
            let snapshot = try opensWhole(path, key: request.database.key, settings: settings, expected: nil, fully: request.fullVerification)
            report = Self.report(request, action: .undone, settings: (settings, settings), snapshot: snapshot, started: started)
        } else {
            report = try start(request, token: token)
        }
        report.finishedInterrupted = true
        return report
    }

    /// Refuses a pass the disk has no room for: the record grows to its header, a chunk and
    /// the chunk's 16-byte head while chunks are converted.
    ///
    /// - Throws: `CipherKitError.insufficientSpace`.
    static func requireRoom(_ pass: RotationPass) throws {
        let largest = largestRecord(pageSize: pass.record.pageSize)
        let needed = largest - (FileOperations.size(of: pass.recordPath) ?? 0)
        if let available = FileOperations.availableSpace(near: pass.path), available < needed {
            throw CipherKitError.insufficientSpace(path: pass.path, needed: needed, available: available)
        }
    }

    /// The most a record of a file of `pageSize` pages holds: its header, a saved chunk and
    /// the chunk's checksum.
    static func largestRecord(pageSize: Int) -> Int {
        RotationRecord.headerBytes(pageSize: pageSize) + 16 + max(1, PageEngine.chunkBytes / pageSize) * pageSize
    }

    /// Refuses, before the checkpoint changes anything, a disk without room for the record
    /// once the checkpoint has removed the -wal and -shm and appended the pages the file
    /// lacks; `requireRoom` checks again after it.
    static func requireRoomBeforeCheckpoint(_ connection: Connection, path: String) throws {
        guard let available = FileOperations.availableSpace(near: path), let pageSize = try connection.pragmaInteger("page_size"),
              let pages = try connection.pragmaInteger("page_count") else { return }
        let wal = try connection.journalMode() == "wal"
        let freed = wal ? (FileOperations.size(of: path + "-wal") ?? 0) + (FileOperations.size(of: path + "-shm") ?? 0) : 0
        let grown = max(0, pages * pageSize - (FileOperations.size(of: path) ?? 0))
        let needed = largestRecord(pageSize: pageSize) + grown - freed
        if available < needed { throw CipherKitError.insufficientSpace(path: path, needed: needed, available: available) }
    }

    /// What stopped a pass, for the half-rotated error (whose own words say the file changed).
    static func problem(_ error: Error) -> String {
        switch error as? CipherKitError {
        case .cancelled?: return "interrupted"
        case .outOfSpace(let path)?: return "ran out of space writing '\(path)'"
        case let known?: return known.message.replacing("; nothing was changed", with: "")
        case nil: return String(describing: error)
        }
    }

    /// SQLCipher opens the rotated file with `key`, and its schema and header fields are those
    /// recorded before (when they were); `fully`, quick_check passes too and the row counts
    /// match (the pages are proven one by one already, as after a page-engine copy). Returns
    /// what it holds.
    private static func opensWhole(
        _ path: String, key: KeyMaterial?, settings: CipherSettings, expected: DatabaseSnapshot?, fully: Bool
    ) throws -> DatabaseSnapshot {
        try CipherKitError.translating(path: path) {
            let connection = try Connection(path: path, mode: .readWrite)
            defer { try? connection.close() }
            if let key { try connection.key(key) }
            try connection.apply(settings.with(\.compatibility, nil))
            var snapshot = try DatabaseSnapshot.read(from: connection, countRows: fully)
            let check = fully ? try connection.pragmaTexts("quick_check") : ["ok"]
            guard check == ["ok"] else { throw CipherKitError.verificationFailed(path: path, problems: check) }
            if let expected {
                snapshot.journalMode = expected.journalMode
                if !fully { snapshot.rowCounts = expected.rowCounts }
                let differences = snapshot.differences(from: expected)
                guard differences.isEmpty else { throw CipherKitError.verificationFailed(path: path, problems: differences) }
            }
            try connection.close()
            return snapshot
        }
    }

    /// The report of a rotation (or of one found done).
    static func report(
        _ request: RekeyRequest, action: RekeyAction, settings: (old: CipherSettings, new: CipherSettings), snapshot: DatabaseSnapshot, started: Date
    ) -> RekeyReport {
        let path = request.database.path, bytes = FileOperations.size(of: path) ?? 0
        return RekeyReport(
            path: path, action: action, oldSettings: settings.old, newSettings: settings.new, pages: bytes / max(1, settings.new.pageSize ?? 4096),
            bytes: bytes,
            seconds: Date().timeIntervalSince(started), verificationSeconds: 0, verification: nil, backupPath: nil, dryRun: false,
            removedLeftovers: [], snapshot: snapshot, format: nil, formatAttempts: 1)
    }
}
