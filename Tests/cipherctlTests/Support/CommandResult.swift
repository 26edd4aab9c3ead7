/// What a finished process left: its exit code and everything it printed.
struct CommandResult {
    let code: Int32
    let stdout: String
    let stderr: String
    /// True when the process was ended by a signal rather than exiting.
    let signaled: Bool
    /// True when the process outlived its time limit and was stopped.
    var timedOut = false

    /// Both streams, for leak checks.
    var allOutput: String { stdout + stderr }
}
