import CipherKit

extension Console {
    /// Which key of a key ring opened `path`: its label and encoding, never the key.
    func keyChosen(_ key: LabeledKey, path: String) {
        guard !quiet, !json else { return }
        errorLine("cipherctl: '\(path)': key ring entry '\(key.label)' (\(key.encoding)) opens it")
    }
}
