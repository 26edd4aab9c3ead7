/// Page 1 as a rotation in place without a copy (`LowSpaceRotator`) leaves it while it
/// converts pages: under the old key with its HMAC inverted (`RotationRecord.poisonedPage1`),
/// so that no SQLCipher program opens the file between the keys. With the record beside it, every command names the file half-rotated;
/// this tells the mark from damage once the record is gone (deleted, or a backup that took
/// the database alone).
enum RotationMark {
    /// What the half-rotated file's report adds when its record is missing.
    static let recordMissing = "but that record is missing: put it back beside the file to finish or roll back the rotation"

    /// Whether page 1 passes its HMAC under `key` and `settings` once its last 16 bytes are
    /// inverted back.
    static func marksPageOne(file: DatabaseFile, key: KeyMaterial, settings: CipherSettings) -> Bool {
        let effective = settings.effective
        guard effective.useHMAC != false, (effective.plaintextHeaderSize ?? 0) == 0, file.kind == .opaque,
              file.firstBytes.count == 16, let codec = try? PageCodec(key: key, salt: file.firstBytes, settings: effective),
              var page1 = FileOperations.leadingBytes(of: file.path, count: codec.pageSize), page1.count == codec.pageSize else { return false }
        for index in (codec.pageSize - 16)..<codec.pageSize { page1[index] ^= 0xFF }
        guard let bad = try? page1.withUnsafeBytes({ try codec.damagedPages(in: $0, first: 1, count: 1) }) else { return false }
        return bad.isEmpty
    }
}
