/// A command line after parsing: the command, its option values and its positional arguments.
struct ParsedArguments: Equatable {
    let command: String
    /// The values of each valued option, in order, by long name.
    var values: [String: [String]] = [:]
    /// The flags given, by long name.
    var flags: Set<String> = []
    var positionals: [String] = []
    /// What followed `--`, for a command that hands it on (`CommandSpec.passesThrough`).
    var passedThrough: [String] = []

    /// Whether the flag or valued option `name` was given.
    func has(_ name: String) -> Bool {
        flags.contains(name) || values[name] != nil
    }

    /// All values of a repeatable option, in order.
    func allValues(_ name: String) -> [String] {
        values[name] ?? []
    }

    /// The value of a single-valued option.
    func value(_ name: String) -> String? {
        values[name]?.last
    }

    /// Whether `option` was given (under any of its spellings).
    func has(_ option: OptionSpec) -> Bool { has(option.name) }

    /// The value of the single-valued `option`.
    func value(_ option: OptionSpec) -> String? { value(option.name) }

    /// All values of the repeatable `option`, in order.
    func allValues(_ option: OptionSpec) -> [String] { allValues(option.name) }

    /// The one database path a single-database command takes.
    ///
    /// - Throws: `UsageError` when there is none or more than one.
    func databasePath() throws -> String {
        guard positionals.count == 1, let path = positionals.first else {
            throw UsageError(positionals.isEmpty ? "missing the database path" : "\(command) takes one database path", command: command)
        }
        return path
    }
}
