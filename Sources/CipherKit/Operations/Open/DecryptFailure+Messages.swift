/// The longer messages of `DecryptFailure.message(for:)`.
extension DecryptFailure {
    /// A key or settings that open none of another family's scheme `scheme`.
    static func wrongKeyMessage(for path: String, scheme: String) -> String {
        // The unauthenticated schemes have no tag: page 1 does not decrypt to a header.
        let check = scheme.hasPrefix("ChaCha20") ? "its first page fails its tag"
            : scheme.hasPrefix("SQLCipher") ? "its first page fails its HMAC" : "its first page does not decrypt to a database header"
        // SQLCipher 1 to 3 wrote the other ciphers' files; SQLite3 Multiple Ciphers the rest.
        let owner = scheme.hasPrefix("SQLCipher 1 to 3") ? "" : "SQLite3 Multiple Ciphers' "
        return "cannot decrypt '\(path)': wrong key or settings for \(owner)\(scheme) (\(check))"
    }

    /// `notTheRotationsKey`: which side of an interrupted rotation the key does not open.
    static func rotationMessage(for path: String, newSide: Bool, otherSide: Bool) -> String {
        let swapped = otherSide ? " (it opens the \(newSide ? "old" : "new") side: the keys are the other way round)" : ""
        return newSide ? "cannot decrypt '\(path)': the new key or settings are not those the interrupted rotation in place was given\(swapped)"
            : "cannot decrypt '\(path)': the current key does not open the old side of the interrupted rotation in place\(swapped)"
    }
}
