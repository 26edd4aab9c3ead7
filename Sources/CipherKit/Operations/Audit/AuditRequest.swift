/// How `FileAuditor` looks at each file: with which key and settings, and how far.
public struct AuditRequest {
    /// The key to try on encrypted files; nil looks at the bytes only.
    public var key: KeyMaterial?
    /// Cipher settings to use instead of searching for them.
    public var settings: CipherSettings
    /// Whether to check every page against its HMAC and run SQLite's integrity_check.
    public var checksIntegrity = false
    /// How long to wait for a writer to finish before the file is reported busy.
    public var busyTimeoutMilliseconds = 5000
    public var logLevel: CipherLogLevel = .none

    public init(key: KeyMaterial?, settings: CipherSettings = CipherSettings()) {
        self.key = key
        self.settings = settings
    }
}
