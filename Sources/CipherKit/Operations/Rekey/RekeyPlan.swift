/// What a rekey settled before it changes anything: the database opened with its current
/// key, the path it takes, both sets of settings, the keys it will use, and what earlier
/// runs left beside the file.
struct RekeyPlan {
    /// The request with the keys the work uses: raw keys where a passphrase was derived once.
    var request: RekeyRequest
    let opened: OpenedDatabase
    let action: RekeyAction
    /// Only the key changes: the settings and salt stay (in place, or by a page-engine copy).
    let keyOnly: Bool
    let oldSettings: CipherSettings
    let newSettings: CipherSettings
    let leftovers: RekeyLeftovers

    var path: String { request.database.path }
    var file: DatabaseFile { opened.file }

    /// How the file opens once the change is committed, for `failedAfterCommit`.
    var opensWith: String { RekeyReport.opensWith(newSettings) }

    /// The bytes the change writes beside the file: the WAL of an in-place rekey holds every
    /// page with a 24-byte frame header; a copy is about the database's size.
    var bytesWritten: Int {
        guard action == .inPlace else { return file.size }
        let pageSize = oldSettings.pageSize ?? 4096
        return 32 + (file.size / max(1, pageSize) + 1) * (24 + pageSize)
    }

    /// The free space the change needs: what it writes, the -shm that indexes an in-place
    /// rekey's WAL (32 KB for each 4,062 frames or fewer), and a margin for the file system's
    /// own blocks (64 KB and a thousandth of the bytes).
    /// See https://www.sqlite.org/walformat.html#the_wal_index_file_format
    var roomNeeded: Int {
        let written = bytesWritten
        let frames = action == .inPlace ? file.size / max(1, oldSettings.pageSize ?? 4096) + 1 : 0
        let index = frames == 0 ? 0 : 32768 * ((frames + 4061) / 4062)
        return written + index + 65536 + written / 1000
    }
}
