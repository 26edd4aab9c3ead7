import CipherKit
import FoundationEssentials
import Glibc

/// Reads key material from where the user points: an environment variable, a file, a file
/// descriptor, the first line of standard input, a command's output (`KeyCommand`), the
/// command line, or a prompt on a terminal.
///
/// One reader serves each key a command takes: `--key-…` (prefix ""), and later `--new-key-…`
/// and `--to-key-…`. The bytes go straight into `KeyMaterial`; every temporary copy is wiped.
struct KeyReader {
    /// "" for `--key-env` and friends; "new-" for `--new-key-env`.
    let prefix: String

    var envOption: String { "--\(prefix)key-env" }
    var fileOption: String { "--\(prefix)key-file" }
    var fdOption: String { "--\(prefix)key-fd" }
    var stdinOption: String { "--\(prefix)key-stdin" }
    var valueOption: String { "--\(prefix)key" }
    var rawOption: String { "--\(prefix)raw-key" }
    var commandOption: String { "--\(prefix)key-cmd" }
    /// A key ring (`KeyRing`): the first of its keys that opens the file.
    var ringOption: String { "--\(prefix)key-ring" }
    /// Only for a key about to be written (`--new-key-generate`, `--to-key-generate`).
    var generateOption: String { "--\(prefix)key-generate" }
    /// Only for rekey's new key: an entry of the key ring `--key-ring` gives (`RekeyBatch`).
    var labelOption: String { "--\(prefix)key-label" }

    private var sources: [String] {
        [envOption, fileOption, fdOption, stdinOption, valueOption, commandOption, ringOption] + (prefix.isEmpty ? [] : [generateOption])
            + (prefix == RekeyOptions.newPrefix ? [labelOption] : [])
    }

    /// Whether any key source was given.
    func hasSource(_ arguments: ParsedArguments) -> Bool {
        sources.contains(where: arguments.has)
    }

    /// The sources given, for the rule of one.
    func sourcesGiven(_ arguments: ParsedArguments) -> [String] {
        sources.filter(arguments.has)
    }

    /// The key for the database at `path` when one was given or the file needs one (it is not
    /// plaintext SQLite, nor a file that fails before any key matters); nil otherwise.
    ///
    /// - Throws: what `read` throws.
    func readIfNeeded(_ arguments: ParsedArguments, for path: String, context: CommandContext) throws -> KeyMaterial? {
        guard hasSource(arguments) || DatabaseFile.needsKey(path) else { return nil }
        return try read(arguments, for: path, console: context.console, environment: context.environment)
    }

    /// Reads the key. With no source, prompts when standard input is a terminal.
    ///
    /// - Throws: `UsageError` for conflicting or missing sources and malformed keys,
    ///   `CipherKitError.fileAccess` when a key file cannot be read.
    func read(_ arguments: ParsedArguments, for path: String, console: Console, environment: [String: String]) throws -> KeyMaterial {
        let given = sources.filter(arguments.has)
        if given.count > 1 {
            throw UsageError("give the key from one source only, not \(given.joined(separator: " and "))", command: arguments.command)
        }
        var bytes: [UInt8]
        switch given.first {
        case envOption?:
            let name = arguments.value(envOption) ?? ""
            guard let value = environment[name] else {
                guard let shown = KeySourceName.shown(name, variable: true) else {
                    throw UsageError("the environment variable \(envOption) names is not set, and its name is not a variable's name", command: arguments.command,
                                     hint: "give \(envOption) the variable's name, not the key")
                }
                throw UsageError("environment variable '\(shown)' is not set", command: arguments.command)
            }
            bytes = ProcessEnvironment.bytes(of: name) ?? Array(value.utf8)
        case fileOption?:
            bytes = try readKeyFile(arguments.value(fileOption) ?? "", console: console)
        case fdOption?:
            bytes = try readDescriptor(arguments.value(fdOption) ?? "", command: arguments.command)
        case stdinOption?:
            // A terminal would echo the line as it is typed: ask as the prompt does, without echo.
            bytes = isatty(STDIN_FILENO) != 0 ? try typedKey(arguments, for: path) : readFirstLine(of: STDIN_FILENO)
        case generateOption?:
            bytes = try generatedKey(arguments, console: console)
        case commandOption?:
            let timeout = try Self.commandTimeout(arguments)
            var command = KeyCommand(command: arguments.value(commandOption) ?? "", timeout: timeout, option: commandOption,
                                     environment: KeyCommand.withoutKeys(environment, arguments: arguments))
            if KeyCommand.isTemplate(command.command) { command.database = path }
            bytes = try command.run(subcommand: arguments.command)
        case labelOption?:
            throw UsageError("\(labelOption) names an entry of the key ring \(KeyReader(prefix: "").ringOption) gives", command: arguments.command)
        case valueOption?:
            console.warning("\(valueOption) makes the key visible in the process list and shell history; prefer \(envOption), \(fileOption) or \(fdOption)")
            bytes = Array((arguments.value(valueOption) ?? "").utf8)
        default:
            bytes = try typedKey(arguments, for: path)
        }
        defer { SecureBytes.wipe(&bytes) }
        return try material(bytes, generated: given.first == generateOption, arguments: arguments)
    }

