import CipherKit

/// The label of the key ring entry chosen as each database's key, so that a JSON error about
/// that database names it as its result would (`key_label`); a batch's threads share it.
final class ChosenKeyLabels: @unchecked Sendable {
    static let shared = ChosenKeyLabels()
    private let lock = Lock()
    private var labels: [String: String] = [:]

    func record(_ label: String, for path: String) {
        lock.lock()
        labels[path] = label
        lock.unlock()
    }

    /// The label chosen for `path`; with no path (an error that names no file, such as a
    /// failed statement), the one label of a run that chose one.
    func label(for path: String?) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard let path else { return labels.count == 1 ? labels.first?.value : nil }
        return labels[path]
    }
}
