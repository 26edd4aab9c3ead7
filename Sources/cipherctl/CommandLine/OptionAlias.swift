/// What an old spelling of an option stands for: the option's name, and for a flag that
/// stands for one of a valued option's values (`--no-verify` for `--verify=none`), that value.
struct OptionAlias: Equatable {
    let name: String
    let value: String?
}
