"""Reading the suit from the pintas (the breaks in the frame line) at the photo's full resolution: an experiment.

    python -m datasets.pintas layout [--deck naipes-libres]     # a deck's breaks, by suit
    python -m datasets.pintas bound --n 100 --seed 7003          # true geometry (step 1)
    python -m datasets.pintas bound --n 100 --seed 7003 --runtime [--true-extent]   # the runtime's (step 2)
    python -m datasets.pintas bound --n 100 --seed 7003 --runtime --fit --weight 0.5  # its side fitted (step 3)

Every Spanish deck marks the suit by breaks in the frame line along the card's top and
bottom sides (oros none, copas one, espadas two, bastos three), at nearly the same places.
`bound` renders the (b) showdowns as `datasets.evaluate` does (Fournier 1878, 1600x1200,
showdown i of seed S drawn by `readable_showdown`), and for each labelled index corner cuts
a rectified strip along the frame line next to it from the card's true quad, as far along
the side as the card is not covered (from the renderer's owner map). The line's profile is
compared with the drawn deck's breaks (`layout`; no Fournier pixel chooses anything), which
gives a log-likelihood per suit; the suit is read from it alone and times the cross-deck
classifier's suit (its card probabilities summed by suit) on the same corner crop, and
scored by rank group against the classifier's. With `--runtime` the strip comes from what
the runtime knows instead (`scan`'s traced corner and card boxes, the quarter turns, the
side's slope searched for the clearest line, how far it is seen from the other card
boxes); with `--fit` the slope is searched wider and the frame line fitted as a line along
the seen side from the search's three best starts (`scorer.vision.pintas.fit_line`, what
the runtime does), the clearest kept. Seed
7002 (the test showdowns) is refused without `--test`. Findings:
`models/HISTORY.md`, "Reading the suit from the pintas (forty-fifth session)" and "The
side fitted as a line (forty-sixth session)".
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from datasets import render
from datasets.render import SUITS, homography, load_deck
from scorer.vision import pintas as vp
from scorer.vision.pintas import (
    NU,
    NV,
    START,
    VMAX,
    _rot_box,
    read_line,
    side_strip,
    suit_loglik,
)

ROOT = Path(__file__).resolve().parents[1]
PINTAS = {"o": 0, "c": 1, "e": 2, "b": 3}
VIS_V = np.linspace(0.02, 0.12, 6)
GROUPS = {"aces": ("1",), "2-7": ("2", "3", "4", "5", "6", "7"), "courts": ("10", "11", "12")}
TEST_SEED = 7002


# ----------------------------------------------------------------------------- the line


def gaps_of(present: np.ndarray, lo: float, hi: float, least: float = 0.03) -> list[tuple[float, float]]:
    """Runs of no line (u intervals at least `least` long) between `lo` and `hi`."""
    nu = len(present)
    out, start = [], None
    for j in range(int(lo * nu), int(hi * nu)):
        if not present[j] and start is None:
            start = j
        elif present[j] and start is not None:
            if (j - start) / nu >= least:
                out.append((start / nu, j / nu))
            start = None
    if start is not None and (int(hi * nu) - start) / nu >= least:
        out.append((start / nu, hi))
    return out


def face_strip(face: Image.Image, end: int = 0) -> np.ndarray:
    """A face's top (end 0) or bottom (end 1, turned half round) strip, NV x NU, grey."""
    im = face.convert("RGBA")
    bg = Image.new("RGBA", im.size, (255, 255, 255, 255))
    bg.alpha_composite(im)
    g = bg.convert("L")
    if end:
        g = g.rotate(180)
    top = g.crop((0, 0, g.width, round(VMAX * g.height)))
    return np.asarray(top.resize((NU, NV), Image.Resampling.BILINEAR), np.float32)


def layout(deck: str = "naipes-libres") -> dict[str, list[tuple[float, float]]]:
    """A deck's breaks by suit (u intervals): the median edges over its Mus cards, both
    ends, whose line shows the suit's count of breaks."""
    faces = load_deck(deck).faces
    found: dict[str, list[list[tuple[float, float]]]] = {s: [] for s in SUITS}
    for name, face in faces.items():
        if int(name[:-1]) not in render.MUS_RANKS:
            continue
        for end in (0, 1):
            got = read_line(face_strip(face, end), 1.0)
            if got is None:
                continue
            g = gaps_of(got[0], START, 0.88)
            if len(g) == PINTAS[name[-1]]:
                found[name[-1]].append(g)
    return {s: [tuple(float(x) for x in np.median(np.array(v)[:, k], axis=0)) for k in range(PINTAS[s])]  # type: ignore[misc]
            for s, v in found.items()}


