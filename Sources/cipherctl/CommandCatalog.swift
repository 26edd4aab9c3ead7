import CipherKit

/// The one source of truth for commands and options: help, the man page check and
/// usage errors all read it.
enum CommandCatalog {
    static let open = CommandSpec(
        name: "open",
        summary: "Verify a key and describe a database, or create a new one.",
        arguments: [("<database>", "The database file.")],
        discussion: """
        Opens the database read-only, proves the key by reading the schema, and prints its \
        profile: file size, cipher settings in effect, salt, page counts, journal mode, \
        encoding, user_version, application_id and the numbers of tables, indexes, views and \
        triggers. A plaintext SQLite file needs no key and is reported as not encrypted. \
        Without cipher options, the known SQLCipher formats are tried, then the settings are \
        searched for (page size, HMAC, KDF algorithm and count); --verbose prints the options \
        that pin what was found. Nothing is ever written unless --create is given, not even a WAL \
        database's -wal or -shm: the last committed state is read whatever lies beside the \
        file (a -wal without its -shm, a hot journal, rolled back in memory only).
        """,
        groups: [
            OptionGroup(title: "OPEN OPTIONS", options: [
                OptionSpec("--create", help: "Create a new encrypted database with the key and cipher options; exit 5 if the file exists."),
                OptionSpec("--check", help: "Check every page against its HMAC on all cores, then run SQLite's integrity_check (reading the pages just proven without a second HMAC); list every problem; exit 4 if there are any."),
                OptionSpec("--counts", help: "Add the row count of every table."),
            ]),
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl open app.db --key-env APP_DB_KEY", "Verify the key in $APP_DB_KEY and describe app.db."),
            ("cipherctl open new.db --create --key-file key.txt", "Create an encrypted database with SQLCipher 4 defaults."),
            ("cipherctl open legacy.db --key-stdin --check --json < key.txt", "Check a database in any SQLCipher format (found automatically) and report as JSON."),
            ("cipherctl open ios.db --key-env K --salt-file ios.salt", "Open a database with a 32-byte plaintext header and its salt."),
        ]
    )

    static let completion = CommandSpec(
        name: "completion",
        summary: "Print a shell completion script for bash, zsh or fish.",
        arguments: [("<shell>", "bash, zsh or fish.")],
        discussion: """
        The script completes commands, options, the fixed values of options that have them, \
        environment variable names after --key-env and its kin, and file paths for databases \
        and path options. Scripts/install puts all three where the shells look; by hand, \
        add 'source <(cipherctl completion bash)' to ~/.bashrc, write the zsh one to a \
        directory on $fpath as _cipherctl, or the fish one to \
        ~/.config/fish/completions/cipherctl.fish.
        """,
        groups: [OptionGroup(title: "OPTIONS", options: [helpOption])],
        examples: [
            ("source <(cipherctl completion bash)", "Complete cipherctl in this bash session."),
            ("cipherctl completion fish > ~/.config/fish/completions/cipherctl.fish", "Install the fish completion for your user."),
        ]
    )

    static let help = CommandSpec(
        name: "help",
        summary: "Show help for cipherctl or one of its commands.",
        arguments: [("[<command>]", "The command to describe.")],
        discussion: "The same text as 'cipherctl COMMAND --help'.",
        groups: [],
        examples: [("cipherctl help open", "Show the options of 'open'.")]
    )

