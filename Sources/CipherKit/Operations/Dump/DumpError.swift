/// Why a dump could not start.
public enum DumpError: CipherKitFailure, Equatable {
    /// A table asked for that the database does not have.
    case noSuchTable(String)

    public var message: String {
        switch self {
        case .noSuchTable(let name): return "no table named '\(name)'"
        }
    }

    public var path: String? { nil }

    public var reason: FailureReason { .invalidQuery }
}
