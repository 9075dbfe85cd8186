"""The SQLite database: one file, WAL, one writer, schema migrations.

Readers use one connection per thread (WAL lets them read while the writer writes);
every write goes through the single writer connection under one lock, inside
`BEGIN IMMEDIATE`, so writes are serialised and a transaction sees the latest data.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def _binding_refusals(conn: sqlite3.Connection) -> None:
    """7 -> 8: a `no_quiero` now refuses for the whole team and `paso` facing a bet is "for
    my part" (RULES.md, seed 004 art. 10); every stored hand and live log said the old way
    (a `no_quiero` while the partner was still to answer) is said the new way, so that it
    settles and replays as it did (`scorer.engine.upgrade`). A row that does not replay is
    left as it was."""
    from scorer import engine
    from scorer.engine.upgrade import log_refusals, record_defined, record_refusals
    from scorer.storage.tables import _match_for, _without_score

    for table in conn.execute("SELECT id, header, current FROM tables").fetchall():
        try:
            rules, match = _match_for(json.loads(table["header"]))
            rows = conn.execute("SELECT n, record, log FROM hands WHERE table_id = ? ORDER BY n",
                                (table["id"],)).fetchall()
            for row in rows:
                stored = json.loads(row["record"])
                record = record_refusals(stored)
                log = json.loads(row["log"])
                new_log = log_refusals(rules, record["esku"], record["score"], log) if log else log
                if record is not stored or new_log != log:
                    conn.execute("UPDATE hands SET record = ?, log = ? WHERE table_id = ? AND n = ?",
                                 (json.dumps(record), json.dumps(new_log), table["id"], row["n"]))
                match.play(_without_score(record_defined(record)))  # an import stored as it came
            current = json.loads(table["current"])
            state = match.state()
            if state["winner"] is None and current.get("log"):
                eskus = current.get("eskus") or ()
                esku = eskus[-1] if eskus else state["esku"]
                log = log_refusals(rules, esku, tuple(state["score"]), current["log"])
                if log != current["log"]:
                    conn.execute("UPDATE tables SET current = ? WHERE id = ?",
                                 (json.dumps({**current, "log": log}), table["id"]))
        except (engine.MusError, ValueError, KeyError, TypeError):
            continue  # as it was: the table says what is wrong when it is opened


# Each migration takes the schema from version i to i + 1 (`PRAGMA user_version`): SQL
# statements, or a function of the connection for a change of the data.
MIGRATIONS: list[str | Callable[[sqlite3.Connection], None]] = [
    # 0 -> 1: tables, settled hands, idempotency keys, photos
    """
    CREATE TABLE tables (
        id          TEXT PRIMARY KEY,
        token       TEXT NOT NULL,
        watch_token TEXT NOT NULL,
        header      TEXT NOT NULL,           -- JSON: teams, players, rules, esku
        version     INTEGER NOT NULL,
        current     TEXT NOT NULL,           -- JSON: {"log": [...], "mus_rounds": n, "eskus"?: [seat, ...]}
        created     REAL NOT NULL,
        updated     REAL NOT NULL
    );
    CREATE TABLE hands (
        table_id    TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        n           INTEGER NOT NULL,        -- 1, 2, ...
        record      TEXT NOT NULL,           -- mus-hand/1 as played (with esku and score)
        settlement  TEXT NOT NULL,           -- mus-settlement/1
        log         TEXT NOT NULL,           -- the live action log, to undo a showdown
        mus_rounds  INTEGER NOT NULL DEFAULT 0,
        photo_id    TEXT,
        created     REAL NOT NULL,
        PRIMARY KEY (table_id, n)
    );
    CREATE TABLE ops (
        table_id    TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        client_id   TEXT NOT NULL,
        kind        TEXT NOT NULL,
        version     INTEGER,                 -- the table version this write produced
        response    TEXT,                    -- the JSON answer, for writes that keep one
        created     REAL NOT NULL,
        PRIMARY KEY (table_id, client_id)
    );
    CREATE TABLE photos (
        id          TEXT PRIMARY KEY,
        table_id    TEXT REFERENCES tables(id) ON DELETE CASCADE,
        mime        TEXT NOT NULL,
        data        BLOB NOT NULL,
        annotated   BLOB,
        scan        TEXT,
        created     REAL NOT NULL
    );
    CREATE INDEX photos_table ON photos(table_id);
    """,
    # 1 -> 2: more photos of one showdown; each names the first (NULL: it is the first)
    """
    ALTER TABLE photos ADD COLUMN first_id TEXT;
    CREATE INDEX photos_first ON photos(first_id);
    """,
    # 2 -> 3: tournaments (a club's league): a name, two tokens, and the tables played in it
    """
    CREATE TABLE tournaments (
        id          TEXT PRIMARY KEY,
        token       TEXT NOT NULL,           -- the organiser's: adds tables
        watch_token TEXT NOT NULL,           -- anyone's: reads the standings
        name        TEXT NOT NULL,
        teams       TEXT NOT NULL DEFAULT '[]',  -- JSON: the teams entered, for the fixtures
        created     REAL NOT NULL
    );
    CREATE TABLE tournament_tables (
        tournament_id TEXT NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
        table_id      TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
        added         REAL NOT NULL,
        PRIMARY KEY (tournament_id, table_id)
    );
    CREATE INDEX tournament_tables_table ON tournament_tables(table_id);
    """,
    # 3 -> 4: a league played home and away (2 legs) or once (1); the dates of its rounds
    # (JSON {"start": "YYYY-MM-DD", "every_days": n}) or NULL; its final stage (JSON
    # {"teams": [best seed first], "drawn": time}: the tables added since play it) or NULL
    """
    ALTER TABLE tournaments ADD COLUMN legs INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE tournaments ADD COLUMN schedule TEXT;
    ALTER TABLE tournaments ADD COLUMN knockout TEXT;
    """,
    # 4 -> 5: a league played in groups (JSON [[team, ...], ...], each group its own
    # fixtures and standings; `teams` holds them all) or NULL for one league
    """
    ALTER TABLE tournaments ADD COLUMN groups TEXT;
    """,
    # 5 -> 6: what a write asked for (a digest of its kind and body), so that a client_id
    # sent again with another request is refused rather than answered as a retry
    """
    ALTER TABLE ops ADD COLUMN digest TEXT;
    """,
    # 6 -> 7: how many times the organiser changed the tournament's settings (its name,
    # teams, final stage), so that a write made on an older view is refused, not lost
    """
    ALTER TABLE tournaments ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
    """,
    # 7 -> 8: the hands said with the old reading of `no_quiero`, said as they meant
    _binding_refusals,
    # 8 -> 9: when the organiser last changed the tournament (settings, tables added or
    # taken out), so that pruning idle tables keeps a tournament still being run
    """
    ALTER TABLE tournaments ADD COLUMN updated REAL NOT NULL DEFAULT 0;
    UPDATE tournaments SET updated = MAX(created, COALESCE(
        (SELECT MAX(added) FROM tournament_tables tt WHERE tt.tournament_id = tournaments.id), 0));
    """,
    # 9 -> 10: what the labels of a photo's annotated copy say (JSON: the players' names and
    # the cards the table holds, `web.photo_labels`), so that a copy drawn with others (a
    # card corrected since, players renamed; NULL: drawn with the reader's) is drawn again
    """
    ALTER TABLE photos ADD COLUMN labels TEXT;
    """,
    # 10 -> 11: a league's draw as made (JSON, `engine.tournament.Draw`; NULL: `round_robin`
    # of its teams, as drawn before), so that a change of the teams keeps the fixtures played;
    # the teams that withdrew (JSON [{"team", "results": "annulled" | "stand"}], NULL: none)
    """
    ALTER TABLE tournaments ADD COLUMN draw TEXT;
    ALTER TABLE tournaments ADD COLUMN withdrawn TEXT;
    """,
    # 11 -> 12: the tournament's rules (JSON, all five of `engine.Rules.to_json()`; NULL: the
    # defaults), which the tables opened from its page take and its tables are compared with
    """
    ALTER TABLE tournaments ADD COLUMN rules TEXT;
    """,
    # 12 -> 13: the results a tournament's organiser entered without hands (a match played on
    # paper, a walkover): JSON {"teams", "vacas", "stones", "walkover", "rules"}, each taking
    # its pairing as a finished table does (`storage.tournaments.check_result`)
    """
    CREATE TABLE tournament_results (
        tournament_id TEXT NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
        id            TEXT NOT NULL,
        result        TEXT NOT NULL,
        added         REAL NOT NULL,
        PRIMARY KEY (tournament_id, id)
    );
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)


