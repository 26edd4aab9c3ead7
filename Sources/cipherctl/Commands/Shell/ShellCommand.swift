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
        if let file = request.startupFile, ShellInitScript.readCommand(file) == nil {
            context.console.warning("'\(file)' is not read: the shell's .read cannot quote a path that holds a ' or a line break")
        }
        request.database.key = try options.key.readIfNeeded(for: path, context: context)
        let session = try ShellKeyer.prepare(request)
        context.console.formatFound(session.format, attempts: session.attempts, path: path)
        if session.searchSeconds != nil, let settings = session.settings {
            context.console.note("'\(path)': settings found by search; to pin them: " + CipherOptionsReader.options(pinning: settings).joined(separator: " "))
        }
        var environment = shellEnvironment(context.environment, arguments: arguments, keys: [request.database.key, session.key].compactMap { $0 })
        // Every variable a key ring reads holds a key, the one that opened the file or another.
        for name in try options.key.ringVariables() { environment[name] = nil }
        request.database.key = nil
        try ShellExec.run(program.path, arguments: (options.writes ? [] : ["-readonly"]) + [databaseArgument(path)] + options.shellArguments,
                          environment: environment, script: session.script, closing: keyDescriptors(arguments))
    }

    /// The descriptors the key came through, which the shell must not hold: `--key-fd N`, and
    /// any of ours open on the key file (`--key-file /dev/fd/N`).
    private static func keyDescriptors(_ arguments: ParsedArguments) -> [Int32] {
        let reader = KeyReader(prefix: "")
        var descriptors = arguments.value(reader.fdOption).flatMap { Int32($0) }.map { [$0] } ?? []
        guard let file = arguments.value(reader.fileOption), let key = FileIdentity(path: file), let folder = opendir("/proc/self/fd") else { return descriptors }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let descriptor = Int32(name), descriptor > 2, FileIdentity(descriptor: descriptor) == key { descriptors.append(descriptor) }
        }
        return descriptors
    }

    /// A file `--write` could not write, or whose folder could not take its journal, is
    /// named before the shell starts, not at its first write.
    ///
    /// - Throws: `CipherKitError.fileAccess`.
    private static func requireWritable(_ path: String) throws {
        guard access(path, F_OK) == 0 else { return }
        // SQLite writes beside the file a link names.
        let file = realpath(path, nil).map { resolved in defer { free(resolved) }; return String(cString: resolved) } ?? path
        for beside in [file, file + "-wal", file + "-shm"] where access(beside, F_OK) == 0 && access(beside, W_OK) != 0 {
            throw CipherKitError.fileAccess(path: beside, reason: "it is not writable, and --write opens the database read-write")
        }
        let folder = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) : "."
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
    /// which the key appears go (and, with a key ring, every variable it reads: `run`); the
    /// shell's history goes to /dev/null.
    static func shellEnvironment(_ environment: [String: String], arguments: ParsedArguments, keys: [KeyMaterial]) -> [String: String] {
        let named = arguments.value(KeyReader(prefix: "").envOption)
        var kept = environment.filter { name, value in
            name != named && !keys.contains { $0.appears(in: Array((name + "=" + value).utf8)) }
        }
        kept["SQLITE_HISTORY"] = "/dev/null"
        return kept
    }
}
