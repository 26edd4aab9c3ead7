/// What a statement is, for the rules `QueryRunner` runs it by: a pragma that only reads runs
/// on a read-only connection, a statement SQLite cannot run inside a transaction runs on its
/// own, outside the one a writing run wraps the input in, and a pragma that changes the key
/// or the cipher settings is never run (SQLCipher acts on it while the statement is prepared,
/// even under EXPLAIN, and rewrites or misreads every page without any check).
/// See https://www.sqlite.org/pragma.html, https://www.sqlite.org/lang_vacuum.html and
/// https://www.zetetic.net/sqlcipher/sqlcipher-api/
enum StatementKind: Equatable {
    case ordinary
    /// `PRAGMA name` (a query of its value), or a pragma that reports on its argument
    /// (`table_info(t)`, `integrity_check`, …).
    case readOnlyPragma
    /// `VACUUM`, `VACUUM INTO`, `PRAGMA journal_mode = …`, `PRAGMA wal_checkpoint`.
    case outsideTransaction
    /// `BEGIN [DEFERRED | IMMEDIATE | EXCLUSIVE] [TRANSACTION]`.
    case transactionStart
    /// `COMMIT` or `END`.
    case transactionEnd
    /// Any other pragma: one that sets a value.
    case settingPragma
    /// `PRAGMA key`, `rekey`, `hexkey`, `hexrekey`, `textkey`, `textrekey`, `cipher_migrate`, or
    /// a cipher setting given a value (`cipher_page_size = 1024`, `kdf_iter = …`, `cipher_salt = …`).
    case cipherPragma

    /// Pragmas whose bare form changes the database.
    private static let changingWithoutValue: Set<String> = ["INCREMENTAL_VACUUM", "OPTIMIZE", "WAL_CHECKPOINT"]
    /// Pragmas that take an argument in parentheses and only report.
    private static let reportingOnArgument: Set<String> = [
        "TABLE_INFO", "TABLE_XINFO", "TABLE_LIST", "INDEX_INFO", "INDEX_XINFO", "INDEX_LIST", "FOREIGN_KEY_LIST", "FOREIGN_KEY_CHECK",
        "INTEGRITY_CHECK", "QUICK_CHECK",
    ]

    /// Pragmas that key or rekey the database whatever follow them.
    private static let keying: Set<String> = ["KEY", "REKEY", "HEXKEY", "HEXREKEY", "TEXTKEY", "TEXTREKEY", "CIPHER_MIGRATE"]

    init(sql: String) {
        var tokens = SQLText.leadingTokens(sql, limit: 8)
        if let (name, next) = Self.pragma(explained: tokens), Self.changesCipher(name, next: next) {
            self = .cipherPragma
            return
        }
        tokens = Array(tokens.prefix(5))
        switch tokens.first {
        case "VACUUM":
            self = .outsideTransaction
        case "BEGIN":
            self = .transactionStart
        case "COMMIT", "END":
            self = .transactionEnd
        case "PRAGMA":
            // PRAGMA [schema.]name [= value | (argument)]
            let named = tokens.count > 2 && tokens[2] == "." ? Array(tokens.dropFirst(3)) : Array(tokens.dropFirst())
            self = Self.pragma(named.first ?? "", next: named.dropFirst().first)
        default:
            self = .ordinary
        }
    }

    /// The name of the pragma a statement runs, and the token after it, when it is a
    /// pragma, `EXPLAIN` (`QUERY PLAN`) before it or not.
    private static func pragma(explained tokens: [String]) -> (name: String, next: String?)? {
        var rest = tokens[...]
        if rest.first == "EXPLAIN" {
            rest = rest.dropFirst()
            if rest.starts(with: ["QUERY", "PLAN"]) { rest = rest.dropFirst(2) }
        }
        guard rest.first == "PRAGMA" else { return nil }
        rest = rest.dropFirst()
        if rest.count > 2, rest[rest.startIndex + 1] == "." { rest = rest.dropFirst(2) }
        guard let name = rest.first else { return nil }
        return (name, rest.dropFirst().first)
    }

    private static func changesCipher(_ name: String, next: String?) -> Bool {
        if keying.contains(name) { return true }
        let takesValue = next == "=" || next == "("
        return takesValue && (name.hasPrefix("CIPHER_") || name == "KDF_ITER" || name == "FAST_KDF_ITER")
    }

    /// The pragma's name, lower-cased, for a message that must not show its value.
    static func pragmaName(_ sql: String) -> String {
        pragma(explained: SQLText.leadingTokens(sql, limit: 8))?.name.lowercased() ?? "?"
    }

    private static func pragma(_ name: String, next: String?) -> StatementKind {
        let takesValue = next == "=" || next == "("
        if name == "WAL_CHECKPOINT" || name == "JOURNAL_MODE" && takesValue { return .outsideTransaction }
        if !takesValue { return changingWithoutValue.contains(name) ? .settingPragma : .readOnlyPragma }
        return next == "(" && reportingOnArgument.contains(name) ? .readOnlyPragma : .settingPragma
    }
}
