import CSQLCipher
import FoundationEssentials
import Glibc

/// Changes the key (and, on request, the cipher settings or salt) of an encrypted database,
/// and proves the result.
///
/// A change of settings or salt, a database in the SQLCipher 1 or 2 format, and a key-only
/// change that the page engine can copy into a file that is the same to everyone who names it,
/// go through `DatabaseCopier`: a verified copy is renamed over the original
/// (`exportAndReplace`). Any other key-only change runs in place: the database is held with an
/// exclusive lock while its schema, header fields and row counts are recorded, and
/// re-encrypted by `sqlite3_rekey_v2` in one transaction through the WAL, then checkpointed
/// and put back in its journal mode (`rekeyInPlace`). Either way a SIGKILL at any instant
/// leaves a database that opens with exactly one of the two keys.
///
/// `sqlite3_rekey_v2` answers OK even when it changed nothing, so success is only what the
/// verification proves: the new key opens the file, the integrity checks pass, the schema,
/// header fields and row counts match, and the old key no longer opens it.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#rekey
public enum Rekeyer {
    /// `progress` hears each phase of the work (never for a dry run).
    ///
    /// - Throws: `CipherKitError` (`refused`, `cannotDecrypt`, `damagedPages`, `busy`,
    ///   `insufficientSpace`, `outOfSpace`, `verificationFailed`, `cancelled`,
    ///   `failedAfterCommit`, …); the file is unchanged whenever it throws before the commit.
    public static func rekey(
        _ request: RekeyRequest, token: CancellationToken = CancellationToken(), progress: (@Sendable (ProgressPhase) -> Void)? = nil
    ) throws -> RekeyReport {
        // A rotation in place, or one interrupted, goes its own way (no copy, no journal).
        if request.lowSpace, !request.dryRun { return try LowSpaceRotator.rotate(request, token: token) }
        let request = request.namingBackup()
        let path = request.database.path
        // A rekey killed while the database was not in its own journal mode left a mark that
        // says which mode to put back (`InterruptedRekey`).
        let leftovers = RekeyLeftovers.collect(beside: path, dryRun: request.dryRun, told: request.leftoverRemoved)
        var current = request.database
        if request.dryRun {
            // A dry run only looks, as `open` does: a hot journal rolled back in memory, no
            // -wal or -shm made (`SnapshotVFS`).
            current.mode = .readOnly
            current.leavesFilesAlone = true
        } else {
            current.mode = .readWrite
            // Large reads and writes while the database is held EXCLUSIVE (the in-place rekey).
            current.coalescedIO = true
        }
        let file: DatabaseFile
        do {
            file = try precheck(request, current: current)
        } catch CipherKitError.cannotDecrypt(_, .plaintextHeader) where request.newSaltValue != nil {
            // A header the current settings cannot read: an earlier run may have moved the
            // file to it, under the salt this command names.
            guard let report = try alreadyDone(request, file: try DatabaseFile.probe(path), leftovers: leftovers, searching: false) else { throw CipherKitError.cannotDecrypt(path: path, failure: .plaintextHeader) }
            return report
        }
        if request.dryRun { try waitLikeTheRealRun(request) }
        let speculative = speculativeNewKey(request, current: current, file: file)
        let opened: OpenedDatabase
        switch try openCurrent(request, current: current, file: file, leftovers: leftovers, speculative: speculative) {
        case .opened(let database): opened = database
        case .alreadyDone(let report): return report
        }
        // Until the first change, closing must not checkpoint a WAL (a dry run, a refusal).
        opened.connection.setCheckpointOnClose(false)
        guard let plan = try refusing(opened, { try plan(request, opened: opened, leftovers: leftovers, speculative: speculative) }) else {
            // The same key and the settings the file already has: the migration is done.
            try opened.connection.close()
            guard let report = try alreadyDone(request, file: file, leftovers: leftovers, searching: true) else {
                throw CipherKitError.cannotDecrypt(path: path, failure: .wrongKeyOrSettings)
            }
            return report
        }
        try refusing(opened) { try requireRoom(for: plan) }
        return try CipherKitError.translating(path: path, file: file) {
            request.dryRun ? try dryRun(plan) : try run(plan, token: token, progress: progress)
        }
    }

