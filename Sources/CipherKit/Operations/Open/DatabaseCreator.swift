import FoundationEssentials
import Glibc

/// Creates a new encrypted database, never overwriting a file.
public enum DatabaseCreator {
    /// Creates `request.path` (mode 0600, without following a symlink) and writes its first
    /// page with the request's key and settings.
    ///
    /// On any failure the new file is removed again.
    /// - Throws: `CipherKitError.fileExists` when the path exists, `fileAccess` when it cannot
    ///   be created, `CipherSettingsError` for settings out of range.
    public static func create(_ request: OpenRequest) throws {
        let path = request.path
        guard request.key != nil else { throw CipherKitError.cannotDecrypt(path: path, failure: .keyRequired) }
        try request.settings.validate()
        try request.settings.validateSalt(against: request.key)
        try request.settings.effective.validateUsablePageSize()
        try request.settings.requireKeptSalt(key: request.key, path: path)
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if errno == EEXIST || errno == ELOOP { throw CipherKitError.fileExists(path: path) }
            throw CipherKitError.fileAccess(path: path, reason: String(cString: strerror(errno)))
        }
        close(descriptor)
        do {
            try CipherKitError.translating(path: path) {
                let connection = try Connection(
                    path: path, mode: .readWrite, busyTimeoutMilliseconds: request.busyTimeoutMilliseconds, logLevel: request.logLevel)
                if let key = request.key { try connection.key(key) }
                try connection.apply(request.settings)
                // Setting a header field writes page 1, so the file holds the salt and settings.
                try connection.execute("PRAGMA user_version = 0")
                try connection.close()
            }
        } catch {
            unlink(path)
            unlink(path + "-journal")
            throw error
        }
    }
}
