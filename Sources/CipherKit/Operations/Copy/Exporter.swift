import CSQLCipher
import FoundationEssentials

/// Copies a database to a new file with other keys or settings and moves the verified copy
/// into place.
///
/// The copy is written by `DatabaseCopier` to a temporary file beside the destination
/// (mode 0600); the source is only read. The file is fsynced, reopened and checked, then
/// renamed into place and the directory fsynced. On any failure the temporary file is
/// removed and the destination is not created.
public enum Exporter {
    /// Exports `request.source` to `request.destinationPath`.
    ///
    /// - Throws: `CipherKitError` (`fileExists` unless replacing, `refused` for a destination
    ///   that is a symlink or the source itself, `cannotDecrypt` for a wrong source key,
    ///   `verificationFailed`, `cancelled`, …).
    /// `progress` hears each phase of the work.
    public static func export(
        _ request: ExportRequest, token: CancellationToken = CancellationToken(), progress: (@Sendable (ProgressPhase) -> Void)? = nil
    ) throws -> ExportReport {
        // What killed runs left beside the destination goes first, whatever this run then does.
        let removed = TemporaryDatabase.removeLeftovers(beside: request.destinationPath, told: request.leftoverRemoved)
        if let converted = try FamilyExporter.exportIfOtherFamily(request, removed: removed, token: token) { return converted }
        do {
            return try exportSQLCipher(request, removed: removed, token: token, progress: progress)
        } catch let error as CipherKitError where [.wrongKey, .noFormatMatched, .damaged, .otherFamily].contains(error.reason) {
            // AES-256-CFB pages pass the page-1 HMAC of CBC's format (the keys are alike), and
            // then the opener names the other cipher.
            guard let converted = try FamilyExporter.exportIfOtherCipher(request, removed: removed, token: token) else { throw error }
            return converted
        }
    }

    /// The export of a source in one of SQLCipher's own formats.
    private static func exportSQLCipher(
        _ request: ExportRequest, removed: [String], token: CancellationToken, progress: (@Sendable (ProgressPhase) -> Void)?
    ) throws -> ExportReport {
        // The search runs once, here, when the source's format is kept: the report names it.
        let (request, found) = request.keepsSourceFormat ? try pinningSourceFormat(request) : (request, nil)
        let source = request.source.path
        let destination = request.destinationPath
        try refuseDestination(of: request)
        let settings = try destinationSettings(for: request)
        if FileOperations.exists(destination), !request.replaceExisting {
            // A rerun after a finished (or killed-after-rename) export is already done.
            if var report = try alreadyExported(request, settings: settings) {
                report.removedLeftovers = removed
                return report
            }
            throw CipherKitError.fileExists(path: destination)
        }
        try FileOperations.requireWritableDirectory(for: destination, purpose: "the copy is written there, then renamed")
        let sourceFile = try DatabaseOpener.precheck(request.source)
        if let available = FileOperations.availableSpace(near: destination), available < sourceFile.size {
            throw CipherKitError.insufficientSpace(path: destination, needed: sourceFile.size, available: available)
        }

        let temporary = TemporaryDatabase.path(beside: destination)
        defer { progress?(.finished) }
        do {
            progress?(.copying(watch: temporary, expectedBytes: sourceFile.size))
            let started = Date()
            let target = CopyTarget(
                path: temporary, key: request.destinationKey, settings: settings, countRows: request.verify,
                fullVerification: request.fullVerification, threads: request.threads, reportedPath: destination)
            let copy = try DatabaseCopier.copy(request.source, file: sourceFile, to: target, token: token)
            let written = Date()
            let verification = try verify(copy, at: temporary, request: request, progress: progress)
            let verified = Date()
            try token.check(source)
            try moveIntoPlace(temporary, request: request, copy: copy)
            let bytes = FileOperations.size(of: destination) ?? 0
            return ExportReport(
                source: source, destination: destination,
                sourceSettings: copy.sourceSettings, destinationSettings: copy.destinationSettings,
                pages: bytes / max(1, copy.pageSize), bytes: bytes,
                seconds: written.timeIntervalSince(started), verificationSeconds: verified.timeIntervalSince(written),
                verification: verification, removedLeftovers: removed, snapshot: copy.snapshot,
                sourceFormat: found.map(\.format) ?? copy.sourceFormat, sourceFormatAttempts: found?.attempts ?? copy.sourceAttempts,
                method: copy.method)
        } catch {
            FileOperations.removeDatabase(temporary)
            throw CipherKitError.namingOutOfSpace(error, writing: destination)
        }
    }

