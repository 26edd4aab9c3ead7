/// An in-place rekey whose commit failed: `cause` is why, and `journalRestored` says whether
/// the journal mode was put back (the connection was closed for it, see `Rekeyer.rekeyInPlace`).
struct UncommittedRekey: Error {
    let cause: Error
    let journalRestored: Bool
}
