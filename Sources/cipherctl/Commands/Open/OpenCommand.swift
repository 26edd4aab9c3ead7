import CipherKit

/// `cipherctl open`: verify a key and print a database's profile, or create a database.
enum OpenCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let path = try arguments.databasePath()
        let settings = try CipherOptionsReader.settings(from: arguments)
        let keys = KeyReader(prefix: "")
        var request = context.openRequest(path: path, key: nil, settings: settings, mode: .readOnly)
        // A look leaves every file as it was: no -wal or -shm made beside a WAL database.
        request.leavesFilesAlone = !arguments.has("--create")

        if arguments.has("--create") {
            request.key = try keys.read(arguments, for: path, console: context.console, environment: context.environment)
            try DatabaseCreator.create(request)
            context.console.note("created '\(path)'")
        } else if keys.hasSource(arguments) || DatabaseFile.needsKey(path) {
            request.key = try keys.read(arguments, for: path, console: context.console, environment: context.environment)
        }

        let options = InspectOptions(countRows: arguments.has("--counts"), checkIntegrity: arguments.has("--check"))
        let profile = try DatabaseInspector.inspect(request, options: options)
        context.console.formatFound(profile.detectedFormat, attempts: profile.formatAttempts, path: path)
        if profile.searchSeconds != nil, let cipher = profile.cipher {
            // What a script can pass next time to skip the search.
            context.console.note("'\(path)': settings found by search; to pin them: " + CipherOptionsReader.options(pinning: cipher).joined(separator: " "))
        }
        if let version = profile.formatVersion, version < 4 {
            context.console.hint(
                "'\(path)' is in the SQLCipher \(version) format; 'cipherctl rekey \(path) --key-env VAR --new-key-env VAR --new-compat 4' (the same key twice keeps it) migrates it to SQLCipher 4 in place")
        }
        if context.console.json {
            context.console.output(ProfileFormatter.json(profile).rendered() + "\n")
        } else {
            context.console.output(ProfileFormatter.text(profile))
        }
        if let integrity = profile.integrity, !integrity.isOK {
            throw CipherKitError.integrityFailed(path: path, problems: integrity.problems)
        }
        return .success
    }
}
