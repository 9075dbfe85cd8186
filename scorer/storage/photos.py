"""Showdown photos labelled at the table: each stored photo of a settled hand, with the
cards the players confirmed for it. The honest measure of the card reader on real
photos and real decks (`python -m datasets.evaluate_photos DIR`), and data to train it
on; `mus-scorer export-photos DIR` writes them out."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorer.storage.db import Database

FORMAT = "mus-photo-label/1"
EXTENSIONS = {"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp"}


class ExportError(ValueError):
    """An export folder holding what an export would write over and did not write."""


@dataclass(frozen=True)
class LabelledPhoto:
    """One showdown photo and the 16 cards the players settled the hand with."""

    table_id: str
    hand: int
    photo_id: str
    mime: str
    data: bytes
    bottom: int  # the seat at the photo's bottom edge
    hands: list[list[str]]  # as settled: seats 0..3, four cards each
    read: list[list[str]] | None  # what the reader read, before anyone corrected it (None: no scan kept)
    created: float

    def label(self, image: str) -> dict[str, Any]:
        """The `mus-photo-label/1` line for this photo, saved as `image`."""
        return {"format": FORMAT, "image": image, "bottom": self.bottom, "hands": self.hands, "read": self.read,
                "table": self.table_id, "hand": self.hand, "created": round(self.created, 3)}


def scan_bottom(scan: dict[str, Any]) -> int:
    """The seat at the bottom edge the photo was read with; for scans stored before it was
    kept, the seat of the lowest card in the photo (0 when nothing was seated)."""
    bottom = scan.get("bottom")
    if isinstance(bottom, int) and 0 <= bottom <= 3:
        return bottom
    seated = [c for c in scan.get("cards") or [] if c.get("seat") in (0, 1, 2, 3) and len(c.get("box") or []) == 4]
    if not seated:
        return 0
    return max(seated, key=lambda c: c["box"][1] + c["box"][3])["seat"]


def _full(hands: Any) -> bool:
    return (isinstance(hands, list) and len(hands) == 4
            and all(isinstance(h, list) and len(h) == 4 and all(isinstance(c, str) for c in h) for h in hands))


def _read_hands(scan: Any) -> list[list[str]] | None:
    """The hands the reader gave at the table (a seat may hold more or fewer than four
    cards, none when it made no showdown of the photo); `None` when no scan was kept."""
    if not isinstance(scan, dict):
        return None
    hands = scan.get("hands")
    if isinstance(hands, list) and len(hands) == 4 and all(isinstance(h, list) for h in hands):
        return [[c for c in h if isinstance(c, str)] for h in hands]
    return [[], [], [], []]


def labelled_photos(db: Database) -> Iterator[LabelledPhoto]:
    """Every stored photo cited by a hand settled with all 16 cards (with the other photos
    of that showdown), oldest first. The photos are put in order without their bytes, which
    are then read one photo at a time: sorting the rows with them held every photo in
    memory at once (800 MB for 800 photos of 1 MB). A photo deleted meanwhile (a prune), or
    no longer cited by its hand (the showdown undone and settled again with another photo),
    is left out: never written with another photo's cards."""
    conn = db.reader()
    rows = conn.execute(
        "SELECT h.table_id, h.n, p.id FROM hands h JOIN photos p ON p.id = h.photo_id OR p.first_id = h.photo_id "
        "ORDER BY p.created, h.table_id, h.n"
    ).fetchall()
    for key in rows:
        r = conn.execute(
            "SELECT h.record, p.mime, p.data, p.scan, p.created FROM hands h, photos p "
            "WHERE h.table_id = ? AND h.n = ? AND p.id = ? AND (p.id = h.photo_id OR p.first_id = h.photo_id)",
            (key["table_id"], key["n"], key["id"])).fetchone()
        if r is None:
            continue
        hands = json.loads(r["record"]).get("hands")
        if not _full(hands):
            continue
        scan = json.loads(r["scan"] or "null")
        yield LabelledPhoto(key["table_id"], key["n"], key["id"], r["mime"], r["data"], scan_bottom(scan or {}),
                            hands, _read_hands(scan), r["created"])


def export(db: Database, folder: Path) -> tuple[int, int]:
    """Write `folder/photos/<photo id>.<ext>` and `folder/labels.jsonl` (one
    `mus-photo-label/1` line a photo). Photos already there are kept, so a second run
    writes only the new ones, and the labels of photos written before and since pruned
    from the database stay in `labels.jsonl` while their files do. Returns (photos
    labelled in `labels.jsonl`, photo files written)."""
    # image -> its line: the earlier export's (refused before anything is written), then the database's over them
    labels = _earlier_labels(folder)
    photos = folder / "photos"
    photos.mkdir(parents=True, exist_ok=True)
    written = 0
    for p in labelled_photos(db):
        name = f"{p.photo_id}{EXTENSIONS.get(p.mime, '.img')}"
        path = photos / name
        if not path.exists() or path.stat().st_size != len(p.data):
            tmp = path.with_suffix(path.suffix + ".part")
            tmp.write_bytes(p.data)
            os.replace(tmp, path)
            written += 1
        labels[f"photos/{name}"] = json.dumps(p.label(f"photos/{name}"), ensure_ascii=False, separators=(",", ":"))
    lines = list(labels.values())
    tmp = folder / "labels.jsonl.part"
    tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.replace(tmp, folder / "labels.jsonl")
    return len(lines), written


def _earlier_labels(folder: Path) -> dict[str, str]:
    """The lines of an earlier export's `labels.jsonl` whose photo file is still there, by
    their image (a line that is not a label is dropped). A `labels.jsonl` that is not UTF-8 text is no
    export's, and is refused (`ExportError`) rather than written over."""
    path = folder / "labels.jsonl"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise ExportError(f"{path} is not UTF-8 text at byte {exc.start}: not a labels file an export wrote; "
                          "move it away or export into another folder") from None
    kept: dict[str, str] = {}
    for line in text.splitlines():
        try:
            image = json.loads(line).get("image")
        except (ValueError, AttributeError):
            continue
        if isinstance(image, str) and image.startswith("photos/") and (folder / image).is_file():
            kept[image] = line
    return kept
