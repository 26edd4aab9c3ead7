import CipherKit
import Foundation

/// `cipherctl audit`: what many files are and how they are protected, against a policy.
enum AuditCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        guard !arguments.positionals.isEmpty else { throw UsageError("missing the paths to audit", command: "audit") }
        let policy = try policy(arguments)
        let keys = KeyReader(prefix: "")
        let hasKey = keys.hasSource(arguments) || arguments.has("--raw-key")
        if policy.needsSettings, !hasKey {
            throw UsageError(
                "--min-kdf-iter, --require-hmac and --require-algorithm need a key to read the settings", command: "audit",
                hint: "give the key with --key-env, --key-file, --key-fd or --key-cmd")
        }
        let walk = AuditWalker.targets(arguments.positionals, recursive: arguments.has("--recursive"))
        if let folder = walk.folder {
            throw UsageError("'\(folder)' is a folder", command: "audit", hint: "add --recursive to look at the files under it")
        }
        let jobs = try EngineOptions(arguments).jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let console = context.console
        let key = hasKey ? try keys.read(arguments, for: "the files to audit", console: console, environment: context.environment) : nil
        let request = try auditRequest(arguments, key: key, context: context)

        let progress = CountProgress.make(verb: "auditing", total: walk.targets.count, noun: "files", console: console)
        let results = BatchRunner(jobs: jobs, failFast: false).map(walk.targets, work: { target in
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

    private static func auditRequest(_ arguments: ParsedArguments, key: KeyMaterial?, context: CommandContext) throws -> AuditRequest {
        var request = AuditRequest(key: key, settings: try CipherOptionsReader.settings(from: arguments))
        request.checksIntegrity = arguments.has("--check")
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

    /// The policy the options set.
    ///
    /// - Throws: `UsageError` for a value out of range.
    static func policy(_ arguments: ParsedArguments) throws -> AuditPolicy {
        var policy = AuditPolicy()
        policy.forbidsPlaintext = arguments.has("--forbid-plaintext")
        policy.requiresHMAC = arguments.has("--require-hmac")
        if let text = arguments.value("--min-kdf-iter") {
            guard let value = Int(text), value >= 1 else { throw UsageError("--min-kdf-iter needs a whole number from 1", command: "audit") }
            policy.minimumKDFIterations = value
        }
        if let text = arguments.value("--require-algorithm") {
            guard let algorithm = HMACAlgorithm(name: text) else {
                throw UsageError("--require-algorithm takes SHA1, SHA256 or SHA512", command: "audit")
            }
            policy.requiredAlgorithm = algorithm
        }
        if let text = arguments.value("--max-mode") {
            guard !text.isEmpty, text.count <= 5, let mode = UInt32(text, radix: 8), mode <= 0o7777 else {
                throw UsageError("--max-mode needs permission bits in octal, such as 600 or 0640", command: "audit")
            }
            policy.maximumMode = mode
        }
        return policy
    }
}
