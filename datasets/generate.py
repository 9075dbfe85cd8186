"""Write ultralytics datasets of synthetic Mus photos.

    python -m datasets.generate --out datasets/out/main --seed 1 --n 3000 --cls-scenes 1000

makes, deterministically for a seed (detection image i is drawn from
`default_rng([seed, 0, i])`, classification scene i from `default_rng([seed, 1, i])`, and
the looser boxes of its numeral crops, `--index-zoom`, from `default_rng([seed, 2, i])`):
- `DIR/det/`: images + YOLO labels (classes 0 card, 1 corner) of whole-table photos
  (long side `--table-size`), close-up 320x320 tiles around one card (about 150 px
  tall, as the runtime's fine pass sees them) and loose single cards; `DIR/det.yaml`.
- `DIR/cls/{train,val}/<class>/*.png`: 64x64 corner crops cut with
  `scorer.vision.crops.corner_crop` from full-resolution scenes' true corner boxes
  (both corners, box jitter as a detector's), plus `other` crops (the card's two
  corners without an index, card backs, coins, glasses, table).
- `DIR/index/{train,val}/<rank>/*.png` (with `--crops index` or `both`): 32x32 crops of
  the numeral part of the same jittered corner boxes, cut with
  `scorer.vision.crops.index_crop` and labelled by rank (1-12), for the rank reader.
- `DIR/suit/{train,val}/<suit>/*.png` (with `--court-suits-of CLS_DIR`): the corner crops
  of the court cards (10, 11, 12) of a classifier set, linked by suit, for the court suit
  reader.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Callable
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from tqdm import tqdm

from datasets.render import CLASSES, DECKS, DET_CLASSES, render_scene
from scorer.vision.crops import corner_crop, far_end, index_crop
from scorer.vision.model import COURT_RANKS

_ARGS: argparse.Namespace | None = None


RANKS = tuple(str(r) for r in range(1, 13))
"""The rank reader's classes: the ranks of a Spanish deck, 8 and 9 included."""

SUIT_NAMES = ("b", "c", "e", "o")
"""The court suit reader's classes: bastos, copas, espadas, oros."""


def _split(i: int, val_frac: float) -> str:
    """Every 1/val_frac-th item goes to `val`, evenly spread."""
    return "val" if int((i + 1) * val_frac) > int(i * val_frac) else "train"


