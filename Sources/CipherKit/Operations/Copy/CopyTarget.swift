import FoundationEssentials

/// Where and how `DatabaseCopier` writes a copy: a new file, its key and settings, and what
/// to carry over beside the pages.
struct CopyTarget {
    /// The new file; it must not exist. The caller removes it when the copy throws.
    var path: String
    /// The copy's key; nil for a plaintext copy.
    var key: KeyMaterial?
    /// The copy's full settings; nil for a plaintext copy.
    var settings: CipherSettings?
    /// The copy's journal mode: WAL when true, DELETE when false, the source's when nil (a
    /// source switched out of WAL for the operation still gets a WAL copy).
    var wal: Bool? = nil
    /// Whether the snapshot taken with the copy counts every table's rows (for verification).
    var countRows = true
    /// Whether the caller runs the full checks after a page-engine copy too (then its snapshot
    /// counts rows as well); the other paths' copies always get them.
    var fullVerification = false
    /// Threads for the page engine.
    var threads = ProcessInfo.processInfo.activeProcessorCount
    /// The path errors about the copy name: the file the copy becomes, not its temporary name.
    var reportedPath: String
}
