"""Coarse to fine card reading (docs/CONTRACTS.md, "Vision design").

0. decode: a JPEG once, through DCT scaling, at the largest 1/2^k keeping it at least
   `FIRST_LONG` px (a 12 MP photo at 1/2); again finer only if the cards are so small
   that they would be under `READ_CARD` px there;
1. coarse: the detector on the whole photo letterboxed to 320 finds the cards;
2. fine: the detector on crops around the cards, scaled so that a card is about
   `FINE_CARD` px long and packed into 320x320 tiles (one batch), finds the corners
   and sharper card boxes;
3. read: `corner_crop` of each corner from the decoded photo, classified (again through
   shifted crops, averaged, when unsure); where a rank reader is shipped, the numeral of
   each corner on a card cut out (`index_crop`), read alone, and its rank combined with
   the classifier's (`combine`); where a court suit reader is shipped, the suit of the
   corners read as a 10, 11 or 12 read again (`combine_suits`): the drawn deck's court
   cards of a rank differ at their far corner only in the breaks of the frame line;
4. cards: corners grouped by card box; card boxes with no read read at their index
   corners; a name read twice kept by the surer card; at most 16 Mus cards;
5. seats and warnings (`layout`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter

import numpy as np
from PIL import Image

from scorer.vision import pintas
from scorer.vision.crops import corner_crop, far_end, index_crop
from scorer.vision.image import Photo, check_scannable, open_photo
from scorer.vision.layout import (
    DEAL,
    LOW_CONFIDENCE,
    Box,
    Card,
    Read,
    far_apart,
    group_cards,
    iou,
    is_showdown,
    layout,
    mus_count,
    not_mus,
    owner,
    recover_lost,
    unique_names,
    upright,
)
from scorer.vision.model import (
    PAD,
    Detections,
    Models,
    combine,
    combine_suits,
    letterbox,
    nms,
    postprocess,
    rank_of,
    to_tensor,
)

CARD, CORNER = 0, 1
FINE_CARD = 150  # a card's longer side in the fine tiles, px ...
FINE_CARD_MIN = 130  # ... or down to this when it saves a tile (the detector trained on 110-200)
FIRST_LONG = 1600  # the first decode's longer side, at least, px
READ_CARD = 170  # the least longer side of a card in the image corners are cut from, px
MARGIN = 0.06  # around a card box for its fine crop, of the card's longer side
COARSE_CONF, FINE_CONF = 0.25, 0.25
IOU = 0.7  # NMS within a detector run: the boxes of fanned cards overlap a lot
MERGE_IOU = 0.5  # the same corner found in two tiles
SURE = 0.97  # a corner read this sure spares reading the card's other corner
FALLBACK_CONF = 0.6  # a card box's index corner read directly names the card from this (a name not yet read)
UNREAD_CONF = 0.5  # a card box with no corner read is reported from this score
PROBE_INWARD = ((0.0, 0.0), (0.3, 0.0), (0.0, 0.3), (0.3, 0.3))  # an unread box's corner spots, of the corner
SQUARE = 1.25  # an unread box this near square is probed as a card standing and as one lying
GAP = 2  # px between pieces in a fine tile
OTHER = "other"


class _Source:
    """The photo at several reductions: JPEG decoded through DCT scaling, otherwise
    decoded once and box-reduced."""

    def __init__(self, image: Image.Image | Photo) -> None:
        self.photo = image if isinstance(image, Photo) else None
        self.image = None if self.photo else image if image.mode == "RGB" else image.convert("RGB")
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
    merged where they overlap and their union is not much bigger than both (a fanned
    hand is one region; a card lying across two hands is not a bridge between them)."""
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
                u = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                iw, ih = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
                if iw > 0 and ih > 0 and _area(u) <= 1.25 * (_area(a) + _area(b) - iw * ih):
                    out[i] = u
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def _overlap(a: Box, b: Box) -> float:
    """Intersection over the smaller box's area."""
    w, h = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h) / max(1e-9, min(_area(a), _area(b)))


