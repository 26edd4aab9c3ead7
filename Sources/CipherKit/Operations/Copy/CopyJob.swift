/// One copy under way, as `DatabaseCopier`'s steps pass it along: the source as opened, its
/// request and settings, where the copy goes, and the token that can cancel it.
struct CopyJob {
    let opened: OpenedDatabase
    let source: OpenRequest
    /// Nil for a plaintext source.
    let sourceSettings: CipherSettings?
    let target: CopyTarget
    let token: CancellationToken
}
