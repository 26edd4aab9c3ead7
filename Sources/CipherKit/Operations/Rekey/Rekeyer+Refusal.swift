/// A refusal after the current key opened the file.
extension Rekeyer {
    /// `body`'s result; a refusal it throws first removes what the open made beside the file
    /// (a -shm beside a killed writer's -wal), as the connection's close checkpoints nothing.
    static func refusing<T>(_ opened: OpenedDatabase, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            opened.closeRemovingWALFilesItMade(droppingCommits: true)
            throw error
        }
    }
}
