/// One command-line option: its spelling, its value, its help.
struct OptionSpec: Equatable {
    /// The long name with its dashes: `--key-env`.
    let name: String
    /// A short alias with its dash (`-h`), if any.
    let short: String?
    /// The value's placeholder (`VAR`), or nil for a flag.
    let valueName: String?
    let traits: OptionTraits
    /// One sentence of help.
    let help: String
    /// The values the option takes, when they are a fixed list (for shell completion).
    let choices: [String]
    /// For an old spelling kept working: the option it stands for, and the value it gives it.
    private(set) var aliasOf: OptionAlias?

    init(_ name: String, short: String? = nil, value: String? = nil, traits: OptionTraits = [], choices: [String] = [], help: String) {
        self.name = name
        self.short = short
        self.valueName = value
        self.traits = traits
        self.choices = choices
        self.help = help
    }

    /// An old spelling of `option`, hidden from help and completion: given, it sets `option`
    /// (to `value`, for a flag that stands for one of its values: `--no-verify`).
    static func alias(_ name: String, of option: String, value: String? = nil, placeholder: String? = nil) -> OptionSpec {
        var spec = OptionSpec(name, value: placeholder, traits: .hidden, help: "Also accepted for \(option)\(value.map { "=" + $0 } ?? "").")
        spec.aliasOf = OptionAlias(name: option, value: value)
        return spec
    }

    var repeatable: Bool { traits.contains(.repeatable) }
    /// For shell completion: whether the value is a file path.
    var takesPath: Bool { traits.contains(.path) }
    /// Whether the value is optional, and then given only as `--opt=VALUE` (`--backup[=PATH]`).
    var optionalValue: Bool { traits.contains(.optionalValue) }
    /// An old spelling, kept working but not shown.
    var hidden: Bool { traits.contains(.hidden) }

    /// Whether the option must be followed by a value.
    var takesValue: Bool { valueName != nil && !optionalValue }

    /// The option as help shows it: `--key-env VAR`, `-h, --help`, `--backup[=PATH]`.
    var synopsis: String {
        let names = [short, name].compactMap { $0 }.joined(separator: ", ")
        guard let valueName else { return names }
        return optionalValue ? "\(names)[=\(valueName)]" : "\(names) \(valueName)"
    }
}
