"""Synthetic phone photos of Mus showdowns, with exact labels (numpy + Pillow only).

A scene is laid out flat on a procedural table (felt, wood, cloth, patterned or plain),
cards and distractors are composited with an owner map that records, per pixel, which
object and which part of it (body, top-left corner, bottom-right corner) is on top; a
hand-held perspective then turns the flat table into the photo (colour and owner map
alike), so that the labels stay right under occlusion: a card's box is the box of its
visible pixels, a corner is labelled when at least 60% of its patch is visible.

    from datasets.render import render_scene
    scene = render_scene(np.random.default_rng(1), kind="table", size=(1600, 1200))
    scene.image   # PIL RGB photo (JPEG round-trip included)
    scene.hands   # [[4 card names] x 4] by seat
    scene.cards   # per card: name, seat, quad, visible box, corner boxes, quarter_turns

Card names are as in the hand record: rank then suit letter (`12o`, `1b`); `8o`..`9b`
come from the drawn deck only and appear as distractors.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

SUITS = ("o", "c", "e", "b")
MUS_RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
MUS_CARDS = tuple(f"{r}{s}" for r in MUS_RANKS for s in SUITS)
NON_MUS_CARDS = tuple(f"{r}{s}" for r in (8, 9) for s in SUITS)
CLASSES = (*MUS_CARDS, *NON_MUS_CARDS, "other")
"""The classifier's classes in order (also written to `cards-cls.json`)."""
DET_CLASSES = ("card", "corner")

DECKS = ("fournier-1878", "naipes-libres")
CORNER_W, CORNER_H = 0.42, 0.30
"""A corner patch, in card coordinates: top-left [0, 0.42] x [0, 0.30] and bottom-right."""
CORNER_MIN_VISIBLE = 0.60
CARD_MIN_VISIBLE = 0.06
SEAT_NAMES = ("bottom", "right", "top", "left")
CARD_ASPECT = 0.64
"""A card's width over its height, for laying cards out (each is drawn at its own face's)."""
_SUIT_WORDS = {"o": "oro", "c": "copa", "e": "espada", "b": "basto"}


def cards_dir() -> Path:
    """The folder holding the decks: `$MUS_CARDS_DIR`, else `../shared/cards` beside the repository."""
    env = os.environ.get("MUS_CARDS_DIR")
    if env:
        return Path(env)
    root = Path(__file__).resolve().parents[1]
    for cand in (root.parent / "shared" / "cards", root / "shared" / "cards", Path("/work/shared/cards")):
        if cand.is_dir():
            return cand
    raise FileNotFoundError("card images not found: set MUS_CARDS_DIR to the folder holding the decks")


@dataclass
class Deck:
    """One deck's faces (RGBA, rounded corners) by card name, and its back."""

    name: str
    faces: dict[str, Image.Image]
    back: Image.Image


def _round_corners(im: Image.Image, radius_frac: float = 0.05) -> Image.Image:
    im = im.convert("RGBA")
    mask = Image.new("L", im.size, 0)
    r = max(2, round(radius_frac * im.width))
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, im.width - 1, im.height - 1), radius=r, fill=255)
    alpha = np.minimum(np.asarray(im.getchannel("A")), np.asarray(mask))
    im.putalpha(Image.fromarray(alpha))
    return im


def _trim_white(im: Image.Image) -> Image.Image:
    """Crop the white scan margin around a card."""
    a = np.asarray(im.convert("L"))
    rows = np.where((a < 240).mean(axis=1) > 0.5)[0]
    cols = np.where((a < 240).mean(axis=0) > 0.5)[0]
    if len(rows) < 10 or len(cols) < 10:
        return im
    return im.crop((int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1))


ENROLLED = "deck.json"
"""The file that marks a deck folder written by `datasets.enroll` (faces from photos) or
`datasets.procedural` (made-up decks)."""
DECK_FORMAT = "mus-deck/1"
"""`format` of that file."""
DECK_ORDER = tuple(f"{r}{s}" for s in SUITS for r in MUS_RANKS)
"""A deck's order: oros 1-7, 10, 11, 12, then copas, espadas, bastos."""


