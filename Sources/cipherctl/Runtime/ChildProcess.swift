import CipherKit
import FoundationEssentials
import Glibc

/// A program started with `posix_spawn` as a `ChildLaunch` says, its standard output on a
/// pipe of ours. Every pipe end of ours is close-on-exec, so the child holds only the ends
/// it was given, and no other child started meanwhile holds any. A child not yet waited for
/// is killed and reaped when this goes away.
final class ChildProcess {
    /// Why the child could not be started: the `errno` of the step that failed.
    enum StartFailure: Error {
        case noPipe(Int32)
        case notStarted(Int32)

        var reason: String {
            switch self {
            case .noPipe(let code), .notStarted(let code): return String(cString: strerror(code))
            }
        }
    }

    /// Why `collect` stopped reading; the child's group was killed.
    enum CollectFailure: Error {
        case timedOut
        case tooLong
    }

    /// How the child ended.
    struct Ending {
        /// The status `waitpid` gave.
        let status: Int32
        /// The signal that killed it, else 0.
        var signal: Int32 { status & 0x7f }
        /// Its exit code when no signal killed it.
        var code: Int32 { signal == 0 ? (status >> 8) & 0xff : 0 }
    }

    private let pid: pid_t
    /// The child's process id (its process group's, when it has one of its own).
    var processID: pid_t { pid }
    private let ownProcessGroup: Bool
    private var outputPipe: Int32
    private var errorPipe: Int32
    private var reaped = false
    /// The end of standard error, for its last line.
    private var errorTail = [UInt8]()

    /// - Throws: `StartFailure`.
    init(_ launch: ChildLaunch) throws {
        let output = try Self.closeOnExecPipe()
        var errors: [Int32] = [-1, -1]
        if launch.errorOutput == .captured {
            do { errors = try Self.closeOnExecPipe() } catch { output.forEach { close($0) }; throw error }
        }
        let started = Self.spawn(launch, output: output[1], error: errors[1])
        // Our copies of the write ends go at once, so that the pipes close when the child ends.
        close(output[1])
        if errors[1] >= 0 { close(errors[1]) }
        do {
            pid = try started.get()
        } catch {
            close(output[0])
            if errors[0] >= 0 { close(errors[0]) }
            throw error
        }
        ownProcessGroup = launch.ownProcessGroup
        outputPipe = output[0]
        errorPipe = errors[0]
    }

    deinit {
        if outputPipe >= 0 { close(outputPipe) }
        if errorPipe >= 0 { close(errorPipe) }
        if !reaped {
            kill()
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
    }

    /// Kills the child (its whole group when it has one of its own).
    func kill() {
        _ = Glibc.kill(ownProcessGroup ? -pid : pid, SIGKILL)
    }

    /// The next chunk of standard output, waiting for it; nil at its end. For a child whose
    /// standard error is not captured (a full error pipe would stall it).
    func nextOutput(upTo size: Int) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: size)
        while outputPipe >= 0 {
            let count = chunk.withUnsafeMutableBytes { read(outputPipe, $0.baseAddress, $0.count) }
            if count > 0 { return Array(chunk[0..<count]) }
            if count < 0, errno == EINTR { continue }
            close(outputPipe)
            outputPipe = -1
        }
        return nil
    }

    /// Standard output until both pipes close; on a time-out or too much output the child's
    /// group is killed and `CollectFailure` thrown (what was read is wiped).
    func collect(deadline: Date, limit: Int) throws -> [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(limit + 4096)
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { SecureBytes.wipe(&chunk) }
        do {
            while outputPipe >= 0 || errorPipe >= 0 {
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else { throw CollectFailure.timedOut }
                var fds = [outputPipe, errorPipe].filter { $0 >= 0 }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining * 1000 + 1, 60_000)))
                if ready < 0, errno == EINTR { continue }
                for entry in fds where entry.revents != 0 {
                    try readReady(entry.fd, chunk: &chunk, into: &output, limit: limit)
                }
            }
        } catch {
            kill()
            SecureBytes.wipe(&output)
            throw error
        }
        return output
    }

    /// One read from a pipe `poll` found ready: output kept, error's end kept, a closed pipe closed.
    private func readReady(_ fd: Int32, chunk: inout [UInt8], into output: inout [UInt8], limit: Int) throws {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { return }
        if count <= 0 {
            close(fd)
            if fd == outputPipe { outputPipe = -1 } else { errorPipe = -1 }
        } else if fd == outputPipe {
            guard output.count + count <= limit else { throw CollectFailure.tooLong }
            output.append(contentsOf: chunk[0..<count])
        } else {
            errorTail = Array((errorTail + chunk[0..<count]).suffix(4096))
        }
    }

    /// Waits for the child to exit. With a deadline, a child still running then is killed
    /// (with its group) and nil returned; nil too when it cannot be waited for.
    func wait(deadline: Date? = nil) -> Ending? {
        var status: Int32 = 0
        var killed = false
        while true {
            let blocking = deadline == nil || killed
            let done = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if done == pid { break }
            if done < 0, errno == EINTR { continue }
            if done < 0 { reaped = true; return nil }
            if let deadline, Date() >= deadline {
                kill()
                killed = true
            } else {
                usleep(5_000)
            }
        }
        reaped = true
        return killed ? nil : Ending(status: status)
    }

    /// The last line of standard error that holds anything, trimmed; nil when there is none.
    var lastErrorLine: String? {
        let lines = String(decoding: errorTail, as: UTF8.self).split(whereSeparator: \.isNewline)
        return lines.last { !$0.trimmingWhitespace().isEmpty }.map { String($0.prefix(300)).trimmingWhitespace() }
    }
}
