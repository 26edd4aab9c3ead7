import CipherKit

/// `cipherctl open`: verify a key and print a database's profile, or create a database.
enum OpenCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try OpenOptions(arguments)
        let path = options.path
        var request = context.openRequest(path: path, key: nil, settings: options.settings, mode: .readOnly)
        var chosen: LabeledKey?
        // A look leaves every file as it was: no -wal or -shm made beside a WAL database.
        request.leavesFilesAlone = !options.create
        if options.create {
            request.key = try options.key.read(for: path, context: context)
            try DatabaseCreator.create(request)
            context.console.note("created '\(path)'")
        } else if let ring = try options.key.ring(context: context) {
            chosen = try options.key.choose(from: ring, for: path, context: context)
            request.key = chosen?.key
        } else {
            request.key = try options.key.readIfNeeded(for: path, context: context)
        }
        let profile = try DatabaseInspector.inspect(request, options: options.inspection)
        context.console.formatFound(profile.detectedFormat, attempts: profile.formatAttempts, path: path)
        if profile.searchSeconds != nil, let cipher = profile.cipher {
            // What a script can pass next time to skip the search.
            context.console.note("'\(path)': settings found by search; to pin them: " + CipherOptionsReader.options(pinning: cipher).joined(separator: " "))
        }
        if let version = profile.formatVersion, version < 4 {
            context.console.hint(
                "'\(path)' is in the SQLCipher \(version) format; 'cipherctl \(CommandCatalog.rekey.name) \(path) \(KeyReader(prefix: "").envOption) VAR \(KeyReader(prefix: "new-").envOption) VAR \(CipherOptionNames(prefix: "new-").compat) 4' (the same key twice keeps it) migrates it to SQLCipher 4 in place")
        }
        if context.console.json {
            context.console.report(ProfileFormatter.json(profile, keyLabel: chosen?.label))
        } else {
            context.console.output(ProfileFormatter.text(profile, keyLabel: chosen.map { "\($0.label) (\($0.encoding))" }))
        }
        if let integrity = profile.integrity, !integrity.isOK {
            throw CipherKitError.integrityFailed(path: path, problems: integrity.problems)
        }
        return .success
    }
}
