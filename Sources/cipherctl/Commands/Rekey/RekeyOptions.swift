import CipherKit
import FoundationEssentials
import Glibc

/// `rekey`'s command line, read once: the databases, how the batch runs, what each database
/// becomes, and where the two keys come from.
struct RekeyOptions {
    static let from = OptionSpec("--from", value: "FILE", traits: .path, help: "Read database paths from FILE, one a line ('-' for standard input).")
    static let failFast = OptionSpec("--fail-fast", help: "Start no further database after the first failure.")
    static let dryRun = OptionSpec("--dry-run", help: "Run every check the real run makes (key, every page's HMAC, lock, writability, space) and end with its code; change nothing.")
    static let backup = OptionSpec("--backup", value: "PATH",
                                   traits: [.path, .optionalValue], help: "Keep the original file, at PATH (which must not exist) or beside it as DB.backup-TIMESTAMP.")
    static let inPlace = OptionSpec("--in-place", help: "Keep the file itself (inode, hard links, attributes): a key-only change rewritten in place through SQLite, not a page-engine copy renamed over it. Slower.")
    static let lowSpace = OptionSpec("--low-space", help: "Rewrite every page in place, chunk by chunk, under a small progress record beside the file: no second copy (the key, salt and KDF change; not the page size or HMAC). Until it finishes, only cipherctl can open the file; an interrupted run is finished by the same command.")
    static let undo = OptionSpec("--undo", help: "With --low-space: roll an interrupted rotation back to the old key instead of finishing it (both keys are needed).")
    static let group = OptionGroup(title: "REKEY OPTIONS", options: [from, failFast, dryRun, backup, inPlace, lowSpace, undo] + EngineOptions.specs)
    /// The new key's and the new settings' options: `--new-key-env`, `--new-salt`.
    static let newPrefix = "new-"

    /// The databases named and listed by `--from`, each once.
    let paths: [String]
    let failFast: Bool
    let dryRun: Bool
    let inPlace: Bool
    let lowSpace: Bool
    let undo: Bool
    /// `--backup` given, with or without a path.
    let backup: Bool
    /// The path `--backup=PATH` names, for one database; nil for `--backup` alone (CipherKit
    /// names each backup beside its database) or none.
    let backupPath: String?
    /// `--new-salt` given, with or without a value.
    let newSalt: Bool
    /// The salt `--new-salt=HEX` names; nil for a random one or none.
    let newSaltValue: [UInt8]?
    let engine: EngineOptions
    let settings: CipherSettings
    let newCipher: DestinationCipherOptions
    let key: KeyOptions
    let newKey: KeyOptions

    /// - Throws: `UsageError` for standard input asked to carry both the list and a key, no
    ///   database or one named twice, a bad salt, cipher or engine option, or `--backup=PATH`
    ///   with several databases; `CipherKitError.fileAccess` when the list cannot be read.
    init(_ arguments: ParsedArguments) throws {
        if let list = arguments.value(Self.from), KeyReader.namesStandardInput(list) {
            try KeyReader.refuseSharedStandardInput(arguments, for: "the list of databases (\(Self.from.name) -)")
        }
        paths = try Self.databasePaths(arguments)
        engine = try EngineOptions(arguments)
        let salt = CipherOptionNames(prefix: Self.newPrefix).salt
        newSalt = arguments.has(salt)
        newSaltValue = try Self.saltValue(arguments.value(salt), option: salt, command: arguments.command)
        settings = try CipherOptionsReader.settings(from: arguments)
        newCipher = try DestinationCipherOptions(arguments, prefix: Self.newPrefix)
        backup = arguments.has(Self.backup)
        backupPath = arguments.value(Self.backup)
        if backupPath != nil, paths.count > 1 {
            throw UsageError("\(Self.backup.name)=PATH names one file; with several databases use \(Self.backup.name) alone", command: arguments.command)
        }
        if newSaltValue != nil, paths.count > 1 {
            // One salt for every file would make their keys' derivations the same.
            throw UsageError("\(salt)=HEX names one database's salt; with several databases use \(salt) alone (a fresh one each)", command: arguments.command)
        }
        failFast = arguments.has(Self.failFast)
        dryRun = arguments.has(Self.dryRun)
        inPlace = arguments.has(Self.inPlace)
        lowSpace = arguments.has(Self.lowSpace)
        undo = arguments.has(Self.undo)
        try Self.requireLowSpaceAlone(arguments, newSettings: !newCipher.settings.with(\.kdfIterations, nil).with(\.kdfAlgorithm, nil).with(\.salt, nil).isEmpty)
        // CipherKit's own test of a settings change (`same` changes nothing), made here too so
        // that the refusal comes before any key is read or made.
        if inPlace, !newCipher.settings.isEmpty || newSalt {
            // Known from the command line alone: refused before any key is read or made.
            throw UsageError("a change of cipher settings or salt is written as a new copy, never in place (\(Self.inPlace.name))", command: arguments.command,
                             hint: "drop \(Self.inPlace.name): the copy is verified, then renamed over the original")
        }
        key = KeyOptions(arguments)
        newKey = KeyOptions(arguments, prefix: Self.newPrefix)
    }

