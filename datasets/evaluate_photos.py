"""Measure the card reader on real showdown photos labelled at the table.

    mus-scorer export-photos DIR           # the photos a club's server kept, with their cards
    python -m datasets.evaluate_photos DIR [--models models] [--json]

`DIR/labels.jsonl` holds one `mus-photo-label/1` line a photo: `{"image": "photos/x.jpg",
"bottom": 0, "hands": [[4 cards] x4], ...}`, the hands as the players settled them
(after correcting the reader). Each photo is read again by the runtime with those models
and scored: showdowns read fully right (16 cards, right seats), cards in the right seat,
cards named anywhere, wrong reads and how many were flagged, photos warned that the deck
looks unfamiliar, per-card precision and recall, ms per photo. Where the line keeps what the reader read at the table (`read`),
that is scored too, to compare a new model with the one the photos were taken with.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from scorer.engine.cards import parse_hands
from scorer.engine.errors import MusError
from scorer.vision.layout import LOW_CONFIDENCE

ROOT = Path(__file__).resolve().parents[1]


class LabelError(ValueError):
    """A line of `labels.jsonl` that is not a usable `mus-photo-label/1` line."""


def load_labels(folder: Path) -> list[dict[str, Any]]:
    """The label lines of `folder/labels.jsonl`, checked: `LabelError` names the line and field."""
    path = folder / "labels.jsonl"
    if not path.exists():
        raise LabelError(f"{path}: no such file (make it with `mus-scorer export-photos {folder}`)")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            label = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LabelError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(label, dict):
            raise LabelError(f"{where}: expected an object, got {type(label).__name__}")
        if label.get("format") != "mus-photo-label/1":
            raise LabelError(f"{where}: format: expected 'mus-photo-label/1', got {label.get('format')!r}")
        try:
            hands = parse_hands(label.get("hands"))
        except MusError as exc:
            raise LabelError(f"{where}: {exc}") from None
        if any(h is None for h in hands) or any(c.suit is None for h in hands for c in h):  # type: ignore[union-attr]
            raise LabelError(f"{where}: hands: expected the 16 cards with their suits")
        bottom = label.get("bottom", 0)
        if type(bottom) is not int or not 0 <= bottom <= 3:
            raise LabelError(f"{where}: bottom: expected the seat 0..3 at the photo's bottom edge, got {bottom!r}")
        image = folder / str(label.get("image", ""))
        if not label.get("image") or not image.is_file():
            raise LabelError(f"{where}: image: {str(label.get('image'))!r} is not a file in {folder}")
        out.append({**label, "path": image})
    return out


def score(truth: list[list[str]], read: list[list[str]] | None, cards: list[dict] | None = None,
          warnings: list[dict] | None = None) -> dict[str, int]:
    """How one photo was read: right seat, named anywhere, wrong reads and flagged ones."""
    dealt = {c for hand in truth for c in hand}
    read = read or [[], [], [], []]
    names = [c["card"] for c in cards] if cards is not None else [c for hand in read for c in hand]
    flagged = {w.get("card") for w in warnings or [] if w.get("code") == "low_confidence"}
    wrong = [n for n in names if n not in dealt]
    return {
        "seated": sum(len(set(t) & set(r)) for t, r in zip(truth, read, strict=True)),
        "named": len(dealt & set(names)),
        "wrong": len(wrong),
        "wrong_flagged": sum(n in flagged for n in wrong),
        "right_flagged": sum(n in flagged for n in set(names) & dealt),
        "full": int(all(sorted(t) == sorted(r) for t, r in zip(truth, read, strict=True))),
    }


def open_photo(label: dict[str, Any], who: str) -> Any:
    """The image of a label line, or None for a file that is no photo (said on stderr as
    `who: image: why`), so that one bad file does not stop the others."""
    from scorer.vision import load_image
    from scorer.vision.image import ImageError

    try:
        return load_image(label["path"])
    except (ImageError, OSError) as exc:
        print(f"{who}: {label['image']}: {exc}", file=sys.stderr)
        return None


def evaluate_photos(recognizer: Any, labels: list[dict[str, Any]], progress: bool = False) -> dict[str, Any]:
    """Read every labelled photo with `recognizer` (`.scan(image, bottom)`) and score it; a
    file that is no photo is said on stderr, counted as `unreadable` and left out."""
    totals: Counter[str] = Counter()
    then: Counter[str] = Counter()
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    ms, rows, unreadable = [], [], 0
    for k, label in enumerate(labels):
        image = open_photo(label, "evaluate_photos")
        if image is None:
            unreadable += 1
            continue
        start = time.perf_counter()
        scan = recognizer.scan(image, bottom=label.get("bottom", 0))
        ms.append((time.perf_counter() - start) * 1000)
        truth = label["hands"]
        s = score(truth, scan.get("hands"), scan.get("cards") or [], scan.get("warnings"))
        totals.update(s)
        totals["unfamiliar"] += any(w.get("code") == "unfamiliar_deck" for w in scan.get("warnings") or [])
        if isinstance(label.get("read"), list) and len(label["read"]) == 4:
            then.update(score(truth, label["read"]))
            then["photos"] += 1
        dealt = {c for hand in truth for c in hand}
        names = {c["card"] for c in scan.get("cards") or []}
        tp.update(dealt & names)
        fn.update(dealt - names)
        fp.update(names - dealt)
        rows.append({"image": label["image"], **s, "ms": round(ms[-1], 1)})
        if progress:
            print(f"\r{k + 1}/{len(labels)} photos", end="", file=sys.stderr, flush=True)
    if progress and labels:
        print(file=sys.stderr)
    n = len(labels) - unreadable
    p_all = sum(tp.values()) / max(1, sum(tp.values()) + sum(fp.values()))
    r_all = sum(tp.values()) / max(1, sum(tp.values()) + sum(fn.values()))
    ms_sorted = sorted(ms)
    return {
        "photos": n, "unreadable": unreadable,
        "full": totals["full"], "seated": totals["seated"], "named": totals["named"],
        "wrong": totals["wrong"], "wrong_flagged": totals["wrong_flagged"], "right_flagged": totals["right_flagged"],
        "unfamiliar": totals["unfamiliar"],
        "precision": round(p_all, 5), "recall": round(r_all, 5),
        "f1": round(2 * p_all * r_all / max(1e-9, p_all + r_all), 5),
        "per_card": {c: {"tp": tp[c], "fp": fp[c], "fn": fn[c]} for c in sorted(set(tp) | set(fp) | set(fn))},
        "ms_median": round(ms_sorted[n // 2], 1) if n else None,
        "ms_mean": round(sum(ms) / n, 1) if n else None,
        "at_the_table": dict(then) if then else None,
        "rows": rows,
    }


def _pct(k: int, n: int) -> str:
    return f"{k} of {n} ({100 * k / n:.1f}%)" if n else "-"


def to_markdown(r: dict[str, Any]) -> str:
    """The figures as a Markdown table."""
    n, cards = r["photos"], 16 * r["photos"]
    lines = [f"Real photos labelled at the table: {n}, read again with these models "
             f"(a card below {LOW_CONFIDENCE} is flagged for a person to check).", "",
             "| figure | value |", "|---|---|",
             f"| showdowns read fully right (16 cards, right seats) | {_pct(r['full'], n)} |",
             f"| cards in the right seat | {_pct(r['seated'], cards)} |",
             f"| cards named (any seat) | {_pct(r['named'], cards)} |",
             f"| wrong reads flagged as unsure | {_pct(r['wrong_flagged'], r['wrong']) if r['wrong'] else 'none read wrong'} |",
             f"| right reads flagged as unsure | {_pct(r['right_flagged'], r['named'])} |",
             f"| per-card micro precision / recall / F1 | {r['precision']} / {r['recall']} / {r['f1']} |",
             f"| photos warned that the deck may be one the readers never learnt (`unfamiliar_deck`: "
             f"teach it on the deck page) | {_pct(r.get('unfamiliar', 0), n)} |",
             f"| ms per photo (median / mean) | {r['ms_median']} / {r['ms_mean']} |"]
    if r.get("unreadable"):
        lines.append(f"| photos left out: not readable as images | {r['unreadable']} |")
    then = r.get("at_the_table")
    if then:
        m = then["photos"]
        lines.append(f"| as read at the table ({m} photos): fully right, cards in the right seat | "
                     f"{_pct(then['full'], m)}, {_pct(then['seated'], 16 * m)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.evaluate_photos", description=__doc__.split("\n")[0])
    p.add_argument("folder", metavar="DIR", help="a folder written by `mus-scorer export-photos`")
    p.add_argument("--models", default=str(ROOT / "models"), help="folder with the models to evaluate")
    p.add_argument("--json", action="store_true", help="print the figures as JSON (per photo too)")
    args = p.parse_args(argv)
    try:
        labels = load_labels(Path(args.folder))
    except LabelError as exc:
        print(f"evaluate_photos: {exc}", file=sys.stderr)
        return 2
    from scorer.vision import Recognizer

    r = evaluate_photos(Recognizer(Path(args.models)), labels, progress=not args.json)
    print(json.dumps(r) if args.json else to_markdown(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
