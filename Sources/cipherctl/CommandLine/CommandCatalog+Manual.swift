/// The manual page's words that belong to no one command: they were only in the
/// hand-written page, and live here now so that `ManPage` renders them with the rest.
extension CommandCatalog {
    /// The page's DESCRIPTION, before the commands.
    static let manualDescription = [
        """
        cipherctl verifies keys, inspects, queries, creates, rekeys and exports databases \
        encrypted with any SQLCipher version, reads their salts and moves them to and from a \
        plaintext header. It is built on SQLCipher 4 or later, which reads the formats of \
        SQLCipher 1 to 4. It never prints, logs or writes key material, and it never writes to \
        a database unless asked to.
        """,
        """
        With SQLCipher 4.6 and its OpenSSL provider, cipherctl gives SQLCipher a provider of its \
        own for page encryption: the same AES-256-CBC and HMAC through OpenSSL, with the cipher \
        and MAC contexts kept between pages instead of made and freed for each one, so the bytes \
        written are the same. With any other version SQLCipher's provider is used. Keys are \
        derived from passphrases by cipherctl itself, once per database, with the database's \
        salt and KDF settings: PBKDF2 with two hash compressions per iteration (OpenSSL's hash \
        functions), the same bytes as SQLCipher's derivation in two thirds to four fifths of \
        its time. --version says which.
        """,
        """
        Every failure prints one line on standard error, beginning 'cipherctl: error:', \
        sometimes followed by a 'hint:' line, and exits with one of the codes listed under EXIT \
        STATUS. 'cipherctl COMMAND --help' prints a command's options in short; this page has \
        the whole of what each command does.
        """,
    ]

