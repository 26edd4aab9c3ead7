/// A shell prepared by `ShellKeyer`: its start-up script, and how the database was opened,
/// for the notes `open` prints too.
public struct ShellSession {
    /// The script that keys the shell; it holds the key.
    public let script: ShellInitScript
    /// The raw key the script gives the shell; nil for a plaintext database.
    public let key: KeyMaterial?
    /// The settings the script applies; nil for a plaintext database.
    public let settings: CipherSettings?
    /// The format the search found; nil when settings were given, or for a plaintext file.
    public let format: CipherFormat?
    /// How many formats were tried.
    public let attempts: Int
    /// Seconds the settings search took, when it found the settings.
    public let searchSeconds: Double?
}
