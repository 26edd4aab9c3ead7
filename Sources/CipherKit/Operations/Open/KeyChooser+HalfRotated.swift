import FoundationEssentials

/// The old key of a rotation in constant extra space that was interrupted.
extension KeyChooser {
    /// For a file a rotation left half-rotated (its progress record beside it, which every
    /// open refuses), the first key of `candidates` that opens the old side's page 1 the
    /// record keeps, under the record's settings: the key the same command, or its undo,
    /// goes on with. Nil when no record is there.
    ///
    /// - Throws: `CipherKitError.cannotDecrypt` (`noKeyOfTheRing`) when none opens it,
    ///   `halfRotated` when the record cannot be read.
    static func chooseForHalfRotated(_ path: String, from candidates: [LabeledKey]) throws -> LabeledKey? {
        guard RotationRecord.exists(beside: path) else { return nil }
        guard let bytes = FileManager.default.contents(atPath: RotationRecord.path(beside: path)).map({ [UInt8]($0) }),
              let record = RotationRecord.decode(bytes) else {
            throw CipherKitError.halfRotated(path: path, problem: "its progress record cannot be read")
        }
        let salt = Array(record.oldPage1.prefix(16))
        for candidate in candidates {
            guard let codec = try? PageCodec(key: candidate.key, salt: salt, settings: record.settings) else { continue }
            let fails = try record.oldPage1.withUnsafeBytes { try codec.damagedPages(in: $0, first: 1, count: 1) }
            if fails.isEmpty { return candidate }
        }
        throw CipherKitError.cannotDecrypt(path: path, failure: .noKeyOfTheRing(keys: candidates.count))
    }
}
