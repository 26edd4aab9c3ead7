import CipherKit

/// The `shell` command's spec.
extension CommandCatalog {
    static let shell = CommandSpec(
        name: "shell",
        summary: "Start the sqlcipher shell on a database: keyed, its settings found.",
        arguments: [
            ("<database>", "The database file."),
            ("[-- <shell-argument>...]", "Arguments for the shell, after the database: its options (-box, -cmd '.tables'), or SQL to run before it exits."),
        ],
        discussion: """
        Proves the key and finds the settings as 'open' does (the known formats, then the \
        settings search), then starts the sqlcipher shell (SQLCipher's build of SQLite's shell) \
        on the database, keyed. The key, the salt of a plaintext header and every cipher setting \
        reach the shell as a start-up script read from an anonymous pipe (-init /dev/fd/N), \
        never from a file, an argument or the environment: the script holds the raw key derived \
        from the passphrase, so the shell derives nothing and any passphrase works, and the \
        variable --key-env names (and any variable the key appears in) is left out of the \
        shell's environment, as is the descriptor --key-fd names; other descriptors handed in \
        (9<file, for .read /dev/fd/9) stay the shell's. The shell keeps the key in its memory \
        while it runs, as any SQLCipher program does; its history goes to /dev/null \
        (SQLITE_HISTORY), so what is typed is not saved, and it cannot dump core (the core size \
        limit is 0). What the session itself writes (.output, .save, VACUUM INTO, .dump) is the \
        user's. ~/.sqliterc, which -init replaces, is read after the key; --busy-timeout becomes \
        the shell's .timeout. The shell opens the file read-only (-readonly): a write fails in \
        the shell and the file is unchanged. --write opens it read-write, and a file or folder \
        it could not write is exit 5 before the shell starts. Read-only or not, SQLite makes a \
        WAL database's -wal and -shm when they are missing. A hot journal beside the file (a \
        writer that died mid-transaction) needs --write, since only a read-write open rolls it \
        back: without it, exit 1 before the shell starts. Standard input, output, error and the \
        terminal are the shell's; cipherctl becomes the shell (exec), so the shell's exit code \
        is the command's. Without a terminal the shell reads SQL from standard input, so the key \
        cannot come from there. A wrong key or wrong settings are exit 3 and a missing file exit \
        5, before the shell starts. With no sqlcipher shell on PATH (or at --program), or with \
        one older than SQLCipher 4 or a plain sqlite3, the command is exit 2 and names the \
        package to install. -init among the shell's arguments is refused (exit 2): it would \
        replace the keying script; use -cmd '.read FILE'.
        """,
        groups: [
            ShellOptions.group,
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl shell app.db --key-env APP_DB_KEY", "Look around app.db in the sqlcipher shell, read-only."),
            ("cipherctl shell app.db --key-file key.txt --write", "Open it read-write."),
            ("cipherctl shell app.db --key-env K -- -box -cmd '.tables'", "Pass options to the shell."),
            ("cipherctl shell app.db --key-env K -- 'SELECT count(*) FROM users'", "Run one statement and exit, without a terminal."),
        ],
        passesThrough: true,
        note: """
        The key reaches the shell through a pipe it reads at start, never an argument, the \
        environment or a file. The shell keeps it in its memory while it runs, saves no \
        history (SQLITE_HISTORY=/dev/null) and cannot dump core; what the session writes \
        (.output, .dump, VACUUM INTO) is yours to protect. Read-only unless --write; the \
        exit code is the shell's once it has started.
        """
    )
}
