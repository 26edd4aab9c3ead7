"""The writing paths that Scripts/faults and Scripts/powerloss fault, and how to tell their
two states apart with the sqlcipher shell.

Each path makes its files in a template folder, names the command that changes them, and
lists its units: the files it changes, each in a "before" or an "after" state (or neither,
which is what the sweeps look for). Keys are raw keys where the path allows it (no key
derivation: a run takes milliseconds), and passphrases with 4000 PBKDF2 iterations where it
needs one.
"""
import os
import re
import shutil
import subprocess
import tempfile

OLD_RAW = "6f" * 32
NEW_RAW = "a7" * 32
OLD_PASS = "faults old passphrase"
NEW_PASS = "faults new passphrase"
ENVIRONMENT = {"K": OLD_RAW, "K2": NEW_RAW, "P": OLD_PASS, "P2": NEW_PASS}
RAW_OLD_SQL = f"PRAGMA key = \"x'{OLD_RAW}'\";"
RAW_NEW_SQL = f"PRAGMA key = \"x'{NEW_RAW}'\";"
PASS_OLD_SQL = f"PRAGMA key = '{OLD_PASS}'; PRAGMA kdf_iter = 4000;"
PASS_NEW_SQL = f"PRAGMA key = '{NEW_PASS}'; PRAGMA kdf_iter = 4000;"
CHECK_SQL = """
SELECT 'readable' FROM sqlite_master LIMIT 1;
PRAGMA wal_checkpoint(TRUNCATE);
PRAGMA cipher_integrity_check;
PRAGMA integrity_check;
SELECT 'journal:' || (SELECT journal_mode FROM pragma_journal_mode);
SELECT 'header:' || (SELECT user_version FROM pragma_user_version) || ',' || (SELECT application_id FROM pragma_application_id);
SELECT 'table:' || name || ':' || hex(sha3_query('SELECT * FROM ' || quote(name) || ' ORDER BY rowid'))
FROM sqlite_master WHERE type = 'table' ORDER BY name;
"""
RAW_KEY_FILE = re.compile(r"[0-9a-f]{64}\n?")
SALT_FILE = re.compile(r"[0-9a-f]{32}\n")


def shell(database, sql):
    result = subprocess.run(["sqlcipher", "-batch", "-bail", database], input=sql, text=True, capture_output=True)
    return result.returncode, result.stdout


def examine(database, key_sql):
    """(checksum, journal mode) of `database` opened with `key_sql`, read on a copy with its
    journal and WAL (so a hot journal is not rolled back in place); None when it does not
    open with every page and every row intact."""
    if not os.path.exists(database):
        return None
    scratch = tempfile.mkdtemp(prefix="examine-")
    try:
        copy = os.path.join(scratch, "db")
        for suffix in ("", "-journal", "-wal"):
            if os.path.exists(database + suffix):
                shutil.copyfile(database + suffix, copy + suffix)
        # A plaintext database has no cipher_integrity_check to answer.
        check = CHECK_SQL if key_sql else CHECK_SQL.replace("PRAGMA cipher_integrity_check;\n", "")
        code, out = shell(copy, key_sql + check)
        lines = out.splitlines()
        if code != 0 or "readable" not in lines or lines.count("ok") < (2 if key_sql else 1):
            return None
        journal = next((line[8:] for line in lines if line.startswith("journal:")), None)
        # The rows of every table and the header fields a change must keep.
        tables = "\n".join(line for line in lines if line.startswith("table:") or line.startswith("header:"))
        return tables, journal
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