def _plain_back(size: tuple[int, int]) -> Image.Image:
    """A patterned card back for a deck enrolled without one."""
    w, h = size
    im = Image.new("RGB", size, (236, 232, 222))
    d = ImageDraw.Draw(im)
    m = max(2, w // 14)
    d.rectangle((m, m, w - 1 - m, h - 1 - m), fill=(150, 30, 40))
    for k in range(-h, w, max(4, w // 12)):
        d.line((k, m, k + h, h - m), fill=(120, 20, 32), width=max(1, w // 60))
    return _round_corners(im)


def _enrolled(folder: Path) -> Deck:
    """A deck folder written by `datasets.enroll` or `datasets.procedural`: `<card>.png`
    for the 40 Mus cards, `back.png` if one was photographed."""
    faces = {}
    for name in MUS_CARDS:
        f = folder / f"{name}.png"
        if not f.is_file():
            raise ValueError(f"enrolled deck {str(folder)!r} has no face for {name} ({f.name})")
        faces[name] = _round_corners(Image.open(f).convert("RGB"))
    back_file = folder / "back.png"
    some = next(iter(faces.values()))
    back = _round_corners(Image.open(back_file).convert("RGB")) if back_file.is_file() else _plain_back(some.size)
    for im in (*faces.values(), back):
        im.load()
    return Deck(str(folder), faces, back)


DECK_CACHE = 32
"""Decks `load_deck` keeps loaded per process: a set drawn from 24 made-up decks
(`datasets.procedural`, about 20 MB each) loads each of them once, not once a scene."""


@lru_cache(maxsize=DECK_CACHE)
def load_deck(name: str, folder: str | None = None) -> Deck:
    """Load a deck from `cards_dir()/name` (`fournier-1878` or `naipes-libres`), or an
    enrolled deck from the folder `name` (`datasets.enroll`); the last `DECK_CACHE` are
    kept."""
    if (Path(name) / ENROLLED).is_file():
        return _enrolled(Path(name))
    base = Path(folder) if folder else cards_dir()
    d = base / name
    faces: dict[str, Image.Image] = {}
    if name == "fournier-1878":
        for r in MUS_RANKS:
            for s in SUITS:
                im = Image.open(d / f"{r}_{_SUIT_WORDS[s]}.webp").convert("RGB")
                faces[f"{r}{s}"] = _round_corners(_trim_white(im))
        back = _round_corners(_trim_white(Image.open(d / "dorso.webp").convert("RGB")))
    elif name == "naipes-libres":
        for r in (*MUS_RANKS, 8, 9):
            for s in SUITS:
                faces[f"{r}{s}"] = _round_corners(Image.open(d / f"{r:02d}-{_SUIT_WORDS[s]}s.png"), 0.0)
        back = _round_corners(Image.open(d / "reverso.png"), 0.0)
    else:
        raise ValueError(f"unknown deck {name!r}")
    for im in (*faces.values(), back):
        im.load()
    return Deck(name, faces, back)


# ----------------------------------------------------------------------------- geometry


def _rot(theta: float) -> np.ndarray:
    """Rotation by `theta` radians counterclockwise on screen (image y points down)."""
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, s], [-s, c]])


def homography(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """3x3 matrix mapping the 4 points `src` onto `dst`."""
    a, b = [], []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        b.append(u)
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.append(v)
    h = np.linalg.solve(np.array(a, float), np.array(b, float))
    return np.append(h, 1.0).reshape(3, 3)


def _apply_h(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ h.T
    return p[:, :2] / p[:, 2:3]


def _poly_area(p: np.ndarray) -> float:
    x, y = p[:, 0], p[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))


@dataclass
class Item:
    """One object on the table: a card face, a back, a coin or a glass."""

    kind: str  # "card" | "back" | "coin" | "glass"
    center: np.ndarray  # table coordinates
    angle: float  # radians, counterclockwise on screen
    height: float  # table pixels (cards); diameter for coins and glasses
    name: str | None = None
    deck: str | None = None
    seat: int | None = None
    pos: int | None = None  # table edge 0 bottom, 1 right, 2 top, 3 left
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    width: float = 0.0
    style: int | None = None  # seed of a restyled face (`datasets.restyle`), None for the deck's own
    faded: bool = False  # a restyled face printed in a light ink on yellowed paper
    art: str | None = None  # a restyled face's art taken from this other card (its numerals are `name`'s)
    hue: float | None = None  # a restyled face's colours turned by this share of the hue circle

    def point(self, u: float, v: float) -> np.ndarray:
        """A point given in card coordinates (0..1, 0..1) in table coordinates."""
        return self.center + _rot(self.angle) @ np.array([(u - 0.5) * self.width, (v - 0.5) * self.height])

    def quad(self, u0: float = 0, v0: float = 0, u1: float = 1, v1: float = 1) -> np.ndarray:
        return np.array([self.point(u0, v0), self.point(u1, v0), self.point(u1, v1), self.point(u0, v1)])


@dataclass
class Scene:
    """A rendered photo and its ground truth (coordinates in photo pixels)."""

    image: Image.Image
    cards: list[dict]
    hands: list[list[str]] | None
    bottom: int = 0
    kind: str = "table"
    deck: str = ""
    distractors: list[dict] = field(default_factory=list)

    def det_labels(self) -> list[tuple[int, float, float, float, float]]:
        """YOLO labels (class, cx, cy, w, h normalised) for card and corner boxes."""
        w, h = self.image.size
        out = []
        for c in self.cards:
            boxes = [(0, c["box"])] if c["box"] else []
            boxes += [(1, k["box"]) for k in c["corners"] if k["labelled"]]
            for cls, (x1, y1, x2, y2) in boxes:
                out.append((cls, (x1 + x2) / 2 / w, (y1 + y2) / 2 / h, (x2 - x1) / w, (y2 - y1) / h))
        return out


# ----------------------------------------------------------------------------- textures


def _smooth(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """Smooth value noise in [0, 1] with features about `cell` pixels wide."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    low = Image.fromarray(rng.random((gh, gw), dtype=np.float32), mode="F")
    return np.asarray(low.resize((w, h), Image.Resampling.BICUBIC), dtype=np.float32).clip(0, 1)


def _rand_color(rng: np.random.Generator, lo: float, hi: float) -> np.ndarray:
    return rng.uniform(lo, hi, 3).astype(np.float32)


def table_texture(rng: np.random.Generator, h: int, w: int, scale: float) -> np.ndarray:
    """A procedural table top (float32 HxWx3, 0..255); `scale` is a card's height in pixels."""
    kind = rng.choice(["felt", "felt", "wood", "wood", "cloth", "pattern", "plain"])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "felt":
        base = np.array(
            [[30, 110, 60], [25, 70, 130], [130, 30, 40], [40, 40, 45], [20, 90, 90], [90, 60, 40]][
                rng.integers(6)
            ],
            np.float32,
        ) * rng.uniform(0.7, 1.3)
        v = 1 + 0.15 * (_smooth(rng, h, w, scale * 2) - 0.5) + 0.08 * (_smooth(rng, h, w, scale * 0.2) - 0.5)
        img = base * v[..., None]
        grain = rng.standard_normal((h, w), dtype=np.float32) * rng.uniform(2, 8)
        img = img + grain[..., None]
    elif kind == "wood":
        light = np.array([rng.uniform(150, 220), rng.uniform(100, 160), rng.uniform(50, 100)], np.float32)
        dark = light * rng.uniform(0.45, 0.75)
        t = (yy if rng.random() < 0.5 else xx) / (scale * rng.uniform(0.04, 0.15))
        t = t + 4 * _smooth(rng, h, w, scale * 1.5)
        rings = (0.5 + 0.5 * np.sin(t)) ** 3
        plank = rng.uniform(1.0, 3.0) * scale
        along = yy if rng.random() < 0.5 else xx
        seam = (np.mod(along, plank) < max(1.5, scale * 0.01)).astype(np.float32)
        mix = 0.35 + 0.55 * rings * _smooth(rng, h, w, scale * 0.6) + 0.1 * rng.random()
        img = dark + (light - dark) * mix[..., None]
        img = img * (1 - 0.5 * seam[..., None])
    elif kind == "cloth":
        c1, c2 = _rand_color(rng, 120, 255), _rand_color(rng, 20, 200)
        p = scale * rng.uniform(0.08, 0.5)
        sx = (np.mod(xx, 2 * p) < p).astype(np.float32)
        sy = (np.mod(yy, 2 * p) < p).astype(np.float32)
        m = (0.5 * sx + 0.5 * sy)[..., None]
        img = c1 * (1 - m) + c2 * m
        weave = 1 + 0.06 * np.sin(xx * 1.7) * np.sin(yy * 1.7)
        img = img * weave[..., None] * (1 + 0.1 * (_smooth(rng, h, w, scale) - 0.5))[..., None]
    elif kind == "pattern":
        t = max(8, int(scale * rng.uniform(0.15, 0.6)))
        tile = Image.new("RGB", (t, t), tuple(int(x) for x in _rand_color(rng, 60, 250)))
        d = ImageDraw.Draw(tile)
        for _ in range(rng.integers(1, 5)):
            col = tuple(int(x) for x in _rand_color(rng, 0, 255))
            x, y, r = rng.uniform(0, t), rng.uniform(0, t), rng.uniform(t * 0.08, t * 0.35)
            shape = rng.integers(3)
            if shape == 0:
                d.ellipse((x - r, y - r, x + r, y + r), fill=col)
            elif shape == 1:
                d.polygon([(x, y - r), (x + r, y), (x, y + r), (x - r, y)], fill=col)
            else:
                d.line((x - r, y - r, x + r, y + r), fill=col, width=max(1, int(r / 3)))
        arr = np.asarray(tile, np.float32)
        img = np.tile(arr, (h // t + 1, w // t + 1, 1))[:h, :w]
        img = img * (1 + 0.08 * (_smooth(rng, h, w, scale) - 0.5))[..., None]
    else:  # plain or marble
        base = _rand_color(rng, 40, 240)
        veins = np.abs(np.sin(xx / (scale * 0.7) + 6 * _smooth(rng, h, w, scale * 1.5)))
        img = base * (1 - rng.uniform(0, 0.25) * (veins < 0.08))[..., None]
        img = img * (1 + 0.06 * (_smooth(rng, h, w, scale * 2) - 0.5))[..., None]
    return np.clip(img, 0, 255).astype(np.float32)


# ----------------------------------------------------------------------------- sprites


@lru_cache(maxsize=512)
def _region_template(w: int, h: int) -> Image.Image:
    """Per-pixel part of a card: 1 body, 2 top-left corner, 3 bottom-right corner."""
    t = Image.new("L", (w, h), 1)
    d = ImageDraw.Draw(t)
    d.rectangle((0, 0, round(CORNER_W * w) - 1, round(CORNER_H * h) - 1), fill=2)
    d.rectangle((round((1 - CORNER_W) * w), round((1 - CORNER_H) * h), w - 1, h - 1), fill=3)
    return t


def _coin_sprite(rng: np.random.Generator, d: int) -> Image.Image:
    d = max(6, d)
    yy, xx = (np.mgrid[0:d, 0:d].astype(np.float32) + 0.5 - d / 2) / (d / 2)
    r = np.hypot(xx, yy)
    metal = np.array([[212, 175, 55], [192, 192, 200], [184, 115, 51], [170, 160, 110]][rng.integers(4)], np.float32)
    shade = 0.75 + 0.35 * (-(xx + yy) / 2.8) + 0.15 * np.cos(r * rng.uniform(8, 20))
    shade = np.where(r > 0.85, shade * 0.8, shade)
    rgb = np.clip(metal * shade[..., None], 0, 255)
    alpha = np.clip((1 - r) * d / 2, 0, 1) * 255
    return Image.fromarray(np.dstack([rgb, alpha]).astype(np.uint8), "RGBA")


def _glass_sprite(rng: np.random.Generator, d: int) -> Image.Image:
    d = max(8, d)
    yy, xx = (np.mgrid[0:d, 0:d].astype(np.float32) + 0.5 - d / 2) / (d / 2)
    r = np.hypot(xx, yy)
    liquid = np.array([[120, 10, 30], [220, 170, 40], [200, 220, 230], [60, 30, 10]][rng.integers(4)], np.float32)
    level = rng.uniform(0.0, 0.85)
    rgb = np.where((r < level)[..., None], liquid, np.float32(235))
    rim = (r > 0.9) & (r < 1.0)
    alpha = np.where(r < level, 200, 60).astype(np.float32)
    alpha = np.where(rim, 230, alpha)
    hl = (np.abs(r - 0.75) < 0.05) & (xx < -0.2) & (yy < 0)
    rgb = np.where((rim | hl)[..., None], np.float32(250), rgb)
    alpha = np.where(hl, 220, alpha)
    alpha = np.where(r >= 1.0, 0, alpha)
    return Image.fromarray(np.dstack([rgb, alpha]).astype(np.uint8), "RGBA")


def _warp_sprite(
    sprite: Image.Image, region: Image.Image | None, item: Item, origin: tuple[int, int]
) -> tuple[int, int, np.ndarray, np.ndarray | None] | None:
    """Place `sprite` at `item` (in canvas coordinates after subtracting `origin`): returns
    the patch's top-left, premultiplied RGBA (float32) and the warped part map."""
    # shrink first so that the affine warp does not alias
    sh = max(4, round(item.height * 1.1))
    if sprite.height > sh:
        sw = max(2, round(sprite.width * sh / sprite.height))
        sprite = sprite.resize((sw, sh), Image.Resampling.BILINEAR, reducing_gap=2.0)
        if region is not None:
            region = _region_template(sw, sh)
    q = item.quad() - np.array(origin)
    x0, y0 = np.floor(q.min(0)).astype(int) - 1
    x1, y1 = np.ceil(q.max(0)).astype(int) + 1
    pw, ph = int(x1 - x0), int(y1 - y0)
    if pw <= 1 or ph <= 1 or pw > 20000 or ph > 20000:
        return None
    s = sprite.height / item.height
    c, si = math.cos(item.angle), math.sin(item.angle)
    cx, cy = item.center[0] - origin[0], item.center[1] - origin[1]
    coef = (
        s * c,
        -s * si,
        s * (c * (x0 - cx) - si * (y0 - cy)) + sprite.width / 2,
        s * si,
        s * c,
        s * (si * (x0 - cx) + c * (y0 - cy)) + sprite.height / 2,
    )
    patch = sprite.convert("RGBa").transform((pw, ph), Image.Transform.AFFINE, coef, Image.Resampling.BILINEAR)
    reg = None
    if region is not None:
        reg = np.asarray(region.transform((pw, ph), Image.Transform.AFFINE, coef, Image.Resampling.NEAREST))
    return int(x0), int(y0), np.asarray(patch, np.float32), reg


def _clip(shape: tuple[int, int], x0: int, y0: int, w: int, h: int):
    """Slices of the canvas and of a patch for a patch at (x0, y0)."""
    H, W = shape
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
    if cx1 <= cx0 or cy1 <= cy0:
        return None
    return (slice(cy0, cy1), slice(cx0, cx1)), (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))


def _composite(
    canvas: np.ndarray,
    owner: np.ndarray,
    placed: tuple[int, int, np.ndarray, np.ndarray | None],
    code: int,
    shadow: tuple[float, float, float, float],
) -> None:
    """Alpha-composite a placed sprite with its drop shadow; write its part codes into `owner`."""
    x0, y0, patch, reg = placed
    ph, pw = patch.shape[:2]
    alpha = patch[..., 3] / 255.0
    sdx, sdy, blur, strength = shadow
    if strength > 0:
        sa = Image.fromarray((alpha * 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(blur))
        sl = _clip(canvas.shape[:2], x0 + round(sdx), y0 + round(sdy), pw, ph)
        if sl:
            (cy, cx), (py, px) = sl
            canvas[cy, cx] *= (1 - strength * np.asarray(sa, np.float32)[py, px] / 255.0)[..., None]
    sl = _clip(canvas.shape[:2], x0, y0, pw, ph)
    if not sl:
        return
    (cy, cx), (py, px) = sl
    a = alpha[py, px][..., None]
    canvas[cy, cx] = patch[py, px, :3] + canvas[cy, cx] * (1 - a)
    m = alpha[py, px] > 0.5
    if reg is not None:
        r = reg[py, px]
        m &= r > 0
        owner[cy, cx][m] = (code + r[m] - 1).astype(np.uint8)
    else:
        owner[cy, cx][m] = code


# ----------------------------------------------------------------------------- layouts


def _deal(rng: np.random.Generator) -> list[list[str]]:
    cards = [str(c) for c in rng.permutation(MUS_CARDS)]
    return [cards[i * 4 : i * 4 + 4] for i in range(4)]


TIGHT_SPREAD = (0.24, 0.36)  # a tight fan: the share of a card's width between neighbours


def _hand_items(
    rng: np.random.Generator, hand: list[str], pos: int, anchor: np.ndarray, ch: float, aspect: float,
    tight: bool = False, min_spread: float = 0.0,
) -> list[Item]:
    """Four cards fanned and overlapping, facing the player at table edge `pos` (`tight`:
    neighbours only `TIGHT_SPREAD` of a card's width apart; otherwise at least
    `min_spread` of it, the same draws)."""
    cw = ch * aspect
    spread = max(min_spread, rng.uniform(0.28, 0.62) if rng.random() < 0.8 else rng.uniform(0.62, 1.1))
    if tight:
        spread = rng.uniform(*TIGHT_SPREAD)
    fan = math.radians(rng.uniform(0, 10)) if rng.random() < 0.7 else 0.0
    base = pos * math.pi / 2 + math.radians(rng.normal(0, 5))
    r = _rot(base)
    items = []
    for i, name in enumerate(hand):
        k = i - 1.5
        local = np.array([k * cw * spread + rng.normal(0, 0.03) * cw, abs(k) * fan * cw * 0.8 + rng.normal(0, 0.02) * ch])
        ang = base - k * fan + math.radians(rng.normal(0, 2.5))
        items.append(Item("card", anchor + r @ local, ang, ch, name=name, pos=pos))
    if rng.random() < 0.25:  # left card on top: bottom-right corners show instead
        items.reverse()
    return items


def _layout_table(
    rng: np.random.Generator, tw: float, th: float, ch: float, hands: list[list[str]],
    tight: float = 0.0, min_spread: float = 0.0,
) -> list[Item]:
    items: list[Item] = []
    m = rng.uniform(0.04, 0.12, 4) * min(tw, th)
    anchors = [
        np.array([tw / 2 + rng.normal(0, 0.06) * tw, th - m[0] - ch / 2]),
        np.array([tw - m[1] - ch / 2, th / 2 + rng.normal(0, 0.06) * th]),
        np.array([tw / 2 + rng.normal(0, 0.06) * tw, m[2] + ch / 2]),
        np.array([m[3] + ch / 2, th / 2 + rng.normal(0, 0.06) * th]),
    ]
    # a separate stream decides which hands are tight, so that tight=0 draws as before
    tight_rng = np.random.default_rng(int(rng.integers(2**63))) if tight > 0 else None
    for pos in range(4):
        is_tight = tight_rng is not None and bool(tight_rng.random() < tight)
        items += _hand_items(tight_rng if is_tight else rng, hands[pos], pos, anchors[pos], ch, CARD_ASPECT, is_tight,
                             min_spread)
    return items


def _distractors(
    rng: np.random.Generator, tw: float, th: float, ch: float, n: int, card_extras: bool, decks: list[str]
) -> list[Item]:
    """Coins, glasses, card backs and (optionally) 8s and 9s, mostly near the middle."""
    out = []
    for _ in range(n):
        kind = rng.choice(["coin", "coin", "glass", "back", "extra"] if card_extras else ["coin", "coin", "glass", "back"])
        c = np.array([rng.normal(tw / 2, tw * 0.22), rng.normal(th / 2, th * 0.22)])
        ang = rng.uniform(0, 2 * math.pi)
        if kind == "coin":
            out.append(Item("coin", c, 0.0, ch * rng.uniform(0.18, 0.28)))
        elif kind == "glass":
            out.append(Item("glass", c, 0.0, ch * rng.uniform(0.55, 0.85)))
        elif kind == "back":
            out.append(Item("back", c, ang, ch, deck=str(rng.choice(decks))))
        else:
            out.append(Item("card", c, ang, ch, name=str(rng.choice(NON_MUS_CARDS)), deck="naipes-libres"))
    return out


# ----------------------------------------------------------------------------- photo


def _photo_effects(rng: np.random.Generator, img: np.ndarray, glare_at: list[np.ndarray]) -> Image.Image:
    """Lighting, white balance, shadow, glare, blur, noise and JPEG on a float HxWx3 photo."""
    h, w = img.shape[:2]
    sh, sw = max(2, h // 8), max(2, w // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    gx, gy = rng.normal(0, 0.5, 2)
    light = 1 + 0.35 * (gx * (xx / sw - 0.5) + gy * (yy / sh - 0.5))
    light -= rng.uniform(0, 0.35) * (((xx / sw - 0.5) ** 2 + (yy / sh - 0.5) ** 2) * 2)
    light *= rng.uniform(0.65, 1.2)
    if rng.random() < 0.35:  # the shadow of a hand or a phone
        mask = Image.new("L", (sw, sh), 0)
        pts = [(rng.uniform(-0.2, 1.2) * sw, rng.uniform(-0.2, 1.2) * sh) for _ in range(rng.integers(3, 6))]
        ImageDraw.Draw(mask).polygon(pts, fill=255)
        mask = mask.filter(ImageFilter.GaussianBlur(max(1, sw * rng.uniform(0.01, 0.06))))
        light *= 1 - rng.uniform(0.2, 0.5) * np.asarray(mask, np.float32) / 255
    glare = np.zeros((sh, sw), np.float32)
    for p in glare_at:
        if rng.random() < 0.12:
            s = rng.uniform(0.015, 0.06) * max(sw, sh)
            cx, cy = p[0] / 8 + rng.normal(0, s), p[1] / 8 + rng.normal(0, s)
            ex = rng.uniform(0.3, 1.0)
            glare += rng.uniform(30, 150) * np.exp(-(((xx - cx) * ex) ** 2 + ((yy - cy) / ex) ** 2) / (2 * s * s))
    up = Image.fromarray(light.astype(np.float32), "F").resize((w, h), Image.Resampling.BILINEAR)
    wb = rng.normal(1, 0.06, 3).astype(np.float32)
    img = img * np.asarray(up, np.float32)[..., None] * wb
    if glare.max() > 1:
        img = img + np.asarray(Image.fromarray(glare, "F").resize((w, h), Image.Resampling.BILINEAR))[..., None]
    if rng.random() < 0.7:
        sigma = rng.uniform(1, 7)
        img = img + rng.standard_normal((h, w, 1), dtype=np.float32) * sigma
    out = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8), "RGB")
    u = rng.random()
    scale = min(w, h) / 500
    if u < 0.35:
        out = out.filter(ImageFilter.GaussianBlur(rng.uniform(0.2, 0.8) * scale))
    elif u < 0.5:
        k = np.zeros((5, 5))
        if rng.random() < 0.5:
            k[2, :] = 1
        else:
            np.fill_diagonal(k, 1)
        out = out.filter(ImageFilter.Kernel((5, 5), k.flatten().tolist(), scale=5))
    buf = io.BytesIO()
    out.save(buf, "JPEG", quality=int(rng.integers(35, 96)))
    buf.seek(0)
    return Image.open(buf).convert("RGB")


def _view(
    rng: np.random.Generator, size: tuple[int, int], center: np.ndarray, span: float, tilt: float, roll: float
) -> np.ndarray:
    """Homography from photo pixels to table coordinates: a view `span` table pixels per photo
    pixel around `center`, rolled by `roll` degrees, with a hand-held keystone of `tilt`."""
    w, h = size
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    rel = (corners - [w / 2, h / 2]) * span
    rel[:2, 0] *= 1 + tilt  # the far side of the table covers more
    rel[2:, 0] *= 1 - tilt * 0.3
    rel += rng.normal(0, 0.025 * min(w, h) * span, rel.shape)
    dst = center + rel @ _rot(math.radians(roll)).T
    return homography(corners, dst)


LAYOUT_GAP = 0.18
"""The gap between cards laid out for `kind="layout"`, of a card's height."""


def _grid(n: int, tw: float, th: float, fill: float) -> tuple[float, int]:
    """(card height, columns) of the largest grid of `n` upright cards filling `fill` of a
    `tw` x `th` table."""
    best = (0.0, 1)
    for cols in range(1, n + 1):
        rows = math.ceil(n / cols)
        ch = min(fill * tw / (cols * (CARD_ASPECT + LAYOUT_GAP)), fill * th / (rows * (1 + LAYOUT_GAP)))
        best = max(best, (ch, cols))
    return best


def render_scene(
    rng: np.random.Generator,
    kind: str = "table",
    size: tuple[int, int] = (1600, 1200),
    hands: list[list[str]] | None = None,
    deck: str | None = None,
    decks: tuple[str, ...] = DECKS,
    bottom: int = 0,
    distractors: bool = True,
    card_extras: bool = True,
    effects: bool = True,
    restyle: float = 0.0,
    tight: float = 0.0,
    fade: float = 0.0,
    swap: float = 0.0,
    swap_suit: bool = False,
    recolor: float = 0.0,
    retake: int | None = None,
    min_spread: float = 0.0,
) -> Scene:
    """Render one photo.

    kind: `table` (a showdown: 16 cards, 4 hands at the edges), `closeup` (a tile of a
    showdown around one card, the card about 150 px tall, as the runtime's fine pass
    sees it), `single` (a few loose cards, closer) or `layout` (the cards of `hands`, all
    of them face up in a grid, in reading order: a deck photographed for `datasets.enroll`;
    no distractors). `hands` by seat (default a random
    deal); `deck` the deck of the 16 cards (default drawn from `decks`); `bottom` the
    seat at the photo's bottom edge; `card_extras` adds 8s and 9s among distractors;
    `restyle` is the share of cards whose index numerals are drawn in another typeface
    (`datasets.restyle`; 0 leaves the random stream as it always was); `tight` the share of
    hands fanned tight, a quarter to a third of each card showing (0 likewise); `fade` the
    share of restyled cards printed faded, in a light ink on yellowed paper (0 likewise);
    `swap` the share of restyled cards printed on the face of a card of another rank, their
    own rank's numerals drawn in its index corners: the art then says nothing of the rank,
    for the rank reader's crops (0 likewise); with `swap_suit` the other card is of the
    same suit, so that the art still shows the suit, for the classifier's crops; `recolor`
    the share of restyled cards whose colours are turned round the hue circle by a random
    amount (`datasets.restyle.recoloured`), so that the suit must be read from the shapes
    and the pintas rather than the deck's inks (0 likewise). `retake` draws another photo
    of the same table: the cards, their tints and the distractors as `rng` lays them, the
    view, the table's weave, the light, glare and the camera's effects from the seed
    `retake` (None: all from `rng`, as always). `min_spread` lays every hand of a showdown
    spread at least that share of a card's width, as the showdown page asks (0.5), from the
    same random draws (0 draws as always)."""
    deck = deck or str(rng.choice(list(decks)))
    w, h = size
    items: list[Item] = []
    hands_out: list[list[str]] | None = None
    if kind in ("table", "closeup"):
        if kind == "table":
            tw, th = float(w), float(h)
        else:
            f = rng.uniform(900, 1500)
            tw, th = (f, f * 0.75) if rng.random() < 0.75 else (f * 0.75, f)
        ch = min(tw, th) * rng.uniform(0.16, 0.25)
        by_pos = _deal(rng) if hands is None else [list(hands[(bottom + p) % 4]) for p in range(4)]
        items = _layout_table(rng, tw, th, ch, by_pos, tight, min_spread)
        for it in items:
            it.seat = (bottom + it.pos) % 4
        hands_out = [by_pos[(s - bottom) % 4] for s in range(4)]
        nd = rng.integers(0, 5) if distractors else 0
    elif kind == "layout":
        tw, th = float(w), float(h)
        names = [c for hand in hands or [list(MUS_CARDS)] for c in hand]
        ch, cols = _grid(len(names), tw, th, rng.uniform(0.78, 0.9))
        rows = math.ceil(len(names) / cols)
        cw, gap = ch * CARD_ASPECT, ch * LAYOUT_GAP
        x0, y0 = (tw - cols * (cw + gap) + gap) / 2, (th - rows * (ch + gap) + gap) / 2
        for k, name in enumerate(names):
            r, c = divmod(k, cols)
            centre = np.array([x0 + c * (cw + gap) + cw / 2, y0 + r * (ch + gap) + ch / 2])
            centre += rng.normal(0, 0.02, 2) * ch
            items.append(Item("card", centre, math.radians(rng.normal(0, 2)), ch, name=name))
        nd = 0
    else:
        tw, th = float(w), float(h)
        ch = min(tw, th) * rng.uniform(0.3, 0.6)
        pool = list(MUS_CARDS) + (list(NON_MUS_CARDS) if deck == "naipes-libres" else [])
        for name in rng.choice(pool, size=int(rng.integers(1, 6)), replace=False):
            c = np.array([rng.uniform(0.2, 0.8) * tw, rng.uniform(0.2, 0.8) * th])
            items.append(Item("card", c, rng.uniform(0, 2 * math.pi), ch, name=str(name)))
        nd = rng.integers(0, 3) if distractors else 0
    for it in items:
        it.deck = deck
    items += _distractors(rng, tw, th, ch, int(nd), card_extras and "naipes-libres" in decks, list(decks))
    # distractors go under or over the hands at random
    hand_items = [i for i in items if i.pos is not None]
    others = [i for i in items if i.pos is None]
    if kind not in ("single", "layout"):
        below = rng.random(len(others)) < 0.5
        items = [i for i, b in zip(others, below, strict=True) if b] + hand_items
        items += [i for i, b in zip(others, below, strict=True) if not b]
    if restyle > 0:
        style_rng = np.random.default_rng(int(rng.integers(2**63)))
        for it in items:
            if it.kind == "card" and style_rng.random() < restyle:
                it.style = int(style_rng.integers(2**63))
                it.faded = fade > 0 and np.random.default_rng([it.style, 1]).random() < fade
                if swap > 0:
                    it.art = _art_swap(np.random.default_rng([it.style, 3]), it, swap, swap_suit)
                if recolor > 0:
                    hue_rng = np.random.default_rng([it.style, 4])
                    it.hue = float(hue_rng.uniform(0.08, 0.92)) if hue_rng.random() < recolor else None
    for it in items:
        if it.kind in ("card", "back"):
            face = _face(it)
            it.width = it.height * face.width / face.height
            it.tint = tuple(rng.uniform(0.88, 1.04, 3)) if rng.random() < 0.7 else (1.0, 1.0, 1.0)
        else:
            it.width = it.height

    # the view: photo pixels -> table coordinates
    if retake is not None:
        rng = np.random.default_rng([retake, 0x7E7A])
    roll = rng.normal(0, 3)
    tilt = rng.uniform(0, 0.25)
    if kind == "closeup":
        labelled = [i for i in items if i.kind == "card"]
        target = labelled[rng.integers(len(labelled))]
        span = target.height / rng.uniform(110, 200)
        center = target.center + rng.uniform(-0.5, 0.5, 2) * target.height
        tilt *= 0.3
    else:
        span = rng.uniform(0.97, 1.12)
        center = np.array([tw / 2, th / 2]) + rng.normal(0, 0.02, 2) * [tw, th]
        roll = rng.normal(0, 6) if kind == "single" else roll
    hview = _view(rng, size, center, span, tilt, roll)

    # the flat canvas: just the part of the table the photo sees
    seen = _apply_h(hview, np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
    ox, oy = np.floor(seen.min(0)).astype(int) - 2
    cw_, chh = (np.ceil(seen.max(0)).astype(int) + 2) - [ox, oy]
    canvas = table_texture(rng, int(chh), int(cw_), ch)
    owner = np.zeros(canvas.shape[:2], np.uint8)
    light_dir = rng.normal(0, 1, 2)
    light_dir = light_dir / (np.linalg.norm(light_dir) + 1e-6) * ch * rng.uniform(0.005, 0.03)
    shadow = (float(light_dir[0]), float(light_dir[1]), max(0.5, ch * 0.015), rng.uniform(0.15, 0.45))
    codes = []
    for k, it in enumerate(items):
        code = 1 + 3 * k
        codes.append(code)
        q = it.quad() - [ox, oy]
        if q[:, 0].max() < 0 or q[:, 1].max() < 0 or q[:, 0].min() > cw_ or q[:, 1].min() > chh:
            continue
        if it.kind in ("card", "back"):
            sprite = _sprite(it)
            if it.tint != (1.0, 1.0, 1.0):
                sprite = _tinted(sprite, it.tint)
            placed = _warp_sprite(sprite, _region_template(*sprite.size), it, (ox, oy))
        else:
            sprite = (_coin_sprite if it.kind == "coin" else _glass_sprite)(rng, round(it.height))
            placed = _warp_sprite(sprite, None, it, (ox, oy))
        if placed is not None:
            _composite(canvas, owner, placed, code, shadow)

    # the photo
    coef = _shift_h(hview, ox, oy)
    photo = Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8), "RGB").transform(
        size, Image.Transform.PERSPECTIVE, coef, Image.Resampling.BILINEAR
    )
    lab = np.asarray(
        Image.fromarray(owner, "L").transform(size, Image.Transform.PERSPECTIVE, coef, Image.Resampling.NEAREST)
    )
    to_photo = np.linalg.inv(hview)
    cards, extras = [], []
    for it, code in zip(items, codes, strict=True):
        if it.kind != "card":
            if it.kind in ("back", "coin", "glass"):
                extras.append({"kind": it.kind, "quad": _apply_h(to_photo, it.quad()).round(1).tolist()})
            continue
        truth = _card_truth(it, code, lab, to_photo)
        if truth is not None:
            cards.append(truth)
    glare_at = [np.mean(c["quad"], axis=0) for c in cards]
    image = (
        _photo_effects(rng, np.asarray(photo, np.float32), glare_at)
        if effects
        else photo
    )
    return Scene(image, cards, hands_out, bottom, kind, deck, extras)


def _face(it: Item) -> Image.Image:
    """The item's face as printed (a restyled face has the same size: see `_sprite`)."""
    d = load_deck(it.deck or DECKS[0])
    return d.back if it.kind == "back" else d.faces[it.name or ""]


def _art_swap(rng: np.random.Generator, it: Item, share: float, same_suit: bool = False) -> str | None:
    """With chance `share`, a card of the item's deck of another rank (of its suit when
    `same_suit`) whose art it takes."""
    if rng.random() >= share:
        return None
    from datasets.restyle import numeral_box

    deck, name = it.deck or DECKS[0], it.name or ""
    rank, suit = name[:-1], name[-1:]
    others = sorted(n for n in load_deck(deck).faces if n[:-1] != rank and int(n[:-1]) in MUS_RANKS
                    and (not same_suit or n[-1] == suit)
                    and all(numeral_box(deck, n, flipped) for flipped in (False, True)))  # both numerals redrawn
    return str(others[int(rng.integers(len(others)))]) if others else None


def _sprite(it: Item) -> Image.Image:
    """The face drawn for a card or back: restyled when the item has a style seed (on
    another card's art when it has `art`)."""
    if it.style is None:
        return _face(it)
    from datasets.restyle import recoloured, restyled_face

    fade = np.random.default_rng([it.style, 2]) if it.faded else None
    name = it.name or ""
    face = restyled_face(it.deck or DECKS[0], it.art or name, np.random.default_rng(it.style), fade, text=name[:-1])
    return face if it.hue is None else recoloured(face, it.hue)


def _tinted(sprite: Image.Image, tint: tuple[float, float, float]) -> Image.Image:
    """The sprite with its colours multiplied by `tint` (aged or cool paper)."""
    a = np.asarray(sprite, np.float32).copy()
    a[..., :3] *= np.array(tint, np.float32)
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "RGBA")


def _shift_h(h: np.ndarray, ox: float, oy: float) -> tuple[float, ...]:
    """PIL perspective coefficients of `h` with the canvas origin moved to (ox, oy)."""
    t = np.array([[1, 0, -ox], [0, 1, -oy], [0, 0, 1]], float) @ h
    t = t / t[2, 2]
    return tuple(t.flatten()[:8])


def _bbox_of(mask: np.ndarray, x0: int, y0: int) -> list[float] | None:
    ys = np.where(mask.any(axis=1))[0]
    xs = np.where(mask.any(axis=0))[0]
    if len(xs) == 0:
        return None
    return [float(x0 + xs[0]), float(y0 + ys[0]), float(x0 + xs[-1] + 1), float(y0 + ys[-1] + 1)]


def _card_truth(it: Item, code: int, lab: np.ndarray, to_photo: np.ndarray) -> dict | None:
    """A card's ground truth in photo pixels from the warped owner map."""
    H, W = lab.shape
    quad = _apply_h(to_photo, it.quad())
    x0, y0 = np.clip(np.floor(quad.min(0)).astype(int) - 1, 0, [W, H])
    x1, y1 = np.clip(np.ceil(quad.max(0)).astype(int) + 2, 0, [W, H])
    if x1 <= x0 or y1 <= y0:
        return None
    win = lab[y0:y1, x0:x1]
    inside = (win >= code) & (win <= code + 2)
    area = _poly_area(quad)
    vis = float(inside.sum()) / max(area, 1.0)
    if vis < CARD_MIN_VISIBLE or inside.sum() < 20:
        return None
    box = _bbox_of(inside, int(x0), int(y0))
    corners = []
    for part, (u0, v0, u1, v1) in ((1, (0, 0, CORNER_W, CORNER_H)), (2, (1 - CORNER_W, 1 - CORNER_H, 1, 1))):
        cq = _apply_h(to_photo, it.quad(u0, v0, u1, v1))
        cvis = float((win == code + part).sum()) / max(_poly_area(cq), 1.0)
        bx = [
            float(np.clip(cq[:, 0].min(), 0, W)),
            float(np.clip(cq[:, 1].min(), 0, H)),
            float(np.clip(cq[:, 0].max(), 0, W)),
            float(np.clip(cq[:, 1].max(), 0, H)),
        ]
        ok = cvis >= CORNER_MIN_VISIBLE and bx[2] - bx[0] >= 2 and bx[3] - bx[1] >= 2
        corners.append({"box": [round(v, 1) for v in bx], "visible": round(min(cvis, 1.0), 3), "labelled": ok})
    up = quad[3] + quad[2] - quad[0] - quad[1]  # card's top-to-bottom direction
    return {
        "card": it.name,
        "deck": it.deck,
        "seat": it.seat,
        "quad": quad.round(1).tolist(),
        "box": box,
        "visible": round(min(vis, 1.0), 3),
        "corners": corners,
        "quarter_turns": 0 if abs(up[1]) >= abs(up[0]) else 1,
    }


def layout_photos(seed: int, deck: str, size: tuple[int, int] = (1600, 1200), per_photo: int = 10) -> list[Image.Image]:
    """Synthetic enrolment photos: the 40 cards of `deck` laid out in `DECK_ORDER` as
    `datasets.enroll` asks for them, `per_photo` to a photo (the `k`-th card first of a photo
    drawn with the seed `[seed, k]`)."""
    return [render_scene(np.random.default_rng([seed, k]), kind="layout", size=size,
                         hands=[list(DECK_ORDER[k:k + per_photo])], deck=deck).image
            for k in range(0, len(DECK_ORDER), per_photo)]

