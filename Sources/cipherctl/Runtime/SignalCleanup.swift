import Glibc

/// What a signal that ends the process must not leave behind, put right first: a key
/// prompt's terminal with its echo off (Ctrl-C, Ctrl-\, a hang-up, kill), and a key command's
/// process group still running (it has a group of its own, which the terminal's Ctrl-C does
/// not reach). Then the signal ends the process as it would have; a stop (Ctrl-Z) stops it
/// with the echo on, and once continued the prompt waits on with the echo off again.
/// One prompt and one key command at a time, so one saved state of each is enough; it is
/// stored before the handlers go in, so the handler only reads it.
enum SignalCleanup {
    private static let signals = [SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGTSTP, SIGTTIN, SIGTTOU]
    private static var terminal: Int32 = -1
    private static var settings = termios()
    private static var silent = termios()
    private static var childGroup: pid_t = 0
    private static var previous: [sighandler_t?] = []

    /// While a prompt waits: `settings` are the terminal's own, `silent` the prompt's.
    static func armPrompt(terminal: Int32, settings: termios, silent: termios) {
        (Self.terminal, Self.settings, Self.silent) = (terminal, settings, silent)
        install()
    }

    /// While a key command runs in the process group `group`.
    static func armChild(group: pid_t) {
        childGroup = group
        install()
    }

    /// Puts the handlers back as they were once nothing is left to clean up.
    static func disarm() {
        (terminal, childGroup) = (-1, 0)
        for (number, handler) in zip(signals, previous) { _ = signal(number, handler) }
        previous = []
    }

    private static func install() {
        guard previous.isEmpty else { return }
        previous = signals.map { signal($0, cleanUpAndAct) }
    }

    private static let cleanUpAndAct: @convention(c) (Int32) -> Void = { number in
        if SignalCleanup.childGroup > 0 { _ = kill(-SignalCleanup.childGroup, SIGKILL) }
        if SignalCleanup.terminal >= 0 { _ = tcsetattr(SignalCleanup.terminal, TCSANOW, &SignalCleanup.settings) }
        _ = signal(number, SIG_DFL)
        // The signal is blocked while its handler runs: unblocked, it acts at once.
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, number)
        _ = pthread_sigmask(SIG_UNBLOCK, &only, nil)
        _ = raise(number)
        // Only a stop comes back here, once continued: the prompt waits on, echo off again.
        _ = signal(number, SignalCleanup.cleanUpAndAct)
        if SignalCleanup.terminal >= 0 { _ = tcsetattr(SignalCleanup.terminal, TCSANOW, &SignalCleanup.silent) }
    }
}
