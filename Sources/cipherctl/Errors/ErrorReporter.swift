import CipherKit

/// Turns any error into its exit code and one line on standard error
/// (`cipherctl: error: …`, with a hint line where one helps), or one JSON object under --json.
///
/// The one place where CipherKit's errors meet cipherctl's words: the library says what
/// failed and why (`CipherKitFailure`), and this adds the exit code (`exitCode(for:)`) and
/// the hint that names commands and flags (`hint(for:command:)`).
enum ErrorReporter {
    /// The exit code, message and hint for `error`.
    static func describe(_ error: Error, command: String? = nil) -> (code: ExitCode, message: String, hint: String?) {
        switch error {
        case let error as UsageError:
            return (.usage, error.message, error.hint)
        case let error as AuditFindings:
            return (.findings, error.message, nil)
        case let error as CipherKitFailure:
            return (exitCode(for: error.reason), error.message, hint(for: error, command: command))
        default:
            return (.failure, String(describing: error), nil)
        }
    }

    /// Reports `error` on standard error and returns its exit code.
    /// `path` names the database in a batch, so each JSON error says which one failed.
    static func report(_ error: Error, console: Console, path: String? = nil, command: String? = nil) -> ExitCode {
        let (code, message, hint) = describe(error, command: command)
        let path = path ?? (error as? CipherKitFailure)?.path
        if console.json {
            var members: [(String, JSONValue)] = [
                ("error", .string(message)),
                ("hint", .string(hint)),
                ("exit_code", .integer(Int(code.rawValue))),
                // Which failure, by a name that stays (`FailureReason`); "usage" for the command line.
                ("reason", .string((error as? CipherKitFailure)?.reason.rawValue ?? (error is UsageError ? "usage" : error is AuditFindings ? "findings" : nil))),
                // True when the file was changed before the failure: the new key opens it now.
                ("committed", .bool(code == .committed)),
                // The mode at the failure: standard when it came before the mode was chosen.
                ("crypto_mode", .string(CryptoMode.current.rawValue)),
            ]
            if let path { members.insert(("path", .string(path)), at: 0) }
            // The ring's entry taken as the file's key before the failure.
            if let label = ChosenKeyLabels.shared.label(for: path) { members.insert(("key_label", .string(label)), at: members.count - 1) }
            let object = JSONValue.object(members)
            console.errorLine(object.rendered())
            return code
        }
        // In a batch, a failure whose words name no file (a setting refused) is told apart by its database.
        let named = path.map { message.contains($0) ? message : "'\($0)': " + message } ?? message
        // A name the user gave may hold control characters; the terminal sees them as escapes.
        let shownMessage = VisibleText.escaped(named), shownHint = hint.map(VisibleText.escaped)
        console.errorLine("cipherctl: " + console.label("error", colour: "31") + " " + shownMessage)
        if let usage = error as? UsageError {
            console.errorLine(HelpRenderer.usageLine(for: usage.command))
            if let hint = shownHint { console.errorLine(console.label("hint", colour: "36") + " " + hint) }
            console.errorLine("See 'cipherctl help\(usage.command.map { " " + $0 } ?? "")'.")
        } else if let hint = shownHint {
            console.errorLine(console.label("hint", colour: "36") + " " + hint)
        }
        return code
    }
}
