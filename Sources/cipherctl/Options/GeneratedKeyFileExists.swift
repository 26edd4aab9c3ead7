import CipherKit

/// The file `--new-key-generate` or `--to-key-generate` names exists already: perhaps an
/// interrupted run's, whose key may already be in use, so it is never replaced or removed.
struct GeneratedKeyFileExists: HintedFailure {
    let path: String?
    let fileOption: String
    let rawOption: String

    var message: String { "'\(path ?? "")' already exists; a new key is never written over a file" }

    var reason: FailureReason { .fileExists }

    var hint: String? {
        "if an interrupted run wrote it, its key may already be in use: run again with \(fileOption) '\(path ?? "")' \(rawOption) "
            + "to finish with that key; otherwise choose another path. The file is left as it is"
    }
}
