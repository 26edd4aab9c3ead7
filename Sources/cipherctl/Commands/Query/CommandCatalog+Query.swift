import CipherKit

/// The `query` command's spec.
extension CommandCatalog {
    static let query = CommandSpec(
        name: "query",
        summary: "Run SQL or read a table, streaming the rows as csv, JSON and more.",
        arguments: [("<database>", "The database file."), ("[<sql>...]", "SQL statements; '-' reads them from standard input.")],
        discussion: """
        Runs the statements in order; each one that returns columns prints its result set, \
        one after the other (in json, each is its own array). The database is opened \
        read-only, and a statement that would change it is refused (a pragma that only reads \
        runs), unless --write is given: then the whole input runs in one transaction, rolled \
        back on any error, and the number of changed rows is reported (on standard error, as \
        JSON under --json, or closing a json or jsonl result). VACUUM, VACUUM INTO, PRAGMA journal_mode = MODE \
        and PRAGMA wal_checkpoint run outside the transaction when each is the whole input, \
        and are refused beside other statements (exit 2). An input that holds its own \
        transaction (pragmas, BEGIN, ..., COMMIT, as dump writes) runs in it. PRAGMA key, \
        rekey, hexkey, hexrekey, cipher_migrate and cipher settings given a value are refused \
        (exit 2): 'cipherctl rekey' changes a key and proves it. Under --write, a file that \
        cannot be written, or a full disk, is exit 5, rolled back. In JSON, a blob is \
        {"$base64": true, "encoded": ...}, and text that is not UTF-8 the same with \
        "type": "text", which import reads back. Values are bound, never pasted into SQL: --param NAME=VALUE for \
        :NAME, @NAME and $NAME, --arg VALUE for each '?' in order. A value may be typed: \
        int:42, real:1.5, text:007, blob:DEADBEEF or null; untyped, it is an integer if it \
        is one, else a real if it is one, else text. A placeholder without a value, or a \
        value no statement uses, is exit 2. Rows stream as they are read (the table format \
        buffers each result set); a closed pipe ends quietly with exit 0. SQL errors are \
        exit 1 and name the statement (number and first line).
        """,
        groups: [
            QueryOptions.group, QueryOptions.formatGroup,
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl query app.db 'SELECT * FROM users' --key-env K", "Print every user as a table (terminal) or csv (pipe)."),
            ("cipherctl query app.db 'SELECT * FROM users WHERE age > :min' --param min=30 --format jsonl --key-env K", "Bind a value; one JSON object a line."),
            ("cipherctl query app.db --table users --columns id,name --order 'name desc' --limit 10 --key-env K", "Read a table without writing SQL."),
            ("cipherctl query app.db --write --file migrate.sql --key-env K", "Run a script in one transaction; all or nothing."),
            ("cipherctl query app.db 'SELECT name FROM users' --format value --key-env K | while read -r name; do ...; done", "Feed a shell loop."),
        ]
    )
}
