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
the seen side from the search's three best starts (`fit_line`), the clearest kept. Seed
7002 (the test showdowns) is refused without `--test`. Findings:
`models/HISTORY.md`, "Reading the suit from the pintas (forty-fifth session)" and "The
side fitted as a line (forty-sixth session)".
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from datasets import render
from datasets.render import SUITS, homography, load_deck

ROOT = Path(__file__).resolve().parents[1]
PINTAS = {"o": 0, "c": 1, "e": 2, "b": 3}
NU, NV = 320, 48
"""Strip samples along the side (u, 0..1 of the card's width) and across it."""
VMAX = 0.15
"""The strip spans v = 0..VMAX of the card's height from its top side."""
ROWS = (0.015, 0.13)
"""Where the frame line may lie (v); the three decks' lie at 0.035 to 0.075."""
SOLID = (0.11, 0.18)
"""A stretch of u where every deck's frame line runs unbroken (the first break starts at 0.2)."""
START = 0.12
"""The profile is compared from here (past the frame's corner and the numeral's side)."""
TOL = 0.03
"""Samples this close (u) to an expected break's edge are not compared: decks differ so much."""
SIGMA = 0.02
"""A mismatch of this share of the card's width costs one nat."""
VIS_V = np.linspace(0.02, 0.12, 6)
GROUPS = {"aces": ("1",), "2-7": ("2", "3", "4", "5", "6", "7"), "courts": ("10", "11", "12")}
TEST_SEED = 7002


# ----------------------------------------------------------------------------- the line


ABOVE = True
"""The line is present where it is darker than the blank margin above it (True) or
darker than both above and below (False: the numeral or art touching it from below then
hides it)."""
RIDGE = 5
"""Rows above and below (about 3 to 5 px of the photo) that a thin line is darker than."""


