import CipherKit

/// The command line's entry: finds the command, parses its options, runs it, and maps
/// every error to its exit code.
enum CipherCtl {
    static let version = "0.1.0"

    /// What asks for the version (`-V` is not in help) and for help, in the place of a command.
    private static let versionSpellings = [CommandCatalog.versionOption.name, "-V"]
    private static let helpSpellings = [CommandCatalog.helpOption.name, CommandCatalog.helpOption.short, CommandCatalog.help.name].compactMap { $0 }

    /// Runs cipherctl with `arguments` (without the program name) and returns the exit code.
    static func run(_ arguments: [String], environment: [String: String]) -> ExitCode {
        var context = CommandContext(console: Console(), environment: environment)
        context.console.colour = Console.wantsColour(environment: environment)
        // --json anywhere asks for JSON errors, even when parsing fails.
        context.console.json = arguments.prefix { $0 != "--" }.contains(OutputOptions.json.name)
        do {
            return try dispatch(arguments, context: &context)
        } catch {
            let command = arguments.first.flatMap { CommandCatalog.command(named: $0)?.name }
            return ErrorReporter.report(error, console: context.console, command: command)
        }
    }

    private static func dispatch(_ arguments: [String], context: inout CommandContext) throws -> ExitCode {
        let (globals, arguments) = try globalOptions(leading: arguments)
        guard let first = arguments.first else {
            throw UsageError("no command given", hint: "commands: " + CommandCatalog.commands.map(\.name).joined(separator: ", "))
        }
        if versionSpellings.contains(first) {
            let (version, json, fips) = (CommandCatalog.versionOption.name, OutputOptions.json.name, OutputOptions.fips.name)
            let rest = globals + arguments.dropFirst()
            guard rest.allSatisfy({ $0 == json || $0 == fips }) else { throw UsageError("\(version) takes no arguments but \(json) and \(fips)") }
            CommandContext.selectCryptoMode(fips: rest.contains(fips))
            return try outputWritten(try printVersion(context: context), committed: false)
        }
        if helpSpellings.contains(first) {
            return try outputWritten(try printHelp(Array(arguments.dropFirst()), context: context), committed: false)
        }
        let command = try CommandCatalog.requireCommand(named: first)
        let parsed = try CommandLineParser.parse(globals + arguments.dropFirst(), for: command)
        return try run(command, parsed, context: &context)
    }

    /// Runs `command` once its options are parsed: its help, or its work.
    private static func run(_ command: CommandSpec, _ parsed: ParsedArguments, context: inout CommandContext) throws -> ExitCode {
        if parsed.has(CommandCatalog.helpOption) {
            context.console.output(HelpRenderer.command(command))
            return try outputWritten(.success, committed: false)
        }
        try context.apply(parsed)
        try KeyReader.refuseTwoKeysOnStandardInput(parsed)
        guard let run = runners[command.name] else {
            return try outputWritten(try printHelp(parsed.positionals, context: context), committed: false)
        }
        let code: ExitCode
        do {
            code = try run(parsed, context)
        } catch let findings as AuditFindings {
            // Findings whose report was lost are a lost report first.
            _ = try outputWritten(.findings, committed: false)
            throw findings
        }
        return try outputWritten(code, committed: changesFiles(command.name, parsed) && !RunChanges.shared.noneChanged)
    }

    /// The options every command takes, given before the command (`cipherctl --json open …`),
    /// with their values; and the arguments from the command on.
    private static func globalOptions(leading arguments: [String]) throws -> (globals: [String], rest: [String]) {
        var rest = arguments[...], globals: [String] = []
        while let argument = rest.first, argument.hasPrefix("-"), !(versionSpellings + helpSpellings).contains(argument) {
            let name = optionName(argument)
            guard let option = CommandCatalog.globalOptions.first(where: { $0.name == name }) else {
                let before = CommandCatalog.globalOptions.map(\.name).joined(separator: ", ")
                let known = CommandCatalog.commands.contains { $0.option(named: name) != nil }
                let suggestion = Suggestion.closest(to: name, in: CommandCatalog.globalOptions.map(\.name))
                throw UsageError("unknown option '\(name)' before the command; only \(before) go there",
                                 hint: known ? "put it after the command" : suggestion.map { "did you mean '\($0)'?" })
            }
            globals.append(rest.removeFirst())
            if option.takesValue, name == argument, let value = rest.first {
                globals.append(value)
                rest.removeFirst()
            }
        }
        return (globals, Array(rest))
    }

    /// `code`, unless a run's output could not be written (`OutputFailure`): a reader that
    /// stopped reading a look-only result is not a failure (as with query), but no output at
    /// all is, whatever the look found (diff's "different", audit's findings, as its
    /// "the same"), and after a successful change the change is said to stand.
    private static func outputWritten(_ code: ExitCode, committed: Bool) throws -> ExitCode {
        guard let failure = OutputFailure.shared.first, code == .success || (!committed && failure.reason != nil) else { return code }
        if failure.reason == nil, !committed { return code }
        throw UnwrittenResult(committed: committed, problem: failure.reason ?? "its reader closed it")
    }

