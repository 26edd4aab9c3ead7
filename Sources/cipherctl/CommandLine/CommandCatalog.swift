import CipherKit

/// The one source of truth for commands and options: help, the man page (`ManPage`), the
/// completion scripts and usage errors all read it.
enum CommandCatalog {
    static let completion = CommandSpec(
        name: "completion",
        summary: "Print a shell completion script for bash, zsh or fish.",
        arguments: [("<shell>", "bash, zsh or fish.")],
        discussion: """
        The script completes commands, options, the fixed values of options that have them, \
        environment variable names after --key-env and its kin, and file paths for databases \
        and path options. Scripts/install puts all three where the shells look; by hand, \
        add 'source <(cipherctl completion bash)' to ~/.bashrc, write the zsh one to a \
        directory on $fpath as _cipherctl, or the fish one to \
        ~/.config/fish/completions/cipherctl.fish.
        """,
        groups: [CompletionOptions.group],
        examples: [
            ("source <(cipherctl completion bash)", "Complete cipherctl in this bash session."),
            ("cipherctl completion fish > ~/.config/fish/completions/cipherctl.fish", "Install the fish completion for your user."),
        ]
    )

    static let help = CommandSpec(
        name: "help",
        summary: "Show help for cipherctl or one of its commands.",
        arguments: [("[<command>]", "The command to describe.")],
        discussion: "The same text as 'cipherctl COMMAND --help'.",
        groups: [],
        examples: [("cipherctl help open", "Show the options of 'open'.")]
    )

    /// Every command, in the order help lists them.
    static let commands: [CommandSpec] = [open, query, shell, rekey, export, salt, plaintextHeader, dump, importRows, diff, recover, audit, keygen, completion, help]

    static let versionOption = OptionSpec("--version", help: "Print cipherctl's version and the linked SQLCipher, SQLite and crypto provider versions (as JSON with \(OutputOptions.json.name)).")

    /// Options accepted before any command.
    static let topLevelOptions: [OptionSpec] = [
        versionOption,
        helpOption,
    ]

    /// The options every command takes, which may also come before the command.
    static var globalOptions: [OptionSpec] { outputOptions.options.filter { $0 != helpOption } }

    /// The command called `name`.
    ///
    /// - Throws: `UsageError`, with the closest command's name, when there is none.
    static func requireCommand(named name: String) throws -> CommandSpec {
        if let command = command(named: name) { return command }
        let suggestion = Suggestion.closest(to: name, in: commands.map(\.name))
        throw UsageError("unknown command '\(name)'", hint: suggestion.map { "did you mean '\($0)'?" })
    }

    /// The command called `name`, if there is one.
    static func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }
}
