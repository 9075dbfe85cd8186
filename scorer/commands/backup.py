"""`mus-scorer backup OUT.db [--db FILE] [--force]`.

A copy of the database that holds everything committed, safe while the server runs.
Copying `mus.db` with `cp` is not: what was written lately sits in `mus.db-wal` until it
is folded into the file, so the copy may lack it, or hold no table at all. This copies
through SQLite (`Connection.backup`, one read transaction on the source: the server's
writes go on meanwhile) into `OUT.db.part`, checks the copy (`PRAGMA quick_check`), makes
it one self-contained file (no `-wal` beside it) and only then names it `OUT.db`.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options."""
    parser.add_argument("out", metavar="OUT.db", help="the copy to write (refused if it exists, unless --force)")
    parser.add_argument("--db", default=None, help="SQLite file (default $XDG_DATA_HOME/mus-scorer/mus.db)")
    parser.add_argument("--force", action="store_true", help="replace OUT.db if it exists")


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def run(args: argparse.Namespace) -> int:
    import os
    import sqlite3
    from pathlib import Path

    from scorer.storage.db import BUSY_SECONDS, default_db_path, not_a_database

    src = Path(args.db) if args.db else default_db_path()
    out = Path(args.out)
    if why := not_a_database(src):
        print(f"mus-scorer backup: {why}", file=sys.stderr)
        return 1
    if out.is_dir():
        print(f"mus-scorer backup: {out} is a folder: name the file to write", file=sys.stderr)
        return 1
    if out.exists() and out.resolve() == src.resolve():
        print(f"mus-scorer backup: {out} is the database itself: name another file", file=sys.stderr)
        return 1
    if out.exists() and not args.force:
        print(f"mus-scorer backup: {out} exists: name another file, or give --force to replace it", file=sys.stderr)
        return 1
    part = out.with_name(out.name + ".part")
    for leftover in (part, Path(f"{part}-wal"), Path(f"{part}-journal")):
        leftover.unlink(missing_ok=True)  # an earlier backup's, cut short
    try:
        source = sqlite3.connect(f"{src.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_SECONDS)
        try:
            copy = sqlite3.connect(part)
            try:
                source.backup(copy)  # all pages in one step: one snapshot, whatever the server writes meanwhile
                copy.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal to carry beside it
                check = copy.execute("PRAGMA quick_check(1)").fetchone()[0]
                version = copy.execute("PRAGMA user_version").fetchone()[0]
                counts = {name: copy.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
                          for name in ("tables", "tournaments", "photos")
                          if copy.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                          (name,)).fetchone()}
            finally:
                copy.close()
        finally:
            source.close()
        if check != "ok":
            print(f"mus-scorer backup: {src}: the database is damaged ({' '.join(str(check).split())[:200]}): "
                  f"no backup written", file=sys.stderr)
            part.unlink(missing_ok=True)
            return 1
        os.replace(part, out)
    except sqlite3.Error as exc:  # the source locked or unreadable, the disk full
        part.unlink(missing_ok=True)
        print(f"mus-scorer backup: cannot back up {src} to {out}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        part.unlink(missing_ok=True)
        print(f"mus-scorer backup: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    held = ", ".join(f"{n} {name[:-1]}(s)" for name, n in counts.items())
    print(f"{out}: {_mb(out.stat().st_size)}, a copy of {src} (schema version {version}; {held}; quick_check ok)")
    return 0
