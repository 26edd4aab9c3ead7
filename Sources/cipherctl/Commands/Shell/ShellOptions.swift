import CipherKit

/// `shell`'s command line, read once: the database, its key and settings, whether the shell
/// may write, which shell, and the arguments handed on to it.
struct ShellOptions {
    static let write = OptionSpec("--write", help: "Open the database read-write in the shell (read-only by default).")
    static let program = OptionSpec("--program", value: "PATH", traits: .path, help: "The sqlcipher shell to run (default: sqlcipher on PATH); it must be SQLCipher 4 or later.")
    static let group = OptionGroup(title: "SHELL OPTIONS", options: [write, program])

    /// What the shell would take in the place of the keying script.
    static let refusedShellOptions: Set<String> = ["-init", "--init"]

    let path: String
    let writes: Bool
    let program: String?
    let shellArguments: [String]
    let settings: CipherSettings
    let key: KeyOptions

    /// - Throws: `UsageError` for a missing or extra path, a bad cipher option, a key on
    ///   standard input (the shell's), or `-init` among the shell's arguments.
    init(_ arguments: ParsedArguments) throws {
        path = try arguments.databasePath()
        writes = arguments.has(Self.write)
        program = arguments.value(Self.program)
        shellArguments = arguments.passedThrough
        if let refused = shellArguments.first(where: Self.refusedShellOptions.contains) {
            throw UsageError("the shell's '\(refused)' would replace the script that keys it", command: arguments.command,
                             hint: "run a file of your own with -- -cmd '.read FILE'")
        }
        try KeyReader.refuseSharedStandardInput(arguments, for: "the shell's input")
        settings = try CipherOptionsReader.settings(from: arguments)
        key = KeyOptions(arguments)
    }
}
