/// The one source of truth for commands and options: help, the man page check and
/// usage errors all read it.
enum CommandCatalog {
    static let helpOption = OptionSpec("--help", short: "-h", help: "Show this help and exit.")

    static let keyOptions = OptionGroup(title: "KEY OPTIONS", options: [
        OptionSpec("--key-env", value: "VAR", help: "Read the key from environment variable VAR."),
        OptionSpec("--key-file", value: "PATH", path: true,
                   help: "Read the key from a file; one trailing newline is dropped. Warns when the file is readable by group or others."),
        OptionSpec("--key-fd", value: "N", help: "Read the key from open file descriptor N, to its end; one trailing newline is dropped."),
        OptionSpec("--key-stdin", help: "Read the key from the first line of standard input."),
        OptionSpec("--key", value: "VALUE",
                   help: "Take the key from the command line. Discouraged: other users can see it in the process list, and it stays in shell history."),
        OptionSpec("--raw-key", help: "The key is a raw key in hex: 64 digits, or 96 with the salt. Anything else is refused."),
    ])

    static let cipherOptions = OptionGroup(title: "CIPHER OPTIONS", options: [
        OptionSpec("--compat", value: "N", help: "Use SQLCipher N's default settings (1, 2, 3 or 4); other cipher options override them."),
        OptionSpec("--page-size", value: "N", help: "Cipher page size in bytes: a power of two from 512 to 65536."),
        OptionSpec("--kdf-iter", value: "N", help: "PBKDF2 iterations used to derive the key from a passphrase."),
        OptionSpec("--hmac-algorithm", value: "NAME", help: "Page HMAC: SHA1, SHA256 or SHA512."),
        OptionSpec("--kdf-algorithm", value: "NAME", help: "Key derivation: PBKDF2_HMAC_SHA1, PBKDF2_HMAC_SHA256 or PBKDF2_HMAC_SHA512."),
        OptionSpec("--hmac", value: "on|off", help: "Whether pages carry an HMAC (off only for SQLCipher 1 databases)."),
        OptionSpec("--plaintext-header-size", value: "N", help: "Bytes at the start of the file kept unencrypted: 0, or a multiple of 16."),
        OptionSpec("--salt", value: "HEX", help: "The database's 16-byte salt in hex (32 digits), for a database with a plaintext header."),
        OptionSpec("--salt-file", value: "PATH", path: true, help: "Read the salt, in hex, from a file."),
    ])

    static let outputOptions = OptionGroup(title: "OUTPUT OPTIONS", options: [
        OptionSpec("--json", help: "Print one JSON object on standard output; an error is one JSON object on standard error."),
        OptionSpec("--verbose", help: "Say more, and let SQLCipher log its warnings to standard error."),
        OptionSpec("--quiet", help: "Print nothing but errors and the output asked for; warnings are silenced."),
        OptionSpec("--busy-timeout", value: "MS", help: "Wait up to MS milliseconds for another process's lock (default 5000), then exit 6."),
        helpOption,
    ])

    static let open = CommandSpec(
        name: "open",
        summary: "Verify a key and describe a database, or create a new one.",
        arguments: [("<database>", "The database file.")],
        discussion: """
        Opens the database read-only, proves the key by reading the schema, and prints its \
        profile: file size, cipher settings in effect, salt, page counts, journal mode, \
        encoding, user_version, application_id and the numbers of tables, indexes, views and \
        triggers. A plaintext SQLite file needs no key and is reported as not encrypted. \
        Nothing is ever written unless --create is given.
        """,
        groups: [
            OptionGroup(title: "OPEN OPTIONS", options: [
                OptionSpec("--create", help: "Create a new encrypted database with the key and cipher options; exit 5 if the file exists."),
                OptionSpec("--check", help: "Run SQLCipher's and SQLite's integrity checks and list every problem; exit 4 if there are any."),
                OptionSpec("--counts", help: "Add the row count of every table."),
            ]),
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl open app.db --key-env APP_DB_KEY", "Verify the key in $APP_DB_KEY and describe app.db."),
            ("cipherctl open new.db --create --key-file key.txt", "Create an encrypted database with SQLCipher 4 defaults."),
            ("cipherctl open legacy.db --compat 3 --key-stdin --check --json < key.txt", "Check a SQLCipher 3 database and report as JSON."),
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

    /// Every command, in the order help lists them.
    static let commands: [CommandSpec] = [open, help]

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
