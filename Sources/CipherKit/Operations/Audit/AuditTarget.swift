/// One thing an audit reports on: a path to look at, or a folder that could not be listed.
public enum AuditTarget: Equatable, Sendable {
    case file(String)
    case unreadableFolder(String, reason: String)

    public var path: String {
        switch self {
        case .file(let path), .unreadableFolder(let path, _): return path
        }
    }
}
