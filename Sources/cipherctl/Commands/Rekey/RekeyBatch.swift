import CipherKit
import FoundationEssentials
import Glibc

/// What every database of one rekey run shares, settled once before the first starts: the
/// two keys, how each is verified, the threads, one backup time; `rekey(_:)` runs one.
struct RekeyBatch {
    let options: RekeyOptions
    let context: CommandContext
    /// Databases rekeyed at once.
    let jobs: Int
    /// What became of each database, for the summary.
    let tally = BatchTally()
    /// The old key; nil when a key ring or a key command template gives each database its own.
    private let key: KeyMaterial?
    private let ring: [LabeledKey]?
    /// The new key; nil when a key command template gives each database its own.
    private let newKey: KeyMaterial?
    private let verify: Bool
    private let threads: Int
    /// One stamp for the backups `--backup` alone names beside their databases.
    private let backupTime: Date?
    private let token = CancellationToken()

    /// Reads both keys (once for all databases), warns when nothing will be verified, and
    /// lets an interrupt cancel the run.
    ///
    /// - Throws: what reading a key throws.
    init(_ options: RekeyOptions, context: CommandContext) throws {
        self.options = options
        self.context = context
        let paths = options.paths
        let label = paths.count == 1 ? paths[0] : "\(paths.count) databases"
        let (ring, ringsNewKey) = try Self.ringAndNewKey(options, context: context)
        self.ring = ring
        key = ring == nil && !options.key.isPerFile ? try options.key.read(for: label, context: context) : nil
        newKey = try ringsNewKey ?? (options.newKey.isPerFile ? nil : options.newKey.read(for: label, context: context))
        jobs = options.engine.concurrentDatabases(of: paths.count)
        threads = options.engine.engineThreads(concurrent: jobs)
        verify = options.engine.verifies(console: context.console, unchecked: "the result will not be checked; nothing proves the new key opens the database")
        SignalTrap.install(cancelling: token)
        backupTime = options.backup && options.backupPath == nil ? Date() : nil
    }

    /// The key ring's keys to try as the current one, and the new key when `--new-key-label`
    /// takes it from the ring: that entry, in one encoding, is then no current key.
    ///
    /// - Throws: `UsageError` for a label without a ring, one the ring lacks or gives in
    ///   several encodings, or a ring left with no other key; what reading the ring throws.
    private static func ringAndNewKey(_ options: RekeyOptions, context: CommandContext) throws -> ([LabeledKey]?, KeyMaterial?) {
        let ring = try options.key.ring(context: context)
        let option = options.newKey.reader.labelOption
        guard let label = options.newKey.arguments.value(option) else { return (ring, nil) }
        let command = options.newKey.arguments.command
        let sources = options.newKey.reader.sourcesGiven(options.newKey.arguments)
        if sources.count > 1 { throw UsageError("give the key from one source only, not \(sources.joined(separator: " and "))", command: command) }
        let raw = options.newKey.reader.rawOption
        if options.newKey.arguments.has(raw) { throw UsageError("the key ring gives the entry's encoding; \(raw) cannot go with \(option)", command: command) }
        guard let ring else { throw UsageError("\(option) names an entry of the key ring \(options.key.reader.ringOption) gives", command: command) }
        let named = ring.filter { $0.label == label }
        // Its line declares one encoding: which of several its bytes could be must not decide.
        let ringFile = options.key.arguments.value(options.key.reader.ringOption) ?? ""
        let declared = try KeyRing(path: ringFile, option: options.key.reader.ringOption, command: command).entries.first { $0.label == label }?.encodings.count
        guard named.count == 1, declared == 1 else {
            throw UsageError(declared == nil ? "the key ring has no entry '\(VisibleText.escaped(label))'"
                             : "key ring entry '\(VisibleText.escaped(label))' declares several encodings; the new key takes one", command: command)
        }
        let current = ring.filter { $0.label != label }
        guard !current.isEmpty else { throw UsageError("the key ring holds no key but the new one", command: command) }
        return (current, named[0].key)
    }

    /// Databases rekeyed after each round of keys derived ahead: two keys each, so one group
    /// of eight lanes for each job.
    var window: Int { 4 * jobs }

    /// Derives ahead the keys the rekeys of `paths` are expected to derive, eight at a time in
    /// the SHA-512 lanes on `jobs` threads (`KeyDerivation.prepare`), when several databases
    /// share the run's two keys. A single database derives its two keys on two cores at once
    /// instead, which is sooner for one.
    func prepareKeys(for paths: [String]) {
        guard options.paths.count > 1, let key, let newKey, !token.isCancelled else { return }
        KeyDerivation.prepare(paths.flatMap { Rekeyer.expectedDerivations(request(for: $0, key: key, newKey: newKey)) }, threads: jobs)
    }

