"""The annotated photo: a box per card with its name, confidence and seat.

The labels say what the caller asks (`annotate`'s `card_labels`, `seat_labels`: the web
app's players' names and the cards their table holds); by default what the reader read,
the seats by number (`mus-scorer scan --annotate`). They are written in DejaVu Sans, a
subset of it kept here (`fonts/`: Latin letters with their accents, ñ, ç, œ..., Greek and
Cyrillic, so that "Begoña", "Γιώργος" or "Дмитрий" reads as typed); a letter it lacks is
written without its accent, or as "?", never as an empty box.
"""

from __future__ import annotations

import functools
import io
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scorer.vision.image import load_image

SEAT_COLOURS = ((46, 204, 113), (52, 152, 219), (155, 89, 182), (241, 196, 15))
NO_SEAT = (236, 240, 241)
WARN = (231, 76, 60)
FONT = Path(__file__).with_name("fonts") / "DejaVuSans-LGC.ttf"
# the labels are sized to read (LABEL_PX high) where the photo is shown SHOWN_WIDTH px wide (a phone)
SHOWN_WIDTH, LABEL_PX = 360, 11
LEADER_TRIES = 200  # the free places a label's line is tried to (the nearest first), before one it crosses

# A label: its text, or `(read, held)` where a person named another card than the one
# read: the read struck through, then the card held.
Label = str | tuple[str, str]
Rect = tuple[int, int, int, int]  # a label's band: x1, y1, x2, y2


