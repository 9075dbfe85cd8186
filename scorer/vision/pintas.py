"""The suit from the pintas: the breaks in a Spanish card's frame line (oros none, copas
one, espadas two, bastos three), read along the card's side at the photo's resolution.

For a corner on a card, turned so that its card stands with the corner at the top left,
the side's slope is searched and then fitted as a line (`fit_line`) from the patch box; a
strip along the side (u across the card's width, v down from its top) is cut, the frame
line found in it, and its breaks compared with where printed decks put them (`BREAKS`),
as far as the side is seen (up to the card box over it). `suit_loglik` gives one
log-likelihood per suit; `models/HISTORY.md` ("Reading the suit from the pintas", "The side
fitted as a line") has how it was measured. numpy only.
"""

from __future__ import annotations

import functools
import math

import numpy as np

Box = tuple[float, ...]
SUITS = ("o", "c", "e", "b")
BREAKS: dict[str, tuple[tuple[float, float], ...]] = {
    "o": (),
    "c": ((0.359375, 0.640625),),
    "e": ((0.24375, 0.4125), (0.5875, 0.75625)),
    "b": ((0.196875, 0.315625), (0.440625, 0.559375), (0.684375, 0.803125)),
}
"""Each suit's breaks (u intervals of the card's width): the drawn deck's (naipes-libres),
as `datasets.pintas layout` reads them from its faces; printed decks cut the side in 2n+1
equal parts."""
CARD_ASPECT = 0.64
CORNER_W, CORNER_H = 0.42, 0.30
"""The index patch (card widths, card heights) the detector's corner boxes frame."""
PATCH = (CORNER_W, CORNER_H / CARD_ASPECT)
NU, NV = 320, 48
"""Strip samples along the side (u, 0..1 of the card's width) and across it."""
VMAX = 0.15
"""The strip spans v = 0..VMAX of the card's height from its top side."""
ROWS = (0.015, 0.13)
"""Where the frame line may lie (v)."""
SOLID = (0.11, 0.18)
"""A stretch of u where every deck's frame line runs unbroken."""
START = 0.12
"""The profile is compared from here (past the frame's corner and the numeral's side)."""
TOL = 0.03
"""Samples this close (u) to an expected break's edge are not compared."""
SIGMA = 0.02
"""A mismatch of this share of the card's width costs one nat."""
RIDGE = 5
"""Rows above and below that a thin line is darker than."""
ANGLES = np.arange(-32.0, 32.5, 2.0)
"""The coarse search of the side's slope (degrees, in the card's upright frame)."""
STARTS = 3
"""The coarse search's best slopes (4 degrees apart or more) each fitted as a line."""


def _percentile90(a: np.ndarray) -> np.ndarray:
    """`np.percentile(a, 90, axis=0)` (linear), by one partition: its overhead is most of
    the time on a strip's few dozen rows."""
    n = a.shape[0]
    pos = 0.9 * (n - 1)
    lo = int(pos)
    hi = min(lo + 1, n - 1)
    part = np.partition(a, (lo, hi), axis=0)
    low, high, t = part[lo], part[hi], pos - lo
    return high - (high - low) * (1 - t) if t >= 0.5 else low + (high - low) * t  # as numpy's lerp


