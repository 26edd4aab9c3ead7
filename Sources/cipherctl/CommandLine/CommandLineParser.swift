/// Parses a command's arguments by hand against its `CommandSpec`.
///
/// One grammar for every command: `--opt VALUE` or `--opt=VALUE` for a value the option
/// needs; `--opt=VALUE` only, for a value it may go without (so the parse never depends on
/// the next argument); flags; `--` to end options; repeated options where the spec allows
/// them; options anywhere among the positional arguments. An old spelling (an alias) is
/// stored under the option it stands for.
enum CommandLineParser {
    /// Parses `arguments` (what follows the command name) for `command`.
    ///
    /// - Throws: `UsageError` for an unknown option (with a did-you-mean), a missing value, a
    ///   value given to a flag, or a non-repeatable option given twice.
    static func parse(_ arguments: [String], for command: CommandSpec) throws -> ParsedArguments {
        var parsed = ParsedArguments(command: command.name)
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--" {
                if command.passesThrough { parsed.passedThrough = Array(rest) } else { parsed.positionals += rest }
                break
            }
            if argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            try take(argument, from: &rest, for: command, into: &parsed)
        }
        return parsed
    }

    /// Reads one option, and its value where it takes one, into `parsed`.
    private static func take(_ argument: String, from rest: inout ArraySlice<String>, for command: CommandSpec, into parsed: inout ParsedArguments) throws {
        let (name, inlineValue) = split(argument)
        guard let option = command.option(named: name) else {
            let suggestion = Suggestion.closest(to: name, in: command.options.filter { !$0.hidden }.map(\.name))
            throw UsageError("unknown option '\(name)'", command: command.name, hint: suggestion.map { "did you mean '\($0)'?" })
        }
        let canonical = option.aliasOf?.name ?? option.name
        if option.optionalValue, inlineValue == nil, let next = rest.first, !next.hasPrefix("-") {
            // Never guessed: the argument after a bare optional-value option could be meant
            // as its value or as a path, so the command line says which.
            throw UsageError("'\(option.name)' takes its value only as \(option.name)=VALUE, and is followed by an argument", command: command.name,
                             hint: "write \(option.name)=VALUE, or put \(option.name) after the paths")
        }
        let value = try value(of: option, inline: inlineValue, from: &rest, command: command.name)
        let givenBefore = value == nil ? parsed.values[canonical] != nil : parsed.values[canonical] != nil || parsed.flags.contains(canonical)
        if givenBefore, !option.repeatable {
            throw UsageError("option '\(canonical)' is given more than once", command: command.name)
        }
        guard let value else {
            parsed.flags.insert(canonical)
            return
        }
        if value.isEmpty, option.takesPath || option.optionalValue {
            let said = inlineValue == nil ? "is given an empty value, which names nothing" : "needs a value after '='"
            throw UsageError("option '\(option.name)' \(said)", command: command.name)
        }
        parsed.values[canonical, default: []].append(value)
    }

    /// The value `option` is given, or nil for a flag (or an optional value left out).
    private static func value(of option: OptionSpec, inline: String?, from rest: inout ArraySlice<String>, command: String) throws -> String? {
        if let fixed = option.aliasOf?.value {
            guard inline == nil else { throw UsageError("option '\(option.name)' takes no value", command: command) }
            return fixed
        }
        if option.optionalValue { return inline }
        guard option.takesValue else {
            guard inline == nil else { throw UsageError("option '\(option.name)' takes no value", command: command) }
            return nil
        }
        if let inline { return inline }
        guard let next = rest.first, !next.hasPrefix("--") else {
            throw UsageError("option '\(option.name)' needs a value (\(option.valueName ?? "VALUE"))", command: command)
        }
        return rest.removeFirst()
    }

    /// `--opt=value` as its name and value; any other argument as a name alone.
    private static func split(_ argument: String) -> (name: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
