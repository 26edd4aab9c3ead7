import FoundationEssentials
import Glibc

/// Asks for a secret on the controlling terminal with echo turned off.
enum TerminalPrompt {
    /// Whether standard input is a terminal, so a prompt may be shown.
    static var isInteractive: Bool { isatty(STDIN_FILENO) != 0 }

    /// Prints `prompt` on /dev/tty and reads one line without echo; nil when there is no terminal.
    /// The returned bytes are the caller's to wipe.
    static func readSecret(prompt: String) -> [UInt8]? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var original = termios()
        guard tcgetattr(tty, &original) == 0 else { return nil }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        // Echo goes off before the prompt shows: a key typed the moment it appears is never
        // echoed. A signal that ends the process meanwhile puts it back on first.
        SignalCleanup.armPrompt(terminal: tty, settings: original, silent: silent)
        defer { SignalCleanup.disarm() }
        guard tcsetattr(tty, TCSANOW, &silent) == 0 else { return nil }
        defer { _ = tcsetattr(tty, TCSANOW, &original) }
        _ = prompt.withCString { write(tty, $0, strlen($0)) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        byte = 0
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line
    }
}
