/// Options shown together in help under one heading.
struct OptionGroup: Equatable {
    /// The heading, upper case in help: `KEY OPTIONS`.
    let title: String
    let options: [OptionSpec]
}
