import CipherKit

/// The `rekey` command's spec.
extension CommandCatalog {
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
        the original (by the page engine when the page size and reserve stay); stop other \
        writers first, since a process that keeps the old file open goes on writing to it. JSON's action and \
        method say which ran. Every page is checked against its HMAC before anything changes: a \
        damaged page is exit 4 and the file stays as it was. Afterwards the new key must open the \
        database and the old key with the old settings must not. After a page-engine copy the \
        page proof and SQLCipher's open of the copy stand for the rest unless --verify full; \
        after any other path the database is also reopened with every page checked, quick_check \
        run (SQLite's whole integrity_check under --verify full), and the schema, header fields and row counts compared with what was recorded \
        before. A failure after the commit is exit 7 (the file opens with the new key). When the new key \
        already opens the database with the target settings, nothing is rewritten (already-done, \
        exit 0). Killed at any instant, the database opens with exactly one of the two keys, and \
        the same command run again finishes the job or says it is done. Keys are read once for \
        all databases; several databases end with a summary (rekeyed, already done, failed, not started), \
        and the run exits with the failures' code when they agree, else 1. Refused with exit \
        2: an empty new key, a new key equal to the current one with no settings change, and a \
        plaintext database (which export encrypts). Until an in-place rekey's WAL is \
        checkpointed, PRAGMA cipher_integrity_check, which reads the file and not the WAL, can \
        report pages of the other key. Also exit 2: --in-place with a change of settings or \
        salt (always a new copy), and --key-stdin with --from - (standard input cannot carry \
        both), and a database named twice, under one name or two (a symbolic link and its \
        target, two hard links). Every path is checked before any database changes: one that is \
        missing, not a regular file, empty, too short to be a database, or plainly another kind of \
        file stops the run with nothing touched. --dry-run reads as open does, waits for a lock \
        as the real run would, and changes nothing, not even a WAL checkpoint. --backup without a path keeps \
        the original as DB.backup-TIMESTAMP, with -2, -3 when a backup of that second exists. \
        --low-space is for a disk with no room for a second copy: a change of key, and of salt \
        or KDF (--new-salt, --new-kdf-iter, --new-kdf-algorithm; the page size and reserve stay, \
        and pages need an HMAC) rewrites every page in place, a chunk of about 1 MB \
        at a time, under SQLite's exclusive lock: each chunk's old bytes go first into a \
        progress record beside the file, DB.cipherctl-rotation (fsynced; no key in it), then its \
        new pages are written and fsynced; page 1 is poisoned before the first page is written (no \
        other program opens the file between the keys) and rewritten last; at the end every page is proven \
        under the new key by its HMAC and SQLCipher opens the file before the record is \
        removed. The extra space is the record: one chunk and two pages (too little is exit 5, \
        nothing written). The contract is \
        weaker: until the run finishes, the file holds pages under both keys, and only cipherctl \
        can open it. Interrupted, it is half-rotated: every command that opens it says so (exit \
        1, reason half-rotated), the same command finishes it, and with --undo puts it back \
        under the old key; both need both keys (and the same new salt and KDF, when given), and \
        a wrong one is exit 3 with nothing written. --low-space with a change of other settings, --in-place, --backup or --dry-run, or on \
        a file with other hard links (whose names would not show the record), is exit 2.
        """,
        groups: [
            keyOptions(prefix: RekeyOptions.newPrefix, title: "NEW KEY OPTIONS", purpose: "new key"),
            destinationCipherOptions(prefix: RekeyOptions.newPrefix, title: "NEW CIPHER OPTIONS", of: "the database", byDefault: "by default the database keeps its own"),
            RekeyOptions.group,
            keyOptions, cipherOptions, outputOptions,
        ],
        examples: [
            ("cipherctl rekey app.db --key-env OLD_KEY --new-key-env NEW_KEY", "Rotate the key of app.db with keys from CI secrets."),
            ("cipherctl rekey --from dbs.txt --jobs 2 --key-env OLD --new-key-env NEW --json", "Rotate many databases, two at a time, one JSON object per database."),
            ("cipherctl rekey legacy.db --key-env K --new-key-env K --new-compat 4", "Migrate an older database (format found automatically) to SQLCipher 4 defaults."),
            ("cipherctl rekey big.db --key-env OLD --new-key-env NEW --low-space", "Rotate in place with no room for a second copy; run it again to finish after a crash."),
        ]
    )
}
