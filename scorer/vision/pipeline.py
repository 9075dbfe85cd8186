"""Coarse to fine card reading (docs/CONTRACTS.md, "Vision design").

1. coarse: the detector on the whole photo, decoded small (JPEG DCT scaling), at 320;
2. fine: the detector on crops around the cards, scaled so that a card is about
   `FINE_CARD` px tall and packed into 320x320 tiles, finds the corners;
3. read: `corner_crop` of each corner, classified;
4. cards, seats, warnings (`layout`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter

import numpy as np
from PIL import Image

from scorer.vision.crops import corner_crop
from scorer.vision.image import Photo, open_photo
from scorer.vision.layout import Box, Read, group_cards, layout, owner, upright
from scorer.vision.model import PAD, Detections, Models, letterbox, nms, postprocess, to_tensor

CARD, CORNER = 0, 1
FINE_CARD = 150  # a card's longer side in the fine tiles, px
READ_CARD = 170  # the least longer side of a card in the image corners are cut from, px
MARGIN = 0.06  # around a card box for its fine crop, of the card's longer side
COARSE_CONF, FINE_CONF, IOU = 0.25, 0.25, 0.5
UNREAD_CONF = 0.5  # a card box with no corner read is reported from this score
GAP = 2  # px between pieces in a fine tile
OTHER = "other"


class _Source:
    """The photo at several reductions: JPEG decoded through DCT scaling, otherwise
    decoded once and box-reduced."""

    def __init__(self, image: Image.Image | Photo) -> None:
        self.photo = image if isinstance(image, Photo) else None
        self.image = None if self.photo else image.convert("RGB")
        self.size = self.photo.size if self.photo else self.image.size

    def at(self, reduce: int) -> Image.Image:
        if self.photo is not None and self.photo.format == "JPEG":
            return self.photo.decode(reduce)
        if self.image is None:
            self.image = self.photo.decode(1)
        return self.image.reduce(reduce) if reduce > 1 else self.image


def _reduction(long_side: float, target: float, jpeg: bool) -> int:
    """The largest reduction keeping `long_side` at least `target` (a power of 2 up to
    8 for JPEG)."""
    r = max(1, int(long_side // max(target, 1)))
    if jpeg:
        return max(s for s in (1, 2, 4, 8) if s <= r)
    return r


def _to_full(boxes: np.ndarray, fx: float, fy: float) -> np.ndarray:
    return boxes * np.array([fx, fy, fx, fy], np.float32)


def coarse(models: Models, image: Image.Image, full: tuple[int, int]) -> Detections:
    """The detector on the whole (small) image; boxes in full-size pixels."""
    tensor, r, (left, top) = letterbox(image, models.det_size)
    d = postprocess(models.detect(tensor[None])[0], COARSE_CONF, IOU)
    boxes = (d.boxes - np.array([left, top, left, top], np.float32)) / r
    boxes = _to_full(boxes, full[0] / image.width, full[1] / image.height)
    boxes = boxes.clip(0, np.array([full[0], full[1], full[0], full[1]], np.float32))
    return Detections(boxes, d.scores, d.classes)


@dataclass(frozen=True)
class Piece:
    """A rectangle of the photo (full-size pixels) and its size in a fine tile."""

    rect: Box
    w: int
    h: int


def regions(boxes: list[Box], margin: float, size: tuple[int, int]) -> list[Box]:
    """Card boxes grown by `margin` of their longer side, clipped to the photo, and
    merged where they overlap (a fanned hand is one region)."""
    out = []
    for b in boxes:
        m = margin * max(b[2] - b[0], b[3] - b[1])
        out.append((max(0.0, b[0] - m), max(0.0, b[1] - m), min(size[0], b[2] + m), min(size[1], b[3] + m)))
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1]):
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def _spans(length: float, tile: int, overlap: float) -> list[tuple[float, float]]:
    """Windows of at most `tile` covering 0..length, overlapping by at least `overlap`."""
    if length <= tile:
        return [(0.0, length)]
    n = math.ceil((length - overlap) / (tile - overlap))
    step = (length - tile) / (n - 1)
    return [(i * step, i * step + tile) for i in range(n)]


def pieces(rects: list[Box], scale: float, tile: int, overlap: float) -> list[Piece]:
    """Each region scaled by `scale` and cut into windows that fit a tile."""
    out = []
    for x0, y0, x1, y1 in rects:
        w, h = (x1 - x0) * scale, (y1 - y0) * scale
        for a, b in _spans(h, tile, overlap):
            for c, d in _spans(w, tile, overlap):
                pw, ph = max(1, min(tile, round(d - c))), max(1, min(tile, round(b - a)))
                out.append(Piece((x0 + c / scale, y0 + a / scale, x0 + d / scale, y0 + b / scale), pw, ph))
    return out


@dataclass(frozen=True)
class Placed:
    """A piece in a tile: its left and top there, turned a quarter counterclockwise if
    `turned` (cards lie both ways in the training data, so a turn is harmless)."""

    piece: Piece
    left: int
    top: int
    turned: bool

    @property
    def w(self) -> int:
        return self.piece.h if self.turned else self.piece.w

    @property
    def h(self) -> int:
        return self.piece.w if self.turned else self.piece.h


def pack(items: list[Piece], tile: int, gap: int = GAP) -> list[list[Placed]]:
    """Skyline packing, largest piece first, each at the lowest place of the first tile
    where it fits either way up; as few `tile` squares as it finds."""
    tiles: list[list[Placed]] = []
    skylines: list[list[tuple[int, int, int]]] = []  # per tile: segments (x, y, width)
    for p in sorted(items, key=lambda p: -p.w * p.h):
        for t in range(len(tiles) + 1):
            if t == len(tiles):
                tiles.append([])
                skylines.append([(0, 0, tile)])
            spot = _skyline_spot(skylines[t], p, tile, gap)
            if spot is not None:
                x, y, turned = spot
                placed = Placed(p, x, y, turned)
                tiles[t].append(placed)
                skylines[t] = _skyline_add(skylines[t], x, y + placed.h + gap, placed.w + gap)
                break
    return tiles


def _skyline_spot(sky: list[tuple[int, int, int]], p: Piece, tile: int, gap: int) -> tuple[int, int, bool] | None:
    """The lowest (then leftmost) place for `p` on the skyline, upright or turned."""
    best = None
    for turned in (False, True) if p.w != p.h else (False,):
        w, h = (p.h, p.w) if turned else (p.w, p.h)
        for i, (x, _, _) in enumerate(sky):
            if x + w > tile:
                break
            top, covered, j = 0, 0, i
            while covered < w and j < len(sky):
                top = max(top, sky[j][1])
                covered = sky[j][0] + sky[j][2] - x
                j += 1
            if top + h <= tile and (best is None or (top + h, x) < (best[1] + best[3], best[0])):
                best = (x, top, turned, h)
    return None if best is None else best[:3]


def _skyline_add(sky: list[tuple[int, int, int]], x: int, y: int, w: int) -> list[tuple[int, int, int]]:
    """The skyline with the span x..x+w raised to y."""
    out = []
    for sx, sy, sw in sky:
        if sx + sw <= x or sx >= x + w:
            out.append((sx, sy, sw))
            continue
        if sx < x:
            out.append((sx, sy, x - sx))
        if sx + sw > x + w:
            out.append((x + w, sy, sx + sw - x - w))
    out.append((x, y, w))
    out.sort()
    merged: list[tuple[int, int, int]] = []
    for seg in out:
        if merged and merged[-1][1] == seg[1] and merged[-1][0] + merged[-1][2] == seg[0]:
            merged[-1] = (merged[-1][0], seg[1], merged[-1][2] + seg[2])
        else:
            merged.append(seg)
    return merged


def fine(models: Models, image: Image.Image, full: tuple[int, int], cards: list[Box], ref: float) -> np.ndarray:
    """Corner boxes (K, 4) and scores (K,) found by the detector on tiles of the
    regions around `cards`, scaled so that a card is `FINE_CARD` px long; full-size
    pixels."""
    tile = models.det_size
    scale = FINE_CARD / ref
    fx, fy = full[0] / image.width, full[1] / image.height
    items = pieces(regions(cards, MARGIN, full), scale, tile, overlap=0.45 * FINE_CARD)
    packed = pack(items, tile)
    if not packed:
        return np.zeros((0, 5), np.float32)
    batch = np.empty((len(packed), 3, tile, tile), np.float32)
    for k, placed in enumerate(packed):
        canvas = np.full((tile, tile, 3), PAD, np.uint8)
        for pl in placed:
            p = pl.piece
            x0, y0, x1, y1 = p.rect
            crop = image.resize((p.w, p.h), Image.Resampling.BILINEAR, box=(x0 / fx, y0 / fy, x1 / fx, y1 / fy))
            if pl.turned:
                crop = crop.transpose(Image.Transpose.ROTATE_90)
            canvas[pl.top : pl.top + pl.h, pl.left : pl.left + pl.w] = np.asarray(crop)
        batch[k] = to_tensor(canvas)
    found = []
    for k, out in enumerate(models.detect(batch)):
        d = postprocess(out, FINE_CONF, IOU).of(CORNER)
        for box, score in zip(d.boxes, d.scores, strict=True):
            hit = _to_photo(box, packed[k])
            if hit is not None:
                found.append([*hit, float(score)])
    if not found:
        return np.zeros((0, 5), np.float32)
    arr = np.array(found, np.float32)
    keep = nms(arr[:, :4], arr[:, 4], IOU)
    return suppress_contained(arr[keep])


def _to_photo(box: np.ndarray, placed: list[Placed]) -> tuple[float, float, float, float] | None:
    """A box found in a tile, in photo pixels, through the piece holding its centre."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for pl in placed:
        if pl.left <= cx < pl.left + pl.w and pl.top <= cy < pl.top + pl.h:
            u1, v1 = max(box[0], pl.left) - pl.left, max(box[1], pl.top) - pl.top
            u2, v2 = min(box[2], pl.left + pl.w) - pl.left, min(box[3], pl.top + pl.h) - pl.top
            p = pl.piece
            if pl.turned:  # undo a quarter turn counterclockwise
                u1, v1, u2, v2 = p.w - v2, u1, p.w - v1, u2
            sx, sy = (p.rect[2] - p.rect[0]) / p.w, (p.rect[3] - p.rect[1]) / p.h
            return (float(p.rect[0] + u1 * sx), float(p.rect[1] + v1 * sy),
                    float(p.rect[0] + u2 * sx), float(p.rect[1] + v2 * sy))
    return None