    static let rekey = CommandSpec(
        name: "rekey",
        summary: "Rotate the key of one or many databases, verified and crash-safe.",
        arguments: [("<database>...", "The databases to rekey (or --from FILE).")],
        discussion: """
        A key-only change is copied by the page engine on every core (each page's HMAC checked, \
        re-encrypted with the new key and the same salt, and decrypted back to prove it) into a \
        temporary file beside the database, which SQLCipher opens before it is fsynced and \
        renamed over the original, keeping its owner and permissions; the old file's first page \
        is then overwritten, so a process that still has it open fails instead of writing to it. \
        A database with other hard links or extended attributes (ACLs, security labels), a \
        symbolic link, one whose owner the copy could not keep, or --in-place, is rekeyed in \
        place instead: sqlite3_rekey_v2 under an exclusive lock, in one transaction through the \
        WAL, checkpointed into the file, the journal mode put back after. A change of cipher \
        settings or salt, or a SQLCipher 1 or 2 database, is always a verified copy renamed over \
        the original (by the page engine when the page size and reserve stay). JSON's action and \
        method say which ran. Every page is checked against its HMAC before anything changes: a \
        damaged page is exit 4 and the file stays as it was. Afterwards the new key must open the \
        database and the old key with the old settings must not. After a page-engine copy the \
        page proof and SQLCipher's open of the copy stand for the rest unless --verify full; \
        after any other path the database is also reopened with every page checked, quick_check \
        run, and the schema, header fields and row counts compared with what was recorded \
        before. A failure after the commit is exit 7 (the file opens with the new key). When the new key \
        already opens the database with the target settings, nothing is rewritten (already-done, \
        exit 0). Killed at any instant, the database opens with exactly one of the two keys, and \
        the same command run again finishes the job or says it is done. Keys are read once for \
        all databases; several databases end with a summary (rekeyed, already done, failed).
        """,
        groups: [
            keyOptions(prefix: "new-", title: "NEW KEY OPTIONS", purpose: "new key"),
            OptionGroup(title: "NEW CIPHER OPTIONS", options: [
                OptionSpec("--new-compat", value: "N", choices: ["1", "2", "3", "4"], help: "Rewrite with SQLCipher N's default settings (1, 2, 3 or 4)."),
                OptionSpec("--new-page-size", value: "N", help: "Rewrite with this cipher page size (1024 or more with page HMACs)."),
                OptionSpec("--new-kdf-iter", value: "N", help: "Rewrite with this many PBKDF2 iterations."),
                OptionSpec("--new-hmac-algorithm", value: "NAME", choices: HMACAlgorithm.allCases.map(\.shortName), help: "Rewrite with this page HMAC: SHA1, SHA256 or SHA512."),
                OptionSpec("--new-kdf-algorithm", value: "NAME", choices: KDFAlgorithm.allCases.map(\.rawValue), help: "Rewrite with this key derivation: PBKDF2_HMAC_SHA1, _SHA256 or _SHA512."),
                OptionSpec("--new-salt", value: "HEX", following: .salt,
                           help: "Give the database a new salt: HEX (32 hex digits), or a fresh random one without it (an in-place rekey keeps the old one)."),
            ]),
            OptionGroup(title: "REKEY OPTIONS", options: [
                OptionSpec("--from", value: "FILE", path: true, help: "Read database paths from FILE, one a line ('-' for standard input)."),
                OptionSpec("--jobs", value: "N", help: "Rekey N databases in parallel (default 1)."),
                OptionSpec("--fail-fast", help: "Start no further database after the first failure."),
                OptionSpec("--dry-run", help: "Run every check the real run makes (key, every page's HMAC, lock, writability, space) and end with its code; change nothing."),
                OptionSpec("--backup", value: "PATH", following: .newPath, path: true,
                           help: "Keep the original file, at PATH (which must not exist) or beside it as DB.backup-TIMESTAMP."),
                OptionSpec("--no-verify", help: "Skip the verification afterwards (warned about)."),
                OptionSpec("--in-place", help: "Keep the file itself (inode, hard links, attributes): a key-only change rewritten in place through SQLite, not a page-engine copy renamed over it. Slower."),
            ] + engineOptions),
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl rekey app.db --key-env OLD_KEY --new-key-env NEW_KEY", "Rotate the key of app.db with keys from CI secrets."),
            ("cipherctl rekey --from dbs.txt --jobs 2 --key-env OLD --new-key-env NEW --json", "Rotate many databases, two at a time, one JSON object per database."),
            ("cipherctl rekey legacy.db --key-env K --new-key-env K --new-compat 4", "Migrate an older database (format found automatically) to SQLCipher 4 defaults."),
        ]
    )

