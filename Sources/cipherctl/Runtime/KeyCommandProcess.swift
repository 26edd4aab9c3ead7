import CipherKit
import Foundation

/// The process of a `--key-cmd`: `/bin/sh -c COMMAND` in a process group of its own, standard
/// input on /dev/null, standard output and error on pipes read with `poll` until both close.
final class KeyCommandProcess {
    enum Failure: Error {
        case timedOut
        case tooLong
    }

    private let pid: pid_t
    private var outputPipe: Int32
    private var errorPipe: Int32
    /// The end of standard error, for its last line.
    private var errorTail = [UInt8]()

    /// - Throws: `UsageError` when the shell cannot be started.
    init(command: String) throws {
        var output: [Int32] = [0, 0], error: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { throw UsageError("cannot make a pipe for the key command", command: nil) }
        guard pipe(&error) == 0 else {
            close(output[0]); close(output[1])
            throw UsageError("cannot make a pipe for the key command", command: nil)
        }
        // Only the ends dup2'd into the child's 1 and 2 reach the command.
        for descriptor in output + error { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, error[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A group of its own, so that a time-out kills what the shell started too.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        let arguments: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { (text: String) in strdup(text) }
        defer { arguments.forEach { free($0) } }
        var child: pid_t = 0
        let started = posix_spawn(&child, "/bin/sh", &actions, &attributes, arguments + [nil], environ)
        close(output[1])
        close(error[1])
        guard started == 0 else {
            close(output[0]); close(error[0])
            throw UsageError("cannot start the key command: \(String(cString: strerror(started)))", command: nil)
        }
        pid = child
        outputPipe = output[0]
        errorPipe = error[0]
    }

    deinit {
        if outputPipe >= 0 { close(outputPipe) }
        if errorPipe >= 0 { close(errorPipe) }
    }

    /// Standard output until both pipes close; on a time-out or too much output the process
    /// group is killed and `Failure` thrown (what was read is wiped).
    func collect(deadline: Date, limit: Int) throws -> [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(limit + 4096)
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { SecureBytes.wipe(&chunk) }
        do {
            while outputPipe >= 0 || errorPipe >= 0 {
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else { throw Failure.timedOut }
                var fds = [outputPipe, errorPipe].filter { $0 >= 0 }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining * 1000 + 1, 60_000)))
                if ready < 0, errno == EINTR { continue }
                for entry in fds where entry.revents != 0 {
                    let count = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR { continue }
                    if count <= 0 {
                        close(entry.fd)
                        if entry.fd == outputPipe { outputPipe = -1 } else { errorPipe = -1 }
                    } else if entry.fd == outputPipe {
                        guard output.count + count <= limit else { throw Failure.tooLong }
                        output.append(contentsOf: chunk[0..<count])
                    } else {
                        errorTail = Array((errorTail + chunk[0..<count]).suffix(4096))
                    }
                }
            }
        } catch {
            kill(-pid, SIGKILL)
            SecureBytes.wipe(&output)
            throw error
        }
        return output
    }

    /// Waits for the shell to exit: its exit code, or the signal that ended it; nil when it
    /// is still running at `deadline` (having closed its output), and then its group is killed.
    func wait(deadline: Date) -> (code: Int32, signal: Int32)? {
        var status: Int32 = 0
        var timedOut = false
        while true {
            let done = waitpid(pid, &status, timedOut ? 0 : WNOHANG)
            if done == pid { break }
            if done < 0, errno != EINTR { return nil }
            if !timedOut, Date() >= deadline {
                kill(-pid, SIGKILL)
                timedOut = true
            } else if !timedOut {
                usleep(5_000)
            }
        }
        guard !timedOut else { return nil }
        let signal = status & 0x7f
        return signal != 0 ? (0, signal) : ((status >> 8) & 0xff, 0)
    }

    /// The last line of standard error that holds anything, trimmed; nil when there is none.
    var lastErrorLine: String? {
        let lines = String(decoding: errorTail, as: UTF8.self).split(whereSeparator: \.isNewline)
        return lines.last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map { String($0.prefix(300)).trimmingCharacters(in: .whitespaces) }
    }
}
