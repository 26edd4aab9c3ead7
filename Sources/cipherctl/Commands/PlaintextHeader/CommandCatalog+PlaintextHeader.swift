import CipherKit

/// The `plaintext-header` command's spec.
extension CommandCatalog {
    static let plaintextHeader = CommandSpec(
        name: "plaintext-header",
        summary: "Show, add or remove a plaintext header (salt kept outside the file).",
        arguments: [("<database>", "The database file.")],
        discussion: """
        Without --size, says whether the file has a SQLCipher plaintext header; no key is \
        needed. With --size N, moves the database to a plaintext header of N bytes (0: back to a \
        fully encrypted header) by SQLCipher's procedure: the salt is read and, with \
        --salt-output, saved first; the header size is set and the header rewritten. This runs \
        on a copy beside the database while writers are held off; the copy is verified (its first \
        bytes, the key with the new header size and the salt, integrity, schema, row counts) and \
        renamed over the original, so a crash leaves the original as it was. The salt is \
        printed: a database with a plaintext header opens only with it (--salt, --salt-file, \
        or a 96-digit raw key) and --plaintext-header-size N (32 is assumed when not given); \
        a wrong or missing salt is exit 3. A move to a header needs --salt-output unless the \
        salt is given, since a run killed after its rename would take the only copy of the \
        salt with it (exit 2 before anything); a failure before the rename removes the salt \
        file it made. Run again after a kill, the same command opens \
        the file with the salt it saved and says it is already done; the size it has now \
        changes nothing.
        """,
        groups: [
            PlaintextHeaderOptions.group,
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl plaintext-header app.db", "Say whether app.db has a plaintext header."),
            ("cipherctl plaintext-header app.db --size 32 --key-env K --salt-output app.salt", "Move app.db to a 32-byte plaintext header; save its salt first."),
            ("cipherctl plaintext-header app.db --size 0 --key-env K --salt-file app.salt", "Move it back to a fully encrypted header."),
        ]
    )
}
