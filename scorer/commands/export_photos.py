"""`mus-scorer export-photos DIR [--db FILE]`.

Writes every stored showdown photo of a hand settled with its 16 cards, and a
`labels.jsonl` with the cards the players confirmed (`mus-photo-label/1`): real photos
of your own deck, labelled at the table, to measure the card reader on
(`python -m datasets.evaluate_photos DIR`) and to adapt it to (`python -m datasets.adapt DIR`). Run it again to add
the new photos; those already written are kept. The database is opened read-only and left
as it is (one written by an older mus-scorer is refused until it is upgraded).
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options."""
    parser.add_argument("folder", metavar="DIR", help="where to write photos/ and labels.jsonl")
    parser.add_argument("--db", default=None, help="SQLite file (default $XDG_DATA_HOME/mus-scorer/mus.db)")


def run(args: argparse.Namespace) -> int:
    import sqlite3
    from pathlib import Path

    from scorer.commands._db import database_problem, open_database
    from scorer.storage.photos import ExportError, export

    if (opened := open_database("export-photos", args.db, "export-photos")) is None:
        return 1
    path, db = opened
    folder = Path(args.folder)
    try:
        n, written = export(db, folder)
    except OSError as exc:
        print(f"mus-scorer export-photos: {folder}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except ExportError as exc:
        print(f"mus-scorer export-photos: {exc}", file=sys.stderr)
        return 1
    except sqlite3.Error as exc:  # corrupt past the pages checked on opening, locked
        print(database_problem("export-photos", path, exc), file=sys.stderr)
        return 1
    finally:
        db.close()
    print(f"{folder}: {n} labelled photo(s), {written} written now; labels in {folder / 'labels.jsonl'}")
    return 0