    /// Sections after the commands and their options, before EXIT STATUS.
    static let manualSections = [
        ManualSection("KEYS", paragraphs: [
            """
            A command that opens an encrypted database reads its key from exactly one of the key \
            options. With none of them and standard input a terminal, cipherctl prompts without \
            echo; with none of them and no terminal, it exits 2. rekey reads the new key, export \
            and recover the destination key, and diff the second database's key from options \
            that mirror the key options (--new-key-env, --to-key-file, --other-key-cmd and so \
            on).
            """,
            """
            A key command (--key-cmd and its kin) runs with /bin/sh -c in a process group of \
            its own, with standard input on /dev/null. Its output is read into memory that is \
            locked and wiped, and never printed. A command that exits non-zero or is killed, \
            prints nothing or more than 64 KB, or runs longer than --key-cmd-timeout (its whole \
            process group is then killed) is exit 2, and the message names the last line of its \
            standard error.
            """,
            """
            A raw key (--raw-key) is exactly 64 hex digits (the key) or 96 (the key and the \
            salt), optionally written x'...'. Anything else is refused with exit 2; SQLCipher \
            itself would silently treat it as a passphrase.
            """,
        ]),
        ManualSection("FORMATS", paragraphs: [
            """
            Without cipher options (--compat auto), SQLCipher 4, 3, 2 (HMAC page numbers \
            little-endian, then big-endian) and 1 defaults are tried in turn, each with a \
            connection that only reads, until one opens the database; the file is never written \
            by the search. A passphrase is derived once per set of KDF parameters. \
            --plaintext-header-size, the salt and --hmac-salt-mask (which every format tried \
            takes) leave the search on; any other cipher option turns it off. A new database \
            gets SQLCipher 4 defaults: page size 4096, 256000 KDF iterations, HMAC-SHA512, \
            PBKDF2-HMAC-SHA512.
            """,
            """
            When no known format opens it, the settings are searched for from the file and the \
            key: page size 1024 to 65536, HMAC on or off and its algorithm, the KDF algorithm, \
            any KDF iteration count from 1 to 1000000, and the HMAC page-number order. One \
            PBKDF2 pass per algorithm tests every count against one AES block of page 1; a match \
            is proved by a read-only open. Files with a plaintext header are not searched: each \
            known format is tried at the page size the header shows, and another given \
            (--page-size) is exit 3 before any connection. A \
            wrong key searches the whole space (about 0.4 seconds on two cores) and exits 3. open \
            reports the format found, and whether and how long the settings were searched; \
            --verbose prints the options that pin them.
            """,
        ]),
        ManualSection("VALUES", paragraphs: [
            """
            query's json and jsonl write integers and reals as numbers (a real in as many \
            digits as read back to the same double, -0.0 kept, an infinity as null), text as a \
            string (a NUL as \\u0000), NULL as null, and a blob as {"$base64": true, "encoded": \
            "..."}, the form sqlite-utils writes and reads; text that is not UTF-8, which a JSON \
            string cannot hold, is the same object with "type": "text". --blob base64 or hex \
            writes a blob as a plain string instead. A repeated column name becomes a, a_2.
            """,
            """
            query's csv is byte for byte what the sqlcipher shell prints with .headers on and \
            .mode csv (RFC 4180, CRLF line ends, a field quoted when empty or holding a control \
            character, a space, ", ', a comma or a byte from 0x7F up), except that a blob is \
            written whole where the shell stops at its first zero byte. tsv writes tab, line \
            breaks and backslash in values as \\t, \\n, \\r and \\\\; table shows tabs and line \
            breaks as \\t and \\n, markdown escapes | and writes a line break as <br>. value \
            writes each value's bytes unescaped, so that v=$(cipherctl query ... --format value) \
            gets one value exactly, and a value holding a line break spans lines: in a while read \
            loop use tsv or jsonl, and since csv's CRLF leaves a CR at the end of each line, use \
            value or tsv in shell variables.
            """,
            """
            import reads csv as RFC 4180 with a header line, as the shell's .import reads it \
            (quoted fields, "", line breaks in quoted fields, CRLF or LF; empty lines are skipped, \
            except under a header of one column, where an empty line is a row holding the empty \
            string, as query writes NULL or '' there), but text after a quoted field's closing \
            quote is an error. tsv has a header line and takes the escapes query writes (a CR \
            before LF ends the line; \\r is a CR of the value). json is one array of objects, \
            with nothing but blanks after its ], and jsonl one object a line (an object may span \
            lines, but nothing may follow it on its last line); both are read strictly (RFC \
            8259: UTF-8, no leading zeros, no raw control characters in strings). Keys name \
            columns as SQLite does (ASCII letters in either case); a key given twice in one \
            object is an error. A UTF-8 byte order mark at the start is skipped.
            """,
            """
            In JSON, true and false are 1 and 0, a number without a fraction or exponent that \
            fits 64 bits is an integer and any other a real (to the bit), a string is text, the \
            tagged object above is a blob (or, with "type": "text", text of those bytes), and any \
            other array or object is stored as its compact JSON text. A csv or tsv field is an \
            integer or a real only when written exactly as SQLite writes that number (-12; 10.5, \
            3.0, 1.0e+20, or the 17 digits a real may need), so that the number gives the same \
            text back: 007, +1, " 12 ", 1e5, 2.50 and -0.0 are text. That decides a new table's \
            column types; a JSON -0.0 leaves its column untyped, since a REAL column would store \
            0.0. Into an existing table, a csv or tsv field is bound as text and the column's \
            affinity converts it, as in the shell (create the table first to have 10.50 stored \
            as a number); an empty field is the empty string.
            """,
            """
            So query --format json or jsonl piped into import in the same format gives back \
            every value with its storage class, with two exceptions chosen on the query side: \
            infinite reals (null) and blobs written with --blob base64 or hex (read back as \
            text). Through csv or tsv each value comes back as the text query wrote for it \
            (reals to 15 significant digits as the shell writes them, a blob's raw bytes, NULL \
            as the empty string), typed by the rules above.
            """,
        ]),
        ManualSection("CRASH SAFETY", paragraphs: [
            """
            Killed at any instant, or with any write, sync, rename or unlink failing (EIO, \
            ENOSPC), or after a power loss, a database that rekey, export, plaintext-header, \
            import, query --write or recover changes is in exactly one of its two states (for \
            rekey: it opens with exactly one of the two keys and holds all its data), and the \
            exit code says which. A temporary file left behind is named \
            DB.cipherctl-tmp-PID-RANDOM and removed, with a warning, by the next run on that \
            database. SIGINT and SIGTERM before the commit point roll back and exit 1.
            """,
            """
            An in-place rekey killed in its transaction leaves the database in WAL mode with a \
            DB-wal file and a mark, DB.cipherctl-tmp-PID-RANDOM-was-rollback: before the commit \
            frame SQLite ignores the WAL and the old key opens the database; after it only the \
            new key does. Other commands leave the mark alone. The same rekey run again redoes \
            the rekey or finishes it, puts the journal mode back and removes the mark. A WAL \
            database that rekey or plaintext-header switches to DELETE mode for a copy gets a \
            mark DB.cipherctl-tmp-PID-RANDOM-was-wal-mode first, so that a rerun after a kill \
            puts WAL back.
            """,
            """
            Run again after any interruption or failure, rekey and plaintext-header finish the \
            job or say it is already done (exit 0). The commands that make a new file (export, \
            recover, salt --output, keygen --output, --new-key-generate) leave it whole or not \
            at all, and refuse one that exists when run again (exit 5). import and query --write \
            are all or nothing: run them again only if they failed, since a run killed after its \
            commit has written its rows.
            """,
            """
            The one exception, opt-in: rekey --low-space rewrites the pages in place, so a kill \
            or a failure part-way (exit 1) can leave the database half-rotated, holding pages \
            under both keys with its progress record, DB.cipherctl-rotation, beside it. Every \
            command that opens it then says so (exit 1, reason half-rotated), and no other \
            program can read it; the same rekey --low-space finishes it, and with --undo puts \
            it back under the old key.
            """,
        ]),
        ManualSection("FIPS MODE", paragraphs: [
            """
            With --fips, or when OpenSSL's configuration makes its FIPS provider the default \
            (default_properties = fips=yes), every cryptographic operation goes through \
            OpenSSL's EVP interface, and so through that provider where it is configured: \
            PBKDF2 through EVP_KDF, pages through EVP_CIPHER and EVP_MAC one at a time, none of \
            cipherctl's own PBKDF2, AES-NI or AVX-512 and VAES lanes. The settings search does \
            not run: a passphrase that no known format opens exits 3, and other settings must be \
            given. Fewer than 1000 KDF iterations for a passphrase are refused (exit 2, reason \
            fips-forbidden). --version says the mode and whether the FIPS provider is loaded; \
            every JSON report has crypto_mode. Without a FIPS provider the same EVP calls run in \
            OpenSSL's default one, which is no validated module.
            """,
        ]),
        ManualSection("JSON", paragraphs: [
            """
            With --json, results are JSON objects with stable snake_case fields on standard \
            output: one object, or for several databases or files one a line and then a summary \
            object. An error is one JSON object on standard error with the fields error, hint, \
            exit_code, reason (a stable word for the failure, such as wrong-key or damaged, \
            finer than the exit code; new reasons are only added) and committed, true only for \
            exit 7; path when the error names a file.
            """,
        ]),
        ManualSection("READS THAT WRITE NOTHING", paragraphs: [
            """
            open (without --create), query (without --write), dump, diff, audit, salt and \
            recover (its source) read the database's last committed state, whatever lies beside \
            it, and create or change no file: no -wal, no -shm, no rollback, no change of mode \
            or time. They hold a reader's lock, so a writer in rollback mode waits until they \
            are done, and read through a VFS of their own.
            """,
            """
            A -wal without its -shm is indexed in heap memory, as SQLite does for a -shm it may \
            not write, so every committed frame is read; an existing -shm is opened read-only. \
            A hot journal is rolled back in memory: its pages are read in place of the file's, \
            and the file and journal are left for the next writer; open reports it \
            (hot_journal) and audit makes it a finding. A read-only folder needs nothing \
            created, so an unprivileged user can read from one. A damaged page met while a \
            statement runs is exit 4. So is a -wal without its -shm, or beside a -shm no \
            process holds, in which a frame fails its salts or checksum before a later commit, \
            whose commits SQLite would drop: only open --check, audit --check and recover read \
            past it, to report it or salvage what it holds. So is another database's -wal or \
            hot journal beside an encrypted file, whose copy of page 1 carries another salt.
            """,
        ]),
        ManualSection("ENVIRONMENT", paragraphs: [
            "--key-env and its kin name the variable that holds a key. Colour is used only on a terminal, and never when:",
        ], items: [
            ("NO_COLOR", "is set and not empty (https://no-color.org)."),
            ("TERM", "is dumb."),
        ]),
        ManualSection("FILES", paragraphs: [], items: [
            ("DB.cipherctl-tmp-PID-RANDOM",
             "The temporary copy of an export, a settings-changing rekey or a plaintext-header move, mode 0600. One left by a killed run is removed by the next run on the same file."),
            ("DB.backup-TIMESTAMP", "The original kept by rekey --backup."),
            ("DB-journal, DB-wal, DB-shm", "SQLite's journal files beside the database."),
            ("PREFIX/bin/cipherctl, PREFIX/share/man/man1/cipherctl.1",
             "The program and this page, as Scripts/install [PREFIX] (default /usr/local) installs them."),
            ("PREFIX/share/bash-completion/completions/cipherctl, PREFIX/share/zsh/site-functions/_cipherctl, PREFIX/share/fish/vendor_completions.d/cipherctl.fish",
             "The completion scripts Scripts/install writes; Scripts/uninstall [PREFIX] removes them with the program and the page."),
        ]),
    ]

