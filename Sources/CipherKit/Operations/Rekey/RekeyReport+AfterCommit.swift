extension RekeyReport {
    /// How a rekeyed file opens once its change is committed, in every failure after the
    /// commit, from the engine's steps and from the report alike.
    static func opensWith(_ newSettings: CipherSettings) -> String {
        "the new key (" + newSettings.summary + ")"
    }

    /// The failure a rekey ends with when its change is committed but its verification
    /// failed: the file opens with the new key whatever the check says. Nil otherwise.
    public var failureAfterCommit: CipherKitError? {
        guard let verification, !verification.isOK else { return nil }
        return .failedAfterCommit(
            path: path, opensWith: Self.opensWith(newSettings), problem: "verification: " + verification.problems.joined(separator: "; "))
    }
}
