"""`mus-scorer prune`: old photos and idle tables out of the database, nothing else."""

from __future__ import annotations

import subprocess
import sys

import pytest

from scorer.storage import Database
from scorer.storage.prune import DAY, prune
from scorer.storage.tables import StoreError, TableStore

pytestmark = pytest.mark.webapi

DECK = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]
DEAL = [DECK[0:4], DECK[10:14], DECK[20:24], DECK[30:34]]
BIG = bytes(range(256)) * 4000  # ~1 MB of photo


def _to_showdown(store: TableStore, tid: str, prefix: str) -> None:
    for i in range(80):
        rt = store.runtime(tid)
        if rt.live.phase in ("showdown", "over"):
            return
        store.act(tid, f"{prefix}{i}", rt.version, rt.live.legal()[0])


def _aged(store: TableStore, days: float, photo_id: str | None = None, table_id: str | None = None) -> None:
    """Make a photo (or a table) look `days` old."""
    with store.db.write() as conn:
        if photo_id:
            conn.execute("UPDATE photos SET created = created - ? WHERE id = ?", (days * DAY, photo_id))
            conn.execute("UPDATE ops SET created = created - ? WHERE kind = 'photo'", (days * DAY,))
        if table_id:
            conn.execute("UPDATE tables SET updated = updated - ? WHERE id = ?", (days * DAY, table_id))


@pytest.fixture()
def store(tmp_path) -> TableStore:
    return TableStore(Database(tmp_path / "m.db"))


def test_old_photos_go_and_their_hands_stay(store: TableStore) -> None:
    tid = store.create({}).id
    _to_showdown(store, tid, "a")
    old, _ = store.add_photo(tid, "p-old", "image/jpeg", BIG, BIG[:1000], {"cards": []})
    new, _ = store.add_photo(tid, "p-new", "image/jpeg", BIG, BIG[:1000], {"cards": []})
    store.showdown(tid, "s1", store.runtime(tid).version, DEAL, old["photo_id"])
    _aged(store, 40, photo_id=old["photo_id"])
    settled = store.db.reader().execute("SELECT record, settlement FROM hands WHERE table_id = ?", (tid,)).fetchall()

    dry = prune(store.db, photos_days=30, dry_run=True)
    assert (dry.photos, dry.tables) == (1, 0) and dry.photo_bytes == len(BIG) + 1000
    assert store.photo(tid, old["photo_id"])[1] == BIG  # a dry run deletes nothing

    done = prune(store.db, photos_days=30, vacuum=True)
    assert (done.photos, done.tables) == (1, 0) and done.vacuumed and not done.checkpoint_blocked
    assert done.file_bytes_after < done.file_bytes_before - len(BIG) // 2  # the space is given back
    with pytest.raises(StoreError) as exc:
        store.photo(tid, old["photo_id"])
    assert exc.value.status == 404
    assert store.photo(tid, new["photo_id"])[1] == BIG
    rows = store.db.reader().execute("SELECT record, settlement, photo_id FROM hands WHERE table_id = ?",
                                     (tid,)).fetchall()
    assert [(r["record"], r["settlement"]) for r in rows] == [(r["record"], r["settlement"]) for r in settled]
    assert rows[0]["photo_id"] is None
    assert prune(store.db, photos_days=30).photos == 0  # nothing left to do


def test_vacuum_only_when_asked_and_a_blocked_checkpoint_is_said(store: TableStore) -> None:
    """VACUUM rewrites the whole file under the write lock (the server's writes waited 6-8 s
    on a 1.1 GB database): only with `vacuum`, which also gives back what earlier prunes
    freed. A checkpoint after it that another connection blocks is said, not taken for a
    smaller file."""
    import sqlite3

    tid = store.create({}).id
    for k in range(3):
        store.add_photo(tid, f"p{k}", "image/jpeg", BIG, None, {"cards": []})
    with store.db.write() as conn:
        conn.execute("UPDATE photos SET created = created - ?", (40 * DAY,))
    conn = store.db.locked_conn()
    done = prune(store.db, photos_days=30)
    assert done.photos == 3 and not done.vacuumed
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] > 2 * len(BIG) // 4096  # freed, not given back

    server = sqlite3.connect(store.db.path, isolation_level=None)  # a reader inside a read transaction
    server.execute("BEGIN")
    server.execute("SELECT count(*) FROM tables").fetchone()
    try:
        done = prune(store.db, photos_days=30, vacuum=True)  # nothing new to delete: the earlier space back
    finally:
        server.execute("COMMIT")
        server.close()
    assert done.photos == 0 and done.vacuumed and done.checkpoint_blocked
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30000  # the usual wait again
    done = prune(store.db, photos_days=30, vacuum=True)
    assert done.vacuumed and not done.checkpoint_blocked
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert done.file_bytes_after < 2 * len(BIG)


