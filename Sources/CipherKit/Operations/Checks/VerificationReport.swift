/// The checks run after a change: integrity, the comparison with what was recorded before,
/// and that the old key no longer opens the file.
public struct VerificationReport: Equatable, Sendable {
    public var integrity: IntegrityReport
    /// Differences from the recorded snapshot.
    public var differences: [String]
    /// Whether the old key was tried and refused; nil when not applicable (an export to a new file).
    public var oldKeyRejected: Bool?
    /// How many pages the page engine proved as it wrote them (each decrypts back, with the
    /// new key, to its source page); nil when the copy was not written by the engine.
    public var pagesProven: Int?
    /// Whether SQLite's integrity checks ran and every table's rows were counted (the full
    /// checks); false when the proof is the engine's, page by page.
    public var fullChecks: Bool

    public init(integrity: IntegrityReport, differences: [String], oldKeyRejected: Bool?, pagesProven: Int? = nil, fullChecks: Bool = true) {
        self.integrity = integrity
        self.differences = differences
        self.oldKeyRejected = oldKeyRejected
        self.pagesProven = pagesProven
        self.fullChecks = fullChecks
    }

    /// The page engine's proof alone: every page proven as written, and SQLCipher's open of
    /// the result before it was committed (schema and header fields matched).
    public static func proven(pages: Int, oldKeyRejected: Bool? = nil) -> VerificationReport {
        VerificationReport(
            integrity: IntegrityReport(cipherProblems: [], sqliteProblems: []), differences: [], oldKeyRejected: oldKeyRejected,
            pagesProven: pages, fullChecks: false)
    }

    /// Whether every check passed.
    public var isOK: Bool { integrity.isOK && differences.isEmpty && oldKeyRejected != false }

    /// Every problem, one phrase each.
    public var problems: [String] {
        integrity.problems + differences + (oldKeyRejected == false ? ["the old key still opens the database"] : [])
    }
}