def darkness(gray: np.ndarray) -> np.ndarray:
    """(paper - gray) / paper, clipped to 0..1, the paper each column's 90th percentile
    smoothed along u (glare and shading change along a side)."""
    paper = np.percentile(gray, 90, axis=0)
    k = max(3, len(paper) // 20)
    padded = np.pad(paper, k, mode="edge")
    paper = np.array([np.median(padded[j : j + 2 * k + 1]) for j in range(len(paper))]) + 1e-3
    return np.clip((paper - gray) / paper, 0.0, 1.0)


def ridge(d: np.ndarray, k: int = RIDGE) -> np.ndarray:
    """How much darker each sample is than both samples `k` rows above and below it (a
    thin horizontal line stands out; a blob, a pip or the card's edge does not)."""
    out = np.zeros_like(d)
    out[k:-k] = d[k:-k] - np.maximum(d[: -2 * k], d[2 * k :])
    return np.clip(out, 0.0, 1.0)


def read_line(gray: np.ndarray, extent: float) -> tuple[np.ndarray, float, int] | None:
    """The frame line in a rectified strip (NV x NU, u along the side, v into the card):
    its presence along u (0/1 per column, columns past `extent` left 0), its strength and
    row; None where less than the solid stretch is seen or no line is found. The line is
    the topmost row whose thin-line response summed along the seen side is at least 0.6
    of the best row's (the numeral and the art lie below it)."""
    nv, nu = gray.shape
    upto = int(min(extent, 0.92) * nu)
    a = int(SOLID[0] * nu)
    if upto - a < 0.05 * nu:
        return None
    r = ridge(darkness(gray))
    band = np.maximum.reduce([np.roll(r, s, axis=0) for s in (-1, 0, 1)])
    r0, r1 = (int(v / VMAX * nv) for v in ROWS)
    score = band[r0:r1, a:upto].mean(axis=1)
    best = float(score.max())
    ok = np.flatnonzero(score >= 0.6 * best)
    j = int(ok[0])
    while j + 1 < len(score) and score[j + 1] > score[j]:
        j += 1
    row = r0 + j
    level = float(np.percentile(band[row, a:upto], 80))
    if level < 0.03:
        return None
    d = darkness(gray)
    above = d[max(0, row - RIDGE)]
    prof = np.clip(d[max(0, row - 1) : row + 2].max(axis=0) - above, 0, 1) if ABOVE else \
        band[max(0, row - 1) : row + 2].max(axis=0)
    prof = np.convolve(prof, np.ones(3) / 3, mode="same")
    present = (prof > 0.35 * level).astype(np.float32)
    present[upto:] = 0
    return present, level, row


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


def suit_loglik(present: np.ndarray, extent: float, breaks: dict[str, list[tuple[float, float]]]) -> np.ndarray:
    """Log-likelihood of each of `SUITS` (order o, c, e, b) for a line profile seen up to
    `extent`: minus its mismatch with the suit's breaks over START..extent, samples within
    TOL of a break's edge not compared, over SIGMA."""
    nu = len(present)
    u = (np.arange(nu) + 0.5) / nu
    seen = (u >= START) & (u <= min(extent - 0.015, 0.9))
    out = np.zeros(len(SUITS))
    for k, s in enumerate(SUITS):
        expect = np.ones(nu)
        near = np.zeros(nu, bool)
        for g0, g1 in breaks[s]:
            expect[(u > g0) & (u < g1)] = 0
            near |= (np.abs(u - g0) < TOL) | (np.abs(u - g1) < TOL)
        m = seen & ~near
        out[k] = -float(np.abs(present[m] - expect[m]).sum()) / nu / SIGMA
    return out


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
    for r, p, m in zip(records, probs, suit_marginal(probs, models.names), strict=True):
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


def suit_marginal(probs: np.ndarray, names: list[str]) -> np.ndarray:
    """The classifier's card probabilities summed by suit (columns o, c, e, b), renormalised."""
    out = np.zeros((len(probs), len(SUITS)))
    for j, n in enumerate(names):
        if len(n) > 1 and n[-1] in SUITS and n[:-1].isdigit():
            out[:, SUITS.index(n[-1])] += probs[:, j]
    return out / np.maximum(out.sum(axis=1, keepdims=True), 1e-12)


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

PATCH = (render.CORNER_W, render.CORNER_H / render.CARD_ASPECT)
"""The corner patch's width and height in card widths (0.30 of a height 1/0.64 widths)."""
ANGLES = np.arange(-16.0, 16.5, 1.0)
"""Degrees the card's top side may slope in its upright frame, searched for the line."""


def _rot_box(box: tuple[float, ...], size: tuple[int, int], turns: int) -> tuple[tuple[float, ...], tuple[int, int]]:
    """A box (x1, y1, x2, y2) of an image `size` (w, h) in that image turned `turns`
    quarter turns counterclockwise (np.rot90, PIL ROTATE_90), and the turned size."""
    x1, y1, x2, y2 = box
    w, h = size
    for _ in range(turns % 4):
        x1, y1, x2, y2 = y1, w - x2, y2, w - x1
        w, h = h, w
    return (x1, y1, x2, y2), (w, h)


def _side_map(origin: np.ndarray, theta: float, width: float, v0: float) -> np.ndarray:
    """Strip pixels -> upright image pixels for a side starting at `origin`, sloping by
    `theta` radians, a card `width` px wide, v from `v0` (card heights) down."""
    height = width / render.CARD_ASPECT
    c, s = math.cos(theta), math.sin(theta)
    su, sv = width / NU, VMAX * height / NV
    to_img = np.array([[c, -s, origin[0] - 0.5], [s, c, origin[1] - 0.5], [0, 0, 1]])
    return to_img @ np.array([[su, 0, su / 2], [0, sv, sv / 2 + v0 * height], [0, 0, 1]])


def _sample(gray: np.ndarray, m: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.warpPerspective(gray, m, (NU, NV), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def _placed(corner: tuple[float, ...], deg: float) -> tuple[np.ndarray, float]:
    """The card's corner (upright image px) and width (px) that the patch box `corner`
    gives for a side sloping by `deg` degrees."""
    x1, y1, x2, y2 = corner
    th = math.radians(deg)
    c, s = math.cos(th), abs(math.sin(th))
    width = ((x2 - x1) + (y2 - y1)) / ((PATCH[0] + PATCH[1]) * (c + s))
    height = width / render.CARD_ASPECT
    origin = np.array([x1 + (render.CORNER_H * height * s if deg > 0 else 0.0),
                       y1 + (PATCH[0] * width * s if deg < 0 else 0.0)])
    return origin, width


def _line_score(strip: np.ndarray, reach: float) -> float:
    """How clearly a thin line runs along the strip over u = SOLID[0]..reach (its best row)."""
    r = ridge(darkness(strip))
    a, b = int(SOLID[0] * NU), max(int(SOLID[0] * NU) + 8, int(reach * NU))
    return float(r[:, a:b].mean(axis=1).max())


def _seen_to(origin: np.ndarray, deg: float, width: float, cards: list[tuple[float, ...]], own: int | None) -> float:
    """How far (card widths) the side is taken as seen: up to the nearest other card box to
    the right that overlaps it (a card over it), else to its own box's right edge."""
    th = math.radians(deg)
    e_u = np.array([math.cos(th), math.sin(th)])
    top = origin[1] - 0.05 * width
    bottom = origin[1] + 0.25 * width
    ends = [1.0]
    for k, box in enumerate(cards):
        if k == own:
            ends.append(((box[2] - origin[0]) / e_u[0]) / width)
            continue
        if box[3] < top or box[1] > bottom or box[0] <= origin[0] + 0.05 * width:
            continue
        ends.append(((box[0] - origin[0]) / e_u[0]) / width)
    return float(max(0.0, min(ends)))


FIT_ANGLES = np.arange(-32.0, 32.5, 2.0)
"""With `fit`: the coarse search (degrees), wider than `ANGLES`; `fit_line` refines it."""


FIT_STARTS = 3
"""With `fit`: the coarse search's best slopes (4 degrees apart or more) each fitted; the
fitted line clearest along the seen side is kept."""


def fit_line(gray: np.ndarray, corner: tuple[float, ...], deg: float, reach: float, rounds: int = 2) -> float:
    """`deg` refined by fitting the frame line as a line: in the strip at `deg`, the row
    of the strongest thin-line response in each column (u = SOLID[0]..reach, within 5
    rows of the best row; to a fraction of a row, the parabola through the peak and its
    neighbours), the strong ones fitted by least squares with outliers (1.5
    rows off) dropped; the fitted slope, in image pixels, is added. `rounds` times."""
    for _ in range(rounds):
        origin, width = _placed(corner, deg)
        strip = _sample(gray, _side_map(origin, math.radians(deg), width, -0.02))
        r = ridge(darkness(strip))
        a, b = int(SOLID[0] * NU), max(int(SOLID[0] * NU) + 8, int(min(reach, 0.9) * NU))
        r0, r1 = (int(v / VMAX * NV) for v in ROWS)
        row = r0 + int(r[r0:r1, a:b].mean(axis=1).argmax())
        lo, hi = max(0, row - 5), min(NV, row + 6)
        sub = r[lo:hi, a:b]
        strength = sub.max(axis=0)
        ok = strength > 0.5 * np.percentile(strength, 80)
        if ok.sum() < 10:
            break
        peak = sub.argmax(axis=0)
        cols = np.arange(sub.shape[1])
        up, mid, down = (sub[np.clip(peak + k, 0, len(sub) - 1), cols] for k in (-1, 0, 1))
        curve = up - 2 * mid + down
        offset = np.where(curve < -1e-6, 0.5 * (up - down) / np.where(curve < -1e-6, curve, -1.0), 0.0)
        x = np.arange(a, b)[ok].astype(float)
        y = (lo + peak + np.clip(offset, -0.5, 0.5))[ok]
        for _k in range(3):
            design = np.vstack([x, np.ones_like(x)]).T
            coef = np.linalg.lstsq(design, y, rcond=None)[0]
            keep = np.abs(design @ coef - y) < 1.5
            if keep.all() or keep.sum() < 10:
                break
            x, y = x[keep], y[keep]
        su, sv = width / NU, VMAX * width / render.CARD_ASPECT / NV
        deg += math.degrees(math.atan(coef[0] * sv / su))
    return deg


def runtime_strip(gray: np.ndarray, corner: tuple[float, ...], cards: list[tuple[float, ...]],
                  own: int | None, turns: int, fit: bool = False) -> tuple[np.ndarray, float, float]:
    """The strip along a card's side from the runtime's geometry alone: `gray` the photo
    turned upright for this corner (`turns`), `corner` its box there, `cards` the card
    boxes there (`own` this corner's). The slope is searched (`ANGLES`) for the clearest
    thin line near the corner (u up to 0.3); the card's width and corner follow from the
    patch box and the slope; the side is taken as seen as `_seen_to` says. With `fit`, the
    slope is searched wider and coarser (`FIT_ANGLES`) and then the frame line is fitted
    as a line along the whole seen side (`fit_line`). Returns the strip, the extent (card
    widths) and the slope (degrees)."""
    scored = []
    for d in FIT_ANGLES if fit else ANGLES:
        origin, width = _placed(corner, float(d))
        scored.append((_line_score(_sample(gray, _side_map(origin, math.radians(d), width, -0.02)), 0.3), float(d)))
    scored.sort(reverse=True)
    deg = scored[0][1]
    if fit:
        starts = [deg]
        for _, d in scored[1:]:
            if len(starts) < FIT_STARTS and all(abs(d - x) > 4 for x in starts):
                starts.append(d)
        fitted = []
        for d0 in starts:
            origin, width = _placed(corner, d0)
            reach = max(0.3, _seen_to(origin, d0, width, cards, own))
            d1 = fit_line(gray, corner, d0, reach)
            origin, width = _placed(corner, d1)
            fitted.append((_line_score(_sample(gray, _side_map(origin, math.radians(d1), width, -0.02)), reach), d1))
        deg = max(fitted)[1]
    origin, width = _placed(corner, deg)
    strip = _sample(gray, _side_map(origin, math.radians(deg), width, -0.02))
    return strip, _seen_to(origin, deg, width, cards, own), float(deg)


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
