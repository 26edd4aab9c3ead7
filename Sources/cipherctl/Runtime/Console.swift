import CipherKit
import FoundationEssentials
import Glibc

/// Where cipherctl writes: results to standard output, warnings and errors to standard error.
struct Console {
    var json = false
    var quiet = false
    var verbose = false
    /// Colour the `error:`, `warning:` and `hint:` labels: only when standard error is a
    /// terminal and NO_COLOR is unset or empty (https://no-color.org).
    var colour = false

    /// Whether to colour output to standard error, from the terminal and the environment.
    static func wantsColour(environment: [String: String]) -> Bool {
        isatty(STDERR_FILENO) != 0 && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// `name:` in bold and the given ANSI colour when colouring, else as it is.
    func label(_ name: String, colour code: String) -> String {
        colour ? "\u{1B}[1;\(code)m\(name):\u{1B}[0m" : name + ":"
    }

    /// Writes `text` as is to standard output; a failed write is kept for `CipherCtl.run`
    /// (`OutputFailure`), and later output is dropped.
    func output(_ text: String) {
        guard OutputFailure.shared.first == nil else { return }
        do {
            try Array(text.utf8).withUnsafeBytes { try StandardOutput.write($0) }
        } catch let failure as OutputClosed {
            OutputFailure.shared.record(failure)
        } catch {}
    }

    /// Writes one line to standard error; a line that cannot be written is dropped, since
    /// there is nowhere left to say so.
    func errorLine(_ text: String) {
        StandardOutput.writeError(text + "\n")
    }

    /// `cipherctl: warning: …`, unless --quiet.
    func warning(_ text: String) {
        guard !quiet else { return }
        errorLine("cipherctl: " + label("warning", colour: "33") + " " + VisibleText.escaped(text))
    }

    /// One operation's result: its JSON object on a line under --json, else its text line
    /// unless --quiet; first, a warning for each leftover of an interrupted run it removed.
    func result(json: JSONValue, text: String, removedLeftovers: [String]) {
        removedLeftovers.forEach(warnRemovedLeftover)
        if self.json {
            report(json)
        } else if !quiet {
            output(text)
        }
    }

    /// A JSON report on a line of its own: every report an object, and every object with the
    /// crypto mode that ran (`crypto_mode`: "standard" or "fips"), added here only.
    func report(_ json: JSONValue) {
        output(reportLine(json))
    }

    /// The line `report` writes for `json`.
    func reportLine(_ json: JSONValue) -> String {
        guard case .object(let members) = json else { return json.rendered() + "\n" }
        return JSONValue.object(members + [("crypto_mode", .string(CryptoMode.current.rawValue))]).rendered() + "\n"
    }

    /// `cipherctl: hint: …`, unless --quiet: a suggestion, not a problem.
    func hint(_ text: String) {
        guard !quiet else { return }
        errorLine("cipherctl: " + label("hint", colour: "36") + " " + text)
    }

    /// Under --verbose, which format the search found for `path` and after how many attempts.
    func formatFound(_ format: CipherFormat?, attempts: Int, path: String) {
        guard let format else { return }
        note("'\(path)': \(format.name) format found after \(attempts) attempt\(attempts == 1 ? "" : "s")")
    }

    /// `cipherctl: …` under --verbose.
    func note(_ text: String) {
        guard verbose, !quiet else { return }
        errorLine("cipherctl: " + VisibleText.escaped(text))
    }
}
