/// A salt kept in a file of its own: its 32 hex digits and a newline.
public enum SaltFile {
    /// Writes `salt` to a new file at `path`, never over anything there, fsynced. What a run
    /// killed while it wrote the file left beside it is removed first; `told` hears of each.
    ///
    /// - Throws: `CipherKitError.fileExists` when anything is at `path`, `fileAccess` or
    ///   `outOfSpace` when it cannot be written.
    public static func write(_ salt: [UInt8], to path: String, told: LeftoverListener? = nil) throws {
        _ = TemporaryDatabase.removeLeftovers(beside: path, told: told)
        try FileOperations.writeNew(path, contents: contents(of: salt))
    }

    static func contents(of salt: [UInt8]) -> [UInt8] {
        Array((Hex.encode(salt) + "\n").utf8)
    }
}