def annotate(image: Image.Image | bytes | str | Path, result: dict, quality: int = 85,
             max_side: int | None = None, full: tuple[int, int] | None = None, *,
             card_labels: Sequence[Label | None] | None = None,
             unread_labels: Sequence[Label | None] | None = None,
             seat_labels: Sequence[str | None] | None = None) -> bytes:
    """A JPEG of `image` with the boxes, card names and seats of a scan `result`;
    cards a warning names are outlined in red, their labels on red. `card_labels`: the
    label of each of `result["cards"]` (None, or none given: "12o 97% S1", the card read,
    its confidence and seat); a pair
    `(read, held)` is drawn with the read struck through. `unread_labels`: those of the
    boxes found but not read (the `low_confidence` warnings with a box and no card; "?"
    by default). `seat_labels`: the line written under each seat's cards (None, or none
    given: "seat 1: 12o 5c 1e 7b" where the result has `hands`; no line for a seat without
    cards in the photo). The labels are sized to read where the photo is shown 360 px
    wide (`SHOWN_WIDTH`, a phone) and never cover each other: a label sits above its box's
    top-left corner (where the card's index is); the labels of a tight fan, whose corners
    lie a few px apart, in a row above it in the cards' order (`_crowds`); else at the
    nearest free place (`_place`), keeping off the cards' corners where it can, joined by
    a line to its card's corner. With `max_side`, a bigger photo is shrunk
    to that longer side first (a copy for people to look at need not weigh 12 MP).
    `full`: the size of the photo the result's boxes are in, where `image` is a copy of
    it decoded smaller (`Photo.decode(k)`); the drawing is at `image`'s size or less."""
    if isinstance(image, Image.Image):
        img, shared = (image, True) if image.mode == "RGB" else (image.convert("RGB"), False)
    else:
        img, shared = load_image(image), False
    full_w = full[0] if full else img.width
    if max_side and max(img.size) > max_side:
        shrink = max_side / max(img.size)
        img = img.resize((max(1, round(img.width * shrink)), max(1, round(img.height * shrink))),
                         Image.Resampling.BILINEAR)
    elif shared:
        img = img.copy()  # drawn on: the caller's image stays as it was
    scale = img.width / full_w if full_w else 1.0
    result = _scaled(result, scale) if scale != 1.0 else result
    draw = ImageDraw.Draw(img)
    long = max(img.size)
    width = max(2, long // 400)
    font = _font(max(12, round(img.width * LABEL_PX / SHOWN_WIDTH)))
    flagged = {tuple(int(v) for v in w["box"]) for w in result.get("warnings", ()) if w.get("box")}
    flagged |= {w.get("card") for w in result.get("warnings", ()) if w.get("code") == "duplicate"}
    cards = []  # (flagged, box, seat colour, label)
    for k, c in enumerate(result.get("cards", ())):
        seat = c.get("seat")
        box = [int(v) for v in c["box"]]
        label = _given(card_labels, k)
        if label is None:
            label = f"{c['card']} {round(100 * c['conf'])}%" + ("" if seat is None else f" S{seat}")
        cards.append((tuple(box) in flagged or c["card"] in flagged, box,
                      NO_SEAT if seat is None else SEAT_COLOURS[seat % 4], label))
    # a card found but not read
    unread = [[int(v) for v in w["box"]] for w in result.get("warnings", ()) if w.get("card") is None and w.get("box")]
    # the boxes first, the flagged ones last; then the labels over them, the flagged ones last
    for bad, box, colour, _ in sorted(cards, key=lambda c: c[0]):
        draw.rectangle(box, outline=WARN if bad else colour, width=width * (2 if bad else 1))
    for box in unread:
        draw.rectangle(box, outline=WARN, width=width * 2)
    # the cards' top-left corners, where their indices are read: a label covers none where it can
    corner = round(1.2 * font.size) if isinstance(font, ImageFont.FreeTypeFont) else 16
    avoid = [(b[0], b[1], b[0] + min(corner, b[2] - b[0]), b[1] + min(corner, b[3] - b[1]))
             for b in [c[1] for c in cards] + unread]
    # the boxes' labels, the flagged ones (after the seats' lines) and the unread last; a tight fan's in a row
    boxed: list[tuple[list[int], Label, tuple[int, int, int]]] = [
        (box, label, colour) for bad, box, colour, label in cards if not bad]
    boxed += [(box, label, WARN) for bad, box, _, label in cards if bad]
    boxed += [(box, "?" if (label := _given(unread_labels, j)) is None else label, WARN)
              for j, box in enumerate(unread)]
    prefer = _crowds(img.size, [(b[0], b[1]) for b, _, _ in boxed],
                     [_measure(draw, img.size, label, font)[-2:] for _, label, _ in boxed], corner)
    taken: list[Rect] = []
    sure = len([c for c in cards if not c[0]])
    for k, (box, label, colour) in enumerate(boxed[:sure]):
        _label(draw, img.size, box, label, font, colour, taken, avoid, prefer.get(k))
    hands = result.get("hands")
    for seat in range(4):
        line = _given(seat_labels, seat)
        if line is None and hands:
            line = f"seat {seat}: {' '.join(hands[seat])}"
        boxes = [c["box"] for c in result.get("cards", ()) if c.get("seat") == seat]
        if line is not None and boxes:
            x = min(b[0] for b in boxes)
            y = max(b[3] for b in boxes)
            _label(draw, img.size, (x, y), line, font, SEAT_COLOURS[seat], taken, avoid)
    for k, (box, label, colour) in enumerate(boxed[sure:], sure):
        _label(draw, img.size, box, label, font, colour, taken, avoid, prefer.get(k))
    out = io.BytesIO()
    img.save(out, "JPEG", quality=quality)
    return out.getvalue()


def _given(labels: Sequence[Label | None] | None, k: int) -> Label | None:
    """The `k`th label given, None where none is (no list, a shorter one, or None there)."""
    return labels[k] if labels is not None and k < len(labels) else None


@functools.lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """The labels' font at `size` px: the DejaVu Sans kept here, else Pillow's own."""
    try:
        return ImageFont.truetype(str(FONT), size)
    except OSError:  # the file missing, or Pillow built without FreeType
        return ImageFont.load_default(size=size)


@functools.lru_cache(maxsize=4096)
def _has(font: ImageFont.FreeTypeFont | ImageFont.ImageFont, ch: str) -> bool:
    """Whether `font` draws `ch` (not its empty box, the glyph of a letter it lacks)."""
    if ch.isspace():
        return True
    try:
        return bytes(font.getmask(ch)) != bytes(font.getmask("\ue000"))  # a private-use letter: no font's
    except (UnicodeEncodeError, ValueError):  # Pillow's bitmap font: Latin-1 at most
        return False


def drawable(font: ImageFont.FreeTypeFont | ImageFont.ImageFont, text: str) -> str:
    """`text` as `font` can write it: a letter it lacks without its accent ("ñ" as "n"
    where the font has no "ñ"), else as "?". Accents typed as combining marks ("n" then
    U+0303) are joined to their letters first (NFC), not each written as "?"."""
    out = []
    for ch in unicodedata.normalize("NFC", text):
        if not _has(font, ch):
            bare = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
            ch = bare if bare and all(_has(font, c) for c in bare) else "?"
        out.append(ch)
    return "".join(out)


def _scaled(result: dict, s: float) -> dict:
    """The boxes of a scan result (cards and warnings) times `s`."""

    def box(b: list[float]) -> list[float]:
        return [v * s for v in b]

    return {
        **result,
        "cards": [{**c, "box": box(c["box"])} for c in result.get("cards", ())],
        "warnings": [{**w, "box": box(w["box"])} if w.get("box") else w for w in result.get("warnings", ())],
    }


def _measure(draw: ImageDraw.ImageDraw, size: tuple[int, int], text: Label,
             font: ImageFont.FreeTypeFont | ImageFont.ImageFont) -> tuple:
    """A label as written: `(text, struck, font, x0, top, bottom, pad, w, h)`, its text as
    the font writes it (a pair: the read, struck, then the card held), the font (smaller
    where the text is wider than the image), the text's box and the band's size."""
    if isinstance(text, tuple):
        struck, text = drawable(font, text[0]), drawable(font, text[1])
        text = f"{struck} {text}"
    else:
        struck, text = "", drawable(font, text)
    x0, t, r, b = draw.textbbox((0, 0), text, font=font)
    pad = max(3, round(getattr(font, "size", 12) / 10))
    if r - x0 + 2 * pad > size[0] and isinstance(font, ImageFont.FreeTypeFont) and font.size > 8:
        font = _smaller(font, max(8, int(font.size * (size[0] - 2 * pad) / (r - x0))))
        x0, t, r, b = draw.textbbox((0, 0), text, font=font)
        pad = max(3, round(font.size / 10))
    return text, struck, font, x0, t, b, pad, r - x0 + 2 * pad, b - t + 2 * pad


def _label(draw: ImageDraw.ImageDraw, size: tuple[int, int], at: Sequence[float], text: Label,
           font: ImageFont.FreeTypeFont | ImageFont.ImageFont, colour: tuple[int, int, int],
           taken: list[Rect], avoid: Sequence[Rect] = (), prefer: Rect | None = None) -> Rect:
    """Dark text on a coloured band, inside the image, kept off the bands in `taken` (to
    which it is added) and, where it can, off `avoid` (the cards' corners, whose indices
    people read). A pair `(read, held)`: the read struck through, then the card held.
    `at`: a box (x1, y1, x2, y2), the band tried at `prefer` (its place in its fan's row,
    `_crowds`), else above the box's top-left corner, then at the nearest free place,
    joined to that corner by a line where it does not touch it; or a point (x, y) (a
    seat's line, under its cards), the band tried under it, then at the nearest free
    place, joined to the point by a line likewise. A text wider than the image is
    written smaller. Where no place is free, the first is kept."""
    text, struck, font, x0, t, b, pad, w, h = _measure(draw, size, text, font)
    box = len(at) == 4
    anchor = (int(at[0]), int(at[1]))
    rect = _place(size, anchor, box, w, h, taken, avoid, prefer)
    taken.append(rect)
    if _gap(anchor, rect) > _spacing(h):  # a line from the card's corner (the seat's cards) to its label
        thick = max(2, h // 10)
        end = (min(max(anchor[0], rect[0]), rect[2]), min(max(anchor[1], rect[1]), rect[3]))
        draw.line([anchor, end], fill=(0, 0, 0), width=thick + 4)
        draw.line([anchor, end], fill=colour, width=thick)
        dot = thick + 2
        draw.ellipse((anchor[0] - dot, anchor[1] - dot, anchor[0] + dot, anchor[1] + dot), fill=colour,
                     outline=(0, 0, 0), width=2)
    draw.rectangle(rect, fill=colour)
    draw.text((rect[0] + pad - x0, rect[1] + pad - t), text, fill=(0, 0, 0), font=font)
    if struck:  # a line through the read, at the middle of its letters
        sx0, st, sr, sb = draw.textbbox((0, 0), struck, font=font)
        mid = rect[1] + pad + (st + sb) / 2 - t
        draw.line([(rect[0] + pad + sx0 - x0 - 1, mid), (rect[0] + pad + sr - x0 + 1, mid)], fill=(0, 0, 0),
                  width=max(1, (b - t) // 9))
    return rect


def _crowds(size: tuple[int, int], corners: Sequence[tuple[int, int]], bands: Sequence[tuple[int, int]],
            corner: int) -> dict[int, Rect]:
    """The places of labels that would cover each other above their cards' corners (a
    tight fan: corners a few px apart), by index: each such crowd in a row, in the order
    of its corners, a band above them (under them where the image has no room), or where
    the corners run down more than across (and a band's height), in a column beside
    them; each label joined to its corner by a line (`_label`). A row or column that
    does not fit in the image is left to `_place`."""
    n = len(corners)
    first = [(x, y - h, x + w, y) for (x, y), (w, h) in zip(corners, bands, strict=True)]
    group = list(range(n))

    def root(k: int) -> int:
        while group[k] != k:
            group[k] = group[group[k]]
            k = group[k]
        return k

    for a in range(n):
        gap = _spacing(bands[a][1])
        for c in range(a + 1, n):
            ra, rc = first[a], first[c]
            if ra[0] < rc[2] + gap and rc[0] < ra[2] + gap and ra[1] < rc[3] + gap and rc[1] < ra[3] + gap:
                group[root(a)] = root(c)
    crowds: dict[int, list[int]] = {}
    for k in range(n):
        crowds.setdefault(root(k), []).append(k)
    out: dict[int, Rect] = {}
    for crowd in crowds.values():
        if len(crowd) < 2:
            continue
        xs, ys = [corners[k][0] for k in crowd], [corners[k][1] for k in crowd]
        hmax, wmax = max(bands[k][1] for k in crowd), max(bands[k][0] for k in crowd)
        gap = _spacing(hmax)
        down = max(ys) - min(ys)
        if down <= max(xs) - min(xs) or down < hmax:  # a row, left to right as the corners
            crowd.sort(key=lambda k: corners[k])
            total = sum(bands[k][0] for k in crowd) + gap * (len(crowd) - 1)
            x = min(max(0, round(sum(xs) / len(xs) - total / 2)), size[0] - total)
            y = min(ys) - 2 * hmax  # a band's height above the corners
            if y < 0:
                y = max(ys) + corner + hmax
            if x < 0 or y + hmax > size[1]:
                continue
            for k in crowd:
                w, h = bands[k]
                out[k] = (x, y + hmax - h, x + w, y + hmax)
                x += w + gap
        else:  # a column, top to bottom as the corners
            crowd.sort(key=lambda k: corners[k][::-1])
            total = sum(bands[k][1] for k in crowd) + gap * (len(crowd) - 1)
            y = min(max(0, round(sum(ys) / len(ys) - total / 2)), size[1] - total)
            x, right = min(xs) - hmax - wmax, True  # beside the corners, right-aligned
            if x < 0:
                x, right = max(xs) + corner + hmax, False
            if y < 0 or x + wmax > size[0]:
                continue
            for k in crowd:
                w, h = bands[k]
                out[k] = (x + wmax - w, y, x + wmax, y + h) if right else (x, y, x + w, y + h)
                y += h + gap
    return out


@functools.lru_cache(maxsize=64)
def _smaller(font: ImageFont.FreeTypeFont, size: int) -> ImageFont.FreeTypeFont:
    """`font` at `size` px (a text too wide for the image)."""
    return font.font_variant(size=size)


def _spacing(h: int) -> int:
    """The space kept between bands `h` px high: enough to tell two apart at a phone's width."""
    return max(2, h // 5)


def _gap(p: tuple[int, int], rect: Rect) -> float:
    """How far point `p` lies from `rect` (0 on it or inside)."""
    dx = max(rect[0] - p[0], 0, p[0] - rect[2])
    dy = max(rect[1] - p[1], 0, p[1] - rect[3])
    return (dx * dx + dy * dy) ** 0.5


def _crossing(a: tuple[int, int], ends: np.ndarray, rects: np.ndarray) -> np.ndarray:
    """Which of the segments from `a` to each of `ends` (k x 2) pass through any of `rects`
    (m x 4; Liang-Barsky clipping): k booleans."""
    d = (ends - np.array(a)).astype(float)  # k x 2
    p = np.stack([-d[:, 0], d[:, 0], -d[:, 1], d[:, 1]])[:, :, None]  # 4 x k x 1
    q = np.stack([a[0] - rects[:, 0], rects[:, 2] - a[0], a[1] - rects[:, 1], rects[:, 3] - a[1]])[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = q / p  # 4 x k x m
    lo = np.max(np.where(p < 0, t, 0.0), axis=0)
    hi = np.min(np.where(p > 0, t, 1.0), axis=0)
    outside = ((p == 0) & (q < 0)).any(axis=0)  # parallel to an edge, beyond it
    return ((lo <= hi) & ~outside).any(axis=1)


def _place(size: tuple[int, int], anchor: tuple[int, int], box: bool, w: int, h: int,
           taken: Sequence[Rect], avoid: Sequence[Rect], prefer: Rect | None = None) -> Rect:
    """Where a `w` x `h` band goes (`_label`): `prefer` where free, else its first place
    (above a box's corner, or under a point) where free, else the nearest free place of
    a grid over the image (one above a box's corner before one reaching under it). A
    place is free where it lies inside the image, `gap` px off every band `taken`, and
    the line to it crosses none (but one over the corner). A first pass keeps off `avoid`
    too. Where every line crosses a band (of the first `LEADER_TRIES` places tried), the
    nearest place free is kept; where none is, the first."""
    gap = _spacing(h)
    ax, ay = anchor
    grown = np.array([(o[0] - gap, o[1] - gap, o[2] + gap, o[3] + gap) for o in taken], dtype=np.int64).reshape(-1, 4)
    # a line may start under a band that covers (or touches) the corner, not cross another
    over = (grown[:, 0] <= ax) & (ax <= grown[:, 2]) & (grown[:, 1] <= ay) & (ay <= grown[:, 3])
    crossed = [o for o, on in zip(taken, over, strict=True) if not on]

    def clear(rects: np.ndarray, keep_off: Sequence[Rect]) -> np.ndarray:
        """Which of `rects` (n x 4) lie inside the image and off the bands and `keep_off`."""
        off = np.concatenate([grown, np.array(keep_off, dtype=np.int64).reshape(-1, 4)])
        inside = (rects[:, 0] >= 0) & (rects[:, 1] >= 0) & (rects[:, 2] <= size[0]) & (rects[:, 3] <= size[1])
        hit = ((rects[:, None, 0] < off[None, :, 2]) & (off[None, :, 0] < rects[:, None, 2])
               & (rects[:, None, 1] < off[None, :, 3]) & (off[None, :, 1] < rects[:, None, 3]))
        return inside & ~hit.any(axis=1)

    def led(rects: np.ndarray) -> np.ndarray:
        """Which of `rects` the line from the corner (where one is drawn) reaches crossing no band."""
        ends = np.stack([np.clip(ax, rects[:, 0], rects[:, 2]), np.clip(ay, rects[:, 1], rects[:, 3])], axis=1)
        if not crossed:
            return np.ones(len(rects), bool)
        near = np.hypot(ends[:, 0] - ax, ends[:, 1] - ay) <= gap  # no line drawn
        return near | ~_crossing(anchor, ends, np.array(crossed, dtype=np.int64))

    x0 = min(max(0, ax), max(0, size[0] - w))
    y0 = min(max(0, ay - h if box else ay), max(0, size[1] - h))
    first = (x0, y0, x0 + w, y0 + h)
    given = [r for r in (prefer,) if r is not None and r[2] - r[0] == w and r[3] - r[1] == h]
    if given and clear(np.array(given), ())[0] and led(np.array(given))[0]:
        return given[0]
    if clear(np.array([first]), avoid)[0] and led(np.array([first]))[0]:
        return first
    # the grid: columns every half band's height from the corner, rows a band apart
    step_x, step_y = max(2, h // 2), h + gap
    xs = ax + step_x * np.arange(-(ax // step_x), (size[0] - w - ax) // step_x + 1)
    base = y0 if box else ay
    ys = base + step_y * np.arange(-(base // step_y), (size[1] - h - base) // step_y + 1)
    gx, gy = (g.ravel() for g in np.meshgrid(xs, ys))
    grid = np.stack([gx, gy, gx + w, gy + h], axis=1)
    dx = np.maximum(np.maximum(grid[:, 0] - ax, 0), ax - grid[:, 2])
    dy = np.maximum(np.maximum(grid[:, 1] - ay, 0), ay - grid[:, 3])
    far = np.hypot(dx, dy) + (h * (grid[:, 3] > ay) if box else 0)
    grid = np.concatenate([np.array([first]), grid[np.lexsort((np.abs(gx - ax), far))]])
    ok = np.array([], dtype=np.int64)
    for keep_off in (avoid, ()):
        ok = np.flatnonzero(clear(grid, keep_off))
        tried = ok[:LEADER_TRIES]
        fine = tried[led(grid[tried])]
        if len(fine):
            return _rect(grid[fine[0]])
    return _rect(grid[ok[0]]) if len(ok) else first


def _rect(row: np.ndarray) -> Rect:
    x1, y1, x2, y2 = (int(v) for v in row)
    return x1, y1, x2, y2