def darkness(gray: np.ndarray, k: int | None = None) -> np.ndarray:
    """(paper - gray) / paper, clipped to 0..1, the paper each column's 90th percentile
    smoothed along u by a running median (glare and shading change along a side) `k`
    columns each way (a twentieth of the strip's when not given)."""
    paper = _percentile90(gray)
    k = max(3, len(paper) // 20) if k is None else k
    padded = np.pad(paper, k, mode="edge")
    paper = np.median(np.lib.stride_tricks.sliding_window_view(padded, 2 * k + 1), axis=1) + 1e-3
    return np.clip((paper - gray) / paper, 0.0, 1.0)


def ridge(d: np.ndarray, k: int = RIDGE) -> np.ndarray:
    """How much darker each sample is than both samples `k` rows above and below it (a
    thin horizontal line stands out; a blob, a pip or the card's edge does not)."""
    out = np.zeros_like(d)
    out[k:-k] = d[k:-k] - np.maximum(d[: -2 * k], d[2 * k :])
    return np.clip(out, 0.0, 1.0)


def read_line(gray: np.ndarray, extent: float) -> tuple[np.ndarray, float, int] | None:
    """The frame line in a strip (NV x NU): its presence along u (0/1 per column, columns
    past `extent` left 0), its strength and row; None where less than the solid stretch is
    seen or no line is found. The line is the topmost row whose thin-line response along
    the seen side is at least 0.6 of the best row's; it is present where darker than the
    blank margin above it."""
    nv, nu = gray.shape
    upto = int(min(extent, 0.92) * nu)
    a = int(SOLID[0] * nu)
    if upto - a < 0.05 * nu:
        return None
    d = darkness(gray)
    r = ridge(d)
    band = np.maximum.reduce([np.roll(r, s, axis=0) for s in (-1, 0, 1)])
    r0, r1 = (int(v / VMAX * nv) for v in ROWS)
    score = band[r0:r1, a:upto].mean(axis=1)
    ok = np.flatnonzero(score >= 0.6 * float(score.max()))
    j = int(ok[0])
    while j + 1 < len(score) and score[j + 1] > score[j]:
        j += 1
    row = r0 + j
    level = float(np.percentile(band[row, a:upto], 80))
    if level < 0.03:
        return None
    prof = np.clip(d[max(0, row - 1) : row + 2].max(axis=0) - d[max(0, row - RIDGE)], 0, 1)
    prof = np.convolve(prof, np.ones(3) / 3, mode="same")
    present = (prof > 0.35 * level).astype(np.float32)
    present[upto:] = 0
    return present, level, row


def suit_loglik(present: np.ndarray, extent: float,
                breaks: dict[str, tuple[tuple[float, float], ...]] | None = None) -> np.ndarray:
    """Log-likelihood of each of `SUITS` for a line profile seen up to `extent`: minus its
    mismatch with the suit's breaks over START..extent, samples within TOL of a break's
    edge not compared, over SIGMA."""
    breaks = BREAKS if breaks is None else breaks
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


# ----------------------------------------------------------------------------- geometry


def side_map(origin: np.ndarray, theta: float, width: float, v0: float) -> np.ndarray:
    """Strip pixels -> image pixels for a side starting at `origin`, sloping by `theta`
    radians, a card `width` px wide, v from `v0` (card heights) down."""
    height = width / CARD_ASPECT
    c, s = math.cos(theta), math.sin(theta)
    su, sv = width / NU, VMAX * height / NV
    to_img = np.array([[c, -s, origin[0] - 0.5], [s, c, origin[1] - 0.5], [0, 0, 1]])
    return to_img @ np.array([[su, 0, su / 2], [0, sv, sv / 2 + v0 * height], [0, 0, 1]])


@functools.cache
def _grid(cols: int) -> tuple[np.ndarray, np.ndarray]:
    """The strip's sample rows and columns (NV x `cols`, float64), made once."""
    ys, xs = np.mgrid[0:NV, 0:cols].astype(np.float64)
    ys.flags.writeable = xs.flags.writeable = False
    return ys, xs


def sample(gray: np.ndarray, m: np.ndarray, cols: int = NU) -> np.ndarray:
    """The NV x `cols` strip whose pixel (x, y) is `gray` at `m` @ (x, y, 1) (an affine
    map), bilinear, the border repeated."""
    ys, xs = _grid(cols)
    px = m[0, 0] * xs + m[0, 1] * ys + m[0, 2]
    py = m[1, 0] * xs + m[1, 1] * ys + m[1, 2]
    h, w = gray.shape
    px, py = np.clip(px, 0, w - 1), np.clip(py, 0, h - 1)
    x0, y0 = np.minimum(px.astype(np.int64), w - 2 if w > 1 else 0), np.minimum(py.astype(np.int64), h - 2 if h > 1 else 0)
    fx, fy = px - x0, py - y0
    flat = gray.ravel()
    i00 = y0 * w + x0
    i01 = i00 + (w > 1)
    i10 = i00 + (w if h > 1 else 0)
    i11 = i10 + (w > 1)
    top = flat.take(i00) * (1 - fx) + flat.take(i01) * fx
    bottom = flat.take(i10) * (1 - fx) + flat.take(i11) * fx
    return (top * (1 - fy) + bottom * fy).astype(np.float32)


def placed(corner: Box, deg: float) -> tuple[np.ndarray, float]:
    """The card's corner (image px) and width (px) that the patch box `corner` gives for a
    side sloping by `deg` degrees."""
    x1, y1, x2, y2 = corner[:4]
    th = math.radians(deg)
    c, s = math.cos(th), abs(math.sin(th))
    width = ((x2 - x1) + (y2 - y1)) / ((PATCH[0] + PATCH[1]) * (c + s))
    height = width / CARD_ASPECT
    origin = np.array([x1 + (CORNER_H * height * s if deg > 0 else 0.0),
                       y1 + (PATCH[0] * width * s if deg < 0 else 0.0)])
    return origin, width


def strip_at(gray: np.ndarray, corner: Box, deg: float, cols: int = NU) -> np.ndarray:
    """The strip along the side at slope `deg` from the patch box `corner` (its first
    `cols` columns)."""
    origin, width = placed(corner, deg)
    return sample(gray, side_map(origin, math.radians(deg), width, -0.02), cols)


SMOOTH = NU // 20
"""The running median's reach (columns each way) in `darkness` for a whole strip."""
COARSE_REACH = 0.3
"""The share of the side the coarse slope search scores."""


def _score_cols(reach: float) -> tuple[int, int]:
    """The columns `line_score` reads for a side seen to `reach`."""
    a = int(SOLID[0] * NU)
    return a, max(a + 8, int(reach * NU))


COARSE = _score_cols(COARSE_REACH)[1] + SMOOTH + 1
"""The columns the coarse slope search samples: those its score reads, and the `SMOOTH`
more the paper's running median there needs (so it scores as the whole strip would)."""


def line_score(strip: np.ndarray, reach: float) -> float:
    """How clearly a thin line runs along the strip over u = SOLID[0]..reach (its best row;
    the strip may be the first columns of a whole one, as long as `reach` reads in them
    with the running median's reach to spare)."""
    a, b = _score_cols(reach)
    if strip.shape[1] < min(NU, b + SMOOTH + 1):
        raise ValueError(f"a strip of {strip.shape[1]} columns is too short to score to u {reach}")
    r = ridge(darkness(strip, SMOOTH))
    return float(r[:, a:b].mean(axis=1).max())


def seen_to(corner: Box, deg: float, cards: list[Box], own: int | None) -> float:
    """How far (card widths) the side is taken as seen: up to the nearest other card box to
    the right that overlaps it (a card over it), else to its own box's right edge."""
    origin, width = placed(corner, deg)
    e_u = math.cos(math.radians(deg))
    top, bottom = origin[1] - 0.05 * width, origin[1] + 0.25 * width
    ends = [1.0]
    for k, box in enumerate(cards):
        if k == own:
            ends.append(((box[2] - origin[0]) / e_u) / width)
        elif not (box[3] < top or box[1] > bottom or box[0] <= origin[0] + 0.05 * width):
            ends.append(((box[0] - origin[0]) / e_u) / width)
    return float(max(0.0, min(ends)))


def fit_line(gray: np.ndarray, corner: Box, deg: float, reach: float, rounds: int = 2) -> float:
    """`deg` refined by fitting the frame line as a line: in the strip at `deg`, the row
    of the strongest thin-line response in each column (u = SOLID[0]..reach, within 5 rows
    of the best row; to a fraction of a row, the parabola through the peak and its
    neighbours), the strong ones fitted by least squares with outliers (1.5 rows off)
    dropped; the fitted slope, in image pixels, is added. `rounds` times."""
    for _ in range(rounds):
        origin, width = placed(corner, deg)
        r = ridge(darkness(sample(gray, side_map(origin, math.radians(deg), width, -0.02))))
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
        coef = np.zeros(2)
        for _k in range(3):
            design = np.vstack([x, np.ones_like(x)]).T
            coef = np.linalg.lstsq(design, y, rcond=None)[0]
            keep = np.abs(design @ coef - y) < 1.5
            if keep.all() or keep.sum() < 10:
                break
            x, y = x[keep], y[keep]
        su, sv = width / NU, VMAX * width / CARD_ASPECT / NV
        deg += math.degrees(math.atan(coef[0] * sv / su))
    return deg


def side_strip(gray: np.ndarray, corner: Box, cards: list[Box], own: int | None,
               angles: np.ndarray = ANGLES, fit: bool = True) -> tuple[np.ndarray, float, float]:
    """The strip along a card's side: `gray` turned so that the card stands with this
    corner at its top left, `corner` the patch box there, `cards` the card boxes there
    (`own` this corner's). The slope is searched (`angles`) for the clearest thin line on
    the first 0.3 of the side; with `fit`, from the `STARTS` best the frame line is fitted
    along the seen side and the clearest fit kept. Returns the strip, how far the side is
    seen (card widths) and the slope (degrees)."""
    scored = sorted(((line_score(strip_at(gray, corner, float(d), COARSE), COARSE_REACH), float(d)) for d in angles),
                    reverse=True)
    deg = scored[0][1]
    if fit:
        starts = [deg]
        for _, d in scored[1:]:
            if len(starts) < STARTS and all(abs(d - x) > 4 for x in starts):
                starts.append(d)
        fitted = []
        for d0 in starts:
            reach = max(0.3, seen_to(corner, d0, cards, own))
            d1 = fit_line(gray, corner, d0, reach)
            fitted.append((line_score(strip_at(gray, corner, d1), reach), d1))
        deg = max(fitted)[1]
    return strip_at(gray, corner, deg), seen_to(corner, deg, cards, own), float(deg)


# ----------------------------------------------------------------------------- the runtime's step

GATE = 0.8
"""The line must show along this share of the solid stretch (u 0.11 to 0.18) to be read."""
BELOW = 0.9
"""Only a corner whose suit (the classifier's probabilities summed by suit) is less sure
than this has its pintas read."""
ACE_BELOW = 0.99
"""... and a corner read an ace, less sure than this, where the json gives an ace weight
(an ace's corner shows little of its suit, and a deck never seen leaves the classifier
unsure of it: on (b) it never reached 0.97; on a deck it knows, 0.99 and over)."""


def _rot_box(box: Box, size: tuple[int, int], turns: int) -> tuple[Box, tuple[int, int]]:
    """A box (x1, y1, x2, y2) of an image `size` (w, h) in that image turned `turns`
    quarter turns counterclockwise (np.rot90), and the turned size."""
    x1, y1, x2, y2 = box[:4]
    w, h = size
    for _ in range(turns % 4):
        x1, y1, x2, y2 = y1, w - x2, y2, w - x1
        w, h = h, w
    return (x1, y1, x2, y2), (w, h)


def corner_suit(gray: np.ndarray, box: Box, cards: list[Box], own: int | None, turns: int) -> np.ndarray | None:
    """The pintas' log-likelihood of each of `SUITS` for the corner `box` of a grey image
    (its card boxes `cards`, `own` the corner's), turned `turns` quarter turns so that its
    card stands with it at the top left; None where the line is not read along the solid
    stretch (`GATE`). Only the window around the corner that the side can reach is cut."""
    x1, y1, x2, y2 = box[:4]
    reach = 1.3 * ((x2 - x1) + (y2 - y1)) / (PATCH[0] + PATCH[1])
    h, w = gray.shape
    wx0, wy0 = int(max(0, x1 - reach)), int(max(0, y1 - reach))
    wx1, wy1 = int(min(w, x2 + reach)), int(min(h, y2 + reach))
    win = np.ascontiguousarray(np.rot90(gray[wy0:wy1, wx0:wx1], turns))
    size = (wx1 - wx0, wy1 - wy0)

    def moved(b: Box) -> Box:
        return _rot_box((b[0] - wx0, b[1] - wy0, b[2] - wx0, b[3] - wy0), size, turns)[0]

    strip, extent, _ = side_strip(win, moved(box), [moved(b) for b in cards], own)
    got = read_line(strip, extent)
    if got is None or got[0][int(SOLID[0] * NU) : int(SOLID[1] * NU)].mean() < GATE:
        return None
    return suit_loglik(got[0], extent)


def fold(p: np.ndarray, names: list[str], logliks: list[np.ndarray | None],
         weight: float | np.ndarray) -> np.ndarray:
    """Card probabilities (N, C) times the pintas' likelihood of each class's suit (to the
    power `weight`: one for all rows, or one per row), renormalised; classes with no suit
    and rows with no read keep theirs."""
    weights = np.broadcast_to(np.asarray(weight, np.float64), (len(logliks),))
    out = p.astype(np.float64).copy()
    col = [SUITS.index(n[-1]) if len(n) > 1 and n[-1] in SUITS and n[:-1].isdigit() else -1 for n in names]
    suited = np.array([c >= 0 for c in col])
    idx = np.array([max(c, 0) for c in col])
    for i, ll in enumerate(logliks):
        if ll is None:
            continue
        factor = np.where(suited, np.exp(weights[i] * (ll[idx] - ll.max())), 1.0)
        row = out[i] * factor
        out[i] = row / max(row.sum(), 1e-12)
    return out.astype(np.float32)


def suit_sums(p: np.ndarray, names: list[str], suits: tuple[str, ...] = SUITS) -> np.ndarray:
    """Card probabilities (N, C) summed by suit over the suited classes (`other` and the
    like left out), renormalised: (N, len(suits)) in `suits` order."""
    sums = np.zeros((len(p), len(suits)))
    for j, n in enumerate(names):
        if len(n) > 1 and n[-1] in suits and n[:-1].isdigit():
            sums[:, suits.index(n[-1])] += p[:, j]
    return sums / np.maximum(sums.sum(axis=1, keepdims=True), 1e-12)


def suit_sureness(p: np.ndarray, names: list[str]) -> np.ndarray:
    """How sure each row of card probabilities is of a suit: its largest suit sum over the
    suited classes' mass."""
    return suit_sums(p, names).max(axis=1)
