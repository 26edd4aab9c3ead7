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
            path = found
        } else {
            guard let found = ProgramSearch.find("sqlcipher", environment: environment) else {
                throw UsageError("no sqlcipher shell on PATH", command: command, hint: hint)
            }
            path = found
        }
        let version = Self.sqlcipherVersion(of: path)
        guard let version, version >= 4 else {
            let named = version.map { "SQLCipher \($0)" } ?? "no SQLCipher"
            throw UsageError("'\(path)' is not SQLCipher 4's shell or later (its -version names \(named))", command: command, hint: hint)
        }
    }

    /// The SQLCipher major version `program -version` names ("… (SQLCipher 4.6.1 community)").
    static func sqlcipherVersion(of program: String) -> Int? {
        // -init /dev/null: the shell would run ~/.sqliterc before it answered.
        var launch = ChildLaunch(executable: program, arguments: [program, "-init", "/dev/null", "-version"])
        launch.inheritsEnvironment = false
        launch.errorOutput = .discarded
        // A program that does not answer is killed with whatever it started.
        launch.ownProcessGroup = true
        guard let process = try? ChildProcess(launch),
              let output = try? process.collect(deadline: Date().addingTimeInterval(10), limit: 4096) else { return nil }
        _ = process.wait()
        let text = String(decoding: output, as: UTF8.self)
        guard let range = text.firstRange(of: "SQLCipher ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}
