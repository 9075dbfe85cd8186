"""Training crops from real showdown photos labelled at the table.

    mus-scorer export-photos DIR
    python -m datasets.harvest DIR --out datasets/out/real1 [--models models] [--val 0.1]

Each photo of `DIR/labels.jsonl` (`mus-photo-label/1`) is read by the runtime; each card
it found gets a label it can be sure of from the hands the players settled:
- **read**: the name read is a card of the hand of the seat it lies in;
- **elimination**: a seat where exactly one card was read wrong and exactly one of its
  cards was not read: the wrong read is that card (what the players corrected).
Any other card is left out. Each labelled card's index corners are cut as the runtime cuts
them: 64x64 corner crops in `cls/{train,val}/<card>/` for the classifier and 32x32 numeral
crops in `index/{train,val}/<rank>/` for the rank reader (the layouts `generate` writes,
so `train cls` / `train index` take them, alone or linked beside synthetic sets). A photo
goes wholly to train or to val, by a hash of its name.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from datasets.evaluate_photos import LabelError, load_labels, open_photo
from scorer.vision.crops import corner_crop, far_end, index_crop
from scorer.vision.layout import owner, upright

ROOT = Path(__file__).resolve().parents[1]
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Harvested:
    """A card of a photo with a label: its box, the name, how it was known, its corners."""

    box: Box
    name: str
    how: str  # "read" or "elimination"
    read: str  # the name the reader gave
    corners: tuple[Box, ...]


def label_cards(cards: list[dict[str, Any]], hands: list[list[str]]) -> list[tuple[int, str, str]]:
    """`(index into cards, name, how)` for the cards of a scan (`card`, `seat`) whose name
    the settled `hands` make certain (see the module's doc). A name read twice is left out."""
    twice = {n for n, k in Counter(c["card"] for c in cards).items() if k > 1}
    out = []
    for seat in range(4):
        truth = set(hands[seat])
        mine = [i for i, c in enumerate(cards) if c.get("seat") == seat and c["card"] not in twice]
        right = [i for i in mine if cards[i]["card"] in truth]
        out += [(i, cards[i]["card"], "read") for i in right]
        wrong = [i for i in mine if cards[i]["card"] not in truth]
        missing = truth - {cards[i]["card"] for i in right}
        seated = sum(1 for c in cards if c.get("seat") == seat)
        if len(wrong) == 1 and len(missing) == 1 and seated == 4:
            out.append((wrong[0], missing.pop(), "elimination"))
    return sorted(out)


def harvest_photo(recognizer: Any, image: Image.Image, hands: list[list[str]], bottom: int) -> tuple[
        list[Harvested], dict[str, Any]]:
    """Read one photo and label its cards: `(harvested cards, trace of the read)`."""
    from scorer.vision.pipeline import scan

    trace: dict[str, Any] = {}
    result = scan(recognizer.models, image, bottom, trace=trace)
    cards = result["cards"]
    boxes = [tuple(float(v) for v in c["box"]) for c in cards]
    mine: dict[int, list[Box]] = {}
    for corner in trace.get("corners", []):
        o = owner(corner, boxes)  # type: ignore[arg-type]
        if o is not None:
            mine.setdefault(o, []).append(corner)
    out = [Harvested(boxes[i], name, how, cards[i]["card"], tuple(mine.get(i, ())))  # type: ignore[arg-type]
           for i, name, how in label_cards(cards, hands)]
    return out, trace


def crops_of(card: Harvested, trace: dict[str, Any], cls_size: int = 64, index_size: int = 32) -> list[
        tuple[Image.Image, Image.Image]]:
    """(corner crop, numeral crop) for each index corner of a harvested card, cut from the
    image the runtime read it in, as the runtime cuts them."""
    image, full = trace["image"], trace["full"]
    fx, fy = full[0] / image.width, full[1] / image.height
    turns = 0 if upright(card.box) else 1
    centre = ((card.box[0] + card.box[2]) / 2, (card.box[1] + card.box[3]) / 2)
    out = []
    for c in card.corners:
        box = (c[0] / fx, c[1] / fy, c[2] / fx, c[3] / fy)
        far = far_end(c, centre, turns)
        out.append((corner_crop(image, box, turns, size=cls_size), index_crop(image, box, turns, far, size=index_size)))
    return out


def _split(name: str, val: float) -> str:
    h = int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "val" if h < val else "train"


def harvest(recognizer: Any, labels: list[dict[str, Any]], out: Path, val: float = 0.1,
            progress: bool = False) -> dict[str, Any]:
    """Write the crops of every labelled photo under `out`; the counts."""
    counts: Counter[str] = Counter()
    for k, label in enumerate(labels):
        stem = Path(label["image"]).stem
        split = _split(stem, val)
        image = open_photo(label, "harvest")
        if image is None:  # a file that is no photo: said, and the rest go on
            counts["photos_unreadable"] += 1
            continue
        found, trace = harvest_photo(recognizer, image, label["hands"], label.get("bottom", 0))
        counts["photos"] += 1
        counts["cards_seen"] += 16
        for n, card in enumerate(found):
            counts[f"cards_{card.how}"] += 1
            for j, (corner, numeral) in enumerate(crops_of(card, trace)):
                for kind, img, cls in (("cls", corner, card.name), ("index", numeral, card.name[:-1])):
                    folder = out / kind / split / cls
                    folder.mkdir(parents=True, exist_ok=True)
                    img.save(folder / f"{stem}-{n}-{j}.png")
                counts[f"crops_{split}"] += 1
        if progress:
            print(f"\r{k + 1}/{len(labels)} photos", end="", file=sys.stderr, flush=True)
    if progress and labels:
        print(file=sys.stderr)
    return dict(counts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.harvest", description=__doc__.split("\n")[0])
    p.add_argument("folder", metavar="DIR", help="a folder written by `mus-scorer export-photos`")
    p.add_argument("--out", required=True, help="where to write cls/ and index/")
    p.add_argument("--models", default=str(ROOT / "models"), help="the models that read the photos")
    p.add_argument("--val", type=float, default=0.1, help="share of the photos kept for validation (default 0.1)")
    args = p.parse_args(argv)
    if not 0 <= args.val < 1:
        print(f"harvest: --val: expected a share in [0, 1), got {args.val}", file=sys.stderr)
        return 2
    try:
        labels = load_labels(Path(args.folder))
    except LabelError as exc:
        print(f"harvest: {exc}", file=sys.stderr)
        return 2
    from scorer.vision import Recognizer

    counts = harvest(Recognizer(Path(args.models)), labels, Path(args.out), args.val, progress=True)
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
