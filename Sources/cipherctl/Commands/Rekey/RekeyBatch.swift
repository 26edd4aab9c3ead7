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
    private let key: KeyMaterial
    private let newKey: KeyMaterial
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
        key = try options.key.read(for: label, context: context)
        newKey = try options.newKey.read(for: label, context: context)
        jobs = options.engine.concurrentDatabases(of: paths.count)
        threads = options.engine.engineThreads(concurrent: jobs)
        verify = options.engine.verifies(console: context.console, unchecked: "the result will not be checked; nothing proves the new key opens the database")
        SignalTrap.install(cancelling: token)
        backupTime = options.backup && options.backupPath == nil ? Date() : nil
    }

    /// Rekeys the database at `path` and reports it (an error included); its exit code.
    func rekey(_ path: String) -> ExitCode {
        let console = context.console
        do {
            var request = request(for: path)
            if !request.dryRun { Self.warnAboutOtherNames(path, console: console) }
            let bar = options.paths.count == 1 ? ProgressBar.make(label: "'\(path)'", pageSize: options.settings.pageSize ?? 4096, console: console) : nil
            let report = try console.warningOfLeftoversIfItFails { told in
                request.leftoverRemoved = told
                return try Rekeyer.rekey(request, token: token, progress: bar?.observer)
            }
            console.formatFound(report.format, attempts: report.formatAttempts, path: path)
            console.result(json: OperationFormatter.json(report), text: OperationFormatter.text(report), removedLeftovers: report.removedLeftovers)
            tally.record(report.verification?.isOK == false ? .failed : report.dryRun && report.action != .alreadyDone ? .checked
                : report.action == .alreadyDone ? .alreadyDone : .changed)
            if let failure = report.failureAfterCommit { throw failure }
            return .success
        } catch {
            tally.record(.failed)
            return ErrorReporter.report(error, console: console, path: path, command: CommandCatalog.rekey.name)
        }
    }

    /// What the run asks of the database at `path`.
    private func request(for path: String) -> RekeyRequest {
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
