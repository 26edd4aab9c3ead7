import CipherKit

/// The `open` command's spec.
extension CommandCatalog {
    static let open = CommandSpec(
        name: "open",
        summary: "Verify a key and describe a database, or create a new one.",
        arguments: [("<database>", "The database file.")],
        discussion: """
        Opens the database read-only, proves the key by reading the schema, and prints its \
        profile: file size, cipher settings in effect, salt, page counts, journal mode, \
        encoding, user_version, application_id and the numbers of tables, indexes, views and \
        triggers. A plaintext SQLite file needs no key and is reported as not encrypted. \
        Without cipher options, the known SQLCipher formats are tried, then the settings are \
        searched for (page size, HMAC, KDF algorithm and count); --verbose prints the options \
        that pin what was found. Nothing is ever written unless --create is given, not even a WAL \
        database's -wal or -shm: the last committed state is read whatever lies beside the \
        file (a -wal without its -shm, a hot journal, rolled back in memory only). For a \
        database in a SQLCipher 1, 2 or 3 format a hint on standard error suggests \
        'cipherctl rekey DB --new-compat 4'. A wrong key or wrong settings are exit 3 and leave \
        the file untouched; a plaintext file given a key, and a file that is not a database at \
        all (text, a file under 1024 bytes that is not a whole number of pages, a damaged header), are named as \
        such, also exit 3. A missing file is exit 5 and is never created. --check lists each \
        damaged page, one a line, with the table or index it belongs to, and then skips \
        SQLite's check, since a SQLCipher connection is unusable after its first HMAC failure; \
        a file shorter than its header says is named as truncated, and one that ends in a \
        partial page (cut mid-page, or with bytes added) names that page as cut short. A right key on a file whose \
        page 1 is damaged past its first block, or that is truncated, is named as damage (exit \
        4), not as a wrong key. A page 1 whose first 16 bytes, the salt, are zeros (wiped) is \
        named as a lost salt (exit 3) without a search of settings, by every command that takes \
        a passphrase; the salt from a backup or copy (--salt) reads the rest. \
        --create makes the file with mode 0600, never through a \
        symbolic link; a new database with a plaintext header needs its salt (--salt, \
        --salt-file, or a 96-digit raw key), else exit 2.
        """,
        groups: [
            OpenOptions.group,
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl open app.db --key-env APP_DB_KEY", "Verify the key in $APP_DB_KEY and describe app.db."),
            ("cipherctl open new.db --create --key-file key.txt", "Create an encrypted database with SQLCipher 4 defaults."),
            ("cipherctl open legacy.db --key-stdin --check --json < key.txt", "Check a database in any SQLCipher format (found automatically) and report as JSON."),
            ("cipherctl open ios.db --key-env K --salt-file ios.salt", "Open a database with a 32-byte plaintext header and its salt."),
        ]
    )
}
