import CipherKit

extension CommandCatalog {
    static let importRows = CommandSpec(
        name: "import",
        summary: "Load csv, tsv, json or jsonl rows into a table, in one transaction.",
        arguments: [("<database>", "The database file."), ("<table>", "The table to load."), ("[<file>]", "The input; '-' or none reads standard input.")],
        discussion: """
        Streams the rows into the encrypted database in one transaction; nothing is written \
        to disk in plaintext, and any error rolls all of it back. A missing table is created: \
        its columns from the csv or tsv header line, or from every key of the first batch's \
        JSON objects (in the order each first appears), each typed INTEGER, REAL or TEXT when \
        every value of the first batch is one, and untyped otherwise (how a value is read is \
        under VALUES). A later value that does not fit its column's type is exit 2. An existing table's \
        columns are matched by name; an input column it lacks is exit 2, or added with \
        --alter. A malformed line (a wrong number of fields, a quote left open or followed by \
        text, bad JSON, text after the JSON array) and a key conflict are exit 2, naming the \
        line the row starts on. An empty input adds no rows to an existing table and cannot \
        create one. Standard input carries the rows, so the key cannot come from \
        --key-stdin then. A file that cannot be written, or a full disk, is exit 5, rolled \
        back before anything is read or on the spot, with no -journal left. Values are \
        bound, never pasted into SQL.
        """,
        groups: [
            ImportOptions.group,
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl import app.db customers customers.csv --key-env K --pk id", "Load a csv file into a new table keyed by id."),
            ("curl -s https://example.com/rows.jsonl | cipherctl import app.db events - --format jsonl --key-env K --ignore", "Stream JSON lines in, skipping rows already there."),
        ]
    )
}
