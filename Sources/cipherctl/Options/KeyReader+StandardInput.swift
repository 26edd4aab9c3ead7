import CipherKit
import Glibc

extension KeyReader {
    /// Refuses a command line where standard input would carry a key (`--key-stdin` and
    /// kin) and also `what` (the SQL, the list of databases): the key would swallow its
    /// first line, or it the key.
    ///
    /// - Throws: `UsageError` naming standard input.
    static func refuseSharedStandardInput(_ arguments: ParsedArguments, for what: String) throws {
        let readers = ["", "new-", "to-"].map { KeyReader(prefix: $0) }
        guard let reader = readers.first(where: { $0.readsStandardInput(arguments) }) else { return }
        let option = arguments.has(reader.stdinOption) ? reader.stdinOption : arguments.has(reader.fdOption) ? reader.fdOption + " 0" : reader.fileOption
        throw UsageError(
            "standard input cannot carry both the key (\(option)) and \(what)", command: arguments.command,
            hint: "give the key with \(reader.envOption), \(reader.fileOption) or \(reader.fdOption) N, or \(what) from a file")
    }

    /// Whether `path` names standard input: "-", or the very file standard input is (a link
    /// to /dev/stdin, or the file redirected in), by device and inode.
    static func namesStandardInput(_ path: String) -> Bool {
        if path == "-" { return true }
        guard let input = FileIdentity(descriptor: STDIN_FILENO), let named = FileIdentity(path: path) else { return false }
        return named == input
    }

    /// Whether this key is read from standard input: `--key-stdin`, `--key-fd 0`, `--key-file /dev/stdin`.
    /// A key file is standard input when it is the same file, whatever its name (a link to
    /// /dev/stdin, or the file redirected in).
    func readsStandardInput(_ arguments: ParsedArguments) -> Bool {
        if arguments.has(stdinOption) || arguments.value(fdOption) == "0" { return true }
        guard let input = FileIdentity(descriptor: STDIN_FILENO) else { return false }
        if let file = arguments.value(fileOption), let source = FileIdentity(path: file) { return source == input }
        if let descriptor = arguments.value(fdOption).flatMap({ Int32($0) }) { return FileIdentity(descriptor: descriptor) == input }
        return false
    }

    /// Refuses a command line whose two keys (`--key-…` and `--new-key-…`, `--to-key-…` or
    /// `--other-key-…`) would both come from standard input, under whatever names: the first
    /// to read it would take the other's line.
    ///
    /// - Throws: `UsageError`.
    static func refuseTwoKeysOnStandardInput(_ arguments: ParsedArguments) throws {
        let readers = ["", "new-", "to-", "other-"].map { KeyReader(prefix: $0) }.filter { $0.readsStandardInput(arguments) }
        guard readers.count >= 2 else { return }
        throw UsageError("standard input cannot carry two keys (\(readers.map(\.keyName).joined(separator: " and ")))", command: arguments.command,
                         hint: "give one of them with \(readers[0].envOption), \(readers[0].fileOption) or \(readers[0].fdOption) N")
    }
}
