import Glibc

extension FileOperations {
    /// Throws unless a transaction can write the database at `path` and, if it fails, be
    /// rolled back where it stands (`Connection.rollBackFailedWrite`): its folder (where the
    /// journal goes) and the file writable, and the file within the file-size limit, since a
    /// rollback writes each page back where it was and no write past the limit succeeds.
    ///
    /// - Throws: `CipherKitError.fileAccess`, or `outOfSpace` for a file past the limit.
    static func requireWritableInPlace(_ path: String) throws {
        try requireWritableDirectory(for: path, purpose: "the journal goes there")
        try requireWritableFiles(of: path)
        var status = stat()
        if let limit = fileSizeLimit(), stat(path, &status) == 0, Int(status.st_size) > limit {
            throw CipherKitError.outOfSpace(path: path)
        }
    }
}
