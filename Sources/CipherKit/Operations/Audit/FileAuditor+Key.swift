import Foundation

/// The look with a key: the format and settings found, the journal mode, and a full check.
extension FileAuditor {
    static func openWithKey(_ file: DatabaseFile, request: AuditRequest, into audit: inout FileAudit) {
        guard let key = request.key else { return }
        var open = OpenRequest(path: file.path, key: key, settings: request.settings, mode: .readOnly, logLevel: request.logLevel)
        // A WAL database whose -wal and -shm are there is read through them, the -shm
        // read-only; anything else is read as its file alone, so that nothing is created.
        open.untouched = audit.walFile && isRegularFile(file.path + "-shm") ? .throughWAL : .fileAlone
        open.busyTimeoutMilliseconds = request.busyTimeoutMilliseconds
        do {
            let opened = try DatabaseOpener.open(open, probed: file)
            audit.opened = true
            audit.keyKind = key.kind
            audit.settings = try DatabaseInspector.cipherSettings(of: opened.connection)
            audit.formatName = opened.format?.name ?? audit.settings?.compatibility.map { "SQLCipher \($0)" }
            audit.journalMode = journalMode(of: opened) ?? audit.journalMode
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

    /// The journal mode page 1's header records, from page 1 decrypted by the page codec (the
    /// latest version of it, in the WAL when it is there). An immutable connection's
    /// `PRAGMA journal_mode` would not say it.
    private static func journalMode(of opened: OpenedDatabase) -> String? {
        guard let codec = try? PageCodec(for: opened),
              let source = try? PageSource(path: opened.file.path, pageSize: codec.pageSize, access: DatabaseFileAccess(opened.connection)),
              let page = source.page(1), let plain = codec.decrypt(page, pgno: 1), plain.count > 20 else { return nil }
        return journalMode(formatBytes: Array(plain[18...19]))
    }
}
