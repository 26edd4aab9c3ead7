import FoundationEssentials

/// What lies beside a database: its -wal, a hot journal, and leftovers of interrupted runs.
extension FileAuditor {
    static func lookBeside(_ path: String, lock: ReaderLock, into audit: inout FileAudit) {
        audit.walFile = FileOperations.isRegularFile(path + "-wal")
        audit.hotJournal = lock.hasHotJournal(beside: path)
        audit.leftovers = TemporaryDatabase.leftovers(beside: path, includingMarks: true)
        audit.halfRotated = RotationRecord.exists(beside: path)
    }
}
