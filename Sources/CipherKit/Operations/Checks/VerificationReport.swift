/// The checks run after a change: integrity, the comparison with what was recorded before,
/// and that the old key no longer opens the file.
public struct VerificationReport: Equatable, Sendable {
    public var integrity: IntegrityReport
    /// Differences from the recorded snapshot.
    public var differences: [String]
    /// Whether the old key was tried and refused; nil when not applicable (an export to a new file).
    public var oldKeyRejected: Bool?

    public init(integrity: IntegrityReport, differences: [String], oldKeyRejected: Bool?) {
        self.integrity = integrity
        self.differences = differences
        self.oldKeyRejected = oldKeyRejected
    }

    /// Whether every check passed.
    public var isOK: Bool { integrity.isOK && differences.isEmpty && oldKeyRejected != false }

    /// Every problem, one phrase each.
    public var problems: [String] {
        integrity.problems + differences + (oldKeyRejected == false ? ["the old key still opens the database"] : [])
    }
}
