import CipherKit
import FoundationEssentials
import Glibc

/// Turns this process into the shell (`execve`), its keying script on a pipe it reads as
/// `-init /dev/fd/N`. The script is written whole into the pipe before the exec and the
/// write end closed, so the shell reads it to its end and the pipe then holds nothing. The
/// descriptor the key came from is closed; every descriptor cipherctl opened is
/// close-on-exec, and those the user handed in (`9<file`) stay the shell's. The signals
/// cipherctl ignores for itself go back to their defaults. The exec replaces this process's
/// memory, key included.
enum ShellExec {
    /// Never returns but by throwing.
    ///
    /// - Throws: `CipherKitError.fileAccess` when the pipe cannot be made or the exec fails.
    static func run(_ program: String, arguments: [String], environment: [String: String], script: ShellInitScript, closing keyDescriptors: [Int32]) throws -> Never {
        let input = try scriptPipe(script, program: program)
        for descriptor in keyDescriptors where descriptor > 2 && descriptor != input { close(descriptor) }
        _ = fcntl(input, F_SETFD, 0)
        _ = signal(SIGPIPE, SIG_DFL)
        _ = signal(SIGXFSZ, SIG_DFL)
        let argv = ([program, "-init", "/dev/fd/\(input)"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0.key + "=" + $0.value) } + [nil]
        execve(program, argv, envp)
        let reason = String(cString: strerror(errno))
        close(input)
        throw CipherKitError.fileAccess(path: program, reason: "cannot start it: " + reason)
    }

    /// The read end of a pipe holding the whole script (far smaller than a pipe's buffer).
    private static func scriptPipe(_ script: ShellInitScript, program: String) throws -> Int32 {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw CipherKitError.fileAccess(path: program, reason: "no pipe: " + String(cString: strerror(errno))) }
        defer { close(ends[1]) }
        let written = script.bytes.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let count = write(ends[1], bytes.baseAddress! + done, bytes.count - done)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                done += count
            }
            return true
        }
        guard written else {
            close(ends[0])
            throw CipherKitError.fileAccess(path: program, reason: "cannot hand it its start-up script: " + String(cString: strerror(errno)))
        }
        return ends[0]
    }
}
