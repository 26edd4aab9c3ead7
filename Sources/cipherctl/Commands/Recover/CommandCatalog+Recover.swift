import CipherKit

extension CommandCatalog {
    static let recover = CommandSpec(
        name: "recover",
        summary: "Salvage every readable row of a damaged database into a new one.",
        arguments: [("<source>", "The damaged database."), ("<destination>", "The new encrypted database; must not exist.")],
        discussion: """
        Decrypts the source page by page into a file that lives in memory only (never on a \
        disk), each page from the last committed frame of its WAL that holds it (read without \
        creating or changing any file beside the source); a page that fails its HMAC, or that \
        a truncated file lacks, is lost and written as zeros. SQLite's own recovery (.recover \
        of the distribution's sqlcipher shell, else the sqlite3 shell, given that memory file \
        and no environment) reads every row it can, including rows whose table it cannot tell \
        (into lost_and_found; entries of an index page below a lost page whose rows their \
        table kept are left out, as every index is made again: index_entries_left_out), and \
        its SQL runs straight into the new database, encrypted with \
        the destination key and settings (SQLCipher 4 by default), written beside the \
        destination under a temporary name, and renamed into place. Virtual tables come back \
        with their rows; an FTS5 index whose tables lost pages is rebuilt from the rows kept. \
        Reports the pages lost, the rows each table kept, and what each lost: its pages, the \
        rowids on them, and the rows kept with a value cut short (an overflow page lost). A \
        completed recovery is exit 0 whatever it lost. The new database keeps the source's \
        text encoding and journal mode (WAL or not). The source is only read. A WAL frame \
        that fails its salts or checksum with a commit after it ends the commits recovered, \
        as SQLite drops them too (JSON's dropped_wal_frame); a -wal none of whose frames the \
        key reads (another database's) is set aside and the file read without it \
        (wal_set_aside). An existing destination is exit 5 and \
        nothing changes. A page 1 of zeros takes the salt with it: with a passphrase that is \
        exit 3, with a hint to give the salt (--salt, from a backup or copy). Without a \
        sqlcipher or sqlite3 shell on PATH recover is exit 2; a failing shell, or one whose \
        SQL ends before its COMMIT, is exit 1, and nothing is written.
        """,
        groups: [
            keyOptions(prefix: RecoverOptions.destinationPrefix, title: "DESTINATION KEY OPTIONS", purpose: "destination key"),
            destinationCipherOptions(prefix: RecoverOptions.destinationPrefix, title: "DESTINATION CIPHER OPTIONS", of: "the destination", byDefault: "by default SQLCipher 4"),
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl recover broken.db saved.db --key-env K --to-key-env K", "Salvage broken.db into saved.db under the same key."),
        ]
    )
}
