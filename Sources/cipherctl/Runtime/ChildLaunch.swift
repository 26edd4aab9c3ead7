import FoundationEssentials
import Glibc

/// What a `ChildProcess` runs and what it is given. The program gets its arguments as a
/// list; a shell parses nothing unless the caller asks for one with `shell(_:)`.
struct ChildLaunch {
    /// Where the child's standard error goes.
    enum ErrorOutput {
        /// A pipe of ours, kept for its last line.
        case captured
        /// /dev/null.
        case discarded
        /// Our own standard error.
        case passed
    }

    /// The program's path.
    var executable: String
    /// Its argument vector, the program's name first.
    var arguments: [String]
    /// Descriptor of ours for its standard input; nil gives it /dev/null.
    var input: Int32?
    var errorOutput = ErrorOutput.captured
    /// Our environment, or none at all (so that no key variable reaches the child).
    var inheritsEnvironment = true
    /// An environment of its own instead of ours (ours without its key variables), when set.
    var environment: [String: String]? = nil
    /// Descriptors of ours the child gets, by the number it sees (above 2).
    var descriptors: [Int32: Int32] = [:]
    /// A process group of its own, so that a kill reaches whatever it started too.
    var ownProcessGroup = false
    /// Every signal at its default action and none blocked, whatever ours are.
    var defaultSignals = false

    /// `command` run by `/bin/sh -c`.
    static func shell(_ command: String) -> ChildLaunch {
        ChildLaunch(executable: "/bin/sh", arguments: ["/bin/sh", "-c", command])
    }
}
