import CipherKit
import FoundationEssentials
import Glibc

/// `cipherctl rekey`: rotate the key of one or many databases.
enum RekeyCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try RekeyOptions(arguments)
        // Every database is looked at before any is changed: a missing one, or a value taken
        // for a path, stops the run with nothing touched.
        try requireDatabases(options.paths)
        let batch = try RekeyBatch(options, context: context)
        let runner = BatchRunner(jobs: batch.jobs, failFast: options.failFast)
        var failures: [ExitCode] = []
        defer { KeyDerivation.forgetPrepared() }
        runner.inRounds(options.paths, of: batch.window, prepare: { batch.prepareKeys(for: $0) }, run: { round in
            failures += runner.run(round) { path in batch.rekey(path) }
            return !(options.failFast && !failures.isEmpty)
        })
        if batch.interrupted, options.paths.count > 1 {
            batch.context.console.warning("interrupted: the databases not yet started are left as they were, and counted as not started")
        }
        summarize(batch, failures: failures)
        if !batch.tally.changedAny { RunChanges.shared.recordNoneChanged() }
        return combined(failures)
    }

    /// Throws, before anything is changed, unless every path is a file that may be a database.
    static func requireDatabases(_ paths: [String]) throws {
        for path in paths {
            try DatabaseFile.probe(path).requireDatabase()
        }
    }

    /// The summary of several databases; and when the run changed nothing, the new key file it
    /// generated is removed, since that key opens nothing.
    private static func summarize(_ batch: RekeyBatch, failures: [ExitCode]) {
        let console = batch.context.console
        let count = batch.options.paths.count
        if count > 1 {
            console.result(json: batch.tally.json(of: count, verb: "rekeyed"), text: batch.tally.text(of: count, verb: "rekeyed"), removedLeftovers: [])
        }
        if !failures.isEmpty, !failures.contains(.committed), batch.tally.changedNone, !batch.options.dryRun {
            let newKey = batch.options.newKey
            GeneratedKeyFile.discardUnused(newKey.arguments, prefix: newKey.reader.prefix, console: console)
        }
    }

    /// One exit code for the run: the failures' code when they agree, else 1.
    static func combined(_ failures: [ExitCode]) -> ExitCode {
        guard let first = failures.first else { return .success }
        return failures.allSatisfy { $0 == first } ? first : .failure
    }
}