def _det_one(i: int) -> int:
    """Render det image `i`; returns the number of boxes written."""
    a = _ARGS
    assert a is not None
    rng = np.random.default_rng([a.seed, 0, i])
    u = rng.random()
    long = a.table_size
    if u < a.closeup_frac:
        kind, size = "closeup", (320, 320)
    elif u < a.closeup_frac + a.single_frac:
        kind, size = "single", (long, round(long * 0.75))
    else:
        kind, size = "table", (long, round(long * 0.75))
    if kind != "closeup" and rng.random() < 0.25:
        size = size[::-1]
    scene = render_scene(rng, kind=kind, size=size, decks=tuple(a.decks), bottom=int(rng.integers(4)),
                         tight=a.tight)
    split = _split(i, a.val_frac)
    stem = f"{a.seed}_{i:06d}"
    scene.image.save(Path(a.out) / "det" / "images" / split / f"{stem}.jpg", quality=95)
    labels = scene.det_labels()
    with open(Path(a.out) / "det" / "labels" / split / f"{stem}.txt", "w") as f:
        for c, x, y, w, h in labels:
            f.write(f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n")
    return len(labels)


def _jitter(rng: np.random.Generator, box: list[float], amount: float) -> tuple[float, float, float, float]:
    """A box moved and resized as a detector's box would be."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    cx = (x1 + x2) / 2 + rng.normal(0, amount) * w
    cy = (y1 + y2) / 2 + rng.normal(0, amount) * h
    w *= math.exp(rng.normal(0, amount))
    h *= math.exp(rng.normal(0, amount))
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


ZOOM_LEAST, ZOOM_MOST = 1.1, 1.7
"""The tightest numeral box of `--index-zoom`, and its loosest unless `--zoom-max` says, in corner boxes."""


def _zoom_out(rng: np.random.Generator, box: tuple[float, float, float, float],
              most: float = ZOOM_MOST) -> tuple[float, float, float, float]:
    """A looser box around `box`: `ZOOM_LEAST` to `most` times its size, its centre moved up to a
    tenth of that size, so that the numeral comes out smaller and elsewhere in the crop (as
    a deck with small numerals, or a detector's loose box, gives it)."""
    x1, y1, x2, y2 = box
    s = rng.uniform(ZOOM_LEAST, most)
    w, h = (x2 - x1) * s, (y2 - y1) * s
    cx = (x1 + x2) / 2 + rng.uniform(-0.1, 0.1) * w
    cy = (y1 + y2) / 2 + rng.uniform(-0.1, 0.1) * h
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def _cls_draw(seed: int, i: int, decks: list[str]) -> tuple[np.random.Generator, tuple[int, int], str, int, str]:
    """Scene `i` of a classification set: its generator, size, kind, bottom seat and deck."""
    rng = np.random.default_rng([seed, 1, i])
    long = int(rng.integers(1200, 2201))
    size = (long, round(long * rng.uniform(0.6, 0.8)))
    if rng.random() < 0.25:
        size = size[::-1]
    kind = "single" if rng.random() < 0.25 else "table"
    bottom = int(rng.integers(4))
    return rng, size, kind, bottom, str(rng.choice(decks))


def scene_deck(seed: int, decks: list[str]) -> Callable[[str | Path], str]:
    """The deck the scene of a crop of a classification set made with `seed` and `decks`
    was drawn from, by the crop's file (named `<seed>_<scene>_<n>.png`)."""
    memo: dict[int, str] = {}

    def deck(crop: str | Path) -> str:
        i = int(Path(crop).stem.split("_")[1])
        if i not in memo:
            memo[i] = _cls_draw(seed, i, decks)[4]
        return memo[i]

    return deck


def subset(src: Path, dst: Path, seed: int, decks: list[str], keep: str) -> int:
    """Hard-link into `dst` the crops of `src` (made with `seed` and `decks`) whose scene's
    16 cards came from deck `keep`; returns the number of crops linked."""
    n = 0
    deck = scene_deck(seed, decks)
    for f in sorted(src.glob("*/*/*.png")):
        if deck(f) == keep:
            t = dst / f.parent.parent.name / f.parent.name / f.name
            t.parent.mkdir(parents=True, exist_ok=True)
            if not t.exists():
                os.link(f, t)
            n += 1
    for split in ("train", "val"):
        for c in RANKS if src.name == "index" else CLASSES:
            (dst / split / c).mkdir(parents=True, exist_ok=True)
    return n


def court_suits(src: Path, dst: Path) -> int:
    """Hard-link the corner crops of the court cards in the classifier set `src`
    (`<split>/<card>/*.png`) into `dst/<split>/<suit>/`; returns the number linked."""
    n = 0
    for split in ("train", "val"):
        for suit in SUIT_NAMES:
            (dst / split / suit).mkdir(parents=True, exist_ok=True)
        for rank in COURT_RANKS:
            for suit in SUIT_NAMES:
                for f in sorted((src / split / f"{rank}{suit}").glob("*.png")):
                    t = dst / split / suit / f"{rank}_{f.name}"
                    if not t.exists():
                        os.link(f, t)
                    n += 1
    return n


def _cls_one(i: int) -> dict[str, int]:
    """Render a full-resolution scene and save its corner crops; returns counts per class."""
    a = _ARGS
    assert a is not None
    rng, size, kind, bottom, deck = _cls_draw(a.seed, i, a.decks)
    scene = render_scene(rng, kind=kind, size=size, deck=deck, decks=tuple(a.decks), bottom=bottom,
                         restyle=a.restyle, tight=a.tight, fade=a.fade, swap=a.swap,
                         swap_suit=a.crops != "index", recolor=a.recolor)
    split = _split(i, a.val_frac)
    root = Path(a.out) / "cls" / split
    counts: dict[str, int] = {}
    n = 0
    corners, index = a.crops in ("corner", "both"), a.crops in ("index", "both")
    zoom = np.random.default_rng([a.seed, 2, i])  # its own stream: --index-zoom 0 renders as before

    def save(crop, name: str, folder: Path = root, step: bool = True) -> None:
        """Write crop number `n` of the scene (a numeral crop shares its corner crop's)."""
        nonlocal n
        crop.save(folder / name / f"{a.seed}_{i:06d}_{n:03d}.png")
        counts[name] = counts.get(name, 0) + 1
        n += step

    for card in scene.cards:
        q = card["quarter_turns"]
        centre = tuple(np.mean(np.array(card["quad"]), axis=0))
        for corner in card["corners"]:
            if not corner["labelled"]:
                continue
            for _ in range(a.crops_per_corner):
                box = _jitter(rng, corner["box"], 0.07)
                if corners:
                    save(corner_crop(scene.image, box, q), card["card"], step=not index)
                if index:
                    loose = _zoom_out(zoom, box, a.zoom_max) if a.index_zoom and zoom.random() < a.index_zoom else box
                    crop = index_crop(scene.image, loose, q, far_end(box, centre, q))
                    save(crop, card["card"][:-1], Path(a.out) / "index" / split)
        if not corners:
            continue
        # the two corners without an index: negatives for the classifier
        quad = np.array(card["quad"])
        for j in (1, 3):
            if rng.random() < a.other_frac:
                p, o = quad[j], quad[(j + 2) % 4]
                c = p + (o - p) * rng.uniform(0.12, 0.2)
                s = np.linalg.norm(quad[1] - quad[0]) * rng.uniform(0.35, 0.5)
                save(corner_crop(scene.image, (c[0] - s / 2, c[1] - s / 2, c[0] + s / 2, c[1] + s / 2), q), "other")
    if not corners:
        return counts
    w, h = scene.image.size
    for d in scene.distractors:
        quad = np.array(d["quad"])
        x1, y1 = quad.min(0)
        x2, y2 = quad.max(0)
        s = min(x2 - x1, y2 - y1) * rng.uniform(0.25, 0.6)
        cx, cy = rng.uniform(x1 + s / 2, max(x1 + s / 2 + 1, x2 - s / 2)), rng.uniform(y1 + s / 2, max(y1 + s / 2 + 1, y2 - s / 2))
        save(corner_crop(scene.image, (cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2), int(rng.integers(2))), "other")
    for _ in range(int(rng.integers(0, 3))):
        s = min(w, h) * rng.uniform(0.03, 0.08)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        save(corner_crop(scene.image, (cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2), int(rng.integers(2))), "other")
    return counts


def _init(args: argparse.Namespace) -> None:
    global _ARGS
    _ARGS = args


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.generate", description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="output folder (e.g. datasets/out/main)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--n", type=int, default=1000, help="detection images")
    p.add_argument("--cls-scenes", type=int, default=0, help="full-resolution scenes cut into corner crops")
    p.add_argument("--decks", default=",".join(DECKS), help="comma-separated decks to draw the hands from")
    p.add_argument("--table-size", type=int, default=640, help="long side of whole-table detection photos")
    p.add_argument("--closeup-frac", type=float, default=0.4)
    p.add_argument("--single-frac", type=float, default=0.15)
    p.add_argument("--crops-per-corner", type=int, default=2)
    p.add_argument("--other-frac", type=float, default=0.12)
    p.add_argument("--val-frac", type=float, default=0.1)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--restyle", type=float, default=0.0,
                   help="cls: share of cards whose index numerals are redrawn in another typeface "
                   "(detector photos are never restyled)")
    p.add_argument("--fade", type=float, default=0.0,
                   help="cls: share of the restyled cards printed faded, their numerals thin, smaller "
                   "and moved, in a light ink (sepia, grey, blue, red) on yellowed paper")
    p.add_argument("--swap", type=float, default=0.0,
                   help="share of the restyled cards printed on another rank's face (their own numerals "
                   "drawn on its art), so that the art says nothing of the rank: of any suit for "
                   "--crops index, of the card's own suit for corner crops (their suit label holds)")
    p.add_argument("--recolor", type=float, default=0.0,
                   help="share of the restyled cards whose colours are turned round the hue circle, so "
                   "that the suit is learnt from the shapes and pintas more than from the inks")
    p.add_argument("--tight", type=float, default=0.0,
                   help="share of hands fanned tight, a quarter to a third of each card showing")
    p.add_argument("--crops", choices=["corner", "index", "both"], default="corner",
                   help="cls: corner crops for the classifier (cls/), numeral crops for the rank reader "
                   "(index/), or both")
    p.add_argument("--index-zoom", type=float, default=0.0,
                   help=f"index: share of numeral crops cut from a looser box ({ZOOM_LEAST}x to --zoom-max), the numeral "
                   "smaller and off its usual place")
    p.add_argument("--zoom-max", type=float, default=ZOOM_MOST,
                   help="index: the loosest of those boxes, in times the corner box (a deck whose "
                   "numerals are small in their corner, as Fournier's, needs 2 or more)")
    p.add_argument("--subset-of", help="link the crops of this crop folder (a set's cls/ or index/, made with "
                   "--seed and --decks) whose scenes used deck --keep-deck into the same folder of --out, "
                   "instead of rendering")
    p.add_argument("--keep-deck", default="naipes-libres")
    p.add_argument("--court-suits-of", help="link the court cards' crops of this classifier set (a set's cls/) "
                   "into suit/ of --out by suit, for the court suit reader, instead of rendering")
    args = p.parse_args(argv)
    if args.zoom_max < ZOOM_LEAST:
        p.error(f"--zoom-max must be {ZOOM_LEAST} or more (a looser box than the corner's), not {args.zoom_max}")
    idle = [f"--{k} {v}" for k, v in (("fade", args.fade), ("swap", args.swap), ("recolor", args.recolor)) if v > 0]
    if idle and args.restyle <= 0:
        p.error(f"{', '.join(idle)} act on restyled cards only: give --restyle too")
    args.decks = [d for d in args.decks.split(",") if d]
    out = Path(args.out)
    if args.court_suits_of:
        n = court_suits(Path(args.court_suits_of), out / "suit")
        print(f"suit: linked {n} court-card crops by suit -> {out / 'suit'}")
        return 0
    if args.subset_of:
        src = Path(args.subset_of)
        n = subset(src, out / src.name, args.seed, args.decks, args.keep_deck)
        print(f"{src.name}: linked {n} crops of {args.keep_deck} scenes -> {out / src.name}")
        return 0
    if args.n:
        for split in ("train", "val"):
            (out / "det" / "images" / split).mkdir(parents=True, exist_ok=True)
            (out / "det" / "labels" / split).mkdir(parents=True, exist_ok=True)
        (out / "det.yaml").write_text(
            f"path: {(out / 'det').resolve()}\ntrain: images/train\nval: images/val\n"
            + "names:\n"
            + "".join(f"  {i}: {n}\n" for i, n in enumerate(DET_CLASSES))
        )
    if args.cls_scenes:
        for split in ("train", "val"):
            if args.crops != "index":
                for c in CLASSES:
                    (out / "cls" / split / c).mkdir(parents=True, exist_ok=True)
            if args.crops != "corner":
                for r in RANKS:
                    (out / "index" / split / r).mkdir(parents=True, exist_ok=True)
    with Pool(args.workers, initializer=_init, initargs=(args,)) as pool:
        if args.n:
            boxes = sum(tqdm(pool.imap_unordered(_det_one, range(args.n), chunksize=4), total=args.n, desc="det"))
            print(f"det: {args.n} images, {boxes} boxes -> {out / 'det'}")
        if args.cls_scenes:
            totals: dict[str, int] = {}
            it = pool.imap_unordered(_cls_one, range(args.cls_scenes), chunksize=2)
            for counts in tqdm(it, total=args.cls_scenes, desc="cls"):
                for k, v in counts.items():
                    totals[k] = totals.get(k, 0) + v
            print(f"cls: {sum(totals.values())} crops from {args.cls_scenes} scenes -> {out}")
            (out / "cls-counts.json").write_text(json.dumps(dict(sorted(totals.items())), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
