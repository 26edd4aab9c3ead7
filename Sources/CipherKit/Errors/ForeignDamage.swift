/// Damage to a file of a scheme that only a conversion reads (`ForeignScheme`): SQLite3
/// Multiple Ciphers' families, or SQLCipher 1 to 3 under another `PRAGMA cipher`. As
/// `CipherKitError.damagedPages`, with the scheme named: the page checks and the salvage that
/// follow such damage read SQLCipher's own formats only.
public struct ForeignDamage: CipherKitFailure, Equatable {
    public let file: String
    public let pages: [DamagedPage]
    /// The scheme's one-line summary (`ForeignScheme.summary`).
    public let scheme: String

    public init(path: String, pages: [DamagedPage], scheme: String) {
        file = path
        self.pages = pages
        self.scheme = scheme
    }

    public var path: String? { file }
    public var reason: FailureReason { .damaged }

    /// No `pages`: SQLite met a malformed page in the decrypted file, which page unknown.
    public var message: String {
        guard !pages.isEmpty else { return "'\(file)' (\(scheme)) is damaged: a page is malformed or missing; nothing was changed" }
        let first = pages.first.map(\.summary) ?? "unknown"
        let count = pages.count == 1 ? "" : "\(pages.count) damaged pages, the first: "
        return "'\(file)' (\(scheme)) is damaged: " + count + first + "; nothing was changed"
    }
}