    /// A new raw key saved (fsynced with its folder) before any database is touched, then read back.
    private func generatedKey(_ arguments: ParsedArguments, console: Console) throws -> [UInt8] {
        let file = arguments.value(generateOption) ?? ""
        if arguments.command == CommandCatalog.rekey.name, arguments.has(RekeyOptions.dryRun) {
            return try keptInMemory(file, console: console)
        }
        do {
            try KeyGenerator.writeKeyFile(file) { console.warnRemovedLeftover($0) }
        } catch CipherKitError.fileExists(let path) {
            throw GeneratedKeyFileExists(path: path, fileOption: fileOption, rawOption: rawOption)
        }
        console.note("wrote a new 256-bit raw key to '\(file)' (mode 0600)")
        return try readKeyFile(file, console: console)
    }

    /// A dry run's generated key: made in memory only, since a dry run writes nothing; the
    /// file must still be free, as the real run needs it.
    private func keptInMemory(_ file: String, console: Console) throws -> [UInt8] {
        var status = stat()
        if lstat(file, &status) == 0 {
            throw GeneratedKeyFileExists(path: file, fileOption: fileOption, rawOption: rawOption)
        }
        console.note("dry run: the new key is made in memory only; '\(file)' is not written")
        var bytes = try KeyGenerator.rawKeyLine().withUnsafeBytes { Array($0) }
        dropTrailingNewline(&bytes)
        return bytes
    }

    /// The key typed at a prompt; a key about to be written is asked twice.
    private func typedKey(_ arguments: ParsedArguments, for path: String) throws -> [UInt8] {
        guard TerminalPrompt.isInteractive, var typed = TerminalPrompt.readSecret(prompt: promptText(for: path)) else {
            // No key would open it: what it is comes first (the rotation's own rerun needs one).
            if prefix.isEmpty, arguments.command != CommandCatalog.rekey.name, DatabaseFile.isHalfRotated(path) {
                throw CipherKitError.halfRotated(path: path, problem: nil)
            }
            // A file with a plaintext header says what it is, since it needs its salt as well.
            let probed = (prefix.isEmpty || prefix == "other-") ? try? DatabaseFile.probe(path).kind : nil
            let header = probed == .plaintextHeader
            let salt = CipherOptionNames(prefix: prefix)
            throw UsageError(
                "no \(keyName) given for '\(path)'"
                    + (header ? " (a SQLCipher database with a plaintext header: it needs its key and its salt)" : "")
                    + (probed == .opaque ? " (its bytes look random: SQLCipher, or another family that encrypts the whole file; only a key tells)" : "")
                    + " and no terminal to ask on",
                command: arguments.command,
                hint: "give it with \(envOption) VAR, \(fileOption) PATH, \(fdOption) N or \(stdinOption)"
                    + (header ? ", and the salt with \(salt.salt) HEX or \(salt.saltFile) PATH" : "")
                    + (prefix == ExportOptions.destinationPrefix && arguments.command == CommandCatalog.export.name ? "; or \(ExportOptions.plaintext.name) for a decrypted copy" : ""))
        }
        if !prefix.isEmpty {
            // A key that is about to be written is asked twice, so a typo cannot lock the data away.
            var again = TerminalPrompt.readSecret(prompt: "Repeat it: ") ?? []
            defer { SecureBytes.wipe(&again) }
            guard again == typed else {
                SecureBytes.wipe(&typed)
                throw UsageError("the two keys typed do not match", command: arguments.command)
            }
        }
        return typed
    }

