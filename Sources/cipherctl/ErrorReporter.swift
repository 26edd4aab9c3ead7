import CipherKit

/// Turns any error into its exit code and one line on standard error
/// (`cipherctl: error: …`, with a hint line where one helps), or one JSON object under --json.
enum ErrorReporter {
    /// The exit code, message and hint for `error`.
    static func describe(_ error: Error, command: String? = nil) -> (code: ExitCode, message: String, hint: String?) {
        switch error {
        case let error as UsageError:
            return (.usage, error.message, error.hint)
        case let error as KeyMaterialError:
            return (.usage, error.description, nil)
        case let error as CipherSettingsError:
            return (.usage, error.description, nil)
        case let error as CipherKitError:
            return (exitCode(for: error), error.message, hint(for: error, command: command) ?? error.hint)
        case let error as QueryError:
            return (exitCode(for: error), error.description, error.hint)
        case let error as ValueConversionError:
            return (.failure, error.description, nil)
        case let error as DatabaseError:
            if error.isBusy { return (.busy, error.message, nil) }
            if error.isNotADatabase { return (.cannotDecrypt, error.message, nil) }
            return (.failure, error.message, nil)
        default:
            return (.failure, String(describing: error), nil)
        }
    }

    /// A hint that names the command's own options, where the library's would fall short.
    static func hint(for error: CipherKitError, command: String?) -> String? {
        switch (error, command) {
        case (.fileExists, "export"?):
            return "choose another path, or add --force to replace it"
        default:
            return nil
        }
    }

    static func exitCode(for error: QueryError) -> ExitCode {
        switch error {
        case .statementFailed(_, _, let database) where database.isBusy:
            return .busy
        case .statementFailed:
            return .failure
        case .needsWrite, .unboundPlaceholder, .unusedParameter, .unusedArguments, .invalidValue, .noStatements:
            return .usage
        }
    }

    static func exitCode(for error: CipherKitError) -> ExitCode {
        switch error {
        case .fileNotFound, .notARegularFile, .fileExists, .fileAccess, .insufficientSpace, .outOfSpace:
            return .fileProblem
        case .cannotDecrypt(_, .keyRequired):
            return .usage
        case .cannotDecrypt:
            return .cannotDecrypt
        case .busy:
            return .busy
        case .integrityFailed, .verificationFailed, .damaged, .damagedPages:
            return .verificationFailed
        case .refused:
            return .usage
        case .codecUnavailable, .database, .cancelled, .hotJournal, .noSalt:
            return .failure
        case .failedAfterCommit:
            return .committed
        }
    }

    /// Reports `error` on standard error and returns its exit code.
    /// `path` names the database in a batch, so each JSON error says which one failed.
    static func report(_ error: Error, console: Console, path: String? = nil, command: String? = nil) -> ExitCode {
        let (code, message, hint) = describe(error, command: command)
        let path = path ?? (error as? CipherKitError)?.path
        if console.json {
            var members: [(String, JSONValue)] = [
                ("error", .string(message)),
                ("hint", .string(hint)),
                ("exit_code", .integer(Int(code.rawValue))),
                // True when the file was changed before the failure: the new key opens it now.
                ("committed", .bool(code == .committed)),
            ]
            if let path { members.insert(("path", .string(path)), at: 0) }
            let object = JSONValue.object(members)
            console.errorLine(object.rendered())
            return code
        }
        console.errorLine("cipherctl: " + console.label("error", colour: "31") + " " + message)
        if let usage = error as? UsageError {
            console.errorLine(HelpRenderer.usageLine(for: usage.command))
            if let hint { console.errorLine(console.label("hint", colour: "36") + " " + hint) }
            console.errorLine("See 'cipherctl help\(usage.command.map { " " + $0 } ?? "")'.")
        } else if let hint {
            console.errorLine(console.label("hint", colour: "36") + " " + hint)
        }
        return code
    }
}
