/// The recovery's SQL ended without committing the transaction it began: SQLite's recovery
/// always ends with a `COMMIT`, so whatever stopped it early (a shell that printed nothing, or
/// stopped part-way and still exited 0) would otherwise leave an empty or partial database
/// that looks recovered.
public struct IncompleteRecoverySQL: CipherKitFailure, Equatable {
    /// The statements that ran before the SQL ended.
    public let statements: Int

    public var message: String {
        let ran = statements == 0 ? "no SQL at all" : "\(statements) statement\(statements == 1 ? "" : "s") and no COMMIT"
        return "SQLite's recovery ended before its COMMIT (\(ran)): its SQL is incomplete"
    }

    public var path: String? { nil }

    public var reason: FailureReason { .sqliteError }
}
