/// A command: its name, what it does, its arguments and options, and examples.
struct CommandSpec {
    let name: String
    /// One line, for the command list.
    let summary: String
    /// The arguments after the command name, as usage shows them: `<database>`.
    let arguments: [(name: String, help: String)]
    /// A paragraph that says more than the summary.
    let discussion: String
    let groups: [OptionGroup]
    /// `(command line, what it does)` pairs.
    let examples: [(String, String)]
    /// Whether what follows `--` is handed on to another program (`shell`'s), not taken as
    /// positional arguments.
    var passesThrough = false
    /// What `--help` must say besides the options, where the manual page's discussion has
    /// more: a promise or a limit the user needs before running the command.
    var note: String? = nil

    /// Every option of the command, across its groups.
    var options: [OptionSpec] { groups.flatMap(\.options) }

    /// The option called `name` (long or short), if the command has it.
    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name || $0.short == name }
    }

    /// The usage line.
    var usage: String {
        // What goes on to another program comes last, after every option of ours.
        let (ownArguments, handedOn) = (self.arguments.filter { !$0.name.hasPrefix("[--") }, self.arguments.filter { $0.name.hasPrefix("[--") })
        let arguments = ownArguments.map(\.name).joined(separator: " ")
        let groups = self.groups.map { group in
            let kind = group.title.lowercased().replacing("options", with: "").trimmingWhitespace()
            return kind.isEmpty ? "[options]" : "[\(kind) options]"
        }
        return (["cipherctl", name] + (arguments.isEmpty ? [] : [arguments]) + groups + handedOn.map(\.name)).joined(separator: " ")
    }
}
