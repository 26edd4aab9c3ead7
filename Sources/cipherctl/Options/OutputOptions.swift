/// The options every command takes for what it prints and how long it waits: their specs,
/// which the catalog lists, and their values, read once.
struct OutputOptions {
    static let json = OptionSpec("--json", help: "Print JSON on standard output: one object (several databases or files: one a line, then a summary object; query's rows take their shape from --format alone); an error is one JSON object on standard error, with its exit code and reason.")
    static let verbose = OptionSpec("--verbose", help: "Say more, and let SQLCipher log its warnings to standard error.")
    static let quiet = OptionSpec("--quiet", help: "Print nothing but errors and the output asked for; warnings are silenced.")
    static let busyTimeout = OptionSpec("--busy-timeout", value: "MS", help: "Wait up to MS milliseconds for another process's lock (default 5000), then exit 6.")
    static let fips = OptionSpec("--fips", help: "FIPS mode: every cryptographic operation through OpenSSL's EVP interface (its FIPS provider where OpenSSL is configured with it), none of cipherctl's own; no settings search, and fewer than 1000 KDF iterations refused (exit 2). On by itself when OpenSSL's default properties ask for its FIPS provider.")
    static let group = OptionGroup(title: "OUTPUT OPTIONS", options: [json, verbose, quiet, busyTimeout, fips, CommandCatalog.helpOption])

    let json: Bool
    let verbose: Bool
    let quiet: Bool
    /// --fips: FIPS mode asked for (OpenSSL's configuration may ask for it too).
    let fips: Bool
    /// Milliseconds to wait for another process's lock.
    let busyTimeoutMilliseconds: Int

    /// - Throws: `UsageError` for --quiet with --verbose, or a --busy-timeout that is not a
    ///   whole number of milliseconds.
    init(_ arguments: ParsedArguments) throws {
        json = arguments.has(Self.json)
        verbose = arguments.has(Self.verbose)
        quiet = arguments.has(Self.quiet)
        fips = arguments.has(Self.fips)
        if quiet, verbose {
            throw UsageError("\(Self.quiet.name) and \(Self.verbose.name) cannot be given together", command: arguments.command)
        }
        guard let text = arguments.value(Self.busyTimeout) else {
            busyTimeoutMilliseconds = 5000
            return
        }
        guard let value = Int(text), value >= 0 else {
            throw UsageError("\(Self.busyTimeout.name) needs a whole number of milliseconds", command: arguments.command)
        }
        busyTimeoutMilliseconds = value
    }
}
