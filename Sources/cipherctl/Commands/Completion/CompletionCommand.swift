/// `cipherctl completion SHELL`: print a completion script for bash, zsh or fish.
enum CompletionCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try CompletionOptions(arguments)
        context.console.output(options.script)
        return .success
    }
}
