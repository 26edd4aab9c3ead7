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

    /// The database's pages and page size as its connection reads them: those only in its
    /// -wal count too.
    func databasePages() throws -> (pages: Int, pageSize: Int) {
        let pageSize = try opened.connection.pragmaInteger("page_size") ?? oldSettings.pageSize ?? 4096
        let pages = try opened.connection.pragmaInteger("page_count") ?? file.size / max(1, pageSize)
        return (pages, pageSize)
    }

    /// The bytes the change writes beside the file: the WAL of an in-place rekey holds every
    /// page with a 24-byte frame header; a copy holds every page.
    func bytesWritten(pages: Int, pageSize: Int) -> Int {
        action == .inPlace ? 32 + (pages + 1) * (24 + pageSize) : pages * pageSize
    }

    /// The free space the change needs: what it writes; beside a WAL database, the pages a
    /// checkpoint adds to the file and the -shm indexing the WAL (32 KB for each 4,062 frames)
    /// beyond the one there now (an in-place rekey writes through a WAL whatever the mode);
    /// and a margin for the file system's own blocks, 64 KB and a thousandth.
    /// See https://www.sqlite.org/walformat.html#the_wal_index_file_format
    func roomNeeded(pages: Int, pageSize: Int) -> Int {
        let written = bytesWritten(pages: pages, pageSize: pageSize)
        let wal = FileOperations.size(of: path + "-wal") ?? 0
        let framesNow = wal > 32 ? (wal - 32) / (24 + pageSize) : 0
        let frames = framesNow + (action == .inPlace ? pages + 1 : 0)
        let indexed = opened.headerRecordsWAL == true || wal > 0 || action == .inPlace
        let index = indexed ? 32768 * max(1, (frames + 4061) / 4062) : 0
        let growth = max(0, pages * pageSize - (FileOperations.size(of: path) ?? file.size))
        return written + growth + max(0, index - (FileOperations.size(of: path + "-shm") ?? 0)) + 65536 + written / 1000
    }
}
