import CipherKit

extension CommandCatalog {
    static let dump = CommandSpec(
        name: "dump",
        summary: "Write a database as SQL text that rebuilds it, streamed.",
        arguments: [("<database>", "The database file.")],
        discussion: """
        Writes SQL on standard output, in one transaction (BEGIN TRANSACTION ... COMMIT): each \
        table's CREATE statement and its rows as INSERT statements with named columns (the \
        rowid kept where no INTEGER PRIMARY KEY stands for it, under an alias no column \
        shadows: rowid, oid or _rowid_; left out when columns take all three, as the shell's \
        .dump does), sqlite_sequence's rows after every table's, then indexes, views and \
        triggers, and the auto_vacuum, user_version and application_id pragmas. Values read \
        back exactly: integers in decimal, reals in as many digits as it takes (-0.0 for \
        negative zero), text quoted (a CR as char(13) through replace(), since the shell \
        drops a CR before a line end; CAST(X'...' AS TEXT) when it holds a NUL or bytes that \
        are not UTF-8), blobs as X'...'. Rows stream from one read transaction, in flat \
        memory. The output is \
        plaintext: on a terminal a warning says so. The sqlcipher shell rebuilds it into a \
        new keyed database, and so does 'cipherctl query NEW --write -' (an input that holds \
        its own transaction runs in it). sqlite_stat tables are left out (ANALYZE makes them). \
        auto_vacuum takes effect only in a new, empty file, as SQLite fixes it once the first \
        page is written. An unknown --table is exit 2.
        """,
        groups: [
            DumpOptions.group,
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl dump app.db --key-env K | cipherctl query copy.db --write - --key-env K2", "Load it into another encrypted database (made with open --create); no plaintext on disk."),
            ("cipherctl dump app.db --key-env K --table users | gzip > users.sql.gz", "Dump one table (plaintext: protect the file)."),
        ]
    )
}
