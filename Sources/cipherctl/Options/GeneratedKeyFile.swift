import CipherKit
import FoundationEssentials
import Glibc

/// The key file `--new-key-generate` or `--to-key-generate` wrote before any database was
/// touched. When the run then changed nothing, the key opens nothing: the file is removed
/// (and said so), so that the same command run again can make it anew.
enum GeneratedKeyFile {
    /// Removes the file the run's generate option named, if that option was given.
    static func discardUnused(_ arguments: ParsedArguments, prefix: String, console: Console) {
        let option = KeyReader(prefix: prefix).generateOption
        guard arguments.has(option), let file = arguments.value(option), unlink(file) == 0 else { return }
        console.warning("removed '\(file)': nothing was changed, so the key it held opens nothing")
    }

    /// Runs `body`; a failure before any change removes the generated key file first.
    static func discardingOnFailure<T>(_ arguments: ParsedArguments, prefix: String, console: Console, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            if (error as? CipherKitError)?.isAfterCommit != true { discardUnused(arguments, prefix: prefix, console: console) }
            throw error
        }
    }
}
