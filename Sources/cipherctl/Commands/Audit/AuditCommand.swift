import CipherKit
import FoundationEssentials
import Glibc

/// `cipherctl audit`: what many files are and how they are protected, against a policy.
enum AuditCommand {
    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> ExitCode {
        let options = try AuditOptions(arguments)
        let console = context.console
        let ring = try options.key.ring(context: context)
        let perFile = ring != nil || options.key.isPerFile
        let key = options.hasKey && !perFile ? try options.key.read(for: "the files to audit", context: context) : nil
        let request = auditRequest(options, key: key, context: context)
        let chooser = perFile ? { (path: String) in keyOfFile(path, ring: ring, options: options, context: context) } : nil

        let policy = options.policy
        let progress = CountProgress.make(verb: "auditing", total: options.targets.count, noun: "files", console: console)
        let runner = BatchRunner(jobs: options.jobs, failFast: false)
        var results: [(FileAudit, [AuditFinding])] = []
        defer { KeyDerivation.forgetPrepared() }
        // One key for every file: each round's keys are derived ahead, eight at a time.
        let ahead = options.targets.count > 1 ? key : nil
        runner.inRounds(options.targets, of: 8 * max(1, options.jobs), prepare: { targets in
            if let ahead { prepareKeys(for: targets, key: ahead, options: options) }
        }, run: { targets in
            results += runner.map(targets, work: { target in
                let audit = look(at: target, request: request, chooser: chooser)
                return (audit, policy.findings(for: audit))
            }, finished: { progress?.advance() })
            return true
        })
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

    /// Derives ahead the key each of `targets` is expected to be opened with
    /// (`KeyDerivation.prepare`), in the lanes on `--jobs` threads.
    private static func prepareKeys(for targets: [AuditTarget], key: KeyMaterial, options: AuditOptions) {
        let expected = targets.compactMap { target -> KeyDerivation.Expected? in
            guard case .file(let path) = target else { return nil }
            return KeyDerivation.Expected.opening(path, key: key, settings: options.settings)
        }
        KeyDerivation.prepare(expected, threads: options.jobs)
    }

    /// The key of the file at `path`: its key command template's, or the ring's key that
    /// opens it (its first when none does, so the audit says what the file is).
    private static func keyOfFile(_ path: String, ring: [LabeledKey]?, options: AuditOptions, context: CommandContext) -> FileKeyChoice {
        guard let ring else {
            // A file that needs no key (plaintext, not a database) runs no key command.
            guard DatabaseFile.needsKey(path) else { return FileKeyChoice(key: nil) }
            do { return FileKeyChoice(key: try options.key.read(for: path, context: context)) } catch { return FileKeyChoice(key: nil, problem: ErrorReporter.describe(error).message) }
        }
        do {
            let chosen = try KeyChooser.choose(context.openRequest(path: path, key: nil, settings: options.settings, mode: .readOnly), from: ring)
            return FileKeyChoice(key: chosen.key, label: chosen.label)
        } catch let failure as CipherKitError {
            guard case .cannotDecrypt(_, .noKeyOfTheRing) = failure else { return FileKeyChoice(key: ring.first?.key) }
            return FileKeyChoice(key: ring.first?.key, problem: failure.message)
        } catch {
            return FileKeyChoice(key: ring.first?.key)
        }
    }

    private static func look(at target: AuditTarget, request: AuditRequest, chooser: ((String) -> FileKeyChoice)?) -> FileAudit {
        switch target {
        case .file(let path) where chooser != nil:
            var keyed = request
            let choice = chooser?(path)
            keyed.key = choice?.key
            var audit = FileAuditor.audit(path, request: keyed)
            // The ring names a label only for the file's key: one that opens it, proves a page of it
            // damaged, opens it in another family or cipher, or decrypts its page 1 under other settings.
            audit.keyLabel = choice?.label
            // The ring's or the key command's own words for a file it gave no key that opens it.
            if audit.opened != true, let problem = choice?.problem {
                audit.problem = problem
                audit.opened = false
            }
            return audit
        case .file(let path): return FileAuditor.audit(path, request: request)
        case .unreadableFolder(let path, let reason): return .unreadable(path, reason: reason)
        }
    }

    private static func report(_ results: [(FileAudit, [AuditFinding])], console: Console) {
        if console.json {
            let lines = results.map { console.reportLine(AuditFormatter.json($0.0, findings: $0.1)) }
            console.output(lines.joined() + console.reportLine(AuditFormatter.summaryJSON(results)))
        } else if !console.quiet {
            console.output(AuditFormatter.text(results) + AuditFormatter.summaryText(results))
        }
    }
}