    /// Refuses a destination that is a symbolic link or the source itself.
    static func refuseDestination(of request: ExportRequest) throws {
        let destination = request.destinationPath
        if FileOperations.isSymbolicLink(destination) {
            throw CipherKitError.refused(path: destination, refusal: .symbolicLink)
        }
        if FileOperations.sameFile(request.source.path, destination) {
            throw CipherKitError.refused(path: destination, refusal: .destinationIsSource)
        }
        try refuseCompanions(of: destination)
    }

    /// Refuses a destination with a -wal or -journal that holds anything beside it (a stray
    /// one, or a live writer's): renamed into place, the new file would be read with it.
    static func refuseCompanions(of destination: String) throws {
        for suffix in ["-wal", "-journal"] where (FileOperations.size(of: destination + suffix) ?? 0) > 0 {
            throw CipherKitError.refused(path: destination, refusal: .destinationCompanion(destination + suffix))
        }
    }

    /// The copy's verification before it is moved into place: the page engine's proof alone
    /// unless the full checks are asked for (or another path wrote it); nil without one.
    private static func verify(
        _ copy: DatabaseCopy, at temporary: String, request: ExportRequest, progress: (@Sendable (ProgressPhase) -> Void)?
    ) throws -> VerificationReport? {
        guard request.verify else { return nil }
        if !copy.needsFullChecks(asked: request.fullVerification), let pages = copy.pagesProven { return .proven(pages: pages) }
        progress?(.verifying)
        var report = try DatabaseCopier.verify(
            at: temporary, key: copy.destinationKey, settings: copy.destinationSettings, expected: copy.snapshot, logLevel: request.source.logLevel,
            fullIntegrity: request.fullVerification)
        if !report.isOK { throw CipherKitError.verificationFailed(path: request.destinationPath, problems: report.problems) }
        report.pagesProven = copy.pagesProven
        return report
    }

    /// The request with the source's settings as the destination's (under the ones given),
    /// and the source's key in the raw form it opened with, so the copy derives no key again.
    /// A plaintext source has no settings: the destination gets the defaults. Also the format
    /// the source opened in and how many were tried, nil for a plaintext source.
    static func pinningSourceFormat(_ request: ExportRequest) throws -> (ExportRequest, (format: CipherFormat?, attempts: Int)?) {
        guard request.source.key != nil else { return (request, nil) }
        var reading = request.source
        reading.mode = .readOnly
        let opened = try DatabaseOpener.open(reading)
        defer { try? opened.connection.close() }
        var source = try CipherKitError.translating(path: reading.path, file: opened.file) {
            try DatabaseInspector.cipherSettings(of: opened.connection)
        }
        source.salt = nil
        if request.destinationSettings.salt == nil { source.plaintextHeaderSize = nil }
        var pinned = request
        pinned.source.key = opened.key
        pinned.source.settings = opened.settings
        pinned.destinationSettings = request.destinationSettings.overriding(source)
        if pinned.destinationSettings.compatibility == nil {
            // Settings of no one version: every field is set, so any version's defaults do.
            pinned.destinationSettings.compatibility = 4
        }
        return (pinned, (opened.format, opened.attempts))
    }

    /// Renames the verified copy to the destination (the commit) and fsyncs the directory.
    static func moveIntoPlace(_ temporary: String, request: ExportRequest, copy: DatabaseCopy) throws {
        let destination = request.destinationPath
        try FileOperations.move(temporary, to: destination, replace: request.replaceExisting)
        do {
            try FileOperations.syncDirectory(of: destination)
        } catch {
            let opensWith = copy.destinationSettings.map { "the destination key (\($0.summary))" } ?? "no key (plaintext)"
            throw CipherKitError.afterCommit(error, path: destination, opensWith: opensWith)
        }
    }

    /// The full settings the destination is written with; nil for a plaintext destination.
    static func destinationSettings(for request: ExportRequest) throws -> CipherSettings? {
        guard request.destinationKey != nil else { return nil }
        var given = request.destinationSettings
        try given.validateSalt(against: request.destinationKey)
        if given.salt == nil, request.destinationKey?.kind == .rawKeyWithSalt {
            given.salt = request.destinationKey?.salt
        }
        try given.validate()
        try given.requireKeptSalt(key: request.destinationKey, path: request.destinationPath)
        let version = given.compatibility ?? 4
        guard let defaults = CipherSettings.defaults(forCompatibility: version) else {
            throw CipherSettingsError.compatibility(version)
        }
        var base = defaults
        base.compatibility = version
        let settings = given.overriding(base)
        try settings.validateUsablePageSize()
        return settings
    }
}
