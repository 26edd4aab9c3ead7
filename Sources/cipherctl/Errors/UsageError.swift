/// A command line that cannot be run as given (exit 2). The message never repeats a
/// value the user typed, since that value could be a key.
struct UsageError: Error, Equatable {
    let message: String
    /// The command whose usage line to show, if known.
    var command: String?
    /// A suggestion (`did you mean '--key-env'?`).
    var hint: String?

    init(_ message: String, command: String? = nil, hint: String? = nil) {
        self.message = message
        self.command = command
        self.hint = hint
    }
}
