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
    /// Databases each key ring entry opened, in the order they first did.
    private var keys: [(label: String, count: Int)] = []

    func recordKey(_ label: String) {
        lock.lock()
        if let index = keys.firstIndex(where: { $0.label == label }) { keys[index].count += 1 } else { keys.append((label, 1)) }
        lock.unlock()
    }

    func record(_ outcome: Outcome) {
        lock.lock()
        counts[outcome, default: 0] += 1
        lock.unlock()
    }

    /// Whether any database was changed (not only found done already, or checked).
    var changedAny: Bool {
        lock.lock()
        defer { lock.unlock() }
        return counts[.changed, default: 0] > 0
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
        let opened = keys.isEmpty ? "" : "; old keys: " + keys.map { "\($0.count) by '\($0.label)'" }.joined(separator: ", ")
        return "\(total) databases: " + parts.joined(separator: ", ") + opened + "\n"
    }

    /// The same as one JSON object, `{"summary": {...}}`, after the batch's per-database lines.
    func json(of total: Int, verb: String) -> JSONValue {
        let done = counts.values.reduce(0, +)
        return .object([("summary", .object([
            ("databases", .integer(total)), (verb, .integer(counts[.changed, default: 0])),
            ("already_done", .integer(counts[.alreadyDone, default: 0])), ("checked", .integer(counts[.checked, default: 0])),
            ("failed", .integer(counts[.failed, default: 0])), ("not_started", .integer(total - done)),
            ("key_labels", .object(keys.map { ($0.label, .integer($0.count)) })),
        ]))])
    }
}
