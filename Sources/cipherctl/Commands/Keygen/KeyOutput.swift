import CipherKit
import FoundationEssentials
import Glibc

/// A key written to a descriptor the user opened (`keygen --output-fd N`), straight from
/// its locked buffer, and never to a terminal, where it would stay on the screen.
enum KeyOutput {
    /// - Throws: `UsageError` when `descriptor` is not open for writing, or is a terminal.
    static func requireWritable(_ descriptor: Int32, option: String, command: String) throws {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, flags & O_ACCMODE != O_RDONLY else {
            throw UsageError("descriptor \(descriptor) (\(option)) is not open for writing", command: command,
                             hint: "open it in the shell that starts cipherctl: \(option) 3 3>key.file")
        }
        guard isatty(descriptor) == 0 else {
            throw UsageError("descriptor \(descriptor) (\(option)) is a terminal, where the key would stay on the screen", command: command)
        }
    }

    /// Whether `descriptor` is the file at `path`.
    static func isSameFile(_ descriptor: Int32, as path: String) -> Bool {
        guard let open = FileIdentity(descriptor: descriptor) else { return false }
        return FileIdentity(path: path) == open
    }

    /// Writes `line` whole to `descriptor`.
    ///
    /// - Throws: `CipherKitError.fileAccess` naming the descriptor when a write fails.
    static func write(_ line: SecureBytes, to descriptor: Int32) throws {
        try line.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    throw CipherKitError.fileAccess(path: "descriptor \(descriptor)", reason: String(cString: strerror(errno)))
                }
                done += count
            }
        }
    }
}
