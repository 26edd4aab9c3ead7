import FoundationEssentials

/// The old key of a rotation in constant extra space that was interrupted.
extension KeyChooser {
    /// For a file a rotation left half-rotated (its progress record beside it, which every
    /// open refuses), the first key of `candidates` that opens the old side's page 1 the
    /// record keeps, under the record's settings: the key the same command, or its undo,
    /// goes on with; else the first that opens the new side's page 1, with which every
    /// command names the file half-rotated. Nil when no record is there.
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` (`noKeyOfTheRing`) when none opens it,
    ///   `halfRotated` when the record cannot be read.
    static func chooseForHalfRotated(_ path: String, from candidates: [LabeledKey]) throws -> LabeledKey? {
        guard RotationRecord.exists(beside: path) else { return nil }
        guard let bytes = FileManager.default.contents(atPath: RotationRecord.path(beside: path)).map({ [UInt8]($0) }),
              let record = RotationRecord.decode(bytes) else {
            throw CipherKitError.halfRotated(path: path, problem: "its progress record cannot be read")
        }
        // The old side first; a key of the new side alone still shows the file half-rotated.
        for (page1, settings) in [(record.oldPage1, record.settings), (record.newPage1, record.newSettings)] {
            if let found = try candidates.first(where: { try opens(page1, with: $0.key, settings: settings) }) { return found }
        }
        throw CipherKitError.cannotDecrypt(path: path, failure: .noKeyOfTheRing(keys: candidates.count))
    }

    /// Whether `key` under `settings` passes the HMAC of `page1`, which begins with its salt.
    private static func opens(_ page1: [UInt8], with key: KeyMaterial, settings: CipherSettings) throws -> Bool {
        guard let codec = try? PageCodec(key: key, salt: Array(page1.prefix(16)), settings: settings) else { return false }
        return try page1.withUnsafeBytes { try codec.damagedPages(in: $0, first: 1, count: 1) }.isEmpty
    }
}
