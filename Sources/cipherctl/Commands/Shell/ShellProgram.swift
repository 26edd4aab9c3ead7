import CipherKit
import FoundationEssentials
import Glibc

/// The `sqlcipher` shell `shell` runs: the one `--program` names, else the first on PATH,
/// checked to be SQLCipher 4 or later, whose settings pragmas the keying script uses.
struct ShellProgram {
    let path: String

    /// Finds the shell and checks its version.
    ///
    /// - Throws: `UsageError` naming the package when there is none, or when it is a plain
    ///   sqlite3 or an older SQLCipher.
    init(given: String?, environment: [String: String], command: String) throws {
        let hint = "install SQLCipher 4's shell: apt-get install sqlcipher (on Debian 12 from bookworm-backports), or name one with \(ShellOptions.program.name) PATH"
        if let given {
            guard let found = ProgramSearch.find(given, environment: environment) else {
                throw UsageError("'\(given)' is not an executable sqlcipher shell", command: command, hint: hint)
            }
            var status = stat()
            guard stat(found, &status) != 0 || status.st_mode & S_IFMT != S_IFDIR else {
                throw UsageError("'\(given)' is a folder, not a sqlcipher shell", command: command, hint: hint)
            }
            path = found
        } else {
            guard let found = ProgramSearch.find("sqlcipher", environment: environment) else {
                throw UsageError("no sqlcipher shell on PATH", command: command, hint: hint)
            }
            path = found
        }
        let answer = Self.versionAnswer(of: path)
        guard let version = answer.version, version >= 4 else {
            let said = answer.timedOut ? "it did not answer -version within 10 seconds"
                : "its -version names " + (answer.version.map { "SQLCipher \($0)" } ?? "no SQLCipher")
            throw UsageError("'\(path)' is not SQLCipher 4's shell or later (\(said))", command: command, hint: hint)
        }
    }

    /// The SQLCipher major version `program -version` names ("… (SQLCipher 4.6.1 community)").
    static func sqlcipherVersion(of program: String) -> Int? {
        versionAnswer(of: program).version
    }

    /// That version, and whether the program ran out the time to answer.
    private static func versionAnswer(of program: String) -> (version: Int?, timedOut: Bool) {
        // -init /dev/null: the shell would run ~/.sqliterc before it answered.
        var launch = ChildLaunch(executable: program, arguments: [program, "-init", "/dev/null", "-version"])
        launch.inheritsEnvironment = false
        launch.errorOutput = .discarded
        // A program that does not answer is killed with whatever it started.
        launch.ownProcessGroup = true
        guard let process = try? ChildProcess(launch) else { return (nil, false) }
        let output: [UInt8]
        do {
            output = try process.collect(deadline: Date().addingTimeInterval(10), limit: 4096)
        } catch {
            return (nil, error as? ChildProcess.CollectFailure == .timedOut)
        }
        _ = process.wait()
        let text = String(decoding: output, as: UTF8.self)
        guard let range = text.firstRange(of: "SQLCipher ") else { return (nil, false) }
        return (Int(text[range.upperBound...].prefix { $0.isNumber }), false)
    }
}