    /// What opening the database with its current key came to.
    private enum CurrentOpen {
        case opened(OpenedDatabase)
        /// The current key does not open it, and an earlier run already did the work.
        case alreadyDone(RekeyReport)
    }

    /// Opens the database with its current key; when that fails, an earlier run (perhaps
    /// killed after its commit) may have done the work, so the new key is tried. The known
    /// formats come first for both keys, so that a rerun on a rekeyed file costs no settings
    /// search; then one settings search for both keys at once (`searchBothKeys`). When neither
    /// opens the file, the current key was wrong. The new key's speculative derivation, when
    /// there is one, stands in for the new key's SQLCipher 4 try.
    private static func openCurrent(
        _ request: RekeyRequest, current: OpenRequest, file: DatabaseFile, leftovers: RekeyLeftovers, speculative: PendingKey?
    ) throws -> CurrentOpen {
        var known = current
        known.searchesSettings = false
        do {
            return .opened(try DatabaseOpener.open(known, probed: file))
        } catch CipherKitError.cannotDecrypt(let failedPath, let failure) {
            // Derived under the salt and KDF settings the new key's open uses (`speculativeNewKey`).
            let derived = (try? speculative?.value()).map { [KeyDerivation.parameters(for: current.settings): $0] } ?? [:]
            if let report = try alreadyDone(request, file: file, leftovers: leftovers, searching: false, derived: derived) {
                return .alreadyDone(report)
            }
            guard let found = try searchBothKeys(request, current: current, file: file, leftovers: leftovers) else {
                throw CipherKitError.cannotDecrypt(path: failedPath, failure: failure)
            }
            return found
        }
    }

    /// The settings search for the current key and the new one (a rerun over a file an earlier
    /// run rotated) in one pass: both keys' PBKDF2 chains share the cores, so a wrong key costs
    /// one search's pass over the cores, not two searches one after the other. Nil when
    /// neither key opens the file.
    private static func searchBothKeys(
        _ request: RekeyRequest, current: OpenRequest, file: DatabaseFile, leftovers: RekeyLeftovers
    ) throws -> CurrentOpen? {
        var requests: [OpenRequest] = []
        if current.searchesSettings { requests.append(current) }
        // The new key's open searches only where it names no format (one candidate).
        let candidates = newKeyCandidates(request), newKeyIndex = requests.count
        if candidates.count == 1 {
            var withNewKey = newKeyRequest(request, searching: true)
            withNewKey.settings = candidates[0]
            requests.append(withNewKey)
        }
        guard let (index, opened) = try DatabaseOpener.searchSettings(requests, file: file) else { return nil }
        guard index == newKeyIndex else { return .opened(opened) }
        guard acceptsNewKeyOpen(opened, request: request, file: file) else { return nil }
        return .alreadyDone(try alreadyDone(request, file: file, leftovers: leftovers, opened: opened))
    }

    /// Checks the file and the request before any key is tried; returns the file's probe.
    private static func precheck(_ request: RekeyRequest, current: OpenRequest) throws -> DatabaseFile {
        let path = current.path
        let probed = try DatabaseFile.probe(path)
        if probed.kind == .plaintext { throw CipherKitError.refused(path: path, refusal: .plaintextSource) }
        let file = try DatabaseOpener.precheck(current, probed: probed)
        guard let currentKey = current.key else { throw CipherKitError.cannotDecrypt(path: path, failure: .keyRequired) }
        try request.newSettings.validate()
        try request.newSettings.validateSalt(against: request.newKey)
        if !changesSettings(request), request.newKey.hasSameSecret(as: currentKey) {
            throw CipherKitError.refused(path: path, refusal: .sameKey)
        }
        if let backup = request.backupPath, FileOperations.exists(backup) {
            throw CipherKitError.fileExists(path: backup)
        }
        // Before the open: a read-write open of a file it cannot write is read-only, and
        // beside a WAL database it makes a -wal and -shm that the refusal would leave.
        try FileOperations.requireWritableDirectory(for: path, purpose: "the journal or the new copy goes there")
        try FileOperations.requireWritableFiles(of: path)
        return file
    }

    static func changesSettings(_ request: RekeyRequest) -> Bool {
        !request.newSettings.isEmpty || request.newSalt
    }