def test_the_command_says_when_the_server_kept_the_file_from_shrinking(tmp_path) -> None:
    import sqlite3

    db = tmp_path / "m.db"
    s = TableStore(Database(db))
    s.add_photo(s.create({}).id, "p", "image/jpeg", BIG, None, {"cards": []})
    s.db.close()
    server = sqlite3.connect(db, isolation_level=None)  # the server, reading
    server.execute("BEGIN")
    server.execute("SELECT count(*) FROM photos").fetchone()
    try:
        r = subprocess.run([sys.executable, "-m", "scorer", "prune", "--db", str(db), "--vacuum"],
                           capture_output=True, text=True, timeout=60)
    finally:
        server.execute("COMMIT")
        server.close()
    assert r.returncode == 0, r.stderr
    assert "VACUUM done, but another process (the server?) has the database open" in r.stdout
    assert f"{db}-wal" in r.stdout and "stop the server and run prune --vacuum again" in r.stdout


def test_idle_tables_go_only_when_asked(store: TableStore) -> None:
    idle, busy = store.create({}).id, store.create({}).id
    store.add_photo(idle, "p1", "image/jpeg", BIG, None, {"cards": []})
    _aged(store, 100, table_id=idle)
    assert prune(store.db, photos_days=None).tables == 0
    assert store.db.reader().execute("SELECT COUNT(*) FROM tables").fetchone()[0] == 2
    done = prune(store.db, photos_days=None, tables_days=90)
    assert (done.tables, done.photos) == (1, 1)
    ids = {r[0] for r in store.db.reader().execute("SELECT id FROM tables")}
    assert ids == {busy}
    assert store.db.reader().execute("SELECT COUNT(*) FROM photos").fetchone()[0] == 0


@pytest.mark.parametrize("days", [-1, float("nan"), "7"])
def test_bad_day_counts_are_refused_by_name(store: TableStore, days) -> None:
    with pytest.raises(ValueError, match="photos_days"):
        prune(store.db, photos_days=days)


