import CipherKit

/// `cipherctl diff`: what differs between two databases; exit 8 when anything does.
enum DiffCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        guard arguments.positionals.count == 2 else { throw UsageError("diff takes two databases", command: "diff") }
        let (firstPath, secondPath) = (arguments.positionals[0], arguments.positionals[1])
        let console = context.console
        let settings = try CipherOptionsReader.settings(from: arguments)
        let otherSettings = try CipherOptionsReader.settings(from: arguments, prefix: "other-")
        let first = try KeyReader(prefix: "").readIfNeeded(arguments, for: firstPath, context: context)
        let second = try KeyReader(prefix: "other-").readIfNeeded(arguments, for: secondPath, context: context)
        var request = DiffRequest(
            first: context.openRequest(path: firstPath, key: first, settings: settings, mode: .readOnly),
            second: context.openRequest(path: secondPath, key: second, settings: otherSettings, mode: .readOnly))
        request.listsRows = arguments.has("--rows")
        request.first.leavesFilesAlone = true
        request.second.leavesFilesAlone = true
        let difference = try DatabaseDiffer.diff(request)
        if console.json {
            console.output(DiffFormatter.json(difference).rendered() + "\n")
        } else if !console.quiet {
            console.output(DiffFormatter.text(difference))
        }
        return difference.identical ? .success : .findings
    }
}
