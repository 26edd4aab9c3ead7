import FoundationEssentials

extension Rekeyer {
    /// The report for a database that the new key already opens with the target settings
    /// (an earlier run did the work, or was killed after its commit); nil when the new key
    /// does not open it.
    ///
    /// Nothing is rewritten. A journal mode that an interrupted run left (its mark says
    /// which) is put back and the marks are removed, unless this is a dry run; then the
    /// database is verified as a rekey would be, against what it holds now.
    /// `searching` lets the new key's open search for the settings when no known format fits.
    /// `derived` holds the new key already derived under the file's salt, by KDF parameters.
    static func alreadyDone(
        _ request: RekeyRequest, file: DatabaseFile, leftovers: RekeyLeftovers, searching: Bool,
        derived: [KeyDerivation.Parameters: KeyMaterial] = [:]
    ) throws -> RekeyReport? {
        guard let opened = try openWithNewKey(request, file: file, searching: searching, derived: derived) else { return nil }
        return try alreadyDone(request, file: file, leftovers: leftovers, opened: opened)
    }

    /// The same, for the database the new key has already opened (`opened`).
    static func alreadyDone(_ request: RekeyRequest, file: DatabaseFile, leftovers: RekeyLeftovers, opened: OpenedDatabase) throws -> RekeyReport {
        let path = request.database.path, marks = leftovers.marks
        let connection = opened.connection
        try PageScan.requireUndamaged(opened)
        let (settings, snapshot) = try CipherKitError.translating(path: path, file: file) {
            let settings = try DatabaseInspector.cipherSettings(of: connection)
            if !request.dryRun { try connection.putJournalBack(marks: marks) }
            try connection.execute("BEGIN")
            let snapshot = try DatabaseSnapshot.read(from: connection, countRows: request.verify)
            try connection.execute("ROLLBACK")
            try connection.close()
            return (settings, snapshot)
        }
        marks.forEach(InterruptedRekey.clear)
        let started = Date()
        var effective = request
        if let key = opened.key { effective.newKey = key }
        // The old key has already failed here (with the settings search when it could help);
        // checking that it is refused need not search again.
        effective.database.searchesSettings = false
        let sameKey = request.database.key.map(request.newKey.hasSameSecret) ?? false
        let verification = request.verify && !request.dryRun
            ? try verify(path: path, request: effective, settings: settings, expected: snapshot, checkOldKey: !sameKey) : nil
        var report = RekeyReport(
            action: .alreadyDone, request: request, settings: (settings, settings), opened: opened, snapshot: snapshot,
            removedLeftovers: leftovers.removed + marks)
        report.verification = verification
        report.verificationSeconds = Date().timeIntervalSince(started)
        report.finishedInterrupted = !marks.isEmpty
        return report
    }

    /// Opens the database with the new key and each set of settings the target may be;
    /// nil when none opens it.
    private static func openWithNewKey(
        _ request: RekeyRequest, file: DatabaseFile, searching: Bool, derived: [KeyDerivation.Parameters: KeyMaterial]
    ) throws -> OpenedDatabase? {
        var withNewKey = newKeyRequest(request, searching: searching)
        withNewKey.derivedKeys = derived
        for settings in newKeyCandidates(request) {
            withNewKey.settings = settings
            do {
                let opened = try DatabaseOpener.open(withNewKey, probed: file)
                return acceptsNewKeyOpen(opened, request: request, file: file) ? opened : nil
            } catch CipherKitError.cannotDecrypt {
                continue
            }
        }
        return nil
    }

    /// How the new key's open reads the database (its settings come from `newKeyCandidates`).
    static func newKeyRequest(_ request: RekeyRequest, searching: Bool) -> OpenRequest {
        var withNewKey = request.database
        withNewKey.key = request.newKey
        // Keys derived from the old key's passphrase are not the new key's.
        withNewKey.derivedKeys = [:]
        withNewKey.searchesSettings = searching
        withNewKey.mode = request.dryRun ? .readOnly : .readWrite
        withNewKey.leavesFilesAlone = request.dryRun
        withNewKey.coalescedIO = false
        return withNewKey
    }

    /// The settings the new key's open tries, in turn: the ones given (no format named: the
    /// open finds it), or each known format under the settings given.
    static func newKeyCandidates(_ request: RekeyRequest) -> [CipherSettings] {
        var given = request.newSettings.overriding(request.database.settings)
        // A header keeps the salt outside the file: the one the command names is the key's.
        if (given.plaintextHeaderSize ?? 0) > 0, given.salt == nil { given.salt = request.newSaltValue }
        return !given.specifiesFormat || given.compatibility != nil ? [given] : CipherFormat.searchOrder.map { given.overriding($0.settings) }
    }

    /// Whether what the new key opened is the target: a salt the command names must be the
    /// file's. Closes the connection when it is not.
    static func acceptsNewKeyOpen(_ opened: OpenedDatabase, request: RekeyRequest, file: DatabaseFile) -> Bool {
        if let wanted = request.newSaltValue, (opened.settings.plaintextHeaderSize ?? 0) == 0, file.firstBytes != wanted {
            try? opened.connection.close()
            return false
        }
        return true
    }

    /// Whether two complete settings write the same format (salt included where the target names one).
    static func sameFormat(_ target: CipherSettings, _ old: CipherSettings) -> Bool {
        let new = target.effective, now = old.effective
        let hmac = now.useHMAC != false
        return new.pageSize == now.pageSize && new.kdfIterations == now.kdfIterations && new.kdfAlgorithm == now.kdfAlgorithm
            && new.useHMAC == now.useHMAC && (!hmac || new.hmacAlgorithm == now.hmacAlgorithm)
            && (new.hmacPageNumber ?? .littleEndian) == (now.hmacPageNumber ?? .littleEndian)
            && (!hmac || (new.hmacSaltMask ?? SaltMaskGate.defaultMask) == (now.hmacSaltMask ?? SaltMaskGate.defaultMask))
            && (new.fastKDFIterations ?? 2) == (now.fastKDFIterations ?? 2)
            && (new.plaintextHeaderSize ?? 0) == (now.plaintextHeaderSize ?? 0)
            && (new.salt == nil || now.salt == nil || new.salt == now.salt)
    }
}