def _area(b: Box) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _spans(length: float, tile: int, overlap: float) -> list[tuple[float, float]]:
    """Windows of at most `tile` covering 0..length, overlapping by at least `overlap`."""
    if length <= tile:
        return [(0.0, length)]
    n = math.ceil((length - overlap) / (tile - overlap))
    step = (length - tile) / (n - 1)
    return [(i * step, i * step + tile) for i in range(n)]


def pieces(rects: list[Box], scale: float, tile: int, overlap: float, least: float | None = None) -> list[Piece]:
    """Each region scaled by `scale` and cut into windows that fit a tile; a region
    that fits whole at a scale down to `least` is scaled to fit instead of cut."""
    out = []
    for x0, y0, x1, y1 in rects:
        s = scale
        long = max(x1 - x0, y1 - y0)
        if least is not None and long * least <= tile < long * scale:
            s = tile / long * 0.999
        w, h = (x1 - x0) * s, (y1 - y0) * s
        for a, b in _spans(h, tile, overlap):
            for c, d in _spans(w, tile, overlap):
                pw, ph = max(1, min(tile, round(d - c))), max(1, min(tile, round(b - a)))
                out.append(Piece((x0 + c / s, y0 + a / s, x0 + d / s, y0 + b / s), pw, ph))
    return out


@dataclass(frozen=True)
class Placed:
    """A piece in a tile, at its left and top there (never turned: the detector reads
    cards turned a quarter much worse than as they lie in the photo)."""

    piece: Piece
    left: int
    top: int

    @property
    def w(self) -> int:
        return self.piece.w

    @property
    def h(self) -> int:
        return self.piece.h


def pack(items: list[Piece], tile: int, gap: int = GAP) -> list[list[Placed]]:
    """Skyline packing, largest piece first, each at the lowest place of the first tile
    where it fits; as few `tile` squares as it finds."""
    tiles: list[list[Placed]] = []
    skylines: list[list[tuple[int, int, int]]] = []  # per tile: segments (x, y, width)
    for p in sorted(items, key=lambda p: -p.w * p.h):
        for t in range(len(tiles) + 1):
            if t == len(tiles):
                tiles.append([])
                skylines.append([(0, 0, tile)])
            spot = _skyline_spot(skylines[t], p.w, p.h, tile)
            if spot is not None:
                placed = Placed(p, *spot)
                tiles[t].append(placed)
                skylines[t] = _skyline_add(skylines[t], spot[0], spot[1] + p.h + gap, p.w + gap)
                break
    return tiles


def _skyline_spot(sky: list[tuple[int, int, int]], w: int, h: int, tile: int) -> tuple[int, int] | None:
    """The lowest (then leftmost) place for a `w` x `h` piece on the skyline."""
    best = None
    for i, (x, _, _) in enumerate(sky):
        if x + w > tile:
            break
        top, covered, j = 0, 0, i
        while covered < w and j < len(sky):
            top = max(top, sky[j][1])
            covered = sky[j][0] + sky[j][2] - x
            j += 1
        if top + h <= tile and (best is None or (top + h, x) < (best[1] + h, best[0])):
            best = (x, top)
    return best


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


def fine_tiles(rects: list[Box], ref: float, tile: int) -> list[list[Placed]]:
    """The regions packed into tiles with a card `FINE_CARD` px long, or a little less
    (down to `FINE_CARD_MIN`) where that needs fewer tiles: each tile is a detector run."""
    best: list[list[Placed]] | None = None
    for card in range(FINE_CARD, FINE_CARD_MIN - 1, -10):
        packed = pack(pieces(rects, card / ref, tile, 0.45 * card, FINE_CARD_MIN / ref), tile)
        if best is None or len(packed) < len(best):
            best = packed
    return best or []


