"""What the commands that work on the database (`export-photos`, `prune`) share: opening it,
and saying why it failed."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scorer.storage.db import Database


def open_database(command: str, db: str | None, read_only: str | None = None) -> tuple[Path, Database] | None:
    """The mus-scorer database at `db` (None: `default_db_path()`), opened, with its path;
    None after printing why on standard error (`mus-scorer COMMAND: why`): no mus-scorer
    database there, one damaged (`PRAGMA quick_check`), or one written by a newer mus-scorer.
    With `read_only` (what reads it, as in "a dry run"), the file is opened read-only and left
    exactly as it is: one of an older schema, which only an upgrade (a write) would let this
    mus-scorer read, is refused with the command that upgrades it."""
    from scorer.storage.db import (
        Database,
        SchemaError,
        SchemaTooOld,
        damaged,
        default_db_path,
        not_a_database,
    )

    path = Path(db) if db else default_db_path()
    if why := not_a_database(path):
        print(f"mus-scorer {command}: {why}", file=sys.stderr)
        return None
    if why := damaged(path):  # a file damaged past its first pages answered a dry run as empty
        print(f"mus-scorer {command}: {path}: cannot use the database (it is damaged: {why}; restore it from a "
              "backup)", file=sys.stderr)
        return None
    try:
        return path, Database(path, readonly=read_only is not None)
    except SchemaTooOld as exc:
        print(f"mus-scorer {command}: {exc}, and {read_only} leaves the file as it is: upgrade it first (start "
              f"`mus-scorer serve` on it once, or run `mus-scorer prune --keep-photos --db {path}`, which deletes "
              "nothing), then run this again", file=sys.stderr)
        return None
    except SchemaError as exc:
        print(f"mus-scorer {command}: {exc}", file=sys.stderr)
        return None
    except sqlite3.Error as exc:  # locked, or unreadable past its first page
        print(database_problem(command, path, exc), file=sys.stderr)
        return None


def database_problem(command: str, path: Path, exc: sqlite3.Error) -> str:
    """The line that says why the database at `path` failed the command (`exc`: corrupt
    past the pages checked on opening, locked, read-only, the disk full)."""
    return f"mus-scorer {command}: {path}: cannot use the database ({exc})"
