"""What the commands that work on the database (`export-photos`, `prune`) share: opening it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scorer.storage.db import Database


def open_database(command: str, db: str | None) -> tuple[Path, Database] | None:
    """The mus-scorer database at `db` (None: `default_db_path()`), opened, with its path;
    None after printing why on standard error (`mus-scorer COMMAND: why`): no mus-scorer
    database there, or one written by a newer mus-scorer."""
    from scorer.storage.db import Database, SchemaError, default_db_path, not_a_database

    path = Path(db) if db else default_db_path()
    if why := not_a_database(path):
        print(f"mus-scorer {command}: {why}", file=sys.stderr)
        return None
    try:
        return path, Database(path)
    except SchemaError as exc:
        print(f"mus-scorer {command}: {exc}", file=sys.stderr)
        return None