def fine(models: Models, image: Image.Image, full: tuple[int, int], cards: list[Box],
         ref: float) -> tuple[np.ndarray, np.ndarray]:
    """Corners and cards, rows (x1, y1, x2, y2, score) in full-size pixels, best first,
    found by the detector on tiles of the regions around `cards`, scaled so that a card
    is about `FINE_CARD` px long."""
    tile = models.det_size
    fx, fy = full[0] / image.width, full[1] / image.height
    packed = fine_tiles(regions(cards, MARGIN, full), ref, tile)
    if not packed:
        return np.zeros((0, 5), np.float32), np.zeros((0, 5), np.float32)
    batch = np.empty((len(packed), 3, tile, tile), np.float32)
    for k, placed in enumerate(packed):
        canvas = np.full((tile, tile, 3), PAD, np.uint8)
        for pl in placed:
            p = pl.piece
            x0, y0, x1, y1 = p.rect
            crop = image.resize((p.w, p.h), Image.Resampling.BILINEAR, box=(x0 / fx, y0 / fy, x1 / fx, y1 / fy))
            canvas[pl.top : pl.top + pl.h, pl.left : pl.left + pl.w] = np.asarray(crop)
        batch[k] = to_tensor(canvas)
    found: dict[int, list[list[float]]] = {CARD: [], CORNER: []}
    for k, out in enumerate(models.detect(batch)):
        d = postprocess(out, FINE_CONF, IOU)
        for box, score, cls in zip(d.boxes, d.scores, d.classes, strict=True):
            if int(cls) == CARD and _cut(box, packed[k]):
                continue  # a card cut by its window's edge: its box is not the card's
            hit = _to_photo(box, packed[k])
            if hit is not None and int(cls) in found:
                found[int(cls)].append([*hit, float(score)])
    corners, card_rows = (np.array(found[c], np.float32).reshape(-1, 5) for c in (CORNER, CARD))
    if len(corners):
        corners = suppress_contained(corners[nms(corners[:, :4], corners[:, 4], MERGE_IOU)])
    if len(card_rows):
        card_rows = card_rows[nms(card_rows[:, :4], card_rows[:, 4], IOU)]
    return corners, card_rows


def refine(cards: list[Box], fine_cards: np.ndarray, min_iou: float = 0.6) -> list[Box]:
    """Each coarse card box replaced by the fine pass's box of the same card (the best
    overlap, at least `min_iou`), which is 5-10 times as precise."""
    out = []
    for b in cards:
        best, best_iou = b, min_iou
        for f in fine_cards:
            w = min(b[2], f[2]) - max(b[0], f[0])
            h = min(b[3], f[3]) - max(b[1], f[1])
            if w <= 0 or h <= 0:
                continue
            inter = w * h
            iou = inter / ((b[2] - b[0]) * (b[3] - b[1]) + (f[2] - f[0]) * (f[3] - f[1]) - inter)
            if iou > best_iou:
                best, best_iou = (float(f[0]), float(f[1]), float(f[2]), float(f[3])), iou
        out.append(best)
    return out


def _cut(box: np.ndarray, placed: list[Placed], tol: float = 2.0) -> bool:
    """Whether a box reaches an edge of the piece holding its centre."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for pl in placed:
        if pl.left <= cx < pl.left + pl.w and pl.top <= cy < pl.top + pl.h:
            return (box[0] <= pl.left + tol or box[1] <= pl.top + tol
                    or box[2] >= pl.left + pl.w - tol or box[3] >= pl.top + pl.h - tol)
    return True


def _to_photo(box: np.ndarray, placed: list[Placed]) -> tuple[float, float, float, float] | None:
    """A box found in a tile, in photo pixels, through the piece holding its centre."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for pl in placed:
        if pl.left <= cx < pl.left + pl.w and pl.top <= cy < pl.top + pl.h:
            u1, v1 = max(box[0], pl.left) - pl.left, max(box[1], pl.top) - pl.top
            u2, v2 = min(box[2], pl.left + pl.w) - pl.left, min(box[3], pl.top + pl.h) - pl.top
            p = pl.piece
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


