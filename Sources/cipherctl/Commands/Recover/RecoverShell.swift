import CipherKit
import Foundation

/// SQLite's own recovery, run by a shell of the distribution (`sqlcipher`, else `sqlite3`) as
/// `.recover` on a memory file the child reads as its descriptor 3 (into its own memory,
/// with `.open --deserialize`): its SQL comes back
/// through a pipe, a chunk at a time. The child gets no environment (no key variable reaches
/// it) and no start-up file (`-init /dev/null`), so nothing but the recovery shapes its output.
/// See https://www.sqlite.org/cli.html#recover_data_from_a_corrupted_database
final class RecoverShell {
    private let pid: pid_t
    private var output: Int32
    private let shell: String

    /// The shell on `PATH` that can run `.recover`, or nil.
    static func find(environment: [String: String]) -> String? {
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        // Debian 12's sqlite3 (3.40) fails .recover with "SQL logic error" where sqlcipher's (3.46) works.
        for name in ["sqlcipher", "sqlite3"] {
            if let folder = folders.first(where: { access($0 + "/" + name, X_OK) == 0 }) { return folder + "/" + name }
        }
        return nil
    }

    /// Starts `shell` on the memory file `image`.
    ///
    /// - Throws: `CipherKitError.fileAccess` when it cannot be started.
    init(shell: String, image: Int32) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw CipherKitError.fileAccess(path: shell, reason: "no pipe: " + String(cString: strerror(errno))) }
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, image, 3)
        // SQLite resolves a path's symbolic links, and /dev/fd/3 leads to a memory file's
        // pseudo-name; the shell's own reader (.open --deserialize) reads the descriptor as is.
        let commands = [":memory:", ".open --readonly --deserialize /dev/fd/3", ".recover"]
        let arguments: [UnsafeMutablePointer<CChar>?] = ([shell, "-batch", "-init", "/dev/null"] + commands).map { (text: String) in strdup(text) }
        defer { arguments.forEach { free($0) } }
        var environment: [UnsafeMutablePointer<CChar>?] = [nil]
        var child: pid_t = 0
        let started = posix_spawn(&child, shell, &actions, nil, arguments + [nil], &environment)
        close(pipeEnds[1])
        guard started == 0 else {
            close(pipeEnds[0])
            throw CipherKitError.fileAccess(path: shell, reason: "cannot start it: " + String(cString: strerror(started)))
        }
        pid = child
        output = pipeEnds[0]
        self.shell = shell
    }

    deinit {
        if output >= 0 {
            close(output)
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// The next chunk of SQL; nil at its end, once the shell has exited with 0.
    ///
    /// - Throws: `RecoverShellFailure` when the shell fails.
    func next() throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count > 0 { return Array(chunk[0..<count]) }
            if count < 0, errno == EINTR { continue }
            close(output)
            output = -1
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            guard status == 0 else { throw RecoverShellFailure(shell: shell, status: status) }
            return nil
        }
    }
}
