import CSQLCipher
import FoundationEssentials
import Glibc

/// Keeps key material out of core dumps: no core files, and on Linux a process that
/// other processes of the same user cannot attach to or dump. A write past the file-size
/// limit (`ulimit -f`) fails with EFBIG, which SQLite reports as a full disk and cipherctl
/// rolls back, instead of killing the process with SIGXFSZ halfway through. A standard
/// stream that was closed when cipherctl started (`>&-`) is held on /dev/null, read-only, so
/// that no file cipherctl opens (an import's input, a new copy, a lock) takes its number and
/// receives the output, while a write to it still fails and is reported.
enum ProcessHardening {
    static func apply() {
        holdClosedStandardStreams()
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
        _ = signal(SIGXFSZ, SIG_IGN)
        // The Swift runtime's backtracer catches these to print a backtrace, and on a
        // terminal waits to be driven, as a debugger of a process that may hold a key. With
        // core files off, the default action ends the process and keeps nothing.
        for crash in [SIGQUIT, SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP] { _ = signal(crash, SIG_DFL) }
        #if os(Linux)
        _ = csqlcipher_set_not_dumpable()
        #endif
    }

    /// Opens /dev/null on each of descriptors 0, 1 and 2 that is closed; open(2) takes the
    /// lowest free number, so going up in order fills each one.
    private static func holdClosedStandardStreams() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            _ = open("/dev/null", O_RDONLY)
        }
    }
}