TTA = ((0.0, 0.0, 1.0), (-0.07, -0.07, 1.0), (0.07, 0.07, 1.0), (0.07, -0.07, 1.0), (-0.07, 0.07, 1.0),
       (0.0, 0.0, 1.15), (0.0, 0.0, 0.87))  # (dx, dy of the box side, scale): corner crops read and averaged
TTA_BELOW = 0.97  # a corner read less sure than this from its box is read again through `TTA`
COURT_MASS = 0.2  # a corner read a court card (10, 11, 12) this likely has its suit read again
ACE_MASS = 0.5  # a corner read an ace this likely has its pintas read where the json gives an ace weight
ALTS = 3  # names kept per read, best first


Crop = tuple[Box, int, "bool | None"]
"""A corner to read: its box (full-size pixels), the quarter turns that stand its card up,
and whether it lies at the card's far end (None where no card box holds it)."""


def _crops(models: Models, image: Image.Image, scale: tuple[float, float], crops: list[Crop],
           shifts: tuple[tuple[float, float, float], ...], size: int | None = None) -> np.ndarray:
    """A classifier batch: each corner box cut at each shift (dx, dy of the box side, scale)."""
    size = size or models.cls_size
    fx, fy = scale
    batch = np.empty((len(crops) * len(shifts), 3, size, size), np.float32)
    n = 0
    for b, turns, _ in crops:
        w, h = (b[2] - b[0]) / fx, (b[3] - b[1]) / fy
        cx, cy = (b[0] + b[2]) / 2 / fx, (b[1] + b[3]) / 2 / fy
        for dx, dy, s in shifts:
            x, y = cx + dx * w, cy + dy * h
            box = (x - w * s / 2, y - h * s / 2, x + w * s / 2, y + h * s / 2)
            batch[n] = to_tensor(np.asarray(corner_crop(image, box, turns, size=size)))
            n += 1
    return batch


def read_ranks(models: Models, image: Image.Image, scale: tuple[float, float], crops: list[Crop]) -> np.ndarray:
    """Rank probabilities (N, R) of the corners' numerals (`index_crop`), for the corners
    that lie on a card (known far end)."""
    size, (fx, fy) = models.index_size, scale
    batch = np.empty((len(crops), 3, size, size), np.float32)
    for n, (b, turns, far) in enumerate(crops):
        box = (b[0] / fx, b[1] / fy, b[2] / fx, b[3] / fy)
        batch[n] = to_tensor(np.asarray(index_crop(image, box, turns, bool(far), size=size)))
    return models.read_ranks(batch)


