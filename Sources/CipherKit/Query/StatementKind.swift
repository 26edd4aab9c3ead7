/// What a statement is, for the rules `QueryRunner` runs it by: a pragma that only reads runs
/// on a read-only connection, and a statement SQLite cannot run inside a transaction runs on
/// its own, outside the one a writing run wraps the input in.
/// See https://www.sqlite.org/pragma.html and https://www.sqlite.org/lang_vacuum.html
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

    /// Pragmas whose bare form changes the database.
    private static let changingWithoutValue: Set<String> = ["INCREMENTAL_VACUUM", "OPTIMIZE", "WAL_CHECKPOINT"]
    /// Pragmas that take an argument in parentheses and only report.
    private static let reportingOnArgument: Set<String> = [
        "TABLE_INFO", "TABLE_XINFO", "TABLE_LIST", "INDEX_INFO", "INDEX_XINFO", "INDEX_LIST", "FOREIGN_KEY_LIST", "FOREIGN_KEY_CHECK",
        "INTEGRITY_CHECK", "QUICK_CHECK",
    ]

    init(sql: String) {
        let tokens = SQLText.leadingTokens(sql, limit: 5)
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

    private static func pragma(_ name: String, next: String?) -> StatementKind {
        let takesValue = next == "=" || next == "("
        if name == "WAL_CHECKPOINT" || name == "JOURNAL_MODE" && takesValue { return .outsideTransaction }
        if !takesValue { return changingWithoutValue.contains(name) ? .settingPragma : .readOnlyPragma }
        return next == "(" && reportingOnArgument.contains(name) ? .readOnlyPragma : .settingPragma
    }
}
