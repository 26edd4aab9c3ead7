/// Where a long operation is, for a progress display that watches a file grow.
///
/// SQLCipher re-encrypts and exports inside single C calls that report nothing, but the
/// file they write grows page by page: the rollback journal of an in-place rekey (each
/// page is journaled before it is rewritten) and the copy of an export.
public enum ProgressPhase: Equatable, Sendable {
    /// Re-encrypting in place; `watch` grows towards `expectedBytes`.
    case rekeying(watch: String, expectedBytes: Int)
    /// Writing a copy; `watch` grows towards `expectedBytes`.
    case copying(watch: String, expectedBytes: Int)
    /// Reopening and checking the result.
    case verifying
    /// Done.
    case finished
}
