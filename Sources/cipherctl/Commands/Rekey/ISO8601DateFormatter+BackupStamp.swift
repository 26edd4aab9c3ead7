import Foundation

extension ISO8601DateFormatter {
    /// A compact UTC time for backup names: `20261122T005959Z`.
    static func backupStamp(_ date: Date = Date()) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withTimeZone]
        return formatter.string(from: date)
    }
}
