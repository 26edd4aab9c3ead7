import CCipherProvider
import FoundationEssentials
import Glibc

extension FileOperations {
    /// Whether a copy renamed over `path` would be the same file to everyone who names it:
    /// a regular file (not a symbolic link) with no other hard link, no extended attributes
    /// (ACLs, security labels, which a copy would not carry), and an owner and group that
    /// this process can give the copy. When false, a rewrite must keep the file itself.
    static func isReplaceableByCopy(_ path: String) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_nlink == 1 else { return false }
        guard canGiveCopy(owner: status.st_uid, group: status.st_gid) else { return false }
        return cipherfile_has_extended_attributes(path) == 0
    }

    /// Root may give a file to anyone; anyone else only keeps their own, in a group they are in.
    private static func canGiveCopy(owner: uid_t, group: gid_t) -> Bool {
        let user = geteuid()
        if user == 0 { return true }
        guard owner == user else { return false }
        if group == getegid() { return true }
        var groups = [gid_t](repeating: 0, count: Int(getgroups(0, nil)))
        let count = getgroups(Int32(groups.count), &groups)
        return count > 0 && groups.prefix(Int(count)).contains(group)
    }

    /// The number of names the file at `path` has (its hard links); 0 when it cannot be read.
    static func linkCount(of path: String) -> Int {
        var status = stat()
        return lstat(path, &status) == 0 ? Int(status.st_nlink) : 0
    }
}
