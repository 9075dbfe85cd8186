"""The SQLite store behind the web app: tables, hand logs, settled hands, photos."""

from scorer.storage.db import SCHEMA_VERSION, Database, SchemaError, default_db_path

__all__ = ["SCHEMA_VERSION", "Database", "SchemaError", "default_db_path", "open_store"]


def open_store(path):  # noqa: ANN001, ANN201 - imported lazily: the engine may be heavy
    """A `TableStore` on the database at `path` (created and migrated as needed)."""
    from scorer.storage.tables import TableStore

    return TableStore(Database(path))
