import CipherKit
import FoundationEssentials
import Glibc

/// The shell that runs SQLite's recovery ended with a failure (it is named, since either
/// `sqlcipher` or `sqlite3` may be the one on PATH).
struct RecoverShellFailure: HintedFailure {
    let shell: String
    /// The status `waitpid` gave.
    let status: Int32

    var message: String {
        let name = shell.split(separator: "/").last.map(String.init) ?? shell
        let ending = status & 0x7F == 0 ? "exit status \(status >> 8 & 0xFF)" : "signal \(status & 0x7F)"
        return "the \(name) shell (\(shell)) failed to run SQLite's .recover (\(ending)); nothing was written"
    }

    var path: String? { nil }
    var reason: FailureReason { .sqliteError }
    var hint: String? { nil }
}
