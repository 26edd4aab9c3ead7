import FoundationEssentials
import Glibc

/// The file a `VACUUM INTO` statement makes. A failed one (a full disk) leaves none, and a
/// new one is private (0600), as every file cipherctl creates. Its name is SQLite's own
/// reading of the statement's expression (`SELECT expr`); an expression with placeholders
/// is not followed.
struct VacuumTarget {
    let path: String
    private let existed: Bool

    /// nil for any other statement.
    init?(statement sql: String, connection: Connection) {
        guard let expression = Self.expression(of: sql),
              let name = try? connection.scalar("SELECT " + expression)?.textValue, !name.isEmpty, !name.hasPrefix("file:") else { return nil }
        path = name
        existed = FileOperations.exists(name)
    }

    /// After the statement failed: removes what it made.
    func removeIfMade() {
        if !existed { FileOperations.removeDatabase(path) }
    }

    /// After it ran: a file it made is readable by its owner only.
    func makePrivate() {
        if !existed { chmod(path, 0o600) }
    }

    /// The expression after INTO in `VACUUM [schema] INTO expr`.
    private static func expression(of sql: String) -> String? {
        let pattern = #"^\s*VACUUM(?:\s+(?:"[^"]*"|\[[^\]]*\]|`[^`]*`|\w+))?\s+INTO\s+(.+?)[\s;]*$"#
        // By Unicode scalar, as NSRegularExpression (ICU) matched it.
        guard let regex = try? Regex(pattern).ignoresCase().dotMatchesNewlines().matchingSemantics(.unicodeScalar),
              let match = sql.firstMatch(of: regex), let into = match.output[1].substring else { return nil }
        return String(into)
    }
}
