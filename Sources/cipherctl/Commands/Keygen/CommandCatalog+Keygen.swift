import CipherKit

extension CommandCatalog {
    static let keygen = CommandSpec(
        name: "keygen",
        summary: "Make a random 256-bit raw key, or derive a database's raw key.",
        arguments: [],
        discussion: """
        Draws 32 bytes from the system's secure random source and writes them as 64 lowercase \
        hex digits and a newline: the form --key-file FILE --raw-key reads. With --output FILE \
        the key goes into a new file, created with mode 0600, never over anything already there \
        (exit 5), and fsynced with its directory before cipherctl exits; only the file's name \
        is printed. Without --output the key itself is printed on standard output (with a \
        warning when that is a terminal). A raw key needs no key derivation, so a database \
        keyed with it opens without PBKDF2's cost; keep the file as you would keep the data. \
        --output-fd N writes the key to a descriptor the caller opened (never a terminal: exit \
        2). --derive DB writes instead the raw key that opens an existing database without \
        its KDF: the key is proved and the settings found as 'open' finds them, the passphrase \
        is derived once with the file's salt, KDF count and algorithm, and the result, 96 hex \
        digits (the key, then the salt) and a newline, is proved to open the database before \
        it is written, only to --output or --output-fd, never to standard output (exit 2). \
        An app can then key the database with PRAGMA key = "x'…'" and skip PBKDF2 from then \
        on, with nothing rewritten; the report names the options that open it with the key \
        file (--key-file FILE --raw-key and the settings found). Whoever holds that file can \
        open the database as with the passphrase, and it stays valid until the database is \
        rekeyed or given a new salt. A wrong key is exit 3 and nothing is written.
        """,
        groups: [
            KeygenOptions.group,
            keyOptions, cipherOptions,
            KeygenOptions.outputGroup,
        ],
        examples: [
            ("cipherctl keygen --output app.key", "Make a key file, mode 0600."),
            ("cipherctl export app.db new.db --key-env K --to-key-file app.key --to-raw-key", "Copy a database to that key."),
            ("cipherctl keygen --derive app.db --key-env K --output app.raw", "The raw key that opens app.db without PBKDF2, for an app."),
        ]
    )
}
