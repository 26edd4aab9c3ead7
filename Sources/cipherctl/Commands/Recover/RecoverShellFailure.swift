import CipherKit
import FoundationEssentials
import Glibc

/// The shell that runs SQLite's recovery ended with a failure, or exited 0 before its SQL's
/// `COMMIT` (it is named, since either `sqlcipher` or `sqlite3` may be the one on PATH).
struct RecoverShellFailure: HintedFailure {
    enum Ending {
        /// The status `waitpid` gave.
        case status(Int32)
        /// It exited 0, and its SQL stopped short.
        case incomplete(IncompleteRecoverySQL)
    }

    let shell: String
    let ending: Ending

    var message: String {
        let name = shell.split(separator: "/").last.map(String.init) ?? shell
        switch ending {
        case .status(let status):
            let ended = status & 0x7F == 0 ? "exit status \(status >> 8 & 0xFF)" : "signal \(status & 0x7F)"
            return "the \(name) shell (\(shell)) failed to run SQLite's .recover (\(ended)); nothing was written"
        case .incomplete(let incomplete):
            return "the \(name) shell (\(shell)) exited 0, but \(incomplete.message); nothing was written"
        }
    }

    var path: String? { nil }
    var reason: FailureReason { .sqliteError }
    var hint: String? { nil }
}