def test_the_command(tmp_path) -> None:
    db = tmp_path / "m.db"
    s = TableStore(Database(db))
    tid = s.create({}).id
    photo, _ = s.add_photo(tid, "p", "image/jpeg", BIG, None, {"cards": []})
    _aged(s, 10, photo_id=photo["photo_id"])
    s.db.close()

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "scorer", "prune", "--db", str(db), *args],
                              capture_output=True, text=True, timeout=60)

    r = cli("--photos-days", "5", "--dry-run")
    assert r.returncode == 0 and "would delete 1 photo(s)" in r.stdout
    r = cli("--photos-days", "30")
    assert r.returncode == 0 and "deleted 0 photo(s)" in r.stdout
    r = cli("--photos-days", "5")
    assert r.returncode == 0 and "deleted 1 photo(s) (1.0 MB), 0 table(s) and 0 tournament(s)" in r.stdout
    assert "file size" in r.stdout and "--vacuum, with the server stopped, gives it back" in r.stdout
    r = cli("--vacuum")
    assert r.returncode == 0 and "(VACUUM done)" in r.stdout
    assert float(r.stdout.split("-> ")[1].split(" MB")[0]) < 0.5  # the photo's megabyte given back
    help_text = subprocess.run([sys.executable, "-m", "scorer", "prune", "--help"], capture_output=True, text=True,
                               timeout=60).stdout
    assert "--vacuum" in help_text and "stop the" in help_text and "server first" in help_text
    r = cli("--photos-days", "-3")
    assert r.returncode == 2 and "photos_days" in r.stderr
    r = subprocess.run([sys.executable, "-m", "scorer", "prune", "--db", str(tmp_path / "none.db")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "no database" in r.stderr


def test_the_photos_of_one_showdown_go_with_the_first(store: TableStore) -> None:
    tid = store.create({}).id
    first, _ = store.add_photo(tid, "p1", "image/jpeg", BIG, None, {"cards": []})
    second, _ = store.add_photo(tid, "p2", "image/jpeg", BIG, None, {"cards": []}, with_id=first["photo_id"])
    alone, _ = store.add_photo(tid, "p3", "image/jpeg", BIG, None, {"cards": []})
    _aged(store, 40, photo_id=first["photo_id"])  # the second was taken a moment later: still young
    assert prune(store.db, photos_days=30, dry_run=True).photos == 2
    assert prune(store.db, photos_days=30).photos == 2
    for gone in (first, second):
        with pytest.raises(StoreError):
            store.photo(tid, gone["photo_id"])
    assert store.photo(tid, alone["photo_id"])[1] == BIG


def test_a_tournament_nobody_runs_goes_and_one_still_run_keeps_all_its_tables(store: TableStore) -> None:
    """A league whose round-1 table finished long ago while round 5 was played yesterday
    keeps that table (its standings need it); a cup created long ago and renamed today,
    with no table yet, stays; a tournament neither its organiser nor its tables touched
    for the whole cut goes, with its idle tables."""
    from scorer.storage.tournaments import TournamentStore

    tours = TournamentStore(store.db, store)
    lone, round1, round5 = (store.create({}).id for _ in range(3))
    gone = tours.create({"name": "Old league, idle tables"})
    league = tours.create({"name": "League, round 5 played yesterday"})
    cup = tours.create({"name": "Cup, no table yet"})
    tours.add_table(gone["id"], lone)
    tours.add_table(league["id"], round1)
    tours.add_table(league["id"], round5)
    _aged(store, 100, table_id=lone)
    _aged(store, 100, table_id=round1)
    with store.db.write() as conn:
        conn.execute("UPDATE tournaments SET created = created - ?, updated = updated - ?", (100 * DAY, 100 * DAY))
    tours.rename(cup["id"], {"name": "Spring cup"})  # the organiser, today
    dry = prune(store.db, photos_days=None, tables_days=90, dry_run=True)
    assert (dry.tables, dry.tournaments) == (1, 1)
    assert store.db.reader().execute("SELECT COUNT(*) FROM tournaments").fetchone()[0] == 3
    done = prune(store.db, photos_days=None, tables_days=90)
    assert (done.tables, done.tournaments) == (1, 1)
    ids = {r[0] for r in store.db.reader().execute("SELECT id FROM tournaments")}
    assert ids == {league["id"], cup["id"]}
    assert sorted(tours.table_ids(league["id"])) == sorted([round1, round5])
    assert len(tours.state(league["id"])["matches"]) == 2
    with pytest.raises(StoreError):
        store.runtime(lone)
    assert prune(store.db, photos_days=None).tournaments == 0  # only with tables_days
    # once nobody runs the league either, it goes with both its tables
    _aged(store, 100, table_id=round5)
    with store.db.write() as conn:
        conn.execute("UPDATE tournaments SET updated = updated - ? WHERE id = ?", (100 * DAY, league["id"]))
    done = prune(store.db, photos_days=None, tables_days=90)
    assert (done.tables, done.tournaments) == (2, 1)


def test_an_organisers_change_counts_as_running_the_tournament(store: TableStore) -> None:
    from scorer.storage.tournaments import TournamentStore

    tours = TournamentStore(store.db, store)
    tid = tours.create({"name": "League"})["id"]
    table = store.create({}).id

    def updated() -> float:
        return store.db.reader().execute("SELECT updated FROM tournaments WHERE id = ?", (tid,)).fetchone()[0]

    def aged() -> float:
        with store.db.write() as conn:
            conn.execute("UPDATE tournaments SET updated = updated - ? WHERE id = ?", (100 * DAY, tid))
        return updated()

    for change in (lambda: tours.rename(tid, {"name": "League 2027"}),
                   lambda: tours.set_teams(tid, {"teams": ["A", "B", "C", "D"]}),
                   lambda: tours.add_table(tid, table),
                   lambda: tours.remove_table(tid, table)):
        before = aged()
        change()
        assert updated() > before + 99 * DAY


@pytest.mark.parametrize("command", [["prune", "--dry-run"], ["export-photos", "out"]])
@pytest.mark.parametrize("content, says", [
    (b"", "is empty, not a mus-scorer database"),
    (b"\xf4\x01 not a database at all", "is not a mus-scorer database (not an SQLite file)"),
    (None, "is a folder, not a database file"),
    ("other", "is an SQLite file but not a mus-scorer database"),
])
def test_a_file_that_is_no_database_is_named_and_left_alone(tmp_path, command, content, says) -> None:
    db = tmp_path / "x.db"
    if content is None:
        db.mkdir()
    elif content == "other":
        import sqlite3

        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE notes (text TEXT)")
        conn.close()
    else:
        db.write_bytes(content)
    before = None if content is None else db.read_bytes()
    r = subprocess.run([sys.executable, "-m", "scorer", *command, "--db", str(db)], capture_output=True, text=True,
                       timeout=60, cwd=tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"{db} {says}" in r.stderr
    assert content is None or db.read_bytes() == before  # not made into a database, even by a dry run


@pytest.mark.parametrize("other_sqlite, says", [
    (False, "is not a mus-scorer database (not an SQLite file)"),
    (True, "is an SQLite file but not a mus-scorer database"),
])
def test_serve_refuses_a_file_that_is_no_database(tmp_path, other_sqlite, says) -> None:
    db = tmp_path / "notes.db"
    if other_sqlite:  # another program's: serve would have written its tables into it
        import sqlite3

        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE notes (text TEXT)")
        conn.close()
    else:
        db.write_text("shopping list")
    before = db.read_bytes()
    r = subprocess.run([sys.executable, "-m", "scorer", "serve", "--db", str(db), "--port", "0", "--no-qr"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert says in r.stderr
    assert db.read_bytes() == before


def test_serve_takes_an_sqlite_file_with_nothing_in_it(tmp_path) -> None:
    import sqlite3

    from scorer.storage.db import not_a_database

    db = tmp_path / "new.db"
    sqlite3.connect(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 0")
        conn.execute("CREATE TABLE t (x)")
        conn.execute("DROP TABLE t")
    conn.close()
    assert db.stat().st_size > 0
    assert not_a_database(db, new_ok=True) is None
    assert "not a mus-scorer database" in not_a_database(db)


@pytest.mark.parametrize("command", [["prune", "--dry-run"], ["export-photos", "out"]])
def test_a_dry_run_and_an_export_leave_the_file_as_it_is(tmp_path, command) -> None:
    """They read, so they open the file read-only: one of an older schema is no longer
    upgraded by them (a version-5 file came out at version 8) but refused with the command
    that upgrades it; once upgraded, they read it and its bytes stay the same."""
    import sqlite3

    from scorer.storage.db import MIGRATIONS, SCHEMA_VERSION

    db = tmp_path / "v5.db"
    conn = sqlite3.connect(db)
    for script in MIGRATIONS[:5]:
        script(conn) if callable(script) else conn.executescript(script)
    conn.execute("PRAGMA user_version = 5")
    conn.commit()
    conn.close()
    before = db.read_bytes()

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "scorer", *args, "--db", str(db)], capture_output=True,
                              text=True, timeout=60, cwd=tmp_path)

    r = cli(*command)
    assert r.returncode == 1 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert f"{db}: schema version 5 is older than this mus-scorer's ({SCHEMA_VERSION})" in r.stderr
    assert f"mus-scorer prune --keep-photos --db {db}" in r.stderr
    assert db.read_bytes() == before  # not migrated, not put in WAL mode

    assert cli("prune", "--keep-photos").returncode == 0  # the upgrade it names deletes nothing
    s = TableStore(Database(db))
    assert s.db.schema_version == SCHEMA_VERSION
    s.create({})
    s.db.close()
    before = db.read_bytes()
    r = cli(*command)
    assert r.returncode == 0, r.stderr
    assert db.read_bytes() == before
