import CipherKit
import FoundationEssentials
import Glibc

/// `cipherctl shell`: the `sqlcipher` shell on a database, keyed, its settings found.
enum ShellCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try ShellOptions(arguments)
        let program = try ShellProgram(given: options.program, environment: context.environment, command: arguments.command)
        let path = options.path
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
        try ShellExec.run(program.path, arguments: (options.writes ? [] : ["-readonly"]) + [databaseArgument(path)] + options.shellArguments,
                          environment: environment, script: session.script)
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

    /// The environment without the key: the variable `--key-env` names and any other holding
    /// the same secret go; the shell's history goes to /dev/null.
    static func shellEnvironment(_ environment: [String: String], arguments: ParsedArguments, key: KeyMaterial?) -> [String: String] {
        let named = arguments.value(KeyReader(prefix: "").envOption)
        var kept = environment.filter { name, value in
            name != named && !(key.map { holdsSecret(value, of: $0) } ?? false)
        }
        kept["SQLITE_HISTORY"] = "/dev/null"
        return kept
    }

    /// Whether `value`, read as a passphrase or as a raw key, is `key`'s secret.
    private static func holdsSecret(_ value: String, of key: KeyMaterial) -> Bool {
        let bytes = Array(value.utf8)
        let candidates = [try? KeyMaterial.passphrase(bytes), try? KeyMaterial.rawKey(hex: bytes)]
        return candidates.contains { $0?.hasSameSecret(as: key) ?? false }
    }
}
