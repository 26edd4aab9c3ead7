import CipherKit

extension Console {
    /// Removes what interrupted runs left beside `path` before `body` runs, so that every
    /// removed file is reported: in the report when `body` succeeds, as warnings when it fails
    /// (a wrong key, a destination that exists) and the report never comes.
    func sweepingLeftovers<Report: RemovesLeftovers>(beside path: String, _ body: () throws -> Report) throws -> Report {
        let removed = TemporaryDatabase.removeLeftovers(beside: path)
        do {
            var report = try body()
            report.removedLeftovers = removed + report.removedLeftovers
            return report
        } catch {
            removed.forEach(warnRemovedLeftover)
            throw error
        }
    }

    /// Removes what interrupted runs left beside `path` now, with a warning for each.
    func removeLeftovers(beside path: String) {
        TemporaryDatabase.removeLeftovers(beside: path).forEach(warnRemovedLeftover)
    }

    /// The warning for one removed leftover of an interrupted run.
    func warnRemovedLeftover(_ leftover: String) {
        warning("removed '\(leftover)', a temporary file left by an interrupted run")
    }
}
