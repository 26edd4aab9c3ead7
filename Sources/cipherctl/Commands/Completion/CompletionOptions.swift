/// `completion`'s command line, read once: the shell, known to have a script.
struct CompletionOptions {
    static let group = OptionGroup(title: "OPTIONS", options: [CommandCatalog.helpOption])

    let shell: String
    let script: String

    /// - Throws: `UsageError` for no shell, more than one, or one without a script.
    init(_ arguments: ParsedArguments) throws {
        let shells = CompletionScript.shells.joined(separator: ", ")
        guard arguments.positionals.count == 1, let shell = arguments.positionals.first else {
            throw UsageError("\(arguments.command) takes one shell: " + shells, command: arguments.command)
        }
        guard let script = CompletionScript.script(for: shell) else {
            throw UsageError("no completion for '\(shell)'; the shells are " + shells, command: arguments.command)
        }
        self.shell = shell
        self.script = script
    }
}
