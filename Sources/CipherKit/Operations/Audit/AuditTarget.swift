/// One thing an audit reports on: a path to look at, or a folder that could not be listed.
public enum AuditTarget: Equatable, Sendable {
    case file(String)
    case unreadableFolder(String, reason: String)
}