class Database:
    """A database the path changes: `before` and `after` are the SQL that keys it in each
    state (None: the file is absent in that state); a callable gets the folder."""

    def __init__(self, name, before, after):
        self.name, self.before, self.after = name, before, after
        self.expected = {}

    def sql(self, which, folder):
        sql = self.before if which == "before" else self.after
        return sql(folder) if callable(sql) else sql

    def fingerprint(self, folder, which):
        sql = self.sql(which, folder)
        target = os.path.join(folder, self.name)
        if sql is None:
            return "absent" if not os.path.exists(target) else None
        found = examine(target, sql)
        return found[0] if found else None

    def learn(self, folder, which):
        self.expected[which] = self.fingerprint(folder, which)
        if self.expected[which] is None:
            raise SystemExit(f"faults: {self.name} is not readable in its {which} state")

    def state(self, folder):
        matches = [which for which in ("before", "after") if self.fingerprint(folder, which) == self.expected[which]]
        return matches[0] if len(matches) == 1 else "neither" if not matches else "both"

    def journal(self, folder):
        sql = self.sql("after", folder)
        found = examine(os.path.join(folder, self.name), sql) if sql is not None else None
        return found[1] if found else None


class RotatingDatabase(Database):
    """A database `rekey --low-space` rewrites in place: besides before and after, "half"
    while its progress record is beside it (pages under both keys, which only the same command
    finishes, or --undo rolls back)."""

    RECORD = ".cipherctl-rotation"

    def state(self, folder):
        if os.path.exists(os.path.join(folder, self.name + self.RECORD)):
            return "half"
        return super().state(folder)


class TextFile:
    """A file the path writes whole: absent before, matching `pattern` after."""

    def __init__(self, name, pattern):
        self.name, self.pattern = name, pattern

    def learn(self, folder, which):
        pass

    def state(self, folder):
        text = read_text(os.path.join(folder, self.name))
        if text is None:
            return "before"
        return "after" if self.pattern.fullmatch(text) else "neither"

    def journal(self, folder):
        return None


# SQLite3 Multiple Ciphers (the pinned apsw-sqlite3mc wheel of Scripts/bootstrap --test-tools),
# the oracle of the ChaCha20 files: `make PATH KEY ROWS [CIPHER]` writes one with its default
# scheme and a raw key (another cipher, such as aes128cbc, with KEY as its passphrase), `read
# PATH KEY` prints a ChaCha20 file's header fields and a digest of every table's rows.
INTEROP_PYTHON = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".build-interop", "bin", "python")
CHACHA_PROGRAM = """
import sys, hashlib, apsw
action, path, key = sys.argv[1], sys.argv[2], sys.argv[3]
c = apsw.Connection(path, flags=apsw.SQLITE_OPEN_READWRITE | (apsw.SQLITE_OPEN_CREATE if action == "make" else 0))
def run(sql, *args): return list(c.execute(sql, *args))
cipher = sys.argv[5] if action == "make" and len(sys.argv) > 5 else "chacha20"
run(f"PRAGMA cipher = '{cipher}'")
run(f"PRAGMA key = \\"x'{key}'\\"" if cipher == "chacha20" else f"PRAGMA key = '{key}'")
if action == "make":
    run("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL, payload BLOB)")
    run("CREATE INDEX t_name ON t(name)")
    with c:
        for i in range(1, int(sys.argv[4]) + 1): run("INSERT INTO t(name, score, payload) VALUES (?, ?, randomblob(240))", (f"row {i}", i * 0.5))
    run("PRAGMA user_version = 7")
    run("PRAGMA application_id = 1234")
else:
    print(run("PRAGMA integrity_check")[0][0])
    print("header:", run("PRAGMA user_version")[0][0], run("PRAGMA application_id")[0][0])
    for (name,) in run("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
        digest = hashlib.sha256(repr(run(f'SELECT * FROM "{name}" ORDER BY rowid')).encode()).hexdigest()
        print("table:", name, digest)
c.close()
"""


def chacha(action, path, key, *rest):
    return subprocess.run([INTEROP_PYTHON, "-c", CHACHA_PROGRAM, action, path, key] + list(rest), capture_output=True, text=True)


