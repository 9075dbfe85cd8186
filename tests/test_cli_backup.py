"""`mus-scorer backup OUT.db`: a copy that holds everything committed, taken while the
server runs (`cp mus.db` copied a file whose data sat in `mus.db-wal`: no table at all)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.storage import SCHEMA_VERSION, Database
from scorer.storage.tables import TableStore

pytestmark = pytest.mark.webapi

ROOT = Path(__file__).resolve().parents[1]


def backup(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "scorer", "backup", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert proc.stderr.startswith("mus-scorer backup: ") and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


def test_a_backup_taken_while_the_server_writes_holds_every_table(tmp_path: Path) -> None:
    """The server open (what it wrote still in the -wal file) and another connection in the
    middle of a write: the copy is one file that opens on its own and holds every table
    committed, as the server reads them, and nothing uncommitted."""
    db = tmp_path / "mus.db"
    store = TableStore(Database(db))  # the running server
    ids = [store.create({"teams": [f"Team {n}", "Other"]}).id for n in range(12)]
    rt = store.runtime(ids[0])
    store.act(ids[0], "a1", rt.version, rt.live.legal()[0])
    assert os.path.getsize(f"{db}-wal") > 0  # the data is (also) in the WAL
    writer = sqlite3.connect(db, isolation_level=None)  # a write under way, not committed
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE tables SET header = '{}' WHERE id = ?", (ids[1],))
    writer.execute("DELETE FROM tables WHERE id = ?", (ids[2],))
    try:
        r = backup(str(tmp_path / "copy.db"), "--db", str(db))
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert r.returncode == 0, r.stderr
    out = tmp_path / "copy.db"
    assert r.stdout == (f"{out}: {out.stat().st_size / 1e6:.1f} MB, a copy of {db} (schema version {SCHEMA_VERSION}; "
                        "12 table(s), 0 tournament(s), 0 photo(s); quick_check ok)\n")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == ["copy.db"]  # no -wal, no .part
    names = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
    with sqlite3.connect(out) as plain:  # every table of the schema, as SQLite alone reads the file
        assert plain.execute(names).fetchall() == [tuple(r) for r in store.db.reader().execute(names)]
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    plain.close()
    copy = TableStore(Database(out))
    for tid in ids:
        assert copy.runtime(tid).state_json() == store.runtime(tid).state_json()
    copy.db.close()
    store.db.close()


def test_an_existing_file_is_kept_unless_forced(tmp_path: Path) -> None:
    db = tmp_path / "mus.db"
    store = TableStore(Database(db))
    store.create({})
    store.db.close()
    out = tmp_path / "old-backup.db"
    out.write_bytes(b"last week's backup")
    err = one_line(backup(str(out), "--db", str(db)))
    assert f"{out} exists: name another file, or give --force to replace it" in err
    assert out.read_bytes() == b"last week's backup"
    r = backup(str(out), "--db", str(db), "--force")
    assert r.returncode == 0 and "1 table(s)" in r.stdout
    assert sqlite3.connect(out).execute("SELECT count(*) FROM tables").fetchone()[0] == 1


@pytest.mark.parametrize("case", ["itself", "folder", "no database"])
def test_what_cannot_be_backed_up_is_one_line(tmp_path: Path, case: str) -> None:
    db = tmp_path / "mus.db"
    if case != "no database":
        store = TableStore(Database(db))
        store.create({})
        store.db.close()
    out = {"itself": db, "folder": tmp_path, "no database": tmp_path / "copy.db"}[case]
    err = one_line(backup(str(out), "--db", str(db), "--force"))
    assert {"itself": "is the database itself", "folder": "is a folder",
            "no database": f"no database at {db}"}[case] in err
