import CipherKit
import Foundation

/// `cipherctl recover`: every readable row of a damaged database into a new encrypted one.
enum RecoverCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        guard arguments.positionals.count == 2 else { throw UsageError("recover takes the damaged database and the new one", command: "recover") }
        let (source, destination) = (arguments.positionals[0], arguments.positionals[1])
        let console = context.console
        guard let shell = RecoverShell.find(environment: context.environment) else {
            throw UsageError("recover runs SQLite's own recovery through the sqlite3 or sqlcipher shell, and neither is on PATH", command: "recover",
                             hint: "install one: apt-get install sqlite3")
        }
        let settings = try CipherOptionsReader.settings(from: arguments)
        let key = try KeyReader(prefix: "").read(arguments, for: source, console: console, environment: context.environment)
        let destinationKey = try KeyReader(prefix: "to-").read(arguments, for: destination, console: console, environment: context.environment)
        let request = RecoverRequest(
            source: context.openRequest(path: source, key: key, settings: settings, mode: .readOnly), destination: destination,
            destinationKey: destinationKey, destinationSettings: try CipherOptionsReader.settings(from: arguments, prefix: "to-"))
        console.removeLeftovers(beside: destination)
        var process: RecoverShell?
        let report = try GeneratedKeyFile.discardingOnFailure(arguments, prefix: "to-", console: console) {
            try DatabaseRecoverer.recover(request) { image in
                let started = try RecoverShell(shell: shell, image: image)
                process = started
                return started.next
            }
        }
        withExtendedLifetime(process) {}
        console.result(json: json(report, destination: destination), text: text(report, destination: destination), removedLeftovers: [])
        return .success
    }

    private static func text(_ report: RecoveryReport, destination: String) -> String {
        let lost = report.lostPages.isEmpty ? "no page lost" : "\(report.lostPages.count) of \(report.pages) pages lost (" + pageList(report.lostPages) + ")"
        let tables = report.tables.map { "  \($0.table): \($0.rows) row\($0.rows == 1 ? "" : "s")" }
        return (["recovered into '\(destination)': \(lost)"] + tables).joined(separator: "\n") + "\n"
    }

    /// `3, 7-9, 12`.
    private static func pageList(_ pages: [Int]) -> String {
        var ranges: [String] = [], start = pages.first ?? 0, previous = start
        for page in pages.dropFirst() + [Int.max] {
            if page == previous + 1 { previous = page; continue }
            ranges.append(start == previous ? "\(start)" : "\(start)-\(previous)")
            start = page
            previous = page
        }
        return ranges.joined(separator: ", ")
    }

    private static func json(_ report: RecoveryReport, destination: String) -> JSONValue {
        .object([
            ("destination", .string(destination)), ("pages", .integer(report.pages)),
            ("lost_pages", .array(report.lostPages.map { .integer($0) })),
            ("tables", .object(report.tables.map { ($0.table, .integer($0.rows)) })),
        ])
    }
}
