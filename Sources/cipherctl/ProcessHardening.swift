import CSQLCipher
import Foundation

/// Keeps key material out of core dumps: no core files, and on Linux a process that
/// other processes of the same user cannot attach to or dump. A write past the file-size
/// limit (`ulimit -f`) fails with EFBIG, which SQLite reports as a full disk and cipherctl
/// rolls back, instead of killing the process with SIGXFSZ halfway through.
enum ProcessHardening {
    static func apply() {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
        _ = signal(SIGXFSZ, SIG_IGN)
        #if os(Linux)
        _ = csqlcipher_set_not_dumpable()
        #endif
    }
}
