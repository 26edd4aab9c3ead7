import FoundationEssentials

/// The export-and-replace path of a rekey that changes settings or salt, and the
/// verification both paths end with.
extension Rekeyer {
    /// Holds a RESERVED lock (readers may go on, writers wait) while a verified copy with
    /// the new key and settings is written and renamed over the original.
    static func exportAndReplace(
        _ plan: RekeyPlan, walCopy: Bool, token: CancellationToken, progress: (@Sendable (ProgressPhase) -> Void)?
    ) throws -> DatabaseCopy {
        let (connection, request, file, settings, path) = (plan.opened.connection, plan.request, plan.file, plan.newSettings, plan.path)
        try connection.execute("BEGIN IMMEDIATE")
        defer { if !connection.isAutocommit { try? connection.execute("ROLLBACK") } }
        let temporary = TemporaryDatabase.path(beside: path)
        do {
            var source = request.database
            source.mode = .readOnly
            progress?(.copying(watch: temporary, expectedBytes: file.size))
            let target = CopyTarget(
                path: temporary, key: request.newKey, settings: settings, wal: walCopy, countRows: request.verify,
                fullVerification: request.fullVerification, threads: request.threads, reportedPath: path)
            let copy = try DatabaseCopier.copy(source, file: file, to: target, token: token)
            if request.verify, copy.needsFullChecks(asked: request.fullVerification) {
                progress?(.verifying)
                let report = try DatabaseCopier.verify(
                    at: temporary, key: copy.destinationKey, settings: settings, expected: copy.snapshot, logLevel: source.logLevel,
                    fullIntegrity: request.fullVerification)
                if !report.isOK { throw CipherKitError.verificationFailed(path: path, problems: report.problems) }
            }
            try FileOperations.copyPermissions(from: path, to: temporary)
            if let backup = request.backupPath {
                try FileOperations.createLink(from: path, to: backup)
            }
            try token.check(path)
            let unlinksOriginal = request.backupPath == nil && FileOperations.linkCount(of: path) == 1
            try FileOperations.move(temporary, to: path, replace: true)
            do {
                try FileOperations.syncDirectory(of: path)
            } catch {
                throw CipherKitError.afterCommit(error, path: path, opensWith: plan.opensWith)
            }
            if unlinksOriginal { retireReplaced(connection, pageSize: copy.pageSize) }
            return copy
        } catch {
            FileOperations.removeDatabase(temporary)
            throw CipherKitError.namingOutOfSpace(error, writing: path)
        }
    }

    /// The replaced file, unlinked now, may still be open in another process, which would go on
    /// reading it and writing to it, its writes lost without a word. Its first page is
    /// overwritten with random bytes, so that such a process fails at its next transaction
    /// instead (SQLite reads page 1 again when the file's header changed). Only for a file
    /// that no other name (a backup, a hard link) keeps.
    private static func retireReplaced(_ connection: Connection, pageSize: Int) {
        var generator = SystemRandomNumberGenerator()
        // Eight bytes a call to the generator (one system call each), not one.
        let words = (0..<max(512, pageSize) / 8).map { _ in generator.next() }
        let noise = words.withUnsafeBytes { Array($0) }
        _ = DatabaseFileAccess(connection)?.write(noise, at: 0)
    }

    /// Reopens the database with the new key and checks it; then makes sure the old key fails.
    /// `checkOldKey` false skips that last step, for a key and settings that did not change.
    /// `pagesProven` (a page-engine copy, without the full checks asked for) makes the
    /// reopen a plain open with the new key: the pages and schema were proven before the rename.
    static func verify(
        path: String, request: RekeyRequest, settings: CipherSettings, expected: DatabaseSnapshot, checkOldKey: Bool = true,
        pagesProven: Int? = nil
    ) throws -> VerificationReport {
        var report: VerificationReport
        do {
            if let pages = pagesProven, !request.fullVerification {
                var request = OpenRequest(
                    path: path, key: request.newKey, settings: openSettings(settings), mode: .readOnly, logLevel: request.database.logLevel)
                request.untouched = .snapshot
                try DatabaseOpener.open(request).connection.close()
                report = .proven(pages: pages)
            } else {
                report = try DatabaseCopier.verify(
                    at: path, key: request.newKey, settings: openSettings(settings), expected: expected, logLevel: request.database.logLevel,
                    fullIntegrity: request.fullVerification)
                report.pagesProven = pagesProven
            }
        } catch CipherKitError.cannotDecrypt {
            return VerificationReport(
                integrity: IntegrityReport(cipherProblems: [], sqliteProblems: []),
                differences: ["the new key does not open the database: the rekey did not take effect (another process may hold it open)"],
                oldKeyRejected: nil)
        }
        var result = report
        guard checkOldKey else { return result }
        var withOldKey = request.database
        withOldKey.mode = .readOnly
        withOldKey.untouched = .snapshot
        // The old key is expected to fail: SQLCipher's own lines about it are no news.
        withOldKey.logLevel = .none
        do {
            _ = try DatabaseOpener.open(withOldKey)
            result.oldKeyRejected = false
        } catch CipherKitError.cannotDecrypt {
            result.oldKeyRejected = true
        }
        return result
    }

    /// The settings to open the rekeyed database with: the ones written, without a salt the
    /// file itself holds.
    static func openSettings(_ settings: CipherSettings) -> CipherSettings {
        var open = settings
        if (settings.plaintextHeaderSize ?? 0) == 0 { open.salt = nil }
        return open
    }
}
