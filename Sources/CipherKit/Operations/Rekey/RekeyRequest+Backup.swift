import Foundation

extension RekeyRequest {
    /// The request with its backup named: `backupPath` when given, else, with a
    /// `defaultBackupTime`, `DB.backup-STAMP` (the time in compact UTC, `20261122T005959Z`),
    /// with `-2`, `-3`… when a backup of that second already exists.
    func namingBackup() -> RekeyRequest {
        guard backupPath == nil, let time = defaultBackupTime else { return self }
        var named = self
        let path = database.path, stamp = Self.backupStamp(time)
        var candidate = "\(path).backup-\(stamp)", number = 1
        while FileManager.default.fileExists(atPath: candidate) {
            number += 1
            candidate = "\(path).backup-\(stamp)-\(number)"
        }
        named.backupPath = candidate
        return named
    }

    static func backupStamp(_ time: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withTimeZone]
        return formatter.string(from: time)
    }
}
