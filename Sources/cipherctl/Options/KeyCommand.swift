import CipherKit
import FoundationEssentials
import Glibc

/// A key printed by a command (`--key-cmd`): a secret store's client, or any script. The
/// command runs through `/bin/sh -c` in a process group of its own, with standard input on
/// /dev/null; its standard output is the key (one trailing newline dropped), read into a
/// buffer that is wiped; its standard error is kept only for its last line, which a failure
/// names. Past the time limit the whole group is killed.
struct KeyCommand {
    let command: String
    let timeout: Double
    /// The option that gave it, for messages.
    let option: String
    /// For a template (`{path}`, `{name}`): the database the key is for. Such a command runs
    /// without a shell (`CommandWords`).
    var database: String? = nil
    /// The command's environment: ours without the variables any key of the run was read
    /// from (`withoutKeys`); its PATH finds a template's program.
    var environment: [String: String]

    init(command: String, timeout: Double, option: String, environment: [String: String]) {
        (self.command, self.timeout, self.option, self.environment) = (command, timeout, option, environment)
    }

    /// `environment` without the variables that `--key-env` and its kin (and `extra`) name:
    /// a key command has no business reading another key.
    static func withoutKeys(_ environment: [String: String], arguments: ParsedArguments, extra: [String] = []) -> [String: String] {
        // A key ring's variables each hold a key too (`--key-ring`, `--other-key-ring`).
        let rings = ["", "other-"].flatMap { (try? KeyOptions(arguments, prefix: $0).ringVariables()) ?? [] }
        let names = Set(["", "new-", "to-", "other-"].compactMap { arguments.value(KeyReader(prefix: $0).envOption) } + extra + rings)
        return environment.filter { !names.contains($0.key) }
    }

    /// Whether `command` names the database it is run for, so that each file has its own key.
    private static let oneAtATime = Lock()

    static func isTemplate(_ command: String) -> Bool {
        command.contains("{path}") || command.contains("{name}")
    }

    /// The most a key's output may hold: far more than any key, far less than a mistake
    /// (a command that prints a file) could fill.
    private static let maximumOutput = 64 * 1024

    /// The key bytes the command printed.
    ///
    /// - Throws: `UsageError` (exit 2) when it cannot start, exits non-zero, is killed,
    ///   prints nothing or too much, or outlives the time limit; the message never holds
    ///   its standard output.
    func run(subcommand: String) throws -> [UInt8] {
        // One key command at a time (an audit's workers read their files' keys in turn), so
        // that an interrupt kills the group of the one running, which the terminal's Ctrl-C misses.
        Self.oneAtATime.lock()
        defer { Self.oneAtATime.unlock() }
        let process = try start()
        SignalCleanup.armChild(group: process.processID)
        defer { SignalCleanup.disarm() }
        let deadline = Date().addingTimeInterval(timeout)
        let late = "did not finish within \(Self.seconds(timeout)) (\(KeyReader.commandTimeoutOption.name) sets the limit)"
        var output = [UInt8](), failure: String?
        do {
            output = try process.collect(deadline: deadline, limit: Self.maximumOutput)
        } catch ChildProcess.CollectFailure.timedOut {
            failure = late
        } catch ChildProcess.CollectFailure.tooLong {
            failure = "printed more than \(Self.maximumOutput / 1024) KB"
        }
        guard let status = process.wait(deadline: deadline) else {
            SecureBytes.wipe(&output)
            throw UsageError("the \(option) command \(failure ?? late)", command: subcommand)
        }
        if failure == nil {
            if status.signal != 0 {
                failure = "was killed by signal \(status.signal)"
            } else if status.code != 0 {
                failure = "exited with status \(status.code)"
            }
        }
        if failure == nil {
            if output.last == UInt8(ascii: "\n") { output.removeLast() }
            if output.isEmpty { failure = "printed no key" }
        }
        guard let failure else { return output }
        SecureBytes.wipe(&output)
        let said = process.lastErrorLine.map { ": " + $0 } ?? ""
        throw UsageError("the \(option) command \(failure)\(said)", command: subcommand)
    }

    /// `/bin/sh -c COMMAND`, or a template's words run as they are, in a process group of
    /// its own, its signals at their defaults.
    ///
    /// - Throws: `UsageError` when it cannot be started.
    private func start() throws -> ChildProcess {
        var launch = try database.map(templateLaunch) ?? ChildLaunch.shell(command)
        launch.environment = environment
        launch.ownProcessGroup = true
        launch.defaultSignals = true
        do {
            return try ChildProcess(launch)
        } catch ChildProcess.StartFailure.noPipe {
            throw UsageError("cannot make a pipe for the key command", command: nil)
        } catch let failure as ChildProcess.StartFailure {
            throw UsageError("cannot start the key command: \(failure.reason)", command: nil)
        }
    }

    /// The template's words with `{path}` (the path as given) and `{name}` (its file name
    /// without the folder and the last extension) filled in after the split, so that no
    /// name is read by a shell.
    private func templateLaunch(_ path: String) throws -> ChildLaunch {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let name = file.lastIndex(of: ".").map { $0 == file.startIndex ? file : String(file[..<$0]) } ?? file
        guard var words = try? CommandWords.split(command), !words.isEmpty else {
            throw UsageError("the \(option) template has a quote that is not closed, or no program", command: nil)
        }
        words = words.map { $0.replacing("{path}", with: path).replacing("{name}", with: name) }
        let program = ProgramSearch.find(words[0], environment: environment) ?? words[0]
        return ChildLaunch(executable: program, arguments: words)
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
