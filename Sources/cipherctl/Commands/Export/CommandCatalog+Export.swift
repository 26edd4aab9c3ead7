import CipherKit

/// The `export` command's spec.
extension CommandCatalog {
    static let export = CommandSpec(
        name: "export",
        summary: "Copy a database: encrypt, decrypt, or change its key and settings.",
        arguments: [("<source>", "The database to copy."), ("<destination>", "The new file.")],
        discussion: """
        Writes the copy into a temporary file beside the destination (mode 0600). A change of \
        key, salt or KDF that keeps the page size and HMAC is copied page by page by the page \
        engine, on every core: each page's HMAC is checked, and each page written is decrypted \
        back with the new key and must equal its source page byte for byte; SQLCipher then \
        opens the copy and its schema and header fields must match (--verify full adds \
        SQLite's integrity checks and every table's row count). A decrypting export goes the \
        same way, each page's HMAC checked and the page written decrypted; so does encrypting a \
        plaintext database whose pages already reserve the bytes the IV and HMAC take (80 for \
        SQLCipher 4), each page decrypted back to prove it. A source whose WAL holds frames \
        is copied page by page with the SQLite backup API instead; any other change goes through \
        sqlcipher_export() in one transaction, carrying over what it drops: user_version, \
        application_id, auto_vacuum and WAL mode, and is verified in full (integrity, schema, \
        header fields, row counts). JSON's method says which ran. The copy is fsynced, then \
        renamed into place. The destination \
        gets SQLCipher 4 defaults unless --to-compat or other --to- options say otherwise. A \
        damaged source page is exit 4. On any failure no destination and no temporary file are \
        left, and the source is never written (a source with a hot journal is refused). A \
        destination that already holds a verified copy with the destination key is already-done; \
        any other existing destination is exit 5 unless --force. A destination that is the \
        source (also through a link), or a symbolic link, is exit 2; a wrong source key is exit \
        3 and creates nothing. --to-compat same keeps the settings the source opened with, \
        with a new salt. A destination with a plaintext header needs its salt given \
        (--to-salt=HEX, --to-salt-file or a 96-digit raw key), since the file will not hold \
        it; else exit 2. SQLite3 Multiple Ciphers' ChaCha20 files (sqleet's format) are read \
        with their key: one whose header shows 32 reserved bytes is found without more \
        (kdf_iter 64007 unless --kdf-iter); one in legacy mode (sqleet's own, which looks random) \
        is tried with sqleet's settings (kdf_iter 12345, page size 4096) before SQLCipher's, and \
        with another page size needs --from-family chacha20 and --page-size. Every \
        page's Poly1305 tag is checked as it is decrypted, in memory only; the rows are written \
        by sqlcipher_export() and verified in full. --to-family chacha20 writes SQLite3 \
        Multiple Ciphers' default ChaCha20 scheme (kdf_iter 64007 unless --to-kdf-iter, the \
        source's page size unless --to-page-size): the rows go by sqlcipher_export() into a \
        plaintext database in memory that must hold what the source holds, its pages are \
        encrypted, and the written file is read back, every tag checked and every page \
        compared. A wrong key for a ChaCha20 file is exit 3; a page whose tag fails is exit 4. \
        Files of wxSQLite3's AES-128-CBC and AES-256-CBC and System.Data.SQLite's RC4 convert \
        into SQLCipher the same way, with their passphrase: the scheme is found from the file \
        and the key (tried on page 1 after sqleet's settings and before SQLCipher's search, or \
        at once where the header shows it), or named with --from-family. They have no tags: a \
        wrong key shows in page 1 alone (exit 3), and SQLite's quick_check of the plaintext \
        must pass before anything is written (exit 4). So do files of SQLite3 Multiple \
        Ciphers' own SQLCipher scheme outside legacy mode (bytes 16 to 23 plain, 48 to 80 \
        reserved bytes), which SQLCipher cannot open: found from the header with SQLCipher 4's \
        or 3's defaults, or the cipher options given; every page's HMAC is checked. So do \
        SQLCipher 1 to 3 files written under PRAGMA cipher aes-128-cbc, aes-192-cbc, \
        aes-128-cfb or aes-256-cfb, which SQLCipher 4 cannot open: with a passphrase (no raw \
        key), each cipher is tried on page 1 with SQLCipher 3's, 2's and 1's defaults once no \
        SQLCipher format opens the file (--from-family sqlcipher-other-cipher \
        names the family; FIPS mode tries none); every page's HMAC is checked (SQLCipher 1 \
        has none: SQLite's quick_check of the plaintext stands in).
        """,
        groups: [
            keyOptions(prefix: ExportOptions.destinationPrefix, title: "DESTINATION KEY OPTIONS", purpose: "destination key"),
            destinationCipherOptions(prefix: ExportOptions.destinationPrefix, title: "DESTINATION CIPHER OPTIONS", of: "the destination", byDefault: "by default SQLCipher 4"),
            ExportOptions.group,
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl export app.db copy.db --key-env K --to-key-env K2", "Copy app.db with a new key and SQLCipher 4 defaults."),
            ("cipherctl export app.db plain.db --key-env K --plaintext", "Decrypt app.db for analysis (the copy is not encrypted)."),
            ("cipherctl export plain.db app.db --to-key-env K", "Encrypt a plaintext database."),
            ("cipherctl export v3.db v4.db --key-env K --to-key-env K", "Migrate a SQLCipher 1, 2 or 3 database to a SQLCipher 4 copy."),
            ("cipherctl export mc.db app.db --key-env K --to-key-env K", "Convert a SQLite3 Multiple Ciphers ChaCha20 file to SQLCipher 4."),
            ("cipherctl export app.db mc.db --key-env K --to-key-env K --to-family chacha20", "Convert to SQLite3 Multiple Ciphers' default ChaCha20."),
            ("cipherctl export legacy.db app.db --key-env K --to-key-env K", "Convert a wxSQLite3 AES or System.Data.SQLite RC4 file to SQLCipher 4."),
        ]
    )
}
