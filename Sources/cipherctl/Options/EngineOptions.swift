import FoundationEssentials
import Glibc

/// How a command that writes a copy works and proves it: `--verify` and `--jobs`, read once.
struct EngineOptions {
    enum Verification: String {
        /// Nothing is checked afterwards (warned about).
        case none
        /// Every page decrypts back to its source, and SQLCipher reads the copy's schema.
        case pages
        /// Also SQLite's integrity checks and every table's row count.
        case full
    }

    static let verify = verifyOption(levels: [.none, .pages, .full], help: "What proves a copy: pages (the default: every page the page engine wrote decrypts back to its source, and SQLCipher opens the copy and reads its schema), full (also SQLite's integrity checks and every table's row count; copies made another way are always checked in full), or none (warned about).")
    static let noVerify = OptionSpec.alias("--no-verify", of: verify.name, value: Verification.none.rawValue)
    static let jobs = OptionSpec("--jobs", value: "N", help: "Work on N threads in all (default: one per core). One database's pages are spread over all of them; several databases run one at a time, or with --jobs up to N at once.")
    static let threads = OptionSpec.alias("--threads", of: jobs.name, placeholder: "N")
    static let specs = [verify, noVerify, jobs, threads]

    /// `--verify LEVEL`, for a command that verifies what it wrote at `levels`.
    static func verifyOption(levels: [Verification], help: String) -> OptionSpec {
        OptionSpec("--verify", value: levels.map(\.rawValue).joined(separator: "|"), choices: levels.map(\.rawValue), help: help)
    }

    let verification: Verification
    /// `--jobs N` as given; nil for the default (one thread per core, one database at a time).
    let jobs: Int?

    /// Reads `--verify` (or its old spelling `--no-verify`) and `--jobs` (or `--threads`).
    ///
    /// - Throws: `UsageError` for a level the command does not take, or a count out of range.
    init(_ arguments: ParsedArguments, levels: [Verification] = [.none, .pages, .full]) throws {
        let text = arguments.value(Self.verify) ?? (levels.contains(.pages) ? "pages" : "full")
        guard let level = Verification(rawValue: text), levels.contains(level) else {
            let names = levels.map(\.rawValue).joined(separator: ", ")
            throw UsageError("\(Self.verify.name) takes \(names)", command: arguments.command)
        }
        verification = level
        jobs = try Self.count(arguments.value(Self.jobs), command: arguments.command)
    }

    private static func count(_ text: String?, command: String) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), (1...256).contains(value) else {
            throw UsageError("\(Self.jobs.name) needs a whole number from 1 to 256", command: command)
        }
        return value
    }

    /// Whether anything is verified; a run that verifies nothing is warned about, with
    /// `unchecked` (what goes unchecked).
    func verifies(console: Console, unchecked: String) -> Bool {
        guard verification == .none else { return true }
        console.warning("\(Self.verify.name) \(Verification.none.rawValue): " + unchecked)
        return false
    }

    /// How many of `databases` run at once: one by default, up to `--jobs` when given.
    func concurrentDatabases(of databases: Int) -> Int {
        max(1, min(jobs ?? 1, databases))
    }

    /// The page engine's threads for each of `concurrent` databases running at once: its
    /// share of `--jobs`, else one per core.
    func engineThreads(concurrent: Int) -> Int {
        guard let jobs else { return ProcessInfo.processInfo.activeProcessorCount }
        return max(1, jobs / max(1, concurrent))
    }
}
