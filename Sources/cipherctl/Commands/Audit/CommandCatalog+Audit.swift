import CipherKit

extension CommandCatalog {
    static let audit = CommandSpec(
        name: "audit",
        summary: "Report what files are and how they are protected, against a policy.",
        arguments: [("<path>...", "Files, or folders with --recursive.")],
        discussion: """
        Looks at each file and reports its kind (plaintext; encrypted: bytes that look \
        random, SQLCipher's or another family's, which only a key tells; sqlcipher, once a \
        key opened it; plaintext-header, sqlite3mc, not-a-database, empty, \
        not-a-regular-file, missing, unreadable) and the \
        family of encrypted file its bytes show without a key (sqlcipher-plaintext-header, \
        sqlite3mc: SQLite3 Multiple Ciphers, whose bytes 16 to 23 are plain; random: no \
        telling without a key; sqlcipher once a key opened it), its permissions and \
        owner, a -wal beside it, a hot journal, and the temporary files and marks of \
        interrupted cipherctl runs, and the record of an interrupted rekey --low-space (finding \
        half-rotated, with or without a key). With a key, each encrypted file is opened: the format and \
        cipher settings found (searched for as open does, unless cipher options are given), \
        the kind of key, and the journal mode; a key that does not open it, or a damaged \
        page, is a finding. A SQLite3 Multiple Ciphers file (a sqleet file, which looks \
        random, once the key opens it) is kind sqlite3mc and names the scheme the key opens \
        it in, which is no finding; a key that opens it in none of the schemes its reserved \
        bytes name and cipherctl can try is. Policy options add findings. audit never writes: each file is \
        opened without blocking (a FIFO or device is never opened), held with a reader's \
        lock so writers wait, and its last committed state is read without creating or \
        changing any file: a -wal with or without its -shm, a hot journal rolled back in \
        memory only. A database's -wal, -shm and -journal, and cipherctl's temporary files \
        beside it, are reported with it, not on their own. \
        A file it cannot read is a finding, not an error. Output is a table and each finding \
        on a line, or with --json one JSON object a file and a summary object, in the order \
        the paths were given (a folder's files in name order); a progress count shows on a \
        terminal. A folder given without --recursive is exit 2. Exit 0 when nothing was \
        found, 8 when any file has a finding; every file is looked at either way.
        """,
        groups: [
            AuditOptions.group,
            AuditOptions.policyGroup,
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl audit -r /srv/data --forbid-plaintext --max-mode 600", "Find plaintext databases and files others can read, without a key."),
            ("cipherctl audit -r /srv/data --key-env K --min-kdf-iter 256000 --require-hmac --json", "Open every encrypted file with the key and flag weak settings, as JSON lines."),
        ]
    )
}