class ChaChaFile:
    """A SQLite3 Multiple Ciphers ChaCha20 file the path reads or writes: `before` and `after`
    are its raw key in each state (None: absent), read by SQLite3 Multiple Ciphers on a copy."""

    def __init__(self, name, before, after):
        self.name, self.before, self.after = name, before, after
        self.expected = {}

    def fingerprint(self, folder, which):
        key = self.before if which == "before" else self.after
        target = os.path.join(folder, self.name)
        if key is None:
            return "absent" if not os.path.exists(target) else None
        if not os.path.exists(target):
            return None
        scratch = tempfile.mkdtemp(prefix="examine-")
        try:
            copy = os.path.join(scratch, "db")
            shutil.copyfile(target, copy)
            result = chacha("read", copy, key)
            lines = result.stdout.splitlines()
            return result.stdout if result.returncode == 0 and lines and lines[0] == "ok" else None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def learn(self, folder, which):
        self.expected[which] = self.fingerprint(folder, which)
        if self.expected[which] is None:
            raise SystemExit(f"faults: {self.name} is not readable in its {which} state")

    def state(self, folder):
        matches = [which for which in ("before", "after") if self.fingerprint(folder, which) == self.expected[which]]
        return matches[0] if len(matches) == 1 else "neither" if not matches else "both"

    def journal(self, folder):
        return None


class Path:
    def __init__(self, name, title, arguments, units, make, journal="delete", idempotent=True, identical=(), rerun=None, batch=False,
                 undo=None):
        self.name, self.title = name, title
        self._arguments = arguments
        self.units = units
        self._make = make
        self.journal = journal
        self.idempotent = idempotent          # run again when already done, and expect exit 0
        self.identical = identical            # files byte for byte as they were after a failure
        self._rerun = rerun
        self.batch = batch                    # several databases, each failing or not on its own
        self.undo = undo                      # the command that rolls a half-rotated file back
        self.databases = {unit.name for unit in units} | set(identical)
        self.final_listing = []

    def environment(self):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp")}
        env.update(ENVIRONMENT)
        return env

    def arguments(self, folder):
        return list(self._arguments)

    def rerun_arguments(self, folder):
        return self._rerun(folder) if self._rerun else self.arguments(folder)

    @property
    def byte_identical_on_failure(self):
        return bool(self.identical)

    def make(self, folder, binary=None):
        """Makes the files, and learns both states from a reference run on a copy."""
        self._make(folder)
        for unit in self.units:
            unit.learn(folder, "before")
        reference = tempfile.mkdtemp(prefix="reference-")
        try:
            shutil.copytree(folder, reference, dirs_exist_ok=True)
            result = subprocess.run([binary or os.environ["CIPHERCTL_FAULTS_BINARY"]] + self.arguments(reference), cwd=reference,
                                    env=self.environment(), capture_output=True, text=True)
            if result.returncode != 0:
                raise SystemExit(f"faults: {self.name}: the reference run failed: {result.stderr.strip()}")
            for unit in self.units:
                unit.learn(reference, "after")
            self.final_listing = sorted(os.listdir(reference))
        finally:
            shutil.rmtree(reference, ignore_errors=True)

    def states(self, folder):
        return [unit.state(folder) for unit in self.units]

    def journal_mode(self, folder):
        modes = [unit.journal(folder) for unit in self.units if isinstance(unit, Database)]
        modes = [mode for mode in modes if mode is not None]
        return modes[0] if modes else None

    def changed_bytes(self, template, folder):
        changed = []
        for name in self.identical:
            with open(os.path.join(template, name), "rb") as a:
                old = a.read()
            try:
                with open(os.path.join(folder, name), "rb") as b:
                    new = b.read()
            except OSError:
                new = None
            if old != new:
                changed.append(name)
        return changed


