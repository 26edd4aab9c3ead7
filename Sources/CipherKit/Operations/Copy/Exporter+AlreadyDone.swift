import FoundationEssentials

extension Exporter {
    /// The report for a destination that already holds a verified copy of the source with the
    /// destination key and settings (an earlier run finished, or was killed after its rename);
    /// nil when it does not. Both files are only read.
    static func alreadyExported(_ request: ExportRequest, settings: CipherSettings?) throws -> ExportReport? {
        var open = settings
        if (open?.plaintextHeaderSize ?? 0) == 0 { open?.salt = nil }
        var source = request.source
        source.mode = .readOnly
        let started = Date()
        guard let sourceSnapshot = try? readSnapshot(source) else { return nil }
        guard let verification = try? DatabaseCopier.verify(
            at: request.destinationPath, key: request.destinationKey, settings: open, expected: sourceSnapshot, logLevel: .none),
              verification.isOK else { return nil }
        let bytes = FileOperations.size(of: request.destinationPath) ?? 0
        let pageSize = settings?.pageSize ?? 4096
        var report = ExportReport(
            source: request.source.path, destination: request.destinationPath, sourceSettings: nil, destinationSettings: settings,
            pages: bytes / max(1, pageSize), bytes: bytes, seconds: 0, verificationSeconds: Date().timeIntervalSince(started),
            verification: verification, removedLeftovers: [], snapshot: sourceSnapshot, sourceFormat: nil, sourceFormatAttempts: 1,
            method: .sqlcipherExport)
        report.alreadyDone = true
        return report
    }

    /// What the database `request` names holds, read on a read-only connection.
    private static func readSnapshot(_ request: OpenRequest) throws -> DatabaseSnapshot {
        let opened = try DatabaseOpener.open(request)
        defer { try? opened.connection.close() }
        return try CipherKitError.translating(path: request.path) { try DatabaseSnapshot.read(from: opened.connection) }
    }
}
