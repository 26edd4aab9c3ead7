import CipherKit

extension Console {
    /// Runs an operation that removes what interrupted runs left, handing it a listener. Its
    /// report lists what it removed when it succeeds; when it fails (a wrong key, a
    /// destination that exists) no report comes, so what it removed is warned of here.
    func warningOfLeftoversIfItFails<Report>(_ body: (@escaping LeftoverListener) throws -> Report) throws -> Report {
        let heard = HeardLeftovers()
        do {
            return try body(heard.add)
        } catch {
            heard.paths.forEach(warnRemovedLeftover)
            throw error
        }
    }

    /// The warning for one removed leftover of an interrupted run.
    func warnRemovedLeftover(_ leftover: String) {
        warning("removed '\(leftover)', a temporary file left by an interrupted run")
    }
}