def classify_corners(models: Models, image: Image.Image, scale: tuple[float, float],
                     crops: list[Crop], cards: list[Box] | None = None) -> np.ndarray:
    """Class probabilities (N, C) of corner boxes: one crop each, and for those read less
    sure than `TTA_BELOW` the mean over the `TTA` shifted and scaled crops; then, where a
    rank reader is shipped, the rank read again from the numeral of each corner on a card
    (`combine`), and where a court suit reader is shipped, the suit of each corner read a
    court card read again from its crop (`combine_suits`); and where the classifier's json
    gives a `pintas_weight`, the suit of each corner on a card (of `cards`) less sure of its
    suit than `pintas.BELOW` read again from its frame line's breaks (`pintas.fold`); where
    it gives a `pintas_ace_weight`, a corner read an ace (`ACE_MASS`) less sure than
    `pintas.ACE_BELOW` too, folded at that weight instead."""
    if not crops:
        return np.zeros((0, len(models.names)), np.float32)
    first = _crops(models, image, scale, crops, TTA[:1])
    p = models.classify(first)
    again = [i for i in range(len(crops)) if p[i].max() < TTA_BELOW]
    if again:
        more = models.classify(_crops(models, image, scale, [crops[i] for i in again], TTA[1:]))
        more = more.reshape(len(again), len(TTA) - 1, -1)
        p[again] = (p[again] + more.sum(axis=1)) / len(TTA)
    on_card = [i for i, c in enumerate(crops) if c[2] is not None]
    if models.index is not None and on_card:
        ranks = read_ranks(models, image, scale, [crops[i] for i in on_card])
        p[on_card] = combine(p[on_card], models.names, ranks, models.ranks, models.index_weight)
    if models.suit is not None:
        court = [i for i in range(len(crops)) if p[i, models.court].sum() >= COURT_MASS]
        if court:
            batch = first[court] if models.suit_size == models.cls_size else _crops(
                models, image, scale, [crops[i] for i in court], TTA[:1], models.suit_size)
            p[court] = combine_suits(p[court], models.names, models.read_suits(batch), models.suits,
                                     models.suit_weight)
    if (models.pintas_weight or models.pintas_ace_weight) and cards and on_card:
        sure = pintas.suit_sureness(p[on_card], models.names)
        aces = p[:, [j for j, n in enumerate(models.names) if rank_of(n) == "1"]].sum(axis=1) >= ACE_MASS
        weights: dict[int, float] = {}
        for i, v in zip(on_card, sure, strict=True):
            if models.pintas_ace_weight and aces[i] and v < pintas.ACE_BELOW:
                weights[i] = models.pintas_ace_weight
            elif models.pintas_weight and v < pintas.BELOW:
                weights[i] = models.pintas_weight
        if weights:
            fx, fy = scale
            gray = np.asarray(image.convert("L"), np.float32)
            seen = [(c[0] / fx, c[1] / fy, c[2] / fx, c[3] / fy) for c in cards]
            rows = list(weights)
            lls = []
            for i in rows:
                b, turns, far = crops[i]
                box = (b[0] / fx, b[1] / fy, b[2] / fx, b[3] / fy)
                lls.append(pintas.corner_suit(gray, box, seen, owner(b, cards), (turns + (2 if far else 0)) % 4))
            p[rows] = pintas.fold(p[rows], models.names, lls, np.array([weights[i] for i in rows]))
    return p


def to_read(models: Models, box: Box, p: np.ndarray) -> Read | None:
    """The read of one corner from its class probabilities; None for `other`."""
    order = np.argsort(-p)[:ALTS]
    names = [models.names[j] if j < len(models.names) else OTHER for j in order]
    if names[0] == OTHER:
        return None
    alts = tuple((n, float(p[j])) for n, j in zip(names[1:], order[1:], strict=True) if n != OTHER)
    return Read(box, names[0], float(p[order[0]]), alts)


def read_corners(models: Models, image: Image.Image, full: tuple[int, int], corners: np.ndarray,
                 cards: list[Box], ks: list[int]) -> list[Read | None]:
    """Classify the corners `ks` (rows of `corners`), cut from `image` with `corner_crop`,
    upright for a card standing (0 quarter turns) or lying sideways (1); None for `other`."""
    fx, fy = full[0] / image.width, full[1] / image.height
    crops: list[Crop] = []
    for k in ks:
        box = (float(corners[k][0]), float(corners[k][1]), float(corners[k][2]), float(corners[k][3]))
        o = owner(box, cards)
        if o is None:
            crops.append((box, 0 if upright(box) else 1, None))
            continue
        card = cards[o]
        turns = 0 if upright(card) else 1
        crops.append((box, turns, far_end(box, ((card[0] + card[2]) / 2, (card[1] + card[3]) / 2), turns)))
    probs = classify_corners(models, image, (fx, fy), crops, cards)
    return [to_read(models, c[0], pr) for c, pr in zip(crops, probs, strict=True)]


