import Foundation

/// Where cipherctl writes: results to standard output, warnings and errors to standard error.
struct Console {
    var json = false
    var quiet = false
    var verbose = false

    /// Writes `text` as is to standard output.
    func output(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes one line to standard error.
    func errorLine(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// `cipherctl: warning: …`, unless --quiet.
    func warning(_ text: String) {
        guard !quiet else { return }
        errorLine("cipherctl: warning: " + text)
    }

    /// `cipherctl: …` under --verbose.
    func note(_ text: String) {
        guard verbose, !quiet else { return }
        errorLine("cipherctl: " + text)
    }
}
