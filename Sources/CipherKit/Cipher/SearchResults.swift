import CCipherProvider
import FoundationEssentials

/// What each thread of `SettingsSearch` found, collected under a lock, and the flag that
/// stops the other threads once one has found (read by the C search now and then).
final class SearchResults: @unchecked Sendable {
    /// One PBKDF2 chain of the search: which passphrase (its index), and the algorithm.
    typealias Chain = (passphrase: Int, algorithm: KDFAlgorithm)
    typealias Hit = (passphrase: Int, algorithm: KDFAlgorithm, iterations: Int, key: SecureBytes, match: cipherprovider_block_match)
    private let lock = Lock()
    private var hits: [Hit?]
    private(set) var failed = false
    let stop = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    init(count: Int) {
        hits = Array(repeating: nil, count: count)
        stop.initialize(to: 0)
    }

    deinit {
        stop.deallocate()
    }

    func set(_ index: Int, status: Int32, hit: Hit?) {
        lock.lock()
        defer { lock.unlock() }
        hits[index] = hit
        if status < 0 { failed = true }
    }

    /// The first thread's hit, in the order the threads were numbered.
    var first: Hit? {
        lock.lock()
        defer { lock.unlock() }
        return hits.lazy.compactMap { $0 }.first
    }
}
