import CipherKit
import FoundationEssentials
import Glibc

/// What became of each database of a batch, for its summary line: rekeyed, already done,
/// checked (a dry run), or failed; those a `--fail-fast` stop never started are the rest.
final class BatchTally: @unchecked Sendable {
    enum Outcome {
        case changed, alreadyDone, checked, failed
    }

    private let lock = Lock()
    private var counts: [Outcome: Int] = [:]

    func record(_ outcome: Outcome) {
        lock.lock()
        counts[outcome, default: 0] += 1
        lock.unlock()
    }

    /// Whether no database was rekeyed or found already done.
    var changedNone: Bool {
        lock.lock()
        defer { lock.unlock() }
        return counts[.changed, default: 0] + counts[.alreadyDone, default: 0] == 0
    }

    /// `4 databases: 2 rekeyed, 2 already done, 0 failed` (with the dry run's and the unstarted when there are any).
    func text(of total: Int, verb: String) -> String {
        var parts = ["\(counts[.changed, default: 0]) \(verb)", "\(counts[.alreadyDone, default: 0]) already done"]
        if let checked = counts[.checked] { parts.append("\(checked) checked (dry run)") }
        parts.append("\(counts[.failed, default: 0]) failed")
        let notStarted = total - counts.values.reduce(0, +)
        if notStarted > 0 { parts.append("\(notStarted) not started") }
        return "\(total) databases: " + parts.joined(separator: ", ") + "\n"
    }

    /// The same as one JSON object, `{"summary": {...}}`, after the batch's per-database lines.
    func json(of total: Int, verb: String) -> JSONValue {
        let done = counts.values.reduce(0, +)
        return .object([("summary", .object([
            ("databases", .integer(total)), (verb, .integer(counts[.changed, default: 0])),
            ("already_done", .integer(counts[.alreadyDone, default: 0])), ("checked", .integer(counts[.checked, default: 0])),
            ("failed", .integer(counts[.failed, default: 0])), ("not_started", .integer(total - done)),
        ]))])
    }
}
