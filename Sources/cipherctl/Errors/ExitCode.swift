/// The exit codes, the same for every command (README, help and man page list them).
enum ExitCode: Int32, CaseIterable {
    case success = 0
    case failure = 1
    case usage = 2
    case cannotDecrypt = 3
    case verificationFailed = 4
    case fileProblem = 5
    case busy = 6
    case committed = 7
    case findings = 8

    /// What the code means, for help and the man page.
    var meaning: String {
        switch self {
        case .success: return "success"
        case .failure: return "the operation failed"
        case .usage: return "usage error: bad option or value, or no key given"
        case .cannotDecrypt: return "cannot decrypt: wrong key, wrong cipher settings, or not a database"
        case .verificationFailed: return "integrity or verification check failed, or the database is damaged"
        case .fileProblem: return "file problem: missing, already exists, not readable or writable, or out of space"
        case .busy: return "database busy or locked by another process"
        case .committed: return "the change was committed, but a later step (verification, putting the journal mode back, syncing) failed: the file opens with the new key and settings"
        case .findings: return "the answer is no: audit found something in at least one file (every file was still looked at), or diff found the databases differ"
        }
    }
}
