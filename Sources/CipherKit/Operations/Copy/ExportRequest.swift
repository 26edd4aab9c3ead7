import FoundationEssentials

/// What `Exporter.export` copies, where to, and how the copy is keyed.
public struct ExportRequest {
    /// The source database: path, key (nil for plaintext) and settings.
    public var source: OpenRequest
    public var destinationPath: String
    /// The destination's key; nil writes a plaintext database.
    public var destinationKey: KeyMaterial?
    /// Destination settings given by the user; the rest are SQLCipher `compatibility`'s
    /// defaults (4 when not given).
    public var destinationSettings: CipherSettings
    /// Replace an existing destination file (never a symlink).
    public var replaceExisting: Bool
    /// Verify the copy before it is moved into place.
    public var verify: Bool
    /// Write the destination with the source's settings (those it was opened with, found
    /// or given) instead of a version's defaults; `destinationSettings` override them. The
    /// salt is new, and a plaintext header is kept only when a salt is given for it.
    public var keepsSourceFormat = false
    /// The source's family when its bytes cannot tell it (a ChaCha20 file in legacy mode
    /// looks random); nil to go by what they show.
    public var sourceFamily: CipherFamily?
    /// The family the copy is written in: SQLCipher's, or SQLite3 Multiple Ciphers' ChaCha20.
    public var destinationFamily = CipherFamily.sqlcipher

    /// Run the full checks (SQLite's integrity checks and every table's row count) even after
    /// a page-engine copy, whose pages are already proven one by one.
    public var fullVerification = false
    /// Threads for the page engine; one per core by default.
    public var threads = ProcessInfo.processInfo.activeProcessorCount

    /// Told of each leftover of an interrupted run as the operation removes it.
    public var leftoverRemoved: LeftoverListener?

    public init(
        source: OpenRequest, destinationPath: String, destinationKey: KeyMaterial?,
        destinationSettings: CipherSettings = CipherSettings(), replaceExisting: Bool = false, verify: Bool = true
    ) {
        self.source = source
        self.destinationPath = destinationPath
        self.destinationKey = destinationKey
        self.destinationSettings = destinationSettings
        self.replaceExisting = replaceExisting
        self.verify = verify
    }
}
