/// One key of a key ring: the key, and the label and encoding that name it in reports
/// (never the key itself).
public struct LabeledKey {
    /// The ring's name for the key (`old-2024`).
    public let label: String
    /// How the ring's bytes were read: `passphrase`, `hex` (a hex-encoded passphrase) or `raw`.
    public let encoding: String
    public let key: KeyMaterial

    public init(label: String, encoding: String, key: KeyMaterial) {
        self.label = label
        self.encoding = encoding
        self.key = key
    }
}