def read(models: Models, image: Image.Image, full: tuple[int, int], corners: np.ndarray,
         cards: list[Box]) -> tuple[list[Read], list[int]]:
    """Classify corners (rows best first, `read_corners`): first the best corner of each
    card and every corner outside the cards, then the other corners of the cards whose
    first read is not sure or names a card read first in another box too. Returns the
    reads and the corners left unread (the far ends of sure cards)."""
    boxes = [(float(c[0]), float(c[1]), float(c[2]), float(c[3])) for c in corners]
    owners = [owner(b, cards) for b in boxes]
    first, rest, seen = [], [], set()
    for k, o in enumerate(owners):
        if o is None or o not in seen:
            first.append(k)
            seen.add(o)
        else:
            rest.append(k)

    reads = read_corners(models, image, full, corners, cards, first)
    named = Counter(r.name for r in reads if r is not None)
    # a sure name also read first in another card box is a neighbour's corner over one of them:
    # their other corners are read as well
    sure = {owners[k]: boxes[k] for k, r in zip(first, reads, strict=True)
            if r is not None and r.conf >= SURE and named[r.name] == 1}
    # a corner at the far end of its card from the card's sure corner is left unread
    far = {k for k in rest if owners[k] in sure and far_apart(boxes[k], sure[owners[k]], cards[owners[k]])}
    reads += read_corners(models, image, full, corners, cards, [k for k in rest if k not in far])
    return [r for r in reads if r is not None], [k for k in rest if k in far]


def probe(models: Models, image: Image.Image, full: tuple[int, int], boxes: list[Box],
          corners: np.ndarray) -> list[Read | None]:
    """The surest read of the two index corners of each card box (top left and bottom
    right of a card standing, top right and bottom left of one lying), cut at the size
    of the photo's corners at their spots and at the spots moved inwards
    (`PROBE_INWARD`); a box near square (`SQUARE`) both ways. None where all are `other`."""
    if not boxes:
        return []
    if len(corners):
        cw, ch = np.median(corners[:, 2] - corners[:, 0]), np.median(corners[:, 3] - corners[:, 1])
    else:
        cw = ch = 0.3 * np.median([max(b[2] - b[0], b[3] - b[1]) for b in boxes])
    crops: list[Crop] = []
    spans = []
    for b in boxes:
        start = len(crops)
        bw, bh = b[2] - b[0], b[3] - b[1]
        # a box near square may hold a card standing or lying: both are probed
        ways = (upright(b),) if max(bw, bh) > SQUARE * min(bw, bh) else (True, False)
        for up in ways:
            w, h = (min(cw, ch), max(cw, ch)) if up else (max(cw, ch), min(cw, ch))
            # each index corner's spot, then moved inwards: a card tilted in a fan has its
            # corners inside its upright box
            spots = (((b[0], b[1]), 1, 1), ((b[2] - w, b[3] - h), -1, -1)) if up else (
                ((b[2] - w, b[1]), -1, 1), ((b[0], b[3] - h), 1, -1))
            for ((x, y), sx, sy), far in zip(spots, (False, True), strict=True):
                for dx, dy in PROBE_INWARD:
                    x0, y0 = x + sx * dx * w, y + sy * dy * h
                    crops.append(((x0, y0, x0 + w, y0 + h), 0 if up else 1, far))
        spans.append(range(start, len(crops)))
    probs = classify_corners(models, image, (full[0] / image.width, full[1] / image.height), crops)
    out = []
    for ks in spans:
        reads = [r for k in ks if (r := to_read(models, crops[k][0], probs[k])) is not None]
        out.append(max(reads, key=lambda r: r.conf, default=None))
    return out


def read_unread(models: Models, image: Image.Image, full: tuple[int, int], found: list[Card],
                unread: list[Box], corners: np.ndarray) -> tuple[list[Card], list[Box]]:
    """Card boxes where no corner was found or read, read at their index corners
    (`probe`): a sure read of a name not yet read makes the card. Returns the cards and
    the boxes still unread."""
    taken = {c.name for c in found}
    out, still = list(found), []
    for b, best in zip(unread, probe(models, image, full, unread, corners), strict=True):
        if best is not None and best.conf >= FALLBACK_CONF and best.name not in taken:
            out.append(Card(best.name, best.conf, b, tuple(n for n, _ in best.alts), best.alts))
            taken.add(best.name)
        else:
            still.append(b)
    return out, still


