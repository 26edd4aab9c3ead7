import CipherKit

/// A command finished, but its result could not be written to standard output. After a run
/// that changed files it is reported as a failure after the commit (exit 7: the change
/// stands); after one that only looked, as a file problem (exit 5).
struct UnwrittenResult: HintedFailure {
    let committed: Bool
    let problem: String
    /// A write whose rows could not be written, and which was therefore rolled back.
    var rolledBack = false

    var message: String {
        "the result could not be written to standard output (\(problem))"
            + (committed ? "; the change itself was made" : rolledBack ? "; the transaction was rolled back, nothing was changed" : "")
    }

    var path: String? { nil }

    var reason: FailureReason { committed ? .failedAfterCommit : .fileAccess }

    var hint: String? {
        committed ? "the change stands (for a rekey or export, the new key opens the file); only its report was lost" : nil
    }
}
