import CipherKit

/// The `salt` command's spec.
extension CommandCatalog {
    static let salt = CommandSpec(
        name: "salt",
        summary: "Print a database's 16-byte salt in hex.",
        arguments: [("<database>", "The database file.")],
        discussion: """
        The salt of a SQLCipher database is its first 16 bytes: it is not secret, and no key \
        is needed to read it. With a key, the database is opened and the salt is confirmed with \
        PRAGMA cipher_salt. A database with a plaintext header keeps its salt outside the file: \
        it must come from where it was stored (--salt or --salt-file, which the key then \
        confirms). A plaintext SQLite file has no salt (exit 1), and neither has a file whose \
        first 16 bytes are zeros (exit 1; exit 3 with a key, as for every command).
        """,
        groups: [
            SaltOptions.group,
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl salt app.db", "Print the salt of app.db from its file header."),
            ("cipherctl salt app.db --key-env K --output app.salt --json", "Confirm the salt with the key, save it, report as JSON."),
        ]
    )
}