    /// The new key, derived on another core while the current one is, when the rekey will be
    /// in place (same salt, same KDF settings); nil when that cannot be known yet.
    private static func speculativeNewKey(_ request: RekeyRequest, current: OpenRequest, file: DatabaseFile) -> PendingKey? {
        guard request.deriveConcurrently, !changesSettings(request), (current.settings.compatibility ?? 4) >= 3,
              current.key?.kind == .passphrase, request.newKey.kind != .rawKeyWithSalt,
              let salt = file.salt(under: current.settings), salt.count == 16 else { return nil }
        let newKey = request.newKey, settings = current.settings
        return PendingKey { try KeyDerivation.rawKey(for: newKey, salt: salt, settings: settings) }
    }

    /// Refuses a move to a plaintext header under a salt the user never chose: the file would
    /// keep its salt outside itself, and the user would not have it.
    private static func requireKnownSaltForAHeader(_ request: RekeyRequest, old: CipherSettings) throws {
        guard (old.plaintextHeaderSize ?? 0) == 0 else { return }
        var chosen = request.newSettings
        chosen.salt = chosen.salt ?? request.newSaltValue
        try chosen.requireKeptSalt(key: request.newKey, path: request.database.path)
    }

    /// Decides the path and the settings, checks every page, and settles the keys; nil when
    /// the file already has the new key and the target settings.
    private static func plan(
        _ request: RekeyRequest, opened: OpenedDatabase, leftovers: RekeyLeftovers, speculative: PendingKey?
    ) throws -> RekeyPlan? {
        let path = request.database.path
        let oldSettings = try CipherKitError.translating(path: path) { try DatabaseInspector.cipherSettings(of: opened.connection) }
        let oldFormat = oldSettings.compatibility.map { $0 <= 2 } ?? false
        let saltChanges = request.newKey.kind == .rawKeyWithSalt && request.newKey.salt != oldSettings.salt
        let keyOnly = !(changesSettings(request) || oldFormat || saltChanges)
        if request.inPlace, !keyOnly { throw CipherKitError.refused(path: path, refusal: .changeNeedsCopy) }
        let byCopy = !keyOnly || (!request.inPlace && !leftovers.interruptedInPlace && engineCopyKeepsTheFile(opened))
        let action: RekeyAction = byCopy ? .exportAndReplace : .inPlace
        if request.newSalt, (oldSettings.plaintextHeaderSize ?? 0) > 0 {
            throw CipherKitError.refused(path: path, refusal: .newSaltOutsideFile)
        }
        let newSettings = keyOnly ? oldSettings : try targetSettings(for: request, old: oldSettings)
        try requireKnownSaltForAHeader(request, old: oldSettings)
        let saltStays = !request.newSalt || (request.newSaltValue != nil && request.newSaltValue == oldSettings.salt)
        if let currentKey = request.database.key, request.newKey.hasSameSecret(as: currentKey), saltStays, sameFormat(newSettings, oldSettings) {
            return nil
        }
        // Every page is checked before anything changes: SQLite would find damage only
        // half-way through, with the file already changed. (`alreadyDone` checks its own.) A
        // copy out of a database not in WAL mode changes nothing before its rename, and checks
        // every page itself first, whichever path writes it; a WAL database is checkpointed
        // out of WAL mode before it is copied, so it is checked here.
        let journal = try CipherKitError.translating(path: path) { try opened.connection.journalMode() }
        let copiesUnchanged = action == .exportAndReplace && !request.dryRun && journal != "wal"
        if !copiesUnchanged { try PageScan.requireUndamaged(opened, tornWALTailExpected: !leftovers.marks.isEmpty) }
        var plan = RekeyPlan(
            request: request, opened: opened, action: action, keyOnly: keyOnly, oldSettings: oldSettings, newSettings: newSettings,
            leftovers: leftovers)
        plan.request.database.key = opened.key
        plan.request.database.settings = opened.settings
        plan.request.newKey = try newRawKey(plan, given: request, speculative: speculative)
        return plan
    }

