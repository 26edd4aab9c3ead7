import CipherKit
import Foundation

/// `cipherctl rekey`: rotate the key of one or many databases.
enum RekeyCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        if arguments.value("--from") == "-" {
            try KeyReader.refuseSharedStandardInput(arguments, for: "the list of databases (--from -)")
        }
        let paths = try databasePaths(arguments)
        let engine = try EngineOptions(arguments)
        let jobs = engine.concurrentDatabases(of: paths.count)
        let newSalt = try saltValue(arguments)
        // Every database is looked at before any is changed: a missing one, or a value taken
        // for a path, stops the run with nothing touched.
        try requireDatabases(paths)
        let settings = try CipherOptionsReader.settings(from: arguments)
        let newSettings = try CipherOptionsReader.settings(from: arguments, prefix: "new-")
        let console = context.console
        let label = paths.count == 1 ? paths[0] : "\(paths.count) databases"
        let key = try KeyReader(prefix: "").read(arguments, for: label, console: console, environment: context.environment)
        let newKey = try KeyReader(prefix: "new-").read(arguments, for: label, console: console, environment: context.environment)
        let threads = engine.engineThreads(concurrent: jobs)
        let verify = engine.verifies(console: context.console, unchecked: "the result will not be checked; nothing proves the new key opens the database")
        let token = CancellationToken()
        SignalTrap.install(cancelling: token)
        let backup = try backupPath(arguments, paths: paths)
        let backupTime = arguments.has("--backup") && backup == nil ? Date() : nil

        let tally = BatchTally()
        let failures = BatchRunner(jobs: jobs, failFast: arguments.has("--fail-fast")).run(paths) { path in
            do {
                let database = context.openRequest(path: path, key: key, settings: settings, mode: .readWrite)
                var request = RekeyRequest(
                    database: database, newKey: newKey, newSettings: newSettings,
                    backupPath: backup, verify: verify, dryRun: arguments.has("--dry-run"))
                request.defaultBackupTime = backupTime
                request.newSalt = arguments.has("--new-salt")
                request.newSaltValue = newSalt
                request.fullVerification = engine.verification == .full
                request.threads = threads
                request.inPlace = arguments.has("--in-place")
                request.deriveConcurrently = jobs == 1
                if !request.dryRun { warnAboutOtherNames(path, console: console) }
                let bar = paths.count == 1 ? ProgressBar.make(label: "'\(path)'", pageSize: settings.pageSize ?? 4096, console: console) : nil
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
                return ErrorReporter.report(error, console: console, path: path, command: "rekey")
            }
        }
        if paths.count > 1 {
            console.result(json: tally.json(of: paths.count, verb: "rekeyed"), text: tally.text(of: paths.count, verb: "rekeyed"), removedLeftovers: [])
        }
        if !failures.isEmpty, !failures.contains(.committed), tally.changedNone, !arguments.has("--dry-run") {
            GeneratedKeyFile.discardUnused(arguments, prefix: "new-", console: console)
        }
        return combined(failures)
    }

    /// A database with other hard links is rekeyed in place, and SQLite keeps its WAL beside
    /// the name it was opened by: after an interruption, only a rerun through the same name
    /// (or SQLite opening it by that name) sees the WAL.
    static func warnAboutOtherNames(_ path: String, console: Console) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_nlink > 1 else { return }
        console.warning("'\(path)' has \(status.st_nlink) names (hard links): it is rekeyed in place; if the run is interrupted, run it again "
            + "through this same name before anything opens the file by another, since SQLite keeps its WAL beside the name it was opened by")
    }

    /// The paths from the arguments and from `--from FILE` (one a line, `-` for stdin).
    static func databasePaths(_ arguments: ParsedArguments) throws -> [String] {
        var paths = arguments.positionals
        if let list = arguments.value("--from") {
            let data: Data?
            if list == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                data = FileManager.default.contents(atPath: list)
            }
            guard let data else { throw CipherKitError.fileAccess(path: list, reason: "cannot read the list of databases") }
            paths += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        guard !paths.isEmpty else { throw UsageError("missing the database path", command: arguments.command) }
        let unique = Set(paths.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        guard unique.count == paths.count else { throw UsageError("a database is named more than once", command: arguments.command) }
        return paths
    }

    /// The salt `--new-salt HEX` names; nil for a random one or none.
    static func saltValue(_ arguments: ParsedArguments) throws -> [UInt8]? {
        guard let text = arguments.value("--new-salt") else { return nil }
        guard text.count == 32, let salt = Hex.decode(text) else {
            throw UsageError("--new-salt takes 32 hex digits (a 16-byte salt), or nothing for a random one", command: arguments.command)
        }
        return salt
    }

    /// Throws, before anything is changed, unless every path is a file that may be a database.
    static func requireDatabases(_ paths: [String]) throws {
        for path in paths {
            try DatabaseFile.probe(path).requireDatabase()
        }
    }

    /// The backup path `--backup=PATH` names, for one database; nil for `--backup` alone
    /// (CipherKit names each backup beside its database) or none.
    static func backupPath(_ arguments: ParsedArguments, paths: [String]) throws -> String? {
        guard let given = arguments.value("--backup") else { return nil }
        guard paths.count == 1 else {
            throw UsageError("--backup PATH names one file; with several databases use --backup alone", command: "rekey")
        }
        return given
    }

    /// One exit code for the run: the failures' code when they agree, else 1.
    static func combined(_ failures: [ExitCode]) -> ExitCode {
        guard let first = failures.first else { return .success }
        return failures.allSatisfy { $0 == first } ? first : .failure
    }
}