    /// `--undo` only with `--low-space`; `--low-space` with no other way of writing (a copy, a
    /// backup, a dry run, in place) and no change of settings but the KDF's (and the salt),
    /// since the others change the pages' layout, which needs a copy.
    private static func requireLowSpaceAlone(_ arguments: ParsedArguments, newSettings: Bool) throws {
        let command = arguments.command
        if arguments.has(undo), !arguments.has(lowSpace) {
            throw UsageError("\(undo.name) rolls back an interrupted \(lowSpace.name) rotation; give both", command: command)
        }
        guard arguments.has(lowSpace) else { return }
        if let other = [inPlace, backup, dryRun].first(where: { arguments.has($0) }) {
            throw UsageError("\(lowSpace.name) and \(other.name) cannot be given together", command: command)
        }
        if newSettings {
            throw UsageError("a change of cipher settings other than the KDF's needs a second copy, which \(lowSpace.name) does not make", command: command,
                             hint: "drop \(lowSpace.name): the copy is verified, then renamed over the original")
        }
    }

    /// The paths from the arguments and from `--from FILE` (one a line, `-` for stdin).
    private static func databasePaths(_ arguments: ParsedArguments) throws -> [String] {
        var paths = arguments.positionals
        if let list = arguments.value(from) {
            let data: Data?
            if list == "-" {
                data = Data((try? OpenFile.standardInput.readToEnd()) ?? [])
            } else {
                data = FileManager.default.contents(atPath: list)
            }
            guard let data else { throw CipherKitError.fileAccess(path: list, reason: "cannot read the list of databases") }
            paths += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
                .map { $0.trimmingWhitespace() }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        guard !paths.isEmpty else { throw UsageError("missing the database path", command: arguments.command) }
        try refuseTwins(paths, command: arguments.command)
        return paths
    }

    /// A database named twice, by one name or two (`./a.db`, a symbolic link and its target,
    /// two hard links): the second rotation would start from a key the first had replaced.
    private static func refuseTwins(_ paths: [String], command: String) throws {
        var names: [String: String] = [:], files: [FileIdentity: String] = [:]
        for path in paths {
            let name = URL(fileURLWithPath: path).standardizedFileURL.path, identity = FileIdentity(path: path)
            if let first = names[name] ?? identity.flatMap({ files[$0] }) {
                let what = first == path ? "'\(path)' is named twice" : "'\(path)' and '\(first)' are the same file"
                throw UsageError(what, command: command, hint: "name each database once")
            }
            names[name] = path
            if let identity { files[identity] = path }
        }
    }

    /// The salt `--new-salt=HEX` names; nil for a random one or none.
    private static func saltValue(_ text: String?, option: String, command: String) throws -> [UInt8]? {
        guard let text else { return nil }
        guard text.count == 32, let salt = Hex.decode(text) else {
            throw UsageError("\(option) takes 32 hex digits (a 16-byte salt), or nothing for a random one", command: command)
        }
        return salt
    }
}
