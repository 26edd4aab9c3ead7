/// What `DatabaseCopier` wrote: what the source held, both sides' settings, and how.
struct DatabaseCopy {
    /// What the source held, read in the transaction the copy was made in.
    var snapshot: DatabaseSnapshot
    var sourceSettings: CipherSettings?
    var destinationSettings: CipherSettings?
    var pageSize: Int
    /// The key the copy opens with: the target key, or the raw key derived from it.
    var destinationKey: KeyMaterial?
    /// The source's format, when the search found it, and how many formats were tried.
    var sourceFormat: CipherFormat?
    var sourceAttempts: Int
    var method: CopyMethod
    /// The pages the page engine proved one by one (decrypted back to their source); nil
    /// for a copy SQLite wrote.
    var pagesProven: Int? = nil

    /// Whether the full checks are due: always for a copy SQLite wrote, and for the engine's
    /// only when `asked` (the caller wants the full checks after any copy).
    func needsFullChecks(asked: Bool) -> Bool { pagesProven == nil || asked }
}
