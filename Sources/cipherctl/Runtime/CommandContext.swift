import CipherKit
import FoundationEssentials
import Glibc

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
    /// - Throws: what reading them throws (`OutputOptions.init`).
    mutating func apply(_ arguments: ParsedArguments) throws {
        let output = try OutputOptions(arguments)
        console.json = output.json
        console.quiet = output.quiet
        console.verbose = output.verbose
        busyTimeoutMilliseconds = output.busyTimeoutMilliseconds
        Self.selectCryptoMode(fips: output.fips)
    }

    /// FIPS mode when asked for, or when OpenSSL's configuration makes its FIPS provider the
    /// default; chosen once, before anything is keyed.
    static func selectCryptoMode(fips: Bool) {
        CryptoMode.select(fips || CryptoMode.fipsProviderIsDefault ? .fips : .standard)
    }

    /// An `OpenRequest` for `path` with this run's busy timeout and SQLCipher log level.
    func openRequest(path: String, key: KeyMaterial?, settings: CipherSettings, mode: OpenMode) -> OpenRequest {
        OpenRequest(path: path, key: key, settings: settings, mode: mode, busyTimeoutMilliseconds: busyTimeoutMilliseconds, logLevel: logLevel)
    }
}
