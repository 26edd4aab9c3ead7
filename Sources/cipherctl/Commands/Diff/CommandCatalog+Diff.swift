import CipherKit

extension CommandCatalog {
    static let diff = CommandSpec(
        name: "diff",
        summary: "Compare two databases: schema, and rows by primary key or rowid.",
        arguments: [("<first>", "The first database."), ("<second>", "The second database.")],
        discussion: """
        Opens both read-only, each with its own key and settings (the key and cipher options \
        for the first, the --other-key and --other- cipher options for the second; without \
        cipher options a format is found as open finds it) and each in one read transaction, \
        so both are snapshots. Reports the schema objects only in one or with other SQL, and \
        for every table both have (sqlite_sequence too), the rows added, removed and changed, \
        matched by primary key, else by rowid (under an alias no column shadows: rowid, oid \
        or _rowid_), else by the whole row, and compared on the columns both have by type and \
        exact value (a real by its bits, text by its bytes), and the header fields \
        applications keep data in (user_version, application_id; not how the file is \
        stored). Rows are walked in key order side \
        by side, so memory stays flat (--rows holds the rows it lists). Exit 0 when they are the same and 8 when they differ \
        (a code no error uses, so a script tells the two apart); errors use the usual codes. No key is ever part of SQL: each \
        database has a connection of its own.
        """,
        groups: [
            DiffOptions.group,
            keyOptions,
            keyOptions(prefix: DiffOptions.otherPrefix, title: "OTHER KEY OPTIONS", purpose: "second database's key", generates: false),
            cipherOptions,
            cipherOptions(prefix: DiffOptions.otherPrefix, title: "OTHER CIPHER OPTIONS", of: "the second database"),
            outputOptions,
        ],
        examples: [
            ("cipherctl diff app.db backup.db --key-env K --other-key-env K_OLD", "Say whether a backup still matches, table by table."),
            ("cipherctl diff a.db b.db --key-env K --other-key-env K --rows --json", "Every row that differs, as one JSON document."),
            ("cipherctl diff app.db ios.db --key-env K --other-key-env K2 --other-salt-file ios.salt", "Compare with a database that has a plaintext header."),
        ]
    )
}
