"""`mus-scorer prune [--db FILE] [--photos-days N] [--tables-days N] [--dry-run] [--vacuum]`.

Deletes showdown photos older than N days (30 by default; the hands keep their record
and settlement) and, only when `--tables-days` is given, the tables not written for that
long (but those of a tournament still run) and the tournaments nobody ran for as long. The space freed is reused by
new data; `--vacuum` gives it back to the disk (`VACUUM` rewrites the whole file, and the
server's writes wait meanwhile: stop the server first). Stop the server before pruning
tables too: it keeps the tables it serves in memory.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options."""
    parser.add_argument("--db", default=None, help="SQLite file (default $XDG_DATA_HOME/mus-scorer/mus.db)")
    parser.add_argument("--photos-days", type=float, default=30.0,
                        help="delete photos older than this many days (default 30)")
    parser.add_argument("--keep-photos", action="store_true", help="delete no photo for their age")
    parser.add_argument("--tables-days", type=float, default=None,
                        help="also delete the tables not written for this many days, with their hands (but those "
                        "of a tournament still run), and the tournaments nobody ran for as long (default: keep)")
    parser.add_argument("--vacuum", action="store_true",
                        help="then give the space freed (now and by earlier prunes) back to the disk: VACUUM rewrites "
                        "the whole file, and the server's writes wait meanwhile (seconds on a big database): stop the "
                        "server first")
    parser.add_argument("--dry-run", action="store_true",
                        help="say what would go, delete nothing (the file is opened read-only and left as it is)")


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def run(args: argparse.Namespace) -> int:
    import sqlite3

    from scorer.commands._db import database_problem, open_database
    from scorer.storage.prune import prune

    if (opened := open_database("prune", args.db, "a dry run" if args.dry_run else None)) is None:
        return 1
    path, db = opened
    try:
        done = prune(db, None if args.keep_photos else args.photos_days, args.tables_days, args.dry_run,
                     vacuum=args.vacuum)
    except ValueError as exc:
        print(f"mus-scorer prune: {exc}", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:  # corrupt past the pages checked on opening, locked, the disk full
        print(database_problem("prune", path, exc), file=sys.stderr)
        return 1
    finally:
        db.close()
    verb = "would delete" if args.dry_run else "deleted"
    print(f"{path}: {verb} {done.photos} photo(s) ({_mb(done.photo_bytes)}), {done.tables} table(s) "
          f"and {done.tournaments} tournament(s)")
    if args.dry_run:
        return 0
    sizes = f"file size {_mb(done.file_bytes_before)} -> {_mb(done.file_bytes_after)}"
    if not done.vacuumed:
        print(f"{sizes} (the space freed is reused by new data; --vacuum, with the server stopped, gives it back "
              "to the disk)")
    elif done.checkpoint_blocked:
        print(f"{sizes}: VACUUM done, but another process (the server?) has the database open and kept the "
              f"rewritten file in {path}-wal: it shrinks once that process checkpoints or closes it; stop the "
              "server and run prune --vacuum again to be sure")
    else:
        print(f"{sizes} (VACUUM done)")
    return 0