def make_database(path, key_sql, rows, journal="delete", extra=""):
    code, _ = shell(path, f"""
{key_sql}
PRAGMA journal_mode = {journal};
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL, payload BLOB);
CREATE INDEX t_name ON t(name);
CREATE TABLE notes(body TEXT);
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {rows})
INSERT INTO t(name, score, payload) SELECT 'row ' || i, i * 0.5, randomblob(240) FROM n;
INSERT INTO notes VALUES ('a note'), (NULL);
COMMIT;
PRAGMA user_version = 7;
PRAGMA application_id = 1234;
{extra}
""")
    if code != 0:
        raise SystemExit(f"faults: the sqlcipher shell could not make {path}")


def catalog(rows):
    """Every path, by name."""
    def raw_db(name="db.db", journal="delete"):
        return lambda folder: make_database(os.path.join(folder, name), RAW_OLD_SQL, rows, journal)

    def two_chunk_db(folder):
        # More than the rotation's 1 MB chunk: a crash can leave a chunk under each key.
        make_database(os.path.join(folder, "db.db"), RAW_OLD_SQL, max(rows, 4500))

    def two_chunk_pass_db(folder):
        make_database(os.path.join(folder, "db.db"), PASS_OLD_SQL, max(rows, 4500))

    def pass_db(folder):
        make_database(os.path.join(folder, "db.db"), PASS_OLD_SQL, rows)

    def plain_db(folder):
        make_database(os.path.join(folder, "plain.db"), "", rows)

    def two_raw_dbs(folder):
        raw_db("a.db")(folder)
        raw_db("b.db")(folder)

    def salt_of(folder):
        with open(os.path.join(folder, "db.db"), "rb") as handle:
            return handle.read(16).hex()

    def header_db(folder):
        pass_db(folder)
        with open(os.path.join(folder, "salt.hex"), "w") as handle:
            handle.write(salt_of(folder) + "\n")
        moved = subprocess.run([os.environ["CIPHERCTL_FAULTS_BINARY"], "plaintext-header", "db.db", "--size", "32", "--key-env", "P",
                                "--kdf-iter", "4000", "--salt-file", "salt.hex", "--quiet"], cwd=folder, env=dict(os.environ, **ENVIRONMENT),
                               capture_output=True, text=True)
        if moved.returncode != 0:
            raise SystemExit("faults: could not make a plaintext-header database: " + moved.stderr)

    def header_sql(folder):
        return PASS_OLD_SQL + f" PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'{read_text(os.path.join(folder, 'salt.hex')).strip()}'\";"

    def salt_file_sql(name):
        def sql(folder):
            text = read_text(os.path.join(folder, name)) or ""
            return PASS_OLD_SQL + f" PRAGMA cipher_plaintext_header_size = 32; PRAGMA cipher_salt = \"x'{text.strip()}'\";"
        return sql

    def generated_key_sql(folder):
        text = (read_text(os.path.join(folder, "gen.key")) or "").strip()
        return f"PRAGMA key = \"x'{text}'\";" if RAW_KEY_FILE.fullmatch(text) else "PRAGMA key = 'no key file';"

    def generated_rerun(folder):
        if os.path.exists(os.path.join(folder, "gen.key")):
            return ["rekey", "db.db", "--key-env", "K", "--raw-key", "--new-key-file", "gen.key", "--new-raw-key"]
        return generate_arguments

    def with_csv(folder):
        raw_db()(folder)
        with open(os.path.join(folder, "people.csv"), "w") as handle:
            handle.write("id,name,city\n" + "".join(f"{i},person {i},city {i % 7}\n" for i in range(1, rows + 1)))

    def chacha_db(folder, cipher="chacha20"):
        if not os.access(INTEROP_PYTHON, os.X_OK):
            raise SystemExit("faults: the SQLite3 Multiple Ciphers paths need it: run Scripts/bootstrap --test-tools")
        made = chacha("make", os.path.join(folder, "mc.db"), OLD_RAW, str(rows), cipher)
        if made.returncode != 0:
            raise SystemExit("faults: SQLite3 Multiple Ciphers could not make mc.db: " + made.stderr)

    def aes_db(folder):
        chacha_db(folder, "aes128cbc")

    raw = ["--key-env", "K", "--raw-key"]
    raw_new = ["--new-key-env", "K2", "--new-raw-key"]
    raw_to = ["--to-key-env", "K2", "--to-raw-key"]
    passphrase = ["--key-env", "P", "--kdf-iter", "4000"]
    generate_arguments = ["rekey", "db.db"] + raw + ["--new-key-generate", "gen.key"]
    low_space_kdf = ["rekey", "db.db"] + passphrase + ["--new-key-env", "P2", "--new-kdf-iter", "8000", "--new-salt", "--low-space"]
    rekey_db = lambda before=RAW_OLD_SQL, after=RAW_NEW_SQL: [Database("db.db", before, after)]  # noqa: E731
    paths = [
        Path("rekey", "key-only rekey (page engine, copy and rename)", ["rekey", "db.db"] + raw + raw_new, rekey_db(), raw_db(),
             identical=["db.db"]),
        Path("rekey-in-place", "rekey --in-place (through the WAL, coalescing VFS)", ["rekey", "db.db"] + raw + raw_new + ["--in-place"],
             rekey_db(), raw_db()),
        Path("rekey-kdf", "rekey to a new KDF count (page engine)", ["rekey", "db.db"] + passphrase + ["--new-key-env", "P2", "--new-kdf-iter", "8000"],
             rekey_db(PASS_OLD_SQL, f"PRAGMA key = '{NEW_PASS}'; PRAGMA kdf_iter = 8000;"), pass_db, identical=["db.db"]),
        Path("rekey-salt", "rekey to a new salt (page engine)", ["rekey", "db.db"] + passphrase + ["--new-key-env", "P2", "--new-salt"],
             rekey_db(PASS_OLD_SQL, PASS_NEW_SQL), pass_db, identical=["db.db"]),
        Path("rekey-settings", "rekey to a new page size (sqlcipher_export)", ["rekey", "db.db"] + raw + raw_new + ["--new-page-size", "8192"],
             rekey_db(RAW_OLD_SQL, RAW_NEW_SQL + " PRAGMA cipher_page_size = 8192;"), raw_db(), identical=["db.db"]),
        Path("rekey-wal", "key-only rekey of a WAL database (page engine)", ["rekey", "db.db"] + raw + raw_new, rekey_db(),
             raw_db(journal="wal"), journal="wal"),
        Path("rekey-wal-in-place", "rekey --in-place of a WAL database", ["rekey", "db.db"] + raw + raw_new + ["--in-place"], rekey_db(),
             raw_db(journal="wal"), journal="wal"),
        Path("rekey-low-space", "rekey --low-space (in place under a progress record)", ["rekey", "db.db"] + raw + raw_new + ["--low-space"],
             [RotatingDatabase("db.db", RAW_OLD_SQL, RAW_NEW_SQL)], two_chunk_db, undo=["rekey", "db.db"] + raw + raw_new + ["--low-space", "--undo"]),
        Path("rekey-low-space-kdf", "rekey --low-space to a new salt and KDF count", low_space_kdf,
             [RotatingDatabase("db.db", PASS_OLD_SQL, f"PRAGMA key = '{NEW_PASS}'; PRAGMA kdf_iter = 8000;")], two_chunk_pass_db,
             undo=low_space_kdf + ["--undo"]),
        Path("rekey-batch", "rekey of two databases in one run", ["rekey", "a.db", "b.db"] + raw + raw_new,
             [Database("a.db", RAW_OLD_SQL, RAW_NEW_SQL), Database("b.db", RAW_OLD_SQL, RAW_NEW_SQL)], two_raw_dbs, batch=True),
        Path("rekey-generate", "rekey --new-key-generate", generate_arguments,
             [TextFile("gen.key", RAW_KEY_FILE), Database("db.db", RAW_OLD_SQL, generated_key_sql)], raw_db(), rerun=generated_rerun),
        Path("export", "export to a new key (page engine)", ["export", "db.db", "copy.db"] + raw + raw_to,
             [Database("copy.db", None, RAW_NEW_SQL)], raw_db(), idempotent=False, identical=["db.db"]),
        Path("export-plaintext", "decrypting export", ["export", "db.db", "plain.db"] + raw + ["--plaintext", "--quiet"],
             [Database("plain.db", None, "")], raw_db(), idempotent=False, identical=["db.db"]),
        Path("export-encrypt", "encrypting export of a plaintext database", ["export", "plain.db", "enc.db"] + raw_to,
             [Database("enc.db", None, RAW_NEW_SQL)], plain_db, idempotent=False, identical=["plain.db"]),
        Path("export-settings", "export to a new page size (sqlcipher_export)", ["export", "db.db", "copy.db"] + raw + raw_to + ["--to-page-size", "8192"],
             [Database("copy.db", None, RAW_NEW_SQL + " PRAGMA cipher_page_size = 8192;")], raw_db(), idempotent=False, identical=["db.db"]),
        Path("export-from-chacha20", "export of a SQLite3 Multiple Ciphers ChaCha20 file to SQLCipher", ["export", "mc.db", "copy.db"] + raw + raw_to,
             [Database("copy.db", None, RAW_NEW_SQL)], chacha_db, idempotent=False, identical=["mc.db"]),
        Path("export-from-aes128", "export of a wxSQLite3 AES-128 file (SQLite3 Multiple Ciphers) to SQLCipher",
             ["export", "mc.db", "copy.db", "--key-env", "K"] + raw_to, [Database("copy.db", None, RAW_NEW_SQL)], aes_db, idempotent=False,
             identical=["mc.db"]),
        Path("export-to-chacha20", "export to SQLite3 Multiple Ciphers' ChaCha20", ["export", "db.db", "mc.db"] + raw + raw_to + ["--to-family", "chacha20"],
             [ChaChaFile("mc.db", None, NEW_RAW)], raw_db(), idempotent=False, identical=["db.db"]),
        Path("plaintext-header", "plaintext-header --size 32 --salt-output", ["plaintext-header", "db.db", "--size", "32"] + passphrase + ["--salt-output", "db.salt"],
             [Database("db.db", PASS_OLD_SQL, salt_file_sql("db.salt"))], pass_db),
        Path("plaintext-header-remove", "plaintext-header --size 0", ["plaintext-header", "db.db", "--size", "0"] + passphrase + ["--salt-file", "salt.hex"],
             [Database("db.db", header_sql, PASS_OLD_SQL)], header_db, identical=["db.db"]),
        Path("salt-output", "salt --output", ["salt", "db.db"] + raw + ["--output", "salt.out"], [TextFile("salt.out", SALT_FILE)], raw_db(),
             idempotent=False, identical=["db.db"]),
        Path("import", "import of a csv file into a new table", ["import", "db.db", "people", "people.csv", "--format", "csv"] + raw,
             [Database("db.db", RAW_OLD_SQL, RAW_OLD_SQL)], with_csv, idempotent=False),
        Path("query-write", "query --write", ["query", "db.db"] + raw + ["--write", "UPDATE t SET name = name || '!' WHERE id % 2 = 0",
                                                                     "INSERT INTO notes VALUES ('written')"],
             [Database("db.db", RAW_OLD_SQL, RAW_OLD_SQL)], raw_db(), idempotent=False),
        Path("recover", "recover into a new database", ["recover", "db.db", "out.db"] + raw + raw_to,
             [Database("out.db", None, RAW_NEW_SQL)], raw_db(), idempotent=False, identical=["db.db"]),
        Path("keygen", "keygen --output", ["keygen", "--output", "new.key"], [TextFile("new.key", RAW_KEY_FILE)], lambda folder: None,
             idempotent=False),
    ]
    return {path.name: path for path in paths}
