import CCoalescingVFS
import CSQLCipher

/// The SQLite VFS of `Sources/CCoalescingVFS`: the default VFS, with the page-sized reads
/// and writes of a database and its WAL gathered into 120 KiB ones while the connection holds
/// the database EXCLUSIVE (an in-place rekey, in exclusive locking mode, does throughout).
///
/// An in-place rekey of 1 GB otherwise makes about 1.25 million read and write calls (each
/// page is read, written to the WAL as a frame header and a page, read back and copied by the
/// checkpoint), and the kernel's share of them was as large as the crypto's. At any lower
/// lock every call goes straight through; the VFS needs synchronous NORMAL or FULL (see
/// `CoalescingVFS.c`), which CipherKit never changes.
/// See https://www.sqlite.org/vfs.html
enum CoalescingVFS {
    /// The registered VFS's name, or nil (then connections use the default VFS).
    static let name: String? = coalescingvfs_register().map { String(cString: $0) }

    /// The first failed write, sync or truncation of the connection's database or WAL, which
    /// poisons that file until it closes; nil when there was none, or the VFS is not in use.
    static func firstError(of connection: Connection) -> Int32? {
        var code = SQLITE_OK
        let asked = sqlite3_file_control(connection.handle, "main", COALESCINGVFS_FCNTL_FIRST_ERROR, &code)
        return asked == SQLITE_OK && code != SQLITE_OK ? code : nil
    }
}
