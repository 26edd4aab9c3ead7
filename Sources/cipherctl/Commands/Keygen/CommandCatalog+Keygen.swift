import CipherKit

extension CommandCatalog {
    static let keygen = CommandSpec(
        name: "keygen",
        summary: "Make a random 256-bit raw key (64 hex digits).",
        arguments: [],
        discussion: """
        Draws 32 bytes from the system's secure random source and writes them as 64 lowercase \
        hex digits and a newline: the form --key-file FILE --raw-key reads. With --output FILE \
        the key goes into a new file, created with mode 0600, never over anything already there \
        (exit 5), and fsynced with its directory before cipherctl exits; only the file's name \
        is printed. Without --output the key itself is printed on standard output (with a \
        warning when that is a terminal). A raw key needs no key derivation, so a database \
        keyed with it opens without PBKDF2's cost; keep the file as you would keep the data.
        """,
        groups: [
            KeygenOptions.group,
            KeygenOptions.outputGroup,
        ],
        examples: [
            ("cipherctl keygen --output app.key", "Make a key file, mode 0600."),
            ("cipherctl export app.db new.db --key-env K --to-key-file app.key --to-raw-key", "Copy a database to that key."),
        ]
    )
}
