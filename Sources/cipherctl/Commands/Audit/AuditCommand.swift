import CipherKit
import FoundationEssentials
import Glibc

/// `cipherctl audit`: what many files are and how they are protected, against a policy.
enum AuditCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try AuditOptions(arguments)
        let console = context.console
        let key = options.hasKey ? try options.key.read(for: "the files to audit", context: context) : nil
        let request = auditRequest(options, key: key, context: context)

        let policy = options.policy
        let progress = CountProgress.make(verb: "auditing", total: options.targets.count, noun: "files", console: console)
        let results = BatchRunner(jobs: options.jobs, failFast: false).map(options.targets, work: { target in
            let audit = look(at: target, request: request)
            return (audit, policy.findings(for: audit))
        }, finished: { progress?.advance() })
        progress?.finish()
        report(results, console: console)
        let flagged = results.filter { !$0.1.isEmpty }
        guard flagged.isEmpty else {
            let codes = AuditFinding.Code.allCases.filter { code in flagged.contains { $0.1.contains { $0.code == code } } }
            throw AuditFindings(files: results.count, flagged: flagged.count, codes: codes.map(\.rawValue))
        }
        return .success
    }

    private static func auditRequest(_ options: AuditOptions, key: KeyMaterial?, context: CommandContext) -> AuditRequest {
        var request = AuditRequest(key: key, settings: options.settings)
        request.checksIntegrity = options.checksIntegrity
        request.busyTimeoutMilliseconds = context.busyTimeoutMilliseconds
        request.logLevel = context.logLevel
        return request
    }

    private static func look(at target: AuditTarget, request: AuditRequest) -> FileAudit {
        switch target {
        case .file(let path): return FileAuditor.audit(path, request: request)
        case .unreadableFolder(let path, let reason): return .unreadable(path, reason: reason)
        }
    }

    private static func report(_ results: [(FileAudit, [AuditFinding])], console: Console) {
        if console.json {
            console.output(results.map { AuditFormatter.json($0.0, findings: $0.1).rendered() + "\n" }.joined())
            console.output(AuditFormatter.summaryJSON(results).rendered() + "\n")
        } else if !console.quiet {
            console.output(AuditFormatter.text(results) + AuditFormatter.summaryText(results))
        }
    }
}
