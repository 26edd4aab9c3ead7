import Glibc

/// Which file a descriptor or a path is (device and inode), whatever its name: a link to
/// /dev/stdin, /dev/fd/N or a second open of the same file are the same file.
struct FileIdentity: Hashable {
    let device: UInt
    let inode: UInt

    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        (device, inode) = (UInt(status.st_dev), UInt(status.st_ino))
    }

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        (device, inode) = (UInt(status.st_dev), UInt(status.st_ino))
    }
}
