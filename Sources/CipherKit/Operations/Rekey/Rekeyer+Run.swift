import FoundationEssentials

/// The real run of a planned rekey: out of WAL, the change (in place or by export and
/// replace), the journal mode put back, and the verification.
extension Rekeyer {
    /// A WAL database is checkpointed and left in DELETE mode first (a backup copy of the file
    /// is then whole); the in-place rekey takes WAL mode again for itself. The mark comes
    /// first, so that a run killed in between knows to put WAL back.
    static func run(_ plan: RekeyPlan, token: CancellationToken, progress: (@Sendable (ProgressPhase) -> Void)?) throws -> RekeyReport {
        let connection = plan.opened.connection, path = plan.path
        let currentJournal = try connection.journalMode()
        let originalJournal = plan.leftovers.originalJournal ?? currentJournal
        connection.setCheckpointOnClose(true)
        let walMark = currentJournal == "wal" && plan.leftovers.marks.isEmpty ? try InterruptedRekey.mark(path, journal: "wal") : nil
        let started = Date()
        var snapshot: DatabaseSnapshot
        var copy: DatabaseCopy?
        do {
            try connection.leaveWAL(from: currentJournal)
            (snapshot, copy) = try change(plan, originalJournal: originalJournal, token: token, progress: progress)
        } catch let failed as UncommittedRekey {
            if failed.journalRestored, let walMark { InterruptedRekey.clear(walMark) }
            throw failed.cause
        } catch {
            // After the commit (an export-and-replace's rename) this connection may hold the
            // old, unlinked file: its journal mode is not the database's any more.
            if (error as? CipherKitError)?.isAfterCommit != true, let walMark,
               (try? reopenAndPutJournalBack(plan.request, key: plan.request.database.key, originalJournal, closing: connection)) != nil {
                InterruptedRekey.clear(walMark)
            }
            throw error
        }
        snapshot.journalMode = originalJournal
        plan.leftovers.marks.forEach(InterruptedRekey.clear)
        if let walMark { InterruptedRekey.clear(walMark) }
        let changed = Date()
        defer { progress?(.finished) }
        let verification = try finish(plan, expected: snapshot, pagesProven: copy?.pagesProven, progress: progress)
        var report = RekeyReport(
            action: plan.action, request: plan.request, settings: (plan.oldSettings, plan.newSettings), opened: plan.opened,
            snapshot: snapshot, removedLeftovers: plan.leftovers.removed + plan.leftovers.marks)
        report.verification = verification
        report.seconds = changed.timeIntervalSince(started)
        report.verificationSeconds = Date().timeIntervalSince(changed)
        report.copyMethod = copy?.method
        return report
    }

    /// The change itself, by the plan's path; returns what the database held before it.
    private static func change(
        _ plan: RekeyPlan, originalJournal: String, token: CancellationToken, progress: (@Sendable (ProgressPhase) -> Void)?
    ) throws -> (DatabaseSnapshot, DatabaseCopy?) {
        if plan.action == .exportAndReplace {
            let copy = try exportAndReplace(plan, walCopy: originalJournal == "wal", token: token, progress: progress)
            return (copy.snapshot, copy)
        }
        progress?(.rekeying(watch: plan.path + "-wal", expectedBytes: plan.file.size))
        let snapshot = try rekeyInPlace(
            plan.opened.connection, request: plan.request, originalJournal: originalJournal, opensWith: plan.opensWith, token: token)
        return (snapshot, nil)
    }

    /// Closes the connection and verifies the committed change; any failure now is after the commit.
    private static func finish(
        _ plan: RekeyPlan, expected: DatabaseSnapshot, pagesProven: Int?, progress: (@Sendable (ProgressPhase) -> Void)?
    ) throws -> VerificationReport? {
        do {
            // After export-and-replace this connection holds the old, unlinked file: it must not
            // switch that to WAL, which would make -wal and -shm files under the new file's name.
            try plan.opened.connection.close()
            guard plan.request.verify else { return nil }
            progress?(.verifying)
            return try verify(path: plan.path, request: plan.request, settings: plan.newSettings, expected: expected, pagesProven: pagesProven)
        } catch {
            throw CipherKitError.afterCommit(error, path: plan.path, opensWith: plan.opensWith)
        }
    }
}