def suppress_contained(dets: np.ndarray, frac: float = 0.7) -> np.ndarray:
    """Drop boxes (rows x1, y1, x2, y2, score, best first) mostly inside a better one:
    a corner cut at a tile's edge and found whole in the next."""
    keep: list[int] = []
    for i, b in enumerate(dets):
        area = max(1e-9, (b[2] - b[0]) * (b[3] - b[1]))
        inside = False
        for j in keep:
            o = dets[j]
            w = min(b[2], o[2]) - max(b[0], o[0])
            h = min(b[3], o[3]) - max(b[1], o[1])
            if w > 0 and h > 0 and w * h / area >= frac:
                inside = True
                break
        if not inside:
            keep.append(i)
    return dets[keep]


def read(models: Models, image: Image.Image, full: tuple[int, int], corners: np.ndarray,
         cards: list[Box]) -> list[Read]:
    """Classify each corner, cut from `image` with `corner_crop`, upright for a card
    standing (0 quarter turns) or lying sideways (1)."""
    if len(corners) == 0:
        return []
    fx, fy = full[0] / image.width, full[1] / image.height
    size = models.cls_size
    batch = np.empty((len(corners), 3, size, size), np.float32)
    for k, c in enumerate(corners):
        box = (float(c[0]), float(c[1]), float(c[2]), float(c[3]))
        i = owner(box, cards)
        turns = 0 if (upright(cards[i]) if i is not None else upright(box)) else 1
        crop = corner_crop(image, (box[0] / fx, box[1] / fy, box[2] / fx, box[3] / fy), turns, size=size)
        batch[k] = to_tensor(np.asarray(crop))
    probs = models.classify(batch)
    reads = []
    for c, p in zip(corners, probs, strict=True):
        j = int(np.argmax(p))
        name = models.names[j] if j < len(models.names) else OTHER
        if name != OTHER:
            reads.append(Read((float(c[0]), float(c[1]), float(c[2]), float(c[3])), name, float(p[j])))
    return reads


