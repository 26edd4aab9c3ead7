import Foundation

extension RekeyReport {
    /// The one place a report is put together. The size is the file's now; pages are
    /// counted in the page size the file has now (the old one in a dry run), unless
    /// `committedPages` gives SQLite's count (a dry run's, which a -wal may hold).
    init(
        action: RekeyAction, request: RekeyRequest, settings: (old: CipherSettings, new: CipherSettings), opened: OpenedDatabase,
        snapshot: DatabaseSnapshot, verification: VerificationReport?, removedLeftovers: [String],
        seconds: Double = 0, verificationSeconds: Double = 0, copyMethod: CopyMethod? = nil, committedPages: Int? = nil
    ) {
        let path = request.database.path
        let bytes = FileOperations.size(of: path) ?? opened.file.size
        let pageSize = (request.dryRun ? settings.old : settings.new).pageSize ?? 4096
        self.init(
            path: path, action: action, oldSettings: settings.old, newSettings: settings.new, pages: committedPages ?? bytes / max(1, pageSize), bytes: bytes,
            seconds: seconds, verificationSeconds: verificationSeconds, verification: verification,
            backupPath: action == .alreadyDone ? nil : request.backupPath, dryRun: request.dryRun, removedLeftovers: removedLeftovers,
            snapshot: snapshot, format: opened.format, formatAttempts: opened.attempts, copyMethod: copyMethod)
    }
}
