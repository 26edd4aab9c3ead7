/// `cipherctl completion SHELL`: print a completion script for bash, zsh or fish.
enum CompletionCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        guard arguments.positionals.count == 1, let shell = arguments.positionals.first else {
            throw UsageError("completion takes one shell: " + CompletionScript.shells.joined(separator: ", "), command: "completion")
        }
        guard let script = CompletionScript.script(for: shell) else {
            throw UsageError("no completion for '\(shell)'; the shells are " + CompletionScript.shells.joined(separator: ", "), command: "completion")
        }
        context.console.output(script)
        return .success
    }
}
