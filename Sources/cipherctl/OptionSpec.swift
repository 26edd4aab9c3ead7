/// One command-line option: its spelling, its value, its help.
struct OptionSpec: Equatable {
    /// The long name with its dashes: `--key-env`.
    let name: String
    /// A short alias with its dash (`-h`), if any.
    let short: String?
    /// The value's placeholder (`VAR`), or nil for a flag.
    let valueName: String?
    /// Whether the option may be given more than once.
    let repeatable: Bool
    /// One sentence of help.
    let help: String
    /// For shell completion: whether the value is a file path.
    let takesPath: Bool
    /// Whether the value is optional and given only as `--opt=VALUE` (`--backup[=PATH]`).
    let optionalValue: Bool
    /// For an optional value: whether a following argument made of digits is taken as the
    /// value too (`--size 64`), not only `--size=64`.
    let optionalNumber: Bool
    /// The values the option takes, when they are a fixed list (for shell completion).
    let choices: [String]

    init(
        _ name: String, short: String? = nil, value: String? = nil, optionalValue: Bool = false, optionalNumber: Bool = false,
        repeatable: Bool = false, path: Bool = false, choices: [String] = [], help: String
    ) {
        self.name = name
        self.short = short
        self.valueName = value
        self.optionalValue = optionalValue || optionalNumber
        self.optionalNumber = optionalNumber
        self.choices = choices
        self.repeatable = repeatable
        self.help = help
        self.takesPath = path
    }

    /// Whether the option must be followed by a value.
    var takesValue: Bool { valueName != nil && !optionalValue }

    /// The option as help shows it: `--key-env VAR`, `-h, --help`, `--backup[=PATH]`.
    var synopsis: String {
        let names = [short, name].compactMap { $0 }.joined(separator: ", ")
        guard let valueName else { return names }
        if optionalNumber { return "\(names) [\(valueName)]" }
        return optionalValue ? "\(names)[=\(valueName)]" : "\(names) \(valueName)"
    }
}
