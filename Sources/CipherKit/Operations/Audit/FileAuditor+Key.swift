import FoundationEssentials

/// The look with a key: the format and settings found, the journal mode, and a full check.
extension FileAuditor {
    static func openWithKey(_ file: DatabaseFile, request: AuditRequest, into audit: inout FileAudit) {
        guard let key = request.key else { return }
        var open = OpenRequest(path: file.path, key: key, settings: request.settings, mode: .readOnly, logLevel: request.logLevel)
        // The last committed state, whatever lies beside the file (`SnapshotVFS`), under the
        // auditor's reader lock: a -wal with or without its -shm, a hot journal rolled back
        // in memory (the journal is still reported as a finding).
        open.untouched = .lockedSnapshot
        open.busyTimeoutMilliseconds = request.busyTimeoutMilliseconds
        // The check reports a -wal's dropped commits among its problems.
        open.readsPastDroppedCommits = request.checksIntegrity
        do {
            let opened = try DatabaseOpener.open(open, probed: file)
            audit.opened = true
            audit.keyKind = key.kind
            if audit.kind == .encrypted { audit.kind = .sqlcipher }
            audit.settings = try DatabaseInspector.cipherSettings(of: opened.connection)
            audit.formatName = opened.format?.name ?? audit.settings?.compatibility.map { "SQLCipher \($0)" }
            audit.journalMode = opened.headerRecordsWAL.map { $0 ? "wal" : "rollback" } ?? audit.journalMode
            if request.checksIntegrity {
                let report = try IntegrityReport.run(on: opened)
                audit.integrityProblems = report.problems
            }
        } catch CipherKitError.cannotDecrypt(_, .otherFamilyTheKeyOpens(let scheme)) {
            // A file of another family the key opens (sqleet's looks random): reported as one
            // whose header shows it, key and all.
            audit.kind = .sqlite3mc
            audit.problem = "SQLCipher cannot read it: " + scheme + ", which the key opens" + (request.checksIntegrity ? "; not checked" : "")
        } catch let error as CipherKitError {
            audit.opened = false
            audit.failure = error.reason
            audit.problem = error.message
            // A half-rotated file whose record is gone shows only to its old key.
            if case .halfRotated = error { audit.halfRotated = true }
            // A damaged page is one the key decrypted others beside, and a rotation's mark on
            // page 1 (its record gone) one the key proved: the file is SQLCipher's. With the
            // record beside it, no key was tried.
            if audit.kind == .encrypted, error.reason == .damaged || provesMark(error) { audit.kind = .sqlcipher }
        } catch {
            audit.opened = false
            audit.failure = .sqliteError
            audit.problem = String(describing: error)
        }
    }

    /// With the key of a file whose header shows SQLite3 Multiple Ciphers' family: the scheme
    /// the key opens it in, or, where the reserved bytes name schemes cipherctl can try, that
    /// the key opens it in none of them (a finding, as for any file the key does not open).
    static func tryKeyOfOtherFamily(_ file: DatabaseFile, request: AuditRequest, into audit: inout FileAudit) {
        guard let key = request.key, audit.kind == .sqlite3mc else { return }
        if let opened = DatabaseOpener.schemeTheKeyOpens(file, key: key, settings: request.settings) {
            // Its pages are not read here: export checks every tag as it converts the file.
            audit.problem = "SQLCipher cannot read it: " + opened + ", which the key opens" + (request.checksIntegrity ? "; not checked" : "")
            return
        }
        let tried: String
        switch file.reservedBytes {
        case 0?: tried = "wxSQLite3's AES-128 or AES-256"
        case 32?: tried = "ChaCha20, under its defaults or the cipher options given (an Ascon-128 file, which the same reserved bytes show, cannot be tried)"
        case 48?, 64?, 80?:
            tried = "SQLite3 Multiple Ciphers' SQLCipher scheme, under its defaults or the cipher options given (an AEGIS file, which the same reserved bytes can show, cannot be tried)"
        default: return
        }
        audit.opened = false
        audit.failure = .wrongKey
        audit.problem = "no key given opens it as " + tried
    }

    /// Whether `error` is a half rotation the key itself showed (its mark on page 1).
    private static func provesMark(_ error: CipherKitError) -> Bool {
        if case .halfRotated(_, let problem) = error { return problem != nil }
        return false
    }
}
