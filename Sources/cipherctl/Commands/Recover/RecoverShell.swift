import CipherKit
import FoundationEssentials
import Glibc

/// SQLite's own recovery, run by a shell of the distribution (`sqlcipher`, else `sqlite3`) as
/// `.recover` on a memory file the child reads as its descriptor 3 (into its own memory,
/// with `.open --deserialize`): its SQL comes back
/// through a pipe, a chunk at a time. The child gets no environment (no key variable reaches
/// it) and no start-up file (`-init /dev/null`), so nothing but the recovery shapes its output.
/// See https://www.sqlite.org/cli.html#recover_data_from_a_corrupted_database
final class RecoverShell {
    private let process: ChildProcess
    private let shell: String
    private var finished = false

    /// The shell on `PATH` that can run `.recover`, or nil.
    static func find(environment: [String: String]) -> String? {
        // Debian 12's sqlite3 (3.40) fails .recover with "SQL logic error" where sqlcipher's (3.46) works.
        ["sqlcipher", "sqlite3"].lazy.compactMap { ProgramSearch.find($0, environment: environment) }.first
    }

    /// Starts `shell` on the memory file `image`.
    ///
    /// - Throws: `CipherKitError.fileAccess` when it cannot be started.
    init(shell: String, image: Int32) throws {
        // SQLite resolves a path's symbolic links, and /dev/fd/3 leads to a memory file's
        // pseudo-name; the shell's own reader (.open --deserialize) reads the descriptor as is.
        let commands = [":memory:", ".open --readonly --deserialize /dev/fd/3", ".recover"]
        var launch = ChildLaunch(executable: shell, arguments: [shell, "-batch", "-init", "/dev/null"] + commands)
        launch.errorOutput = .discarded
        launch.inheritsEnvironment = false
        launch.descriptors = [3: image]
        do {
            process = try ChildProcess(launch)
        } catch let failure as ChildProcess.StartFailure {
            switch failure {
            case .noPipe: throw CipherKitError.fileAccess(path: shell, reason: "no pipe: " + failure.reason)
            case .notStarted: throw CipherKitError.fileAccess(path: shell, reason: "cannot start it: " + failure.reason)
            }
        }
        self.shell = shell
    }

    /// The next chunk of SQL; nil at its end, once the shell has exited with 0.
    ///
    /// - Throws: `RecoverShellFailure` when the shell fails.
    func next() throws -> [UInt8]? {
        guard !finished else { return nil }
        if let chunk = process.nextOutput(upTo: 1 << 16) { return chunk }
        finished = true
        // A shell that cannot be waited for has already been reaped; its SQL came through whole.
        let status = process.wait()?.status ?? 0
        guard status == 0 else { throw RecoverShellFailure(shell: shell, ending: .status(status)) }
        return nil
    }
}
