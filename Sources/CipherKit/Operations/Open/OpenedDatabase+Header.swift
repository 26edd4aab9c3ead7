/// What page 1's header records, read from the page itself.
extension OpenedDatabase {
    /// Whether the header records WAL mode (its format bytes 18 and 19 both 2), from page 1
    /// decrypted by the page codec (its latest version, in the WAL when it is there) or read
    /// as it is from a plaintext file; nil when the page cannot be read. A connection that
    /// reads the file alone (`immutable=1`) answers `PRAGMA journal_mode` with "delete"
    /// whatever the header says. See https://www.sqlite.org/fileformat2.html#file_format_version_numbers
    var headerRecordsWAL: Bool? {
        let access = DatabaseFileAccess(connection)
        let header: [UInt8]
        if let codec = try? PageCodec(for: self) {
            guard let source = try? PageSource(path: file.path, pageSize: codec.pageSize, access: access),
                  let page = source.page(1), let plain = codec.decrypt(page, pgno: 1) else { return nil }
            header = plain
        } else {
            var bytes = [UInt8](repeating: 0, count: 100)
            guard let access, bytes.withUnsafeMutableBytes({ access.read(into: $0.baseAddress!, count: 100, at: 0) }) else { return nil }
            header = bytes
        }
        guard header.count > 19 else { return nil }
        return header[18] == 2 && header[19] == 2
    }
}
