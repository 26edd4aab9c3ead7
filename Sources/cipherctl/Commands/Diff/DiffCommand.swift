import CipherKit

/// `cipherctl diff`: what differs between two databases; exit 8 when anything does.
enum DiffCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try DiffOptions(arguments)
        let console = context.console
        let first = try options.key.readIfNeeded(for: options.firstPath, context: context)
        let second = try options.otherKey.readIfNeeded(for: options.secondPath, context: context)
        var request = DiffRequest(
            first: context.openRequest(path: options.firstPath, key: first, settings: options.settings, mode: .readOnly),
            second: context.openRequest(path: options.secondPath, key: second, settings: options.otherSettings, mode: .readOnly))
        request.listsRows = options.listsRows
        request.first.leavesFilesAlone = true
        request.second.leavesFilesAlone = true
        let difference: DatabaseDifference
        do {
            difference = try DatabaseDiffer.diff(request)
        } catch let failure as CipherKitFailure where failure.path == options.secondPath && options.secondPath != options.firstPath {
            throw OtherDatabaseFailure(failure: failure)
        }
        if console.json {
            console.report(DiffFormatter.json(difference))
        } else if !console.quiet {
            console.output(DiffFormatter.text(difference))
        }
        return difference.identical ? .success : .findings
    }
}