    static let export = CommandSpec(
        name: "export",
        summary: "Copy a database: encrypt, decrypt, or change its key and settings.",
        arguments: [("<source>", "The database to copy."), ("<destination>", "The new file.")],
        discussion: """
        Writes the copy into a temporary file beside the destination (mode 0600). A change of \
        key, salt or KDF that keeps the page size and HMAC is copied page by page by the page \
        engine, on every core: each page's HMAC is checked, and each page written is decrypted \
        back with the new key and must equal its source page byte for byte; SQLCipher then \
        opens the copy and its schema and header fields must match (--verify full adds \
        SQLite's integrity checks and every table's row count). A decrypting export goes the \
        same way, each page's HMAC checked and the page written decrypted; so does encrypting a \
        plaintext database whose pages already reserve the bytes the IV and HMAC take (80 for \
        SQLCipher 4), each page decrypted back to prove it. A source whose WAL holds frames \
        is copied page by page with the SQLite backup API instead; any other change goes through \
        sqlcipher_export() in one transaction, carrying over what it drops: user_version, \
        application_id, auto_vacuum and WAL mode, and is verified in full (integrity, schema, \
        header fields, row counts). JSON's method says which ran. The copy is fsynced, then \
        renamed into place. The destination \
        gets SQLCipher 4 defaults unless --to-compat or other --to- options say otherwise. A \
        damaged source page is exit 4. On any failure no destination and no temporary file are \
        left, and the source is never written (a source with a hot journal is refused). A \
        destination that already holds a verified copy with the destination key is already-done.
        """,
        groups: [
            keyOptions(prefix: "to-", title: "DESTINATION KEY OPTIONS", purpose: "destination key"),
            OptionGroup(title: "DESTINATION OPTIONS", options: [
                OptionSpec("--plaintext", help: "Write a plaintext (unencrypted) SQLite database; warned about."),
                OptionSpec("--to-compat", value: "N|same", choices: ["1", "2", "3", "4", "same"], help: "Write with SQLCipher N's default settings (1, 2, 3 or 4; default 4), or with the settings the source has (same: its page size, KDF, HMAC and page-number order, with a new salt)."),
                OptionSpec("--to-page-size", value: "N", help: "Destination cipher page size (1024 or more with page HMACs)."),
                OptionSpec("--to-kdf-iter", value: "N", help: "Destination PBKDF2 iterations."),
                OptionSpec("--to-hmac-algorithm", value: "NAME", choices: HMACAlgorithm.allCases.map(\.shortName), help: "Destination page HMAC: SHA1, SHA256 or SHA512."),
                OptionSpec("--to-hmac", value: "on|off", choices: ["on", "off"], help: "Whether the destination's pages carry an HMAC (default on); off writes a file that any change of its bytes can go unnoticed in, as SQLCipher 1 did."),
                OptionSpec("--to-hmac-pgno", value: "le|be|native", choices: HMACPageNumber.allCases.map(\.rawValue), help: "Byte order of the page number in the destination's page HMACs (default le)."),
                OptionSpec("--to-kdf-algorithm", value: "NAME", choices: KDFAlgorithm.allCases.map(\.rawValue), help: "Destination key derivation: PBKDF2_HMAC_SHA1, _SHA256 or _SHA512."),
                OptionSpec("--to-plaintext-header-size", value: "N", help: "Leave N bytes of the destination's header unencrypted; needs --to-salt or a 96-digit raw key."),
                OptionSpec("--to-salt", value: "HEX", help: "The destination's salt (32 hex digits), for a plaintext header."),
                OptionSpec("--to-salt-file", value: "PATH", path: true, help: "Read the destination's salt, in hex, from a file."),
                OptionSpec("--force", help: "Replace an existing destination file (never a symbolic link)."),
                OptionSpec("--no-verify", help: "Skip the verification of the copy (warned about)."),
            ] + engineOptions),
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl export app.db copy.db --key-env K --to-key-env K2", "Copy app.db with a new key and SQLCipher 4 defaults."),
            ("cipherctl export app.db plain.db --key-env K --plaintext", "Decrypt app.db for analysis (the copy is not encrypted)."),
            ("cipherctl export plain.db app.db --to-key-env K", "Encrypt a plaintext database."),
            ("cipherctl export v3.db v4.db --key-env K --to-key-env K", "Migrate a SQLCipher 1, 2 or 3 database to a SQLCipher 4 copy."),
        ]
    )