# ----------------------------------------------------------------------------- true geometry


def _visible(it: render.Item, code: int, lab: np.ndarray, to_photo: np.ndarray, end: int) -> list[int]:
    """Whether the card is on top along its side at each of NU columns of u (end 0 the top
    side from the top-left corner, end 1 the bottom side from the bottom-right), over the
    rows VIS_V of v."""
    u = (np.arange(NU) + 0.5) / NU
    uu, vv = np.meshgrid(u, VIS_V)
    if end:
        uu, vv = 1 - uu, 1 - vv
    pts = np.array([it.point(a, b) for a, b in zip(uu.ravel(), vv.ravel(), strict=True)])
    xy = np.rint(render._apply_h(to_photo, pts) - 0.5).astype(int)
    h, w = lab.shape
    ok = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    own = np.zeros(len(xy), bool)
    own[ok] = (lab[xy[ok, 1], xy[ok, 0]] >= code) & (lab[xy[ok, 1], xy[ok, 0]] <= code + 2)
    return own.reshape(uu.shape).all(axis=0).astype(int).tolist()


@contextmanager
def side_visibility():
    """While open, the renderer's card truths carry `side_visible`: `_visible` of both ends."""
    original = render._card_truth

    def wrapped(it, code, lab, to_photo):
        truth = original(it, code, lab, to_photo)
        if truth is not None:
            truth["side_visible"] = [_visible(it, code, lab, to_photo, end) for end in (0, 1)]
        return truth

    render._card_truth = wrapped
    try:
        yield
    finally:
        render._card_truth = original


def _showdowns(seed: int, n: int) -> Iterator[tuple[int, Any, np.ndarray]]:
    """The (b) showdowns `n` of `seed` as `datasets.evaluate` draws them (Fournier 1878,
    1600x1200), their card truths with `side_visible`: (i, scene, the photo in grey)."""
    from datasets.evaluate import readable_showdown

    rng0 = np.random.default_rng(seed)
    for i in range(n):
        with side_visibility():
            scene, _ = readable_showdown(seed, i, ("fournier-1878",), (1600, 1200), int(rng0.integers(4)))
        yield i, scene, np.asarray(scene.image.convert("L"), np.float32)


def _classify(models: Any, records: list[dict], crops: list[np.ndarray]) -> None:
    """Each record with the classifier's top-1 card and suit marginal of its corner crop."""
    probs = np.concatenate([models.classify(np.stack(crops[j : j + 256])) for j in range(0, len(crops), 256)])
    for r, p, m in zip(records, probs, vp.suit_sums(probs, models.names, SUITS), strict=True):
        r["top1"] = models.names[int(p.argmax())]
        r["marginal"] = m.tolist()


def extent_of(visible: list[int], first: float = 0.1) -> float:
    """How far (u) the side is seen from its corner without a break in visibility."""
    v = np.asarray(visible, bool)
    j0 = int(first * len(v))
    if not v[j0]:
        return 0.0
    off = np.flatnonzero(~v[j0:])
    return 1.0 if len(off) == 0 else (j0 + int(off[0])) / len(v)


