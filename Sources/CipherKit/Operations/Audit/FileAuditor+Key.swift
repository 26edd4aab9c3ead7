import Foundation

/// The look with a key: the format and settings found, the journal mode, and a full check.
extension FileAuditor {
    static func openWithKey(_ file: DatabaseFile, request: AuditRequest, into audit: inout FileAudit) {
        guard let key = request.key else { return }
        var open = OpenRequest(path: file.path, key: key, settings: request.settings, mode: .readOnly, logLevel: request.logLevel)
        // A WAL database whose -wal and -shm are there is read through them, the -shm
        // read-only; anything else is read as its file alone (a hot journal too: its half
        // transaction is reported, not rolled back), under the auditor's reader lock.
        open.untouched = audit.walFile && FileOperations.isRegularFile(file.path + "-shm") ? .throughWAL : .fileAlone
        open.busyTimeoutMilliseconds = request.busyTimeoutMilliseconds
        do {
            let opened = try DatabaseOpener.open(open, probed: file)
            audit.opened = true
            audit.keyKind = key.kind
            audit.settings = try DatabaseInspector.cipherSettings(of: opened.connection)
            audit.formatName = opened.format?.name ?? audit.settings?.compatibility.map { "SQLCipher \($0)" }
            audit.journalMode = opened.headerRecordsWAL.map { $0 ? "wal" : "rollback" } ?? audit.journalMode
            // Under a hot journal the file holds half a transaction until it is rolled back:
            // checking it would report that half as damage.
            if request.checksIntegrity, !audit.hotJournal {
                let report = try IntegrityReport.run(on: opened)
                audit.integrityProblems = report.problems
            }
        } catch let error as CipherKitError {
            audit.opened = false
            audit.failure = error.reason
            audit.problem = error.message
        } catch {
            audit.opened = false
            audit.failure = .sqliteError
            audit.problem = String(describing: error)
        }
    }
}