    /// The new key as the work uses it: derived once, here, when the current passphrase was
    /// (the speculative derivation when its salt and KDF settings held), else as given.
    private static func newRawKey(_ plan: RekeyPlan, given request: RekeyRequest, speculative: PendingKey?) throws -> KeyMaterial {
        guard plan.opened.key?.kind == .rawKeyWithSalt, request.database.key?.kind == .passphrase, let salt = plan.newSettings.salt else {
            return request.newKey
        }
        let sameDerivation = KeyDerivation.parameters(for: request.database.settings) == KeyDerivation.parameters(for: plan.opened.settings)
        if plan.keyOnly, sameDerivation, let speculative {
            // Same salt and KDF settings as the old key, whose raw form just opened the file.
            return try speculative.value()
        }
        return try KeyDerivation.rawKey(for: request.newKey, salt: salt, settings: plan.newSettings)
    }

    /// Whether a key-only change may go through the page engine, as a copy renamed over the
    /// file: the engine reads this database, and the copy would be the same file to everyone
    /// who names it (`FileOperations.isReplaceableByCopy`). Otherwise it runs in place.
    private static func engineCopyKeepsTheFile(_ opened: OpenedDatabase) -> Bool {
        guard FileOperations.isReplaceableByCopy(opened.file.path), let codec = try? PageCodec(for: opened) else { return false }
        return opened.file.size > 0 && opened.file.size % codec.pageSize == 0
    }

    /// Refuses, before anything starts, a change whose WAL or copy would not fit: on the disk,
    /// under the file-size limit (`sqlite3_rekey_v2` answers OK when its WAL cannot be
    /// written). A directory or file that cannot be written was refused before the open
    /// (`precheck`).
    private static func requireRoom(for plan: RekeyPlan) throws {
        let path = plan.path, (pages, pageSize) = try plan.databasePages()
        let written = plan.bytesWritten(pages: pages, pageSize: pageSize), needed = plan.roomNeeded(pages: pages, pageSize: pageSize)
        if let available = FileOperations.availableSpace(near: path), available < needed {
            throw CipherKitError.insufficientSpace(path: path, needed: needed, available: available)
        }
        if let limit = FileOperations.fileSizeLimit(), limit < written {
            throw CipherKitError.outOfSpace(path: plan.action == .inPlace ? path + "-wal" : path)
        }
    }

    /// A dry run waits, as the real run does for its EXCLUSIVE lock (and to leave WAL mode),
    /// while another process holds the database, up to the busy timeout; then it is busy too.
    /// Looked at before the dry run's own read lock, which the test would see.
    private static func waitLikeTheRealRun(_ request: RekeyRequest) throws {
        try FileOperations.waitUntilNotShared(request.database.path, milliseconds: request.database.busyTimeoutMilliseconds)
    }

    /// Everything the real run would check, and nothing changed: the dry run's connection
    /// only reads (`SnapshotVFS`), and other processes were waited for before it opened.
    private static func dryRun(_ plan: RekeyPlan) throws -> RekeyReport {
        let connection = plan.opened.connection
        try connection.execute("BEGIN")
        let snapshot = try DatabaseSnapshot.read(from: connection)
        let pages = try connection.pragmaInteger("page_count")
        try connection.execute("ROLLBACK")
        var report = RekeyReport(
            action: plan.action, request: plan.request, settings: (plan.oldSettings, plan.newSettings), opened: plan.opened,
            snapshot: snapshot, removedLeftovers: plan.leftovers.removed)
        if let pages { report.pages = pages }
        return report
    }

    /// The full settings of the new database: the old ones, or the defaults of the compatibility asked for, with the changes on top.
    static func targetSettings(for request: RekeyRequest, old: CipherSettings) throws -> CipherSettings {
        var base = old
        if let version = request.newSettings.compatibility {
            guard var defaults = CipherSettings.defaults(forCompatibility: version) else { throw CipherSettingsError.compatibility(version) }
            defaults.compatibility = version
            defaults.plaintextHeaderSize = old.plaintextHeaderSize
            defaults.salt = old.salt
            base = defaults
        }
        var target = request.newSettings.overriding(base)
        if request.newSalt { target.salt = request.newSaltValue ?? KeyDerivation.randomSalt() }
        if request.newKey.kind == .rawKeyWithSalt { target.salt = request.newKey.salt }
        try target.validateUsablePageSize()
        return target
    }
}
