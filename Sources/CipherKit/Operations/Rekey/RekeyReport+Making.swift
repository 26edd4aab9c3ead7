import FoundationEssentials

extension RekeyReport {
    /// The one place a report is put together; its verification, timings and copy method
    /// are set by the step that has them. The size is the file's now; pages are counted in
    /// the page size the file has now (the old one in a dry run: a dry run sets SQLite's
    /// count, which a -wal may hold).
    init(
        action: RekeyAction, request: RekeyRequest, settings: (old: CipherSettings, new: CipherSettings), opened: OpenedDatabase,
        snapshot: DatabaseSnapshot, removedLeftovers: [String]
    ) {
        let path = request.database.path
        let bytes = FileOperations.size(of: path) ?? opened.file.size
        let pageSize = (request.dryRun ? settings.old : settings.new).pageSize ?? 4096
        self.init(
            path: path, action: action, oldSettings: settings.old, newSettings: settings.new, pages: bytes / max(1, pageSize), bytes: bytes,
            seconds: 0, verificationSeconds: 0, verification: nil,
            backupPath: action == .alreadyDone ? nil : request.backupPath, dryRun: request.dryRun, removedLeftovers: removedLeftovers,
            snapshot: snapshot, format: opened.format, formatAttempts: opened.attempts)
    }
}
