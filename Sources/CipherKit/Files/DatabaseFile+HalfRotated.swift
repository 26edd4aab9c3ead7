/// A file an interrupted rotation in constant extra space left between two keys.
extension DatabaseFile {
    /// Whether the progress record of a rotation in constant extra space (`LowSpaceRotator`)
    /// lies beside the file at `path`: every open refuses it (`CipherKitError.halfRotated`),
    /// with a key or without one.
    public static func isHalfRotated(_ path: String) -> Bool {
        RotationRecord.exists(beside: path)
    }
}
