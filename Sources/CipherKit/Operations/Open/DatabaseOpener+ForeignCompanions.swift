import FoundationEssentials

extension DatabaseOpener {
    /// Refuses an encrypted file beside a -wal or a hot journal that is another database's:
    /// its copy of page 1 (the -wal's last committed one, from `walked`; the journal's from
    /// before its transaction) begins with another salt than the file's, which no write of
    /// this database makes. A connection would otherwise read that database through the
    /// -wal, or roll its journal back, and write it over this one's pages: a rekey then
    /// reported the other database's rows as rotated. A rekey's marks expect its own
    /// leftovers. A check names it so, as every open does: a connection
    /// would read the other database's page 1 and call the key wrong; `recover` proves its
    /// key on the file's own pages and sets such a -wal aside.
    ///
    /// - Throws: `CipherKitError.damagedPages`, naming page 1.
    static func refuseForeignCompanions(_ request: OpenRequest, file: DatabaseFile, walked: PageSource?) throws {
        let path = request.path
        guard file.kind == .opaque, file.firstBytes.count == 16,
              InterruptedRekey.marks(beside: path).isEmpty else { return }
        if let walked, walked.isInWAL(1), let page = walked.page(1), !page.starts(with: file.firstBytes) {
            let reason = "carries another salt than the file's: the -wal is another database's (or the file's salt is damaged)"
            throw CipherKitError.damagedPages(path: path, pages: [DamagedPage(page: 1, inWAL: true, reason: reason)])
        }
        if FileOperations.journalHoldsTransaction(beside: path), let page = FileOperations.journalPageOne(beside: path), !page.starts(with: file.firstBytes) {
            let reason = "its copy in the hot journal carries another salt than the file's: the -journal is another database's (or the file's salt is damaged)"
            throw CipherKitError.damagedPages(path: path, pages: [DamagedPage(page: 1, reason: reason)])
        }
    }
}