    /// Whether a successful run of `command` changed or created files: its result then
    /// reports a change that stands.
    private static func changesFiles(_ command: String, _ parsed: ParsedArguments) -> Bool {
        fileChanges[command]?(parsed) ?? false
    }

    /// Whether a run changes files, for each command that can; each command's options say
    /// when. The string lookups are those of commands whose options are not typed yet.
    private static let fileChanges: [String: (ParsedArguments) -> Bool] = [
        CommandCatalog.open.name: { $0.has(OpenOptions.create) },
        CommandCatalog.salt.name: SaltOptions.changesFiles,
        CommandCatalog.keygen.name: KeygenOptions.changesFiles,
        CommandCatalog.rekey.name: { !$0.has(RekeyOptions.dryRun) },
        CommandCatalog.export.name: { _ in true },
        CommandCatalog.importRows.name: { _ in true },
        CommandCatalog.recover.name: { _ in true },
        CommandCatalog.plaintextHeader.name: { $0.has(PlaintextHeaderOptions.size) },
        CommandCatalog.query.name: { $0.has(QueryOptions.write) },
        CommandCatalog.shell.name: { $0.has(ShellOptions.write) },
    ]

    /// Each command's entry, by name (`help` has none: it prints).
    private static let runners: [String: (ParsedArguments, CommandContext) throws -> ExitCode] = [
        CommandCatalog.open.name: OpenCommand.run,
        CommandCatalog.query.name: QueryCommand.run,
        CommandCatalog.shell.name: ShellCommand.run,
        CommandCatalog.rekey.name: RekeyCommand.run,
        CommandCatalog.export.name: ExportCommand.run,
        CommandCatalog.salt.name: SaltCommand.run,
        CommandCatalog.plaintextHeader.name: PlaintextHeaderCommand.run,
        CommandCatalog.dump.name: DumpCommand.run,
        CommandCatalog.importRows.name: ImportCommand.run,
        CommandCatalog.diff.name: DiffCommand.run,
        CommandCatalog.recover.name: RecoverCommand.run,
        CommandCatalog.audit.name: AuditCommand.run,
        CommandCatalog.keygen.name: KeygenCommand.run,
        CommandCatalog.completion.name: CompletionCommand.run,
    ]

    private static func printHelp(_ topics: [String], context: CommandContext) throws -> ExitCode {
        // Hidden, for Scripts/manpage: help's long form, the manual page.
        if topics == ["--man"] {
            context.console.output(ManPage.render())
            return .success
        }
        switch topics.count {
        case 0:
            context.console.output(HelpRenderer.main(version: version))
        case 1:
            guard let command = CommandCatalog.command(named: topics[0]) else {
                let suggestion = Suggestion.closest(to: topics[0], in: CommandCatalog.commands.map(\.name))
                throw UsageError("no help for unknown command '\(topics[0])'", command: "help", hint: suggestion.map { "did you mean '\($0)'?" })
            }
            context.console.output(HelpRenderer.command(command))
        default:
            throw UsageError("help takes at most one command", command: "help")
        }
        return .success
    }

    private static func printVersion(context: CommandContext) throws -> ExitCode {
        let libraries = try LibraryVersions.current()
        let fipsProvider = CryptoMode.fipsProviderIsDefault ? "default" : CryptoMode.fipsProviderLoaded ? "loaded" : "absent"
        if context.console.json {
            let object = JSONValue.object([
                ("cipherctl", .string(version)),
                ("sqlcipher", .string(libraries.sqlcipher)),
                ("sqlite", .string(libraries.sqlite)),
                ("crypto_provider", .string(libraries.cryptoProvider)),
                ("crypto_provider_version", .string(libraries.cryptoProviderVersion)),
                ("crypto_contexts", .string(libraries.cachedCryptoContexts ? "kept" : "per page")),
                ("crypto_mode", .string(CryptoMode.current.rawValue)),
                ("fips_provider", .string(fipsProvider)),
            ])
            context.console.output(object.rendered() + "\n")
            return .success
        }
        context.console.output("""
        cipherctl \(version)
        SQLCipher \(libraries.sqlcipher)
        SQLite \(libraries.sqlite)
        crypto provider \(libraries.cryptoProvider) (\(libraries.cryptoProviderVersion)), \(libraries.cachedCryptoContexts ? "contexts kept between pages" : "contexts made per page")
        crypto mode \(CryptoMode.current.rawValue)\(CryptoMode.current == .fips ? ": all crypto through OpenSSL's EVP" : ""), OpenSSL's FIPS provider \(fipsProvider == "absent" ? "not loaded" : fipsProvider == "default" ? "loaded and the default" : "loaded")

        """)
        return .success
    }

    /// An option's name without any `=value`, which could be a key.
    private static func optionName(_ argument: String) -> String {
        argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
    }
}
