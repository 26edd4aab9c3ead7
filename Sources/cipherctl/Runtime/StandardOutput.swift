import FoundationEssentials
import Glibc

/// Writes result chunks to standard output with write(2), retrying short writes; a reader
/// that has gone away (EPIPE, SIGPIPE being ignored) ends the output with `OutputClosed`.
enum StandardOutput {
    /// Whether standard output is a terminal.
    static var isTerminal: Bool { isatty(STDOUT_FILENO) != 0 }

    static func write(_ bytes: UnsafeRawBufferPointer) throws {
        try write(bytes, to: STDOUT_FILENO)
    }

    /// Writes `text` to standard error, dropping what cannot be written.
    static func writeError(_ text: String) {
        Array(text.utf8).withUnsafeBytes { _ = try? write($0, to: STDERR_FILENO) }
    }

    private static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { throw OutputClosed() }
                throw OutputClosed(reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }
}
