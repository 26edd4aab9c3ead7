import CipherKit

/// A failure of diff's second database: as it is, but its hint names that database's own
/// options (`--other-hmac-salt-mask`, not `--hmac-salt-mask`).
struct OtherDatabaseFailure: HintedFailure {
    let failure: CipherKitFailure

    var message: String { failure.message }
    var path: String? { failure.path }
    var reason: FailureReason { failure.reason }
    var hint: String? { ErrorReporter.hint(for: failure, command: CommandCatalog.diff.name, cipher: CipherOptionNames(prefix: "other-")) }
}
