import FoundationEssentials
import Glibc

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
        // ISO 8601's basic format in UTC (`20261124T224500Z`), as ISO8601DateFormatter wrote it.
        var seconds = time_t(time.timeIntervalSince1970.rounded(.down)), parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)" + two(parts.tm_mon + 1) + two(parts.tm_mday) + "T"
            + two(parts.tm_hour) + two(parts.tm_min) + two(parts.tm_sec) + "Z"
    }
}
