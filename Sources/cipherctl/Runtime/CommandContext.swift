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
}
