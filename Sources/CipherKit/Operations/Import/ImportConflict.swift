/// What an import does with a row whose key is already taken.
public enum ImportConflict: Sendable {
    /// Fail: the whole import is rolled back.
    case fail
    /// Replace the row there (`INSERT OR REPLACE`).
    case replace
    /// Keep the row there and skip the new one (`INSERT OR IGNORE`).
    case ignore
}
