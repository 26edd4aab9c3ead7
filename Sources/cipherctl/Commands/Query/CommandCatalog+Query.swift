import CipherKit

/// The `query` command's spec.
extension CommandCatalog {
    static let query = CommandSpec(
        name: "query",
        summary: "Run SQL or read a table, streaming the rows as csv, JSON and more.",
        arguments: [("<database>", "The database file."), ("[<sql>...]", "SQL statements; '-' reads them from standard input.")],
        discussion: """
        SQL comes from the arguments after the path (each ends its last statement), from \
        --file, or from standard input ('-'). The statements run in order; each one that \
        returns columns prints its result set, one after the other: in json, the rows' array \
        for an input of one statement and an array of the result sets' arrays for several; in \
        jsonl, every result set's rows one after another. A result set without rows prints \
        nothing in the text formats and [] in json. The database is opened \
        read-only, and a statement that would change it is refused (a pragma that only reads \
        runs); the statements read one committed state, whatever a writer commits meanwhile \
        (but for an input with ATTACH, a savepoint, its own BEGIN or PRAGMA temp_store, or a \
        WAL file whose writer started during the read), unless --write is given: then the whole input runs in one transaction, rolled \
        back on any error, and the number of changed rows is reported (on standard error, as \
        JSON under --json; they close a json result, and a jsonl one under --json). VACUUM, VACUUM INTO, PRAGMA journal_mode = MODE \
        and PRAGMA wal_checkpoint run outside the transaction when each is the whole input, \
        and are refused beside other statements (exit 2); VACUUM INTO writes a copy encrypted \
        with the same key and salt, mode 0600, removed if it runs out of space (exit 5). An input that holds its own \
        transaction (pragmas, BEGIN, ..., COMMIT, as dump writes) runs in it; any other \
        BEGIN is an error. A pragma that only reads is a bare PRAGMA NAME or a reporting one \
        such as table_info(T), index_list(T) or integrity_check. PRAGMA key, \
        rekey, hexkey, hexrekey, cipher_migrate and cipher settings given a value are refused \
        (exit 2): 'cipherctl rekey' changes a key and proves it. Under --write, a file that \
        cannot be written, or a full disk, is exit 5, rolled back. How each format writes \
        values, and what import reads back, is under VALUES. --json shapes only errors and \
        the report of changes: JSON rows need --format json or jsonl (--json alone is exit 2). \
        Values are bound, never pasted into SQL: --param NAME=VALUE for \
        :NAME, @NAME and $NAME, --arg VALUE for each '?' in order (?NNN takes the NNN-th). A value may be typed: \
        int:42, real:1.5, text:007, blob:DEADBEEF or null; untyped, it is an integer, else \
        a real, when SQLite writes that number back as the same text (42, -1.5, 1.0e+20), \
        else text (007, 1.50, +3, 1e3, integers past 64 bits, reals of more than 15 \
        digits), which a numeric column still stores as a number: a TEXT column keeps \
        every digit given. A placeholder without a value, or a \
        value no statement uses, is exit 2. --where is SQL as written: give its values with \
        --param or --arg, and string literals in single quotes (double quotes name columns). \
        Rows stream as they are read (the table format buffers each result set); a closed \
        pipe ends quietly with exit 0, or under --write rolls back and exits 1. SQL errors \
        are exit 1 and name the statement (number and first line) with SQLite's message.
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