    /// Whether an interrupt (SIGINT, SIGTERM) cancelled the run.
    var interrupted: Bool { token.isCancelled }

    /// Rekeys the database at `path` and reports it (an error included); its exit code. After
    /// an interrupt a database not yet started is left alone, unreported: the summary counts
    /// it as not started.
    func rekey(_ path: String) -> ExitCode {
        guard !token.isCancelled else { return .failure }
        let console = context.console
        do {
            let newKey = try newKey ?? options.newKey.read(for: path, context: context)
            let (oldKey, keyLabel) = try oldKey(for: path, newKey: newKey)
            var request = request(for: path, key: oldKey, newKey: newKey)
            // --low-space refuses such a file outright, so no warning precedes its refusal.
            if !request.dryRun, !request.lowSpace { Self.warnAboutOtherNames(path, console: console) }
            let bar = options.paths.count == 1 ? ProgressBar.make(label: "'\(path)'", pageSize: options.settings.pageSize ?? 4096, console: console) : nil
            let report = try console.warningOfLeftoversIfItFails { told in
                request.leftoverRemoved = told
                return try Rekeyer.rekey(request, token: token, progress: bar?.observer)
            }
            console.formatFound(report.format, attempts: report.formatAttempts, path: path)
            console.result(json: OperationFormatter.json(report, keyLabel: keyLabel), text: OperationFormatter.text(report), removedLeftovers: report.removedLeftovers)
            if let keyLabel, report.action != .alreadyDone { tally.recordKey(keyLabel) }
            tally.record(report.verification?.isOK == false ? .failed : report.dryRun && report.action != .alreadyDone ? .checked
                : report.action == .alreadyDone ? .alreadyDone : .changed)
            if let failure = report.failureAfterCommit { throw failure }
            return .success
        } catch {
            tally.record(.failed)
            return ErrorReporter.report(error, console: console, path: path, command: CommandCatalog.rekey.name)
        }
    }

    /// The old key of the database at `path`, and its key ring label. From a ring: the first
    /// of its keys that opens the file; when none does but the new key does (a run done
    /// before), any, since the rekey then finds it done. For a change of key alone, the ring's
    /// entries that are the new key are no old key: a file under it is done.
    private func oldKey(for path: String, newKey: KeyMaterial) throws -> (KeyMaterial, String?) {
        if let key { return (key, nil) }
        guard let ring else { return (try options.key.read(for: path, context: context), nil) }
        let keyOnly = options.newCipher.settings.isEmpty && !options.newSalt && options.newSaltValue == nil
        let candidates = keyOnly ? ring.filter { !$0.key.hasSameSecret(as: newKey) } : ring
        do {
            let chosen = try options.key.choose(from: candidates, for: path, context: context)
            return (chosen.key, chosen.label)
        } catch CipherKitError.cannotDecrypt(_, .noKeyOfTheRing) {
            let new = LabeledKey(label: "new", encoding: "", key: newKey)
            let lookAtNew = context.openRequest(path: path, key: nil, settings: options.newCipher.settings, mode: .readOnly)
            guard (try? KeyChooser.choose(lookAtNew, from: [new])) != nil else {
                throw CipherKitError.cannotDecrypt(path: path, failure: .noKeyOfTheRing(keys: ring.count))
            }
            return ((candidates.first ?? ring[0]).key, nil)
        }
    }

    /// What the run asks of the database at `path`, whose old key is `key`.
    private func request(for path: String, key: KeyMaterial, newKey: KeyMaterial) -> RekeyRequest {
        let database = context.openRequest(path: path, key: key, settings: options.settings, mode: .readWrite)
        var request = RekeyRequest(
            database: database, newKey: newKey, newSettings: options.newCipher.settings,
            backupPath: options.backupPath, verify: verify, dryRun: options.dryRun)
        request.defaultBackupTime = backupTime
        request.newSalt = options.newSalt
        request.newSaltValue = options.newSaltValue
        request.fullVerification = options.engine.verification == .full
        request.threads = threads
        request.inPlace = options.inPlace
        request.lowSpace = options.lowSpace
        request.undo = options.undo
        // A batch already keeps every core busy with one database each.
        request.deriveConcurrently = jobs == 1
        return request
    }

    /// A database with other hard links is rekeyed in place, and SQLite keeps its WAL beside
    /// the name it was opened by: after an interruption, only a rerun through the same name
    /// (or SQLite opening it by that name) sees the WAL.
    private static func warnAboutOtherNames(_ path: String, console: Console) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_nlink > 1 else { return }
        console.warning("'\(path)' has \(status.st_nlink) names (hard links): it is rekeyed in place; if the run is interrupted, run it again "
            + "through this same name before anything opens the file by another, since SQLite keeps its WAL beside the name it was opened by")
    }
}