    /// The bytes read as a raw key (hex) or a passphrase.
    private func material(_ bytes: [UInt8], generated: Bool, arguments: ParsedArguments) throws -> KeyMaterial {
        do {
            if arguments.has(rawOption) || generated {
                return try KeyMaterial.rawKey(hex: bytes)
            }
            return try KeyMaterial.passphrase(bytes)
        } catch let error as KeyMaterialError {
            let hint = error == .empty && prefix == "new-" ? "to remove the encryption, write a plaintext copy with 'cipherctl \(CommandCatalog.export.name) SRC DEST \(ExportOptions.plaintext.name)'" : nil
            let message = error == .empty ? "the \(keyName) is empty" : error.description
            throw UsageError(message, command: arguments.command, hint: hint)
        }
    }

    /// `--key-cmd-timeout`: one limit for every key command of the run, whatever its prefix.
    static let commandTimeoutOption: OptionSpec = {
        let (key, new, to) = (KeyReader(prefix: ""), KeyReader(prefix: "new-"), KeyReader(prefix: "to-"))
        return OptionSpec(
            "--key-cmd-timeout", value: "SECONDS",
            help: "Kill a key command (any \(key.commandOption), \(new.commandOption) or \(to.commandOption)) that runs longer than this (default 30).")
    }()

    /// `--key-cmd-timeout` in seconds (default 30), for every key command of the run.
    static func commandTimeout(_ arguments: ParsedArguments) throws -> Double {
        guard let text = arguments.value(commandTimeoutOption) else { return 30 }
        guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
            throw UsageError("\(commandTimeoutOption.name) takes a number of seconds more than 0 and at most 3600", command: arguments.command)
        }
        return seconds
    }

    /// "key", "new key" or "destination key", for messages.
    var keyName: String {
        switch prefix {
        case "new-": return "new key"
        case "to-": return "destination key"
        default: return "key"
        }
    }

    private func promptText(for path: String) -> String {
        switch prefix {
        case "new-": return "New key for '\(path)': "
        case "to-": return "Key for the destination '\(path)': "
        default: return "Key for '\(path)': "
        }
    }

    /// A key file's bytes, one trailing line break dropped; a folder is refused, and a file
    /// that group or others can read is warned of.
    func readKeyFile(_ path: String, console: Console) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw CipherKitError.fileAccess(path: KeySourceName.shown(path, variable: false) ?? "(the key file, its path withheld: it may be a key)", reason: reason)
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw CipherKitError.fileAccess(path: KeySourceName.shown(path, variable: false) ?? "(the key file)", reason: "it is a folder, not a key file")
        }
        if fstat(descriptor, &status) == 0, status.st_mode & (S_IRGRP | S_IROTH) != 0 {
            console.warning("key file '\(path)' is readable by group or others; chmod 600 it")
        }
        var bytes = readAll(descriptor)
        dropTrailingNewline(&bytes)
        return bytes
    }

    private func readDescriptor(_ text: String, command: String) throws -> [UInt8] {
        if let descriptor = Int32(text), isatty(descriptor) != 0 {
            throw UsageError("descriptor \(descriptor) (\(fdOption)) is a terminal, which would show the key as it is typed", command: command,
                             hint: "give no key option to be asked for it without echo")
        }
        guard let descriptor = Int32(text), descriptor >= 0, fcntl(descriptor, F_GETFD) != -1 else {
            throw UsageError("\(fdOption) needs an open file descriptor number", command: command)
        }
        var bytes = readAll(descriptor)
        dropTrailingNewline(&bytes)
        return bytes
    }

    private func readAll(_ descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { SecureBytes.wipe(&chunk) }
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    private func readFirstLine(of descriptor: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            bytes.append(byte)
        }
        byte = 0
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return bytes
    }

    private func dropTrailingNewline(_ bytes: inout [UInt8]) {
        if bytes.last == UInt8(ascii: "\n") {
            bytes.removeLast()
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        }
    }
}
