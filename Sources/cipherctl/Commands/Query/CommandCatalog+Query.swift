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
        runs), unless --write is given: then the whole input runs in one transaction, rolled \
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
        int:42, real:1.5, text:007, blob:DEADBEEF or null; untyped, it is an integer if it \
        is one, else a real if it is one, else text. A placeholder without a value, or a \
        value no statement uses, is exit 2. --where is SQL as written: give its values with \
        --param or --arg, and string literals in single quotes (double quotes name columns). \
        Rows stream as they are read (the table format buffers each result set); a closed \
        pipe ends quietly with exit 0, or under --write rolls back and exits 1. SQL errors \
        are exit 1 and name the statement (number and first line) with SQLite's message.
        """,
        groups: [
            OptionGroup(title: "QUERY OPTIONS", options: [
                OptionSpec("--file", value: "PATH", traits: .path, help: "Read SQL from a file (before any SQL arguments)."),
                OptionSpec("--write", help: "Open read-write and run the whole input in one transaction; any error rolls it all back."),
                OptionSpec("--param", value: "NAME=VALUE", traits: .repeatable, help: "Bind VALUE to :NAME, @NAME and $NAME."),
                OptionSpec("--arg", value: "VALUE", traits: .repeatable, help: "Bind VALUE to the next '?' (in order across statements, or in --where)."),
                OptionSpec("--table", value: "NAME", help: "Read this table without SQL (name quoted, any characters)."),
                OptionSpec("--columns", value: "A,B", help: "With --table: only these columns, in this order."),
                OptionSpec("--where", value: "EXPR", help: "With --table: an SQL condition; its values through --param or --arg."),
                OptionSpec("--order", value: "COL [asc|desc],...", help: "With --table: sort by these columns."),
                OptionSpec("--limit", value: "N", help: "With --table: at most N rows."),
                OptionSpec("--offset", value: "N", help: "With --table: skip the first N rows."),
            ]),
            OptionGroup(title: "FORMAT OPTIONS", options: [
                OptionSpec("--format", value: "FORMAT",
                           choices: ResultFormat.allCases.map(\.rawValue), help: "table (the default on a terminal), csv (the default otherwise; as the sqlite3 shell's .mode csv, with CRLF line ends), tsv, json (one JSON document), jsonl, markdown, line or value (raw values, not escaped)."),
                OptionSpec("--no-header", help: "Leave out the column names (csv, tsv, table; accepted by value, which has none)."),
                OptionSpec("--null", value: "TEXT", help: "How NULL prints in the text formats (default: empty)."),
                OptionSpec("--blob", value: "raw|hex|base64", choices: BlobEncoding.allCases.map(\.rawValue), help: "How blobs print: raw bytes by default in csv, tsv and value; hex in table, markdown and line; in JSON an object {\"$base64\": true, \"encoded\": ...} that import reads back as a blob (base64 or hex: a plain string)."),
            ]),
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
