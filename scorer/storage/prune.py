"""Housekeeping: old showdown photos (and, if asked, long-idle tables) out of the database.

A 12 MP photo and its annotated copy weigh several megabytes, and a match can keep one a
hand; a club's server grows by hundreds of megabytes a week. `prune` deletes the photos
older than a number of days (the hands that cited them keep their record and settlement,
with no photo), the idempotency keys as old, and, only when asked, the tables idle that
long with all they hold, and the tournaments nobody ran for as long (a tournament is run
while its organiser changes it or any of its tables is written: its tables all stay then,
however old, as its standings count them). The pages freed
are reused by new data; only `vacuum` gives them back to the file system (`VACUUM`, which
rewrites the whole file and holds the write lock meanwhile: the server's writes wait,
seconds on a big database, so stop the server first).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from scorer.engine.errors import said
from scorer.storage.db import BUSY_SECONDS, Database

DAY = 86400.0
CHECKPOINT_WAIT_MS = 2000  # how long the checkpoint after a VACUUM waits on other connections


@dataclass(frozen=True)
class Pruned:
    """What `prune` removed (or, in a dry run, would remove)."""

    photos: int
    photo_bytes: int
    tables: int
    file_bytes_before: int
    file_bytes_after: int
    tournaments: int = 0
    vacuumed: bool = False  # VACUUM ran (asked for, not a dry run)
    # the checkpoint after it was blocked by another connection (the server): the rewritten
    # database is still in the write-ahead log, and the file has not shrunk yet
    checkpoint_blocked: bool = False


def _check_days(name: str, days: float | None) -> None:
    if days is not None and (not isinstance(days, (int, float)) or days != days or days < 0):
        raise ValueError(f"{name}: expected a number of days >= 0, got {said(days)}")


def prune(db: Database, photos_days: float | None = 30, tables_days: float | None = None,
          dry_run: bool = False, now: float | None = None, vacuum: bool = False) -> Pruned:
    """Delete photos older than `photos_days` and, if `tables_days` is given, the tables
    not written for that long (their hands and photos with them), but those of a tournament
    still run, and the tournaments nobody ran for that long. `None` keeps them all. With `vacuum`,
    then `VACUUM` (the space freed now and by earlier prunes back to the file system) and a
    checkpoint that folds the write-ahead log into the file; whether another connection
    blocked it is in `checkpoint_blocked`."""
    _check_days("photos_days", photos_days)
    _check_days("tables_days", tables_days)
    now = time.time() if now is None else now
    photo_cut = now - photos_days * DAY if photos_days is not None else None
    table_cut = now - tables_days * DAY if tables_days is not None else None
    # a tournament is still run while the organiser or any of its tables wrote since the cut;
    # a table goes when idle that long and enrolled in no tournament still run
    live = ("(tournaments.updated >= :table_cut OR EXISTS (SELECT 1 FROM tournament_tables tt JOIN tables t "
            "ON t.id = tt.table_id WHERE tt.tournament_id = tournaments.id AND t.updated >= :table_cut))")
    idle_table = (f"{{t}}.updated < :table_cut AND NOT EXISTS (SELECT 1 FROM tournament_tables tt JOIN tournaments "
                  f"ON tournaments.id = tt.tournament_id WHERE tt.table_id = {{t}}.id AND {live})")
    # a photo goes when it is old (the photos of one showdown with its first), or when its table goes
    where = " OR ".join(
        w for w, cut in (("COALESCE((SELECT f.created FROM photos f WHERE f.id = p.first_id), p.created) < :photo_cut",
                          photo_cut),
                         (f"({idle_table.format(t='t')})", table_cut)) if cut is not None
    ) or "0"
    args = {"photo_cut": photo_cut, "table_cut": table_cut}
    before = _file_bytes(db)
    with db.write() as conn:
        row = conn.execute(
            "SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(p.data) + COALESCE(LENGTH(p.annotated), 0)), 0) AS bytes "
            f"FROM photos p JOIN tables t ON t.id = p.table_id WHERE {where}", args).fetchone()
        idle = f"FROM tables WHERE {idle_table.format(t='tables')}"
        tables = conn.execute(f"SELECT COUNT(*) {idle}", args).fetchone()[0] if table_cut is not None else 0
        # a tournament nobody has run since the cut: neither its organiser nor its tables
        empty = f"FROM tournaments WHERE NOT {live}"
        tournaments = conn.execute(f"SELECT COUNT(*) {empty}", args).fetchone()[0] if table_cut is not None else 0
        if not dry_run:
            if table_cut is not None:
                conn.execute(f"DELETE {idle}", args)  # hands, ops, photos and enrolments cascade
                conn.execute(f"DELETE {empty}", args)
            if photo_cut is not None:
                conn.execute("UPDATE hands SET photo_id = NULL WHERE photo_id IN "
                             "(SELECT id FROM photos WHERE created < ?)", (photo_cut,))
                conn.execute("DELETE FROM photos WHERE first_id IN (SELECT id FROM photos WHERE created < ?)",
                             (photo_cut,))
                conn.execute("DELETE FROM photos WHERE created < ?", (photo_cut,))
                conn.execute("DELETE FROM ops WHERE created < ?", (photo_cut,))
    vacuumed = blocked = False
    if vacuum and not dry_run and db.path != ":memory:":
        with db.lock:  # VACUUM writes the new file through the WAL: fold it in after
            conn = db.locked_conn()
            conn.execute("VACUUM")
            vacuumed = True
            # a checkpoint waiting on readers holds off new writers: wait a little, then say so
            conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")
            try:
                blocked = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 1
            finally:
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
    return Pruned(int(row["n"]), int(row["bytes"]), int(tables), before, _file_bytes(db), int(tournaments),
                  vacuumed, blocked)


def _file_bytes(db: Database) -> int:
    """The database file and its WAL, in bytes."""
    if db.path == ":memory:":
        return 0
    return sum(os.path.getsize(p) for p in (db.path, db.path + "-wal") if os.path.exists(p))
