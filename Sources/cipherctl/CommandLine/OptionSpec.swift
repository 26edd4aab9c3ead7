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
    /// For an optional value: which following argument is taken as the value too
    /// (`--size 64`, `--new-salt 00ff…`, `--backup old.db`), besides the `--opt=VALUE` form.
    let following: FollowingValue
    /// Whether a following argument can be the value (help shows `--opt [VALUE]`).
    var optionalNumber: Bool { following != .none }
    /// The values the option takes, when they are a fixed list (for shell completion).
    let choices: [String]

    init(
        _ name: String, short: String? = nil, value: String? = nil, optionalValue: Bool = false, following: FollowingValue = .none,
        repeatable: Bool = false, path: Bool = false, choices: [String] = [], help: String
    ) {
        self.name = name
        self.short = short
        self.valueName = value
        self.optionalValue = optionalValue || following != .none
        self.following = following
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
