import CipherKit
import Foundation

/// What every command gets besides its arguments: the console and the environment.
struct CommandContext {
    var console: Console
    let environment: [String: String]

    /// Milliseconds to wait for another process's lock (--busy-timeout, default 5000).
    var busyTimeoutMilliseconds = 5000

    /// SQLCipher's own log level: silent unless --verbose.
    var logLevel: CipherLogLevel { console.verbose ? .warn : .none }

    /// Applies the output options shared by every command.
    ///
    /// - Throws: `UsageError` for a --busy-timeout that is not a whole number of milliseconds.
    mutating func apply(_ arguments: ParsedArguments) throws {
        console.json = arguments.has("--json")
        console.quiet = arguments.has("--quiet")
        console.verbose = arguments.has("--verbose")
        if console.quiet, console.verbose {
            throw UsageError("--quiet and --verbose cannot be given together", command: arguments.command)
        }
        if let text = arguments.value("--busy-timeout") {
            guard let value = Int(text), value >= 0 else {
                throw UsageError("--busy-timeout needs a whole number of milliseconds", command: arguments.command)
            }
            busyTimeoutMilliseconds = value
        }
    }

    /// An `OpenRequest` for `path` with this run's busy timeout and SQLCipher log level.
    func openRequest(path: String, key: KeyMaterial?, settings: CipherSettings, mode: OpenMode) -> OpenRequest {
        OpenRequest(path: path, key: key, settings: settings, mode: mode, busyTimeoutMilliseconds: busyTimeoutMilliseconds, logLevel: logLevel)
    }

    /// Whether `--verify full` asks for the full checks after a page-engine copy.
    ///
    /// - Throws: `UsageError` for another value, or beside --no-verify.
    func fullVerification(_ arguments: ParsedArguments) throws -> Bool {
        guard let text = arguments.value("--verify") else { return false }
        guard text == "full" || text == "pages" else {
            throw UsageError("--verify takes pages or full", command: arguments.command)
        }
        if arguments.has("--no-verify") {
            throw UsageError("--verify and --no-verify cannot be given together", command: arguments.command)
        }
        return text == "full"
    }

    /// The page engine's threads: `--threads N` (1 to 256), else one per core.
    ///
    /// - Throws: `UsageError` for a value that is not a whole number from 1 to 256.
    func threads(_ arguments: ParsedArguments) throws -> Int {
        guard let text = arguments.value("--threads") else { return ProcessInfo.processInfo.activeProcessorCount }
        guard let value = Int(text), (1...256).contains(value) else {
            throw UsageError("--threads needs a whole number from 1 to 256", command: arguments.command)
        }
        return value
    }

    /// Whether to verify the result: false under --no-verify, which is warned about with
    /// `unchecked` (what goes unchecked).
    func verifies(_ arguments: ParsedArguments, unchecked: String) -> Bool {
        guard arguments.has("--no-verify") else { return true }
        console.warning("--no-verify: " + unchecked)
        return false
    }
}
