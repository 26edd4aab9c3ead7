/// The start-up script that keys the `sqlcipher` shell's connection: the raw key and the
/// settings CipherKit opened the database with, then the shell's own settings.
///
/// Its bytes hold the key, so they live in `SecureBytes` and reach the shell through an
/// anonymous pipe (`-init /dev/fd/N`), never a file or an argument. The key is the raw key
/// with its salt (`x'…'`, hex digits only), so any passphrase (a quote, a NUL, a line break)
/// keys the shell exactly as it keyed CipherKit, and the shell derives nothing.
/// See https://www.zetetic.net/sqlcipher/sqlcipher-api/#key and
/// https://sqlite.org/cli.html (-init, .output, .timeout, .read)
public struct ShellInitScript {
    /// The script, one statement or dot-command a line.
    public let bytes: SecureBytes

    /// The script for `key` (a raw key, or nil for a plaintext database) and `settings`;
    /// then the busy timeout, and `startupFile` read (the user's `~/.sqliterc`, which
    /// `-init` replaces), when its path can be quoted for the shell.
    init(key: KeyMaterial?, settings: CipherSettings, busyTimeoutMilliseconds: Int, startupFile: String?) {
        var text: [UInt8] = []
        defer { SecureBytes.wipe(&text) }
        if let key {
            // PRAGMA key answers "ok", which belongs to no one's output.
            text += Array(".output /dev/null\nPRAGMA key = \"".utf8)
            key.codecBytes.withUnsafeBytes { text += $0 }
            text += Array("\";\n".utf8)
            for pragma in settings.pragmas + [settings.hmacSaltMaskPragma].compactMap({ $0 }) { text += Array((pragma + ";\n").utf8) }
            text += Array(".output\n".utf8)
        }
        text += Array(".timeout \(min(max(0, busyTimeoutMilliseconds), Int(Int32.max)))\n".utf8)
        if let startupFile, let line = Self.readCommand(startupFile) { text += Array(line.utf8) }
        bytes = SecureBytes(text)
    }

    /// `.read 'PATH'`, or nil for a path the shell's single quotes cannot carry (they have
    /// no escape) or that would end the line.
    public static func readCommand(_ path: String) -> String? {
        guard !path.isEmpty, !path.unicodeScalars.contains(where: { $0 == "'" || $0 == "\n" || $0 == "\r" || $0 == "\0" }) else { return nil }
        return ".read '\(path)'\n"
    }
}