def at_most_a_deal(cards: list[Card], n: int = DEAL) -> list[Card]:
    """A showdown has `n` Mus cards: beyond them, the least sure ones read under
    `LOW_CONFIDENCE` are dropped (a sure read is kept, and warned about)."""
    mus = sorted((c for c in cards if not not_mus(c.name)), key=lambda c: -c.conf)
    drop = {id(c) for c in mus[n:] if c.conf < LOW_CONFIDENCE}
    return [c for c in cards if id(c) not in drop]


def scan(models: Models, image: Image.Image | Photo | bytes | str | Path, bottom: int = 0,
         timings: dict[str, float] | None = None, trace: dict | None = None) -> dict:
    """The `scan --json` object (less `image`) for one photo. `timings`, if given,
    receives seconds per stage: decode, coarse, fine, classify, layout; `trace`, the image
    the corners were read in (`image`), the photo's size (`full`) and the corner and card
    boxes found, in photo pixels (`corners`, `cards`), for cutting training crops
    (`datasets.harvest`) and for tracing a miss. A photo under `image.MIN_SIDE` px on its
    shorter side is `ImageError("too_small")`; one with no card found has a `no_cards`
    warning."""
    t = timings if timings is not None else {}
    for k in ("decode", "coarse", "fine", "classify", "layout"):
        t[k] = 0.0
    start = perf_counter()
    if not isinstance(image, (Image.Image, Photo)):
        image = open_photo(image)
    check_scannable(image.size)  # a photo too small to hold a card: ImageError("too_small")
    src = _Source(image)
    full = src.size
    jpeg = src.photo is not None and src.photo.format == "JPEG"
    # one decode serves both passes when it keeps the cards big enough (most photos)
    first_reduce = _reduction(max(full), FIRST_LONG, jpeg)
    first = src.at(first_reduce)
    t["decode"] += perf_counter() - start

    start = perf_counter()
    det = coarse(models, first, full)
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
    fine_reduce = _reduction(ref, READ_CARD, jpeg)
    big = first if fine_reduce >= first_reduce else src.at(fine_reduce)
    t["decode"] += perf_counter() - start

    start = perf_counter()
    if cards:
        corners, fine_cards = fine(models, big, full, cards, ref)
        cards = refine(cards, fine_cards)
        keep = [i for i, b in enumerate(cards) if not any(iou(b, cards[j]) > 0.8 for j in range(i))]
        cards, card_det = [cards[i] for i in keep], Detections(card_det.boxes[keep], card_det.scores[keep],
                                                               card_det.classes[keep])
    else:
        grown = [(b[0] - ref * 0.3, b[1] - ref * 0.3, b[2] + ref * 0.3, b[3] + ref * 0.3) for b in regions_from]
        corners, _ = fine(models, big, full, grown, ref)
    t["fine"] = perf_counter() - start

    start = perf_counter()
    reads, skipped = read(models, big, full, corners, cards)
    t["classify"] = perf_counter() - start

    start = perf_counter()
    found, unread = group_cards(reads, cards)
    if unread:
        found, unread = read_unread(models, big, full, found, unread, corners)
    found = unique_names(found)
    if is_showdown(found) and mus_count(found) < DEAL:
        # short of a card: one may lie nearly on another, outvoted in their box, or its corner
        # at the far end of a sure card's box, left unread
        far = read_corners(models, big, full, corners, cards, skipped) if skipped else []
        found = recover_lost(found, reads + [r for r in far if r is not None], cards)
    found = at_most_a_deal(found)
    # a card box with no read, sure, and neither a read card's nor a reported one's
    sure_unread: list[Box] = []
    for b, s in sorted(zip(cards, card_det.scores, strict=True), key=lambda t: -t[1]):
        if b in unread and s >= UNREAD_CONF and not any(
            _overlap(b, o) > 0.3 for o in sure_unread + [c.box for c in found]
        ):
            sure_unread.append(b)
    result = layout(found, bottom, sure_unread)
    result["size"] = [int(full[0]), int(full[1])]
    t["layout"] = perf_counter() - start
    if trace is not None:
        trace.update(image=big, full=full, corners=[tuple(float(v) for v in c[:4]) for c in corners], cards=cards)
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