def card_strip(gray: np.ndarray, quad: np.ndarray, end: int) -> np.ndarray:
    """The rectified strip (NV x NU) along a card's top side (end 0) or bottom side (end 1,
    read from the bottom-right corner, turned half round) of a grey photo, from the card's
    quad (photo pixels of its corners (0,0), (1,0), (1,1), (0,1) in card units)."""
    import cv2

    h = homography(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float), np.asarray(quad, float))
    su, sv = 1 / NU, VMAX / NV
    s = (np.array([[su, 0, su / 2], [0, sv, sv / 2], [0, 0, 1]]) if end == 0
         else np.array([[-su, 0, 1 - su / 2], [0, -sv, 1 - sv / 2], [0, 0, 1]]))
    shift = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]])  # pixel centres
    m = shift @ h @ s
    return cv2.warpPerspective(gray, m, (NU, NV), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def _classifier(models_dir: Path, shipped: Path, scratch: Path):
    from datasets.evaluate import with_detector
    from scorer.vision.model import Models

    folder, _ = with_detector(models_dir, shipped, scratch / "models")
    return Models(folder)


def bound(n: int, seed: int, cross: Path, shipped: Path, breaks: dict,
          debug: Path | None = None) -> tuple[list[dict], np.ndarray]:
    """One record per labelled corner of the (b) showdowns `n` of `seed`: the card, its end,
    the side's visible extent, the pinta log-likelihoods (None where no line is read), the
    classifier's top-1 card and suit marginal; and the strips (uint8, one per record)."""
    from scorer.vision.crops import corner_crop
    from scorer.vision.model import to_tensor

    records, crops, strips = [], [], []
    with tempfile.TemporaryDirectory(prefix="pintas-") as scratch:
        models = _classifier(cross, shipped, Path(scratch))
        for i, scene, gray in _showdowns(seed, n):
            for c in scene.cards:
                if c["seat"] is None:
                    continue
                quad = np.array(c["quad"])
                for end, k in enumerate(c["corners"]):
                    if not k["labelled"]:
                        continue
                    extent = extent_of(c["side_visible"][end])
                    strip = np.clip(card_strip(gray, quad, end), 0, 255).astype(np.uint8)
                    strips.append(strip)
                    records.append(score_strip({"showdown": i, "card": c["card"], "end": end, "extent": extent},
                                               strip, breaks))
                    crops.append(to_tensor(np.asarray(corner_crop(scene.image, tuple(k["box"]),
                                                                  c["quarter_turns"], size=models.cls_size))))
                    if debug is not None and len(records) <= 400:
                        debug.mkdir(parents=True, exist_ok=True)
                        Image.fromarray(strip).save(
                            debug / f"{len(records) - 1:04d}-{c['card']}-{end}-{extent:.2f}.png")
        _classify(models, records, crops)
    return records, np.stack(strips)


def score_strip(record: dict, strip: np.ndarray, breaks: dict) -> dict:
    """`record` with the line read from `strip` up to its extent: `loglik` (None where no
    line is read), the line's strength and the breaks seen."""
    extent = record["extent"]
    got = read_line(strip.astype(np.float32), extent)
    record["loglik"] = None if got is None else suit_loglik(got[0], extent, breaks).tolist()
    record["level"] = None if got is None else got[1]
    record["gaps"] = None if got is None else gaps_of(got[0], START, extent - 0.015)
    return record


# ----------------------------------------------------------------------------- the runtime's geometry

ANGLES = np.arange(-16.0, 16.5, 1.0)
"""Degrees the card's top side may slope in its upright frame, searched for the line (step 2)."""


def runtime_strip(gray: np.ndarray, corner: tuple[float, ...], cards: list[tuple[float, ...]],
                  own: int | None, turns: int, fit: bool = False) -> tuple[np.ndarray, float, float]:
    """The strip along a card's side from the runtime's geometry alone (`side_strip`):
    step 2 searches the slope over `ANGLES` for the clearest line near the corner; with
    `fit` (step 3, what the runtime does) the search is `scorer.vision.pintas.ANGLES` and
    the frame line is fitted along the seen side. Returns the strip, the extent (card
    widths) and the slope (degrees)."""
    return side_strip(gray, corner, cards, own, vp.ANGLES if fit else ANGLES, fit)


def runtime(n: int, seed: int, cross: Path, shipped: Path, breaks: dict,
            debug: Path | None = None, true_extent: bool = False, fit: bool = False) -> tuple[list[dict], np.ndarray]:
    """One record per corner the runtime finds (its detector and card boxes, as `scan`
    traces them) that matches a labelled true corner (IoU >= 0.5): the true card and end,
    the strip's extent and slope from `runtime_strip`, the pinta log-likelihoods, and the
    classifier's read of the detected box as the runtime cuts it. With `true_extent`, the
    side is read as far as the renderer says it is seen (the slope, width and corner
    still the runtime's)."""
    from scorer.vision.crops import corner_crop, far_end
    from scorer.vision.layout import iou, owner, upright
    from scorer.vision.model import to_tensor
    from scorer.vision.pipeline import scan

    records, crops, strips = [], [], []
    with tempfile.TemporaryDirectory(prefix="pintas-") as scratch:
        models = _classifier(cross, shipped, Path(scratch))
        for i, scene, gray in _showdowns(seed, n):
            trace: dict = {}
            scan(models, scene.image, scene.bottom, trace=trace)
            turned = {t: np.ascontiguousarray(np.rot90(gray, t)) for t in range(4)}
            truth = [(c, end, k) for c in scene.cards if c["seat"] is not None
                     for end, k in enumerate(c["corners"]) if k["labelled"]]
            cards = trace["cards"]
            for box in trace["corners"]:
                match = max(truth, key=lambda t, box=box: iou(box, tuple(t[2]["box"])), default=None)
                if match is None or iou(box, tuple(match[2]["box"])) < 0.5:
                    continue
                c, end, _ = match
                o = owner(box, cards)
                q = (0 if upright(box) else 1) if o is None else (0 if upright(cards[o]) else 1)
                far = o is not None and far_end(box, ((cards[o][0] + cards[o][2]) / 2,
                                                      (cards[o][1] + cards[o][3]) / 2), q)
                t = (q + (2 if far else 0)) % 4
                size = scene.image.size
                rbox, _ = _rot_box(box, size, t)
                rcards = [_rot_box(b, size, t)[0] for b in cards]
                strip, extent, deg = runtime_strip(turned[t], rbox, rcards, o, t, fit)
                if true_extent:
                    extent = extent_of(c["side_visible"][end])
                strip = np.clip(strip, 0, 255).astype(np.uint8)
                strips.append(strip)
                records.append(score_strip({"showdown": i, "card": c["card"], "end": end, "extent": extent,
                                            "slope": deg, "far": bool(far)}, strip, breaks))
                crops.append(to_tensor(np.asarray(corner_crop(scene.image, box, q, size=models.cls_size))))
                if debug is not None and len(records) <= 400:
                    debug.mkdir(parents=True, exist_ok=True)
                    Image.fromarray(strip).save(debug / f"{len(records) - 1:04d}-{c['card']}-{end}-{extent:.2f}.png")
        _classify(models, records, crops)
    return records, np.stack(strips)


# ----------------------------------------------------------------------------- scores


def group_of(card: str) -> str:
    rank = card[:-1]
    return next(g for g, ranks in GROUPS.items() if rank in ranks)


def reads(r: dict, weight: float = 1.0) -> dict[str, str | None]:
    """A record's suit read four ways: the classifier's top-1 card, its suit marginal, the
    pintas alone (None where no line was read or the best suits tie) and the marginal times
    the pintas' likelihood (to the power `weight`)."""
    marg = np.asarray(r["marginal"])
    top = r["top1"][-1] if r["top1"][-1] in SUITS else None
    out: dict[str, str | None] = {"classifier": top, "marginal": SUITS[int(marg.argmax())]}
    if r["loglik"] is None:
        out["pintas"], out["product"] = None, out["marginal"]
        return out
    ll = np.asarray(r["loglik"])
    best = np.flatnonzero(ll >= ll.max() - 1e-9)
    out["pintas"] = SUITS[int(best[0])] if len(best) == 1 else None
    post = np.log(np.maximum(marg, 1e-9)) + weight * ll
    out["product"] = SUITS[int(post.argmax())]
    return out


def table(records: list[dict], weight: float = 1.0) -> str:
    """Suit right (%) by rank group, each way of `reads`, with the share of corners whose
    line was read and the pintas' share decided."""
    rows = ["| rank group | corners | line read | pintas decided | classifier (top-1) | classifier (suit sum) "
            "| pintas alone | pintas where decided | suit sum x pintas |", "|---|---|---|---|---|---|---|---|---|"]
    for g in (*GROUPS, "all"):
        rs = [r for r in records if g == "all" or group_of(r["card"]) == g]
        if not rs:
            continue
        got = [reads(r, weight) for r in rs]
        truth = [r["card"][-1] for r in rs]
        n = len(rs)

        def pct(k: str, rs=rs, got=got, truth=truth) -> float:
            return 100 * sum(x[k] == t for x, t in zip(got, truth, strict=True)) / len(rs)

        decided = [(x["pintas"], t) for x, t in zip(got, truth, strict=True) if x["pintas"] is not None]
        line = sum(r["loglik"] is not None for r in rs)
        dec = 100 * sum(a == b for a, b in decided) / max(1, len(decided))
        rows.append(f"| {g} | {n} | {100 * line / n:.1f}% | {100 * len(decided) / n:.1f}% | {pct('classifier'):.2f} "
                    f"| {pct('marginal'):.2f} | {pct('pintas'):.2f} | {dec:.2f} | {pct('product'):.2f} |")
    return "\n".join(rows)


def by_extent(records: list[dict], weight: float = 1.0) -> str:
    """The same, by the side's visible extent."""
    bins = [(0, 0.2), (0.2, 0.3), (0.3, 0.4), (0.4, 0.6), (0.6, 1.01)]
    rows = ["| extent | corners | classifier (suit sum) | pintas decided | pintas where decided | suit sum x pintas |",
            "|---|---|---|---|---|---|"]
    for lo, hi in bins:
        rs = [r for r in records if lo <= r["extent"] < hi]
        if not rs:
            continue
        got = [reads(r, weight) for r in rs]
        truth = [r["card"][-1] for r in rs]
        dec = [(x["pintas"], t) for x, t in zip(got, truth, strict=True) if x["pintas"] is not None]
        m = 100 * sum(x["marginal"] == t for x, t in zip(got, truth, strict=True)) / len(rs)
        p = 100 * sum(x["product"] == t for x, t in zip(got, truth, strict=True)) / len(rs)
        d = 100 * sum(a == b for a, b in dec) / max(1, len(dec))
        rows.append(f"| {lo:.1f}-{min(hi, 1):.1f} | {len(rs)} | {m:.2f} | {100 * len(dec) / len(rs):.1f}% | {d:.2f} "
                    f"| {p:.2f} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.pintas", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    lay = sub.add_parser("layout", help="a deck's breaks by suit, as read from its faces")
    lay.add_argument("--deck", default="naipes-libres")
    bd = sub.add_parser("bound", help="the suit from the pintas on the true geometry, against the classifier")
    bd.add_argument("--n", type=int, default=100, help="showdowns")
    bd.add_argument("--seed", type=int, default=7003, help="the (b) set's seed (7003: development)")
    bd.add_argument("--test", action="store_true", help=f"allow seed {TEST_SEED}, the test showdowns")
    bd.add_argument("--cross-models", default=str(ROOT / "models" / "cross-deck"))
    bd.add_argument("--models", default=str(ROOT / "models"), help="lends the detector (unused here)")
    bd.add_argument("--deck", default="naipes-libres", help="the deck whose breaks are the template")
    bd.add_argument("--weight", type=float, default=1.0, help="the pintas' log-likelihood's weight in the product")
    bd.add_argument("--save", help="write the records here (json; the strips beside it, .npz)")
    bd.add_argument("--load", help="read the line again in the strips written by --save instead of rendering")
    bd.add_argument("--debug", help="write the first 400 strips here")
    bd.add_argument("--true-extent", action="store_true", help="with --runtime: the side read as far as "
                    "the renderer says it is seen")
    bd.add_argument("--fit", action="store_true", help="with --runtime: the side's slope fitted as a line "
                    "(a wider search, `fit_line` from its best starts; step 3)")
    bd.add_argument("--runtime", action="store_true", help="the runtime's geometry (its detector's corner and "
                    "card boxes, the quarter turns; step 2) instead of the true quads")
    a = p.parse_args(argv)
    if a.cmd == "layout":
        print(json.dumps(layout(a.deck), indent=1))
        return 0
    if a.seed == TEST_SEED and not a.test:
        raise SystemExit(f"seed {TEST_SEED} is the test set: choose nothing on it (--test to read it once)")
    breaks = layout(a.deck)
    if a.load:
        records = json.loads(Path(a.load).read_text())
        strips = np.load(Path(a.load).with_suffix(".npz"))["strips"]
        records = [score_strip(r, s, breaks) for r, s in zip(records, strips, strict=True)]
    else:
        debug = Path(a.debug) if a.debug else None
        if a.runtime:
            records, strips = runtime(a.n, a.seed, Path(a.cross_models), Path(a.models), breaks, debug,
                                      a.true_extent, a.fit)
        else:
            records, strips = bound(a.n, a.seed, Path(a.cross_models), Path(a.models), breaks, debug)
    if a.save:
        Path(a.save).write_text(json.dumps(records))
        np.savez_compressed(Path(a.save).with_suffix(".npz"), strips=strips)
    print(f"breaks ({a.deck}): {json.dumps(breaks)}")
    print(table(records, a.weight))
    print()
    print(by_extent(records, a.weight))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
