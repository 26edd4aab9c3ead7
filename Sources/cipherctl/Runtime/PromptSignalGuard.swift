import Glibc

/// A key prompt turns the terminal's echo off while it waits. A signal that ends the process
/// then (Ctrl-C, Ctrl-\, a hang-up, kill) must not leave the terminal that way: while armed,
/// these put the terminal's settings back, then end the process as the signal would have.
/// One prompt waits at a time, so one saved state is enough; it is stored before the
/// handlers go in, so the handler only reads it.
enum PromptSignalGuard {
    private static let signals = [SIGINT, SIGQUIT, SIGTERM, SIGHUP]
    private static var terminal: Int32 = -1
    private static var settings = termios()
    private static var previous: [sighandler_t?] = []

    static func arm(terminal: Int32, settings: termios) {
        Self.terminal = terminal
        Self.settings = settings
        previous = signals.map { signal($0, restoreAndEnd) }
    }

    static func disarm() {
        for (number, handler) in zip(signals, previous) { _ = signal(number, handler) }
        previous = []
        terminal = -1
    }

    private static let restoreAndEnd: @convention(c) (Int32) -> Void = { number in
        _ = tcsetattr(PromptSignalGuard.terminal, TCSANOW, &PromptSignalGuard.settings)
        _ = signal(number, SIG_DFL)
        _ = raise(number)
    }
}
