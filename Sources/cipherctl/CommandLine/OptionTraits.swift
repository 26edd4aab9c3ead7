/// How an option behaves on the command line, besides its value.
struct OptionTraits: OptionSet, Equatable {
    let rawValue: Int

    /// It may be given more than once.
    static let repeatable = OptionTraits(rawValue: 1 << 0)
    /// Its value is a file path (for shell completion).
    static let path = OptionTraits(rawValue: 1 << 1)
    /// Its value may be left out, and is then given only as `--opt=VALUE`, never as the next
    /// argument, so that the parse never depends on what that argument is.
    static let optionalValue = OptionTraits(rawValue: 1 << 2)
    /// An old spelling, accepted but not shown in help or completion.
    static let hidden = OptionTraits(rawValue: 1 << 3)
}
