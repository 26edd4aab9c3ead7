import CipherKit
import FoundationEssentials
import Glibc

/// `cipherctl shell`: the `sqlcipher` shell on a database, keyed, its settings found.
enum ShellCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try ShellOptions(arguments)
        let program = try ShellProgram(given: options.program, environment: context.environment, command: arguments.command)
        let path = options.path
        if options.writes { try requireWritable(path) }
        var request = ShellRequest(database: context.openRequest(path: path, key: nil, settings: options.settings, mode: .readOnly), writes: options.writes)
        request.startupFile = startupFile(context.environment)
        request.database.key = try options.key.readIfNeeded(for: path, context: context)
        let session = try ShellKeyer.prepare(request)
        context.console.formatFound(session.format, attempts: session.attempts, path: path)
        if session.searchSeconds != nil, let settings = session.settings {
            context.console.note("'\(path)': settings found by search; to pin them: " + CipherOptionsReader.options(pinning: settings).joined(separator: " "))
        }
        let environment = shellEnvironment(context.environment, arguments: arguments, key: request.database.key)
        request.database.key = nil
        // The key's own descriptor goes; every other one the user handed in stays the shell's.
        let keyDescriptor = arguments.value(KeyReader(prefix: "").fdOption).flatMap { Int32($0) }
        try ShellExec.run(program.path, arguments: (options.writes ? [] : ["-readonly"]) + [databaseArgument(path)] + options.shellArguments,
                          environment: environment, script: session.script, closing: keyDescriptor)
    }

    /// A file `--write` could not write, or whose folder could not take its journal, is
    /// named before the shell starts, not at its first write.
    ///
    /// - Throws: `CipherKitError.fileAccess`.
    private static func requireWritable(_ path: String) throws {
        guard access(path, F_OK) == 0 else { return }
        if access(path, W_OK) != 0 {
            throw CipherKitError.fileAccess(path: path, reason: "it is not writable, and --write opens it read-write")
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        if access(folder.isEmpty ? "/" : folder, W_OK) != 0 {
            throw CipherKitError.fileAccess(path: path, reason: "its folder is not writable, and a write needs a journal there")
        }
    }

    /// `~/.sqliterc` when it is there, which the shell reads unless `-init` names another file.
    private static func startupFile(_ environment: [String: String]) -> String? {
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        let file = home + "/.sqliterc"
        return access(file, R_OK) == 0 ? file : nil
    }

    /// The path as the shell must see it: a path it would take for an option (`-x.db`), a
    /// URI (`file:…`) or its in-memory database gets `./` before it.
    static func databaseArgument(_ path: String) -> String {
        let special = path.hasPrefix("-") || path.lowercased().hasPrefix("file:") || path == ":memory:" || path.isEmpty
        return special ? "./" + path : path
    }

    /// The environment without the key: the variable `--key-env` names and any other in
    /// which the key appears go; the shell's history goes to /dev/null.
    static func shellEnvironment(_ environment: [String: String], arguments: ParsedArguments, key: KeyMaterial?) -> [String: String] {
        let named = arguments.value(KeyReader(prefix: "").envOption)
        var kept = environment.filter { name, value in
            name != named && !(key?.appears(in: Array(value.utf8)) ?? false)
        }
        kept["SQLITE_HISTORY"] = "/dev/null"
        return kept
    }
}