    /// Said after the exit codes.
    static let exitStatusNote = "Any exit but 7 leaves the user's files as they were: byte for byte, but for a write SQLite rolled back (import, query --write), whose pages hold the same content again under new IVs. JSON errors say \"committed\": true for exit 7."

    /// Said after the cross references of SEE ALSO.
    static let seeAlsoNote = """
        The guides in the source tree's docs/ folder: keys and security, formats, key rotation \
        in CI and with Ansible, the safety model and how it is tested, examples by task \
        (docs/commands.md), JSON reports field by field (docs/json.md).
        """

    /// Sections after SEE ALSO.
    static let manualEnd = [
        ManualSection("SECURITY CONSIDERATIONS", paragraphs: [
            """
            Prefer --key-env, --key-file (mode 0600), --key-fd or --key-cmd to --key: a command \
            line is visible to every user through the process list and stays in shell history. \
            Key bytes are held in locked memory that is zeroed after use and passed to SQLCipher \
            with sqlite3_key_v2, never pasted into SQL. No message, JSON object or file that \
            cipherctl writes contains key material.
            """,
            """
            SQLCipher's memory security is turned on before any key is given, so the memory \
            SQLCipher allocates is locked and zeroed when freed. Core dumps are disabled for the \
            process, and on Linux it is marked not dumpable. Files that cipherctl creates are \
            created with mode 0600 and without following symbolic links. SQLCipher's own log is \
            silenced unless --verbose is given.
            """,
        ]),
    ]
}
