"""The SQLite store behind the web app: tables, hand logs, settled hands, photos, tournaments."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from scorer.storage.db import SCHEMA_VERSION, Database, SchemaError, default_db_path

if TYPE_CHECKING:
    from scorer.storage.tables import TableStore

__all__ = ["SCHEMA_VERSION", "Database", "SchemaError", "default_db_path", "open_store"]


def open_store(path: str | os.PathLike[str]) -> TableStore:
    """A `TableStore` on the database at `path` (created and migrated as needed)."""
    from scorer.storage.tables import TableStore  # imports the engine

    return TableStore(Database(path))