    static let query = CommandSpec(
        name: "query",
        summary: "Run SQL or read a table, streaming the rows as csv, JSON and more.",
        arguments: [("<database>", "The database file."), ("[<sql>...]", "SQL statements; '-' reads them from standard input.")],
        discussion: """
        Runs the statements in order; each one that returns columns prints its result set, \
        one after the other (in json, each is its own array). The database is opened \
        read-only, and a statement that would change it is refused (a pragma that only reads \
        runs), unless --write is given: then the whole input runs in one transaction, rolled \
        back on any error, and the number of changed rows is reported (on standard error, or \
        in a last JSON line under --json). VACUUM, VACUUM INTO, PRAGMA journal_mode = MODE \
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
            OptionGroup(title: "QUERY OPTIONS", options: [
                OptionSpec("--file", value: "PATH", path: true, help: "Read SQL from a file (before any SQL arguments)."),
                OptionSpec("--write", help: "Open read-write and run the whole input in one transaction; any error rolls it all back."),
                OptionSpec("--param", value: "NAME=VALUE", repeatable: true, help: "Bind VALUE to :NAME, @NAME and $NAME."),
                OptionSpec("--arg", value: "VALUE", repeatable: true, help: "Bind VALUE to the next '?' (in order across statements, or in --where)."),
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

    static let salt = CommandSpec(
        name: "salt",
        summary: "Print a database's 16-byte salt in hex.",
        arguments: [("<database>", "The database file.")],
        discussion: """
        The salt of a SQLCipher database is its first 16 bytes: it is not secret, and no key \
        is needed to read it. With a key, the database is opened and the salt is confirmed with \
        PRAGMA cipher_salt. A database with a plaintext header keeps its salt outside the file: \
        it must come from where it was stored (--salt or --salt-file, which the key then \
        confirms). A plaintext SQLite file has no salt (exit 1).
        """,
        groups: [
            OptionGroup(title: "SALT OPTIONS", options: [
                OptionSpec("--output", value: "PATH", path: true, help: "Also write the salt, in hex and a newline, to a new file (mode 0600); exit 5 if it exists."),
            ]),
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl salt app.db", "Print the salt of app.db from its file header."),
            ("cipherctl salt app.db --key-env K --output app.salt --json", "Confirm the salt with the key, save it, report as JSON."),
        ]
    )

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
        or a 96-digit raw key) and --plaintext-header-size N (32 is assumed when not given).
        """,
        groups: [
            OptionGroup(title: "PLAINTEXT HEADER OPTIONS", options: [
                OptionSpec("--size", value: "N", following: .digits,
                           help: "Move to a plaintext header of N bytes (default 32, what SQLCipher recommends): a multiple of 16 smaller than the page's usable size; 0 removes it."),
                OptionSpec("--salt-output", value: "PATH", path: true, help: "Save the salt, in hex, to a new file (mode 0600) before anything changes; needed for a move to a header unless the salt is given. A file with this salt is kept (a rerun); another salt is exit 5."),
                OptionSpec("--no-verify", help: "Skip the verification of the result (warned about)."),
            ]),
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl plaintext-header app.db", "Say whether app.db has a plaintext header."),
            ("cipherctl plaintext-header app.db --size 32 --key-env K --salt-output app.salt", "Move app.db to a 32-byte plaintext header; save its salt first."),
            ("cipherctl plaintext-header app.db --size 0 --key-env K --salt-file app.salt", "Move it back to a fully encrypted header."),
        ]
    )

    /// Every command, in the order help lists them.
    static let commands: [CommandSpec] = [open, query, rekey, export, salt, plaintextHeader, dump, importRows, diff, recover, audit, keygen, completion, help]

    /// Options accepted before any command.
    static let topLevelOptions: [OptionSpec] = [
        OptionSpec("--version", help: "Print cipherctl's version and the linked SQLCipher, SQLite and crypto provider versions (as JSON with --json)."),
        helpOption,
    ]

    /// The command called `name`, if there is one.
    static func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }
}
