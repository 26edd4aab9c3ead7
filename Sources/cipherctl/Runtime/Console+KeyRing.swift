import CipherKit

extension Console {
    /// Which key of a key ring is `path`'s (it opens the file, or shows it another family's,
    /// damaged, or written with other settings): its label and encoding, never the key.
    func keyChosen(_ key: LabeledKey, path: String) {
        ChosenKeyLabels.shared.record(key.label, for: path)
        guard !quiet, !json else { return }
        errorLine("cipherctl: '\(path)': key ring entry '\(key.label)' (\(key.encoding)) is its key")
    }
}
