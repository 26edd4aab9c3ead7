/// Parses a command's arguments by hand against its `CommandSpec`.
///
/// Accepts `--opt value`, `--opt=value`, flags, `--` to end options, repeated options where
/// the spec allows them, and options anywhere among the positional arguments.
enum CommandLineParser {
    /// Parses `arguments` (what follows the command name) for `command`.
    ///
    /// - Throws: `UsageError` for an unknown option (with a did-you-mean), a missing value, a
    ///   value given to a flag, or a non-repeatable option given twice.
    static func parse(_ arguments: [String], for command: CommandSpec) throws -> ParsedArguments {
        var parsed = ParsedArguments(command: command.name)
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let name: String
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            guard let option = command.option(named: name) else {
                let candidates = command.options.map(\.name)
                let suggestion = Suggestion.closest(to: name, in: candidates)
                throw UsageError("unknown option '\(name)'", command: command.name, hint: suggestion.map { "did you mean '\($0)'?" })
            }
            if option.optionalValue {
                if let inlineValue {
                    parsed.values[option.name] = [inlineValue]
                } else if index < arguments.count, option.following.accepts(arguments[index]) {
                    parsed.values[option.name] = [arguments[index]]
                    index += 1
                } else {
                    parsed.flags.insert(option.name)
                }
            } else if option.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                    value = arguments[index]
                    index += 1
                } else {
                    throw UsageError("option '\(option.name)' needs a value (\(option.valueName ?? "VALUE"))", command: command.name)
                }
                if parsed.values[option.name] != nil, !option.repeatable {
                    throw UsageError("option '\(option.name)' is given more than once", command: command.name)
                }
                parsed.values[option.name, default: []].append(value)
            } else {
                if inlineValue != nil {
                    throw UsageError("option '\(option.name)' takes no value", command: command.name)
                }
                parsed.flags.insert(option.name)
            }
        }
        return parsed
    }
}
