/// How a copy of a database was written.
public enum CopyMethod: String, Equatable, Sendable {
    /// Page by page by cipherctl's own page engine, on every core: a change of key, salt or
    /// KDF that keeps the page size and reserved bytes, from a file whose WAL is empty. Each
    /// page written is proven to decrypt back to its source page (`PageEngine`).
    case pageEngine = "page-engine"
    /// Page by page with the backup API: a change of key, salt or KDF that keeps the page
    /// size and reserved bytes. Free pages come along; the header fields are copied as they are.
    case pageCopy = "page-copy"
    /// Row by row with `sqlcipher_export()`: any change of settings, and encrypting or
    /// decrypting. The copy is compacted; the header fields it drops are carried over.
    case sqlcipherExport = "sqlcipher-export"
}