def default_db_path() -> Path:
    """`$XDG_DATA_HOME/mus-scorer/mus.db` (`~/.local/share/mus-scorer/mus.db`)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "mus-scorer" / "mus.db"


class SchemaError(RuntimeError):
    """The database was written by a newer mus-scorer."""


class SchemaTooOld(SchemaError):
    """A database opened read-only was written by an older mus-scorer: reading it would
    need the upgrade, which writes the file."""

    def __init__(self, path: str, version: int) -> None:
        super().__init__(f"{path}: schema version {version} is older than this mus-scorer's ({SCHEMA_VERSION})")
        self.version = version


SQLITE_MAGIC = b"SQLite format 3\x00"


def not_a_database(path: str | os.PathLike[str], *, new_ok: bool = False) -> str | None:
    """Why the file at `path` holds no mus-scorer database, or None if it does. With
    `new_ok` (the server), a missing or empty file will do, and an SQLite file with nothing
    in it: the database is made there (another program's SQLite file will not)."""
    p = Path(path)
    if p.is_dir():
        return f"{p} is a folder, not a database file"
    if not p.exists():
        return None if new_ok else f"no database at {p}"
    try:
        with open(p, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as exc:
        return f"{p}: {exc.strerror or exc}"
    if not head:
        return None if new_ok else f"{p} is empty, not a mus-scorer database"
    if head != SQLITE_MAGIC:
        return f"{p} is not a mus-scorer database (not an SQLite file)"
    try:
        conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return f"{p}: cannot read the database ({exc})"
    if version == 0 and (tables or not new_ok):
        return f"{p} is an SQLite file but not a mus-scorer database"
    return None


def damaged(path: str | os.PathLike[str]) -> str | None:
    """What `PRAGMA quick_check(1)` finds wrong in the database file at `path` (read-only;
    its first problem, on one line), or None when it says "ok". A file damaged past its first
    pages opens, and fails only the queries that reach the damage. Each table is checked with
    its indexes but `photos`, whose megabytes a check would read in full at every start (the
    whole file's check took 2.6 s on a 135 MB database, these 0.13 s): a damaged photo fails
    only the reads of that photo, in the one error shape."""
    try:
        conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
        try:
            checks = [f"PRAGMA quick_check({_quoted(r[0])})" for r in conn.execute(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                "AND name != 'photos'")] or ["PRAGMA quick_check(1)"]  # no table: the file's own
            for check in checks:
                rows = conn.execute(check).fetchall()[:1]
                if [tuple(r) for r in rows] != [("ok",)]:
                    break
        finally:
            conn.close()
    except sqlite3.Error as exc:  # the damage met on the way; anything else (locked) is said on opening it
        return str(exc) if error_code(exc) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) else None
    said = " ".join(" ".join(str(r[0]) for r in rows).replace("*** in database main ***", "").split())
    return None if said == "ok" else (said[:200] or "quick_check said nothing")


def _quoted(name: str) -> str:
    return "'" + name.replace("'", "''") + "'"


BUSY_SECONDS = 30.0  # how long a write waits for another process's (`busy_timeout`)


def _wal(conn: sqlite3.Connection) -> None:
    """Put the file in WAL mode. Two processes opening a file not yet in WAL mode at once
    (a server starting while a prune runs) both ask to change it; the second is refused at
    once ("database is locked": a change of mode does not wait), and asks again once a read
    (which does wait) has found the file changed, which it then takes as it is."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if error_code(exc) != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
        time.sleep(0.02)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()


def error_code(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of `exc` (`sqlite3.SQLITE_BUSY`, `SQLITE_FULL`, ...),
    None when it carries none."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


class Database:
    """One SQLite file: a writer connection behind a lock, a reader per thread.

    `readonly`: every connection opened read-only (`mode=ro`), the file neither migrated
    (one of an older schema is refused: `SchemaTooOld`) nor put in WAL mode; `write` then
    gives a read transaction that is rolled back, in which any write fails.

    `":memory:"` keeps nothing: the database is a file in a folder of its own in the
    temporary folder, deleted on `close` (an in-memory SQLite database is its connection's
    own, and each reader thread would open another, empty one)."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = str(path)
        self.readonly = readonly
        self._scratch: str | None = None
        if readonly:
            self.file = self.path
        elif self.path == ":memory:":
            self._scratch = tempfile.mkdtemp(prefix="mus-scorer-db-")
            self.file = os.path.join(self._scratch, "mus.db")
        else:
            self.file = self.path  # the file SQLite reads and writes
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._wlock = threading.RLock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        try:
            self._writer = self._connect()
        except BaseException:
            self._drop_scratch()
            raise
        try:
            self._migrate()
        except BaseException:
            self._writer.close()
            self._drop_scratch()
            raise

    def _connect(self) -> sqlite3.Connection:
        if self.readonly:
            conn = sqlite3.connect(f"{Path(self.file).resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS,
                                   isolation_level=None, check_same_thread=False)
        else:
            conn = sqlite3.connect(self.file, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        if not self.readonly:
            _wal(conn)
        # FULL: in WAL mode, NORMAL keeps a commit across a process kill but may lose the last
        # ones to a power cut (the WAL is synced only at checkpoints); FULL syncs the WAL at
        # every commit, which a scoring app, writing a little at a time, can afford
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute(f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}")
        return conn

    def _migrate(self) -> None:
        """Bring the file to `SCHEMA_VERSION`, one step a transaction. The version is read
        again once the write lock is held: another process (a server starting while a prune
        runs) may have taken the file through some steps meanwhile, which are not run twice."""
        with self._wlock:
            conn = self._writer
            version = self._check_version(conn.execute("PRAGMA user_version").fetchone()[0])
            if self.readonly:
                if version < SCHEMA_VERSION:
                    raise SchemaTooOld(self.path, version)
                return
            if version >= SCHEMA_VERSION:  # nothing to do: no write lock to wait for
                return
            while True:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    current = self._check_version(conn.execute("PRAGMA user_version").fetchone()[0])
                    if current >= SCHEMA_VERSION:
                        conn.execute("COMMIT")
                        return
                    step = MIGRATIONS[current]
                    if callable(step):
                        step(conn)
                    else:
                        for stmt in step.split(";"):
                            if stmt.strip():
                                conn.execute(stmt)
                    conn.execute(f"PRAGMA user_version = {current + 1}")
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise

    def _check_version(self, version: int) -> int:
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"{self.path}: schema version {version} is newer than this mus-scorer ({SCHEMA_VERSION})"
            )
        return int(version)

    @property
    def schema_version(self) -> int:
        return int(self.reader().execute("PRAGMA user_version").fetchone()[0])

    def reader(self) -> sqlite3.Connection:
        """This thread's read connection."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            conn.execute("PRAGMA query_only=ON")
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """The writer connection inside `BEGIN IMMEDIATE`; commits, or rolls back on error.
        A commit that fails (the disk full, the file locked by another process past the busy
        timeout) is rolled back too, so that nothing of it is kept and the next write starts
        afresh; SQLite may have rolled back already (a full disk, an I/O error)."""
        with self._wlock:
            conn = self._writer
            if self.readonly:  # a read transaction, rolled back: nothing can be written in it
                conn.execute("BEGIN")
                try:
                    yield conn
                finally:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                return
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def locked_conn(self) -> sqlite3.Connection:
        """The writer connection, for reads made while holding `lock` (no extra connection per thread)."""
        return self._writer

    @property
    def lock(self) -> threading.RLock:
        """The writer lock (held by `write`); re-entrant."""
        return self._wlock

    def close(self) -> None:
        with self._readers_lock:
            for conn in self._readers:
                try:
                    conn.close()
                except sqlite3.ProgrammingError:  # closed from another thread's view
                    pass
            self._readers.clear()
        with self._wlock:
            self._writer.close()
        self._drop_scratch()

    def _drop_scratch(self) -> None:
        if self._scratch:  # ":memory:" kept nothing
            shutil.rmtree(self._scratch, ignore_errors=True)