def scan(models: Models, image: Image.Image | Photo | bytes | str | Path, bottom: int = 0,
         timings: dict[str, float] | None = None) -> dict:
    """The `scan --json` object (less `image`) for one photo. `timings`, if given,
    receives seconds per stage: decode, coarse, fine, classify, layout."""
    t = timings if timings is not None else {}
    for k in ("decode", "coarse", "fine", "classify", "layout"):
        t[k] = 0.0
    start = perf_counter()
    if not isinstance(image, (Image.Image, Photo)):
        image = open_photo(image)
    src = _Source(image)
    full = src.size
    jpeg = src.photo is not None and src.photo.format == "JPEG"
    small = src.at(_reduction(max(full), models.det_size, jpeg))
    t["decode"] += perf_counter() - start

    start = perf_counter()
    det = coarse(models, small, full)
    t["coarse"] = perf_counter() - start
    card_det = det.of(CARD)
    cards: list[Box] = [tuple(float(v) for v in b) for b in card_det.boxes]
    if cards:
        ref = float(np.percentile([max(b[2] - b[0], b[3] - b[1]) for b in cards], 75))
    else:  # no card seen whole: a close-up, read where corners were seen
        corner_boxes = det.of(CORNER).boxes
        if len(corner_boxes) == 0:
            return {**layout([], bottom), "size": list(full)}
        ref = float(np.median(np.maximum(corner_boxes[:, 2] - corner_boxes[:, 0],
                                         corner_boxes[:, 3] - corner_boxes[:, 1]))) / 0.30
        regions_from = [tuple(float(v) for v in b) for b in corner_boxes]
    start = perf_counter()
    big = src.at(_reduction(ref, READ_CARD, jpeg))
    t["decode"] += perf_counter() - start

    start = perf_counter()
    if cards:
        corners = fine(models, big, full, cards, ref)
    else:
        grown = [(b[0] - ref * 0.3, b[1] - ref * 0.3, b[2] + ref * 0.3, b[3] + ref * 0.3) for b in regions_from]
        corners = fine(models, big, full, grown, ref)
    t["fine"] = perf_counter() - start

    start = perf_counter()
    reads = read(models, big, full, corners, cards)
    t["classify"] = perf_counter() - start

    start = perf_counter()
    found, unread = group_cards(reads, cards)
    sure_unread = [b for b, s in zip(cards, card_det.scores, strict=True) if b in unread and s >= UNREAD_CONF]
    result = layout(found, bottom, sure_unread)
    result["size"] = [int(full[0]), int(full[1])]
    t["layout"] = perf_counter() - start
    return result


class Recognizer:
    """The card reader: ONNX sessions loaded once, `scan` as often as wanted."""

    def __init__(self, model_dir: Path | str | None = None) -> None:
        self.models = Models(model_dir)

    def scan(self, image: Image.Image | Photo | bytes | str | Path, bottom: int = 0,
             timings: dict[str, float] | None = None) -> dict:
        """See `scan`: the cards, hands and warnings of one photo."""
        return scan(self.models, image, bottom % 4, timings)


_DEFAULT: Recognizer | None = None


def default_recognizer() -> Recognizer:
    """A process-wide `Recognizer` on the default model directory."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Recognizer()
    return _DEFAULT
