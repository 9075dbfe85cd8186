"""Numeral restyling: a card face whose index numerals are redrawn in another typeface.

Two decks give the classifier two numeral styles, and it learns to read a deck's pip art
rather than its numerals (the cross-deck figure in `models/MODEL_CARD.md`). A restyled
face keeps its art, frame and pintas but has both index numerals (top left, and bottom
right upside down) erased to the paper's colour and drawn again in a typeface from the
fonts installed here (DejaVu, Liberation, and matplotlib's STIX and Computer Modern when
the train extra is installed), at a jittered size, place, weight, spacing and ink colour.
A faded face (`fade`) has its numerals drawn in a light ink (sepia, grey, blue or red, at
a lightness the deck's dark inks never reach), thin (never stroked), smaller and further
off their place than other restyled numerals (nearer the frame line, or further in), and
its paper yellowed, as an old or cheaply printed deck's are.

Needs OpenCV (from the train extra); nothing here runs unless `--restyle` is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

NUMERAL_REGION = (0.025, 0.02, 0.27, 0.17)
"""Where a face's top-left numeral is looked for, in card coordinates (x0, y0, x1, y1)."""

_FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"), Path("/usr/share/texmf/fonts/opentype"))
_SKIP = ("Sym", "cmex", "cmsy", "cmmi", "LastResort", "Math", "Display", "NonUni")


DIGITS = "0123456789"
_CELL = 20


def signature(path: str) -> np.ndarray:
    """The ten digits of the font at `path` drawn alone, each scaled into a 20x20 cell:
    shape (10, 400), ink in 0..1."""
    font = ImageFont.truetype(path, 64)
    cells = []
    for d in DIGITS:
        x0, y0, x1, y1 = font.getbbox(d)
        im = Image.new("L", (max(1, x1 - x0) + 4, max(1, y1 - y0) + 4), 0)
        ImageDraw.Draw(im).text((2 - x0, 2 - y0), d, font=font, fill=255)
        cells.append(np.asarray(im.resize((_CELL, _CELL), Image.Resampling.BILINEAR), np.float32).ravel() / 255)
    return np.stack(cells)


def readable(signatures: np.ndarray) -> np.ndarray:
    """Which fonts, given their `signature`s (n, 10, 400), draw digits: every digit inked,
    and at least 3 of the 10 nearer the same digit of the fonts' median than any other
    (a keyboard font's boxed keys, dingbats, or a script font's empty digits are not)."""
    inked = (signatures.mean(axis=2) > 0.02).all(axis=1)
    if not inked.any():
        return inked
    median = np.median(signatures[inked], axis=0)
    dist = np.abs(signatures[:, :, None, :] - median[None, None]).mean(axis=3)
    return inked & ((dist.argmin(axis=2) == np.arange(10)).sum(axis=1) >= 3)


@lru_cache(maxsize=1)
def fonts() -> tuple[str, ...]:
    """Typefaces that draw the ten digits: the system's TrueType and OpenType fonts (TeX's
    too) and matplotlib's, one per file name."""
    found = [p for d in _FONT_DIRS if d.is_dir() for p in d.rglob("*.[to]tf")]
    try:
        import matplotlib

        found += list((Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf").glob("*.ttf"))
    except ImportError:
        pass
    paths, sigs, names = [], [], set()
    for p in sorted(set(found)):
        if any(s in p.name for s in _SKIP) or p.name in names:
            continue
        names.add(p.name)
        try:
            sigs.append(signature(str(p)))
        except (OSError, ValueError):
            continue
        paths.append(str(p))
    if not paths:
        return ()
    keep = readable(np.stack(sigs))
    return tuple(p for p, k in zip(paths, keep, strict=True) if k)


def _rank(name: str) -> str:
    return name[:-1]


@lru_cache(maxsize=512)
def numeral_box(deck: str, name: str, flipped: bool) -> tuple[int, int, int, int] | None:
    """The pixel box of a face's top-left numeral (of the face turned 180 degrees when
    `flipped`), or None where no digits stand apart from the frame and the art."""
    import cv2

    from datasets.render import load_deck

    face = load_deck(deck).faces[name]
    if flipped:
        face = face.transpose(Image.Transpose.ROTATE_180)
    w, h = face.size
    x0, y0, x1, y1 = (round(v) for v in (NUMERAL_REGION[0] * w, NUMERAL_REGION[1] * h,
                                          NUMERAL_REGION[2] * w, NUMERAL_REGION[3] * h))
    grey = np.asarray(face.convert("L"), np.float32)[y0:y1, x0:x1]
    paper = float(np.percentile(grey, 90))
    ink = (grey < paper - 70).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    rh, rw = ink.shape
    parts = []
    for x, y, cw, ch, area in stats[1:n]:
        if ch < 0.025 * h or ch > 0.1 * h or cw > 0.1 * w or area < 8:
            continue  # specks, frame lines and art
        if x == 0 or y == 0 or x + cw >= rw or y + ch >= rh:
            continue  # runs out of the region: a frame line or the art
        parts.append((int(x), int(y), int(cw), int(ch)))
    if not parts:
        return None
    seed = min(parts, key=lambda p: p[0] + p[1])
    sy0, sy1 = seed[1], seed[1] + seed[3]
    group = [seed]
    for p in sorted(parts, key=lambda p: p[0]):
        if p is seed or p[0] < seed[0]:
            continue
        overlap = min(sy1, p[1] + p[3]) - max(sy0, p[1])
        right = max(q[0] + q[2] for q in group)
        if overlap >= 0.6 * min(seed[3], p[3]) and p[0] - right <= 0.8 * seed[3] and abs(p[3] - seed[3]) <= 0.3 * seed[3]:
            group.append(p)
    if len(group) < len(_rank(name)):
        return None
    bx0 = min(p[0] for p in group)
    by0 = min(p[1] for p in group)
    bx1 = max(p[0] + p[2] for p in group)
    by1 = max(p[1] + p[3] for p in group)
    return x0 + bx0, y0 + by0, x0 + bx1, y0 + by1


def recoloured(face: Image.Image, turn: float) -> Image.Image:
    """The face with every colour's hue turned by `turn` of the circle (0..1); greys,
    the paper's cream and the black lines barely change, the art's inks do."""
    import cv2

    a = np.asarray(face.convert("RGBA"))
    hsv = cv2.cvtColor(np.ascontiguousarray(a[..., :3]), cv2.COLOR_RGB2HSV_FULL)
    hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + round(turn * 256)) % 256).astype(np.uint8)
    rgb = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB_FULL)
    return Image.fromarray(np.dstack([rgb, a[..., 3]]), "RGBA")


FADED_INKS = ((120, 85, 40), (110, 110, 110), (60, 80, 140), (150, 50, 40))
"""Hues of a faded face's ink (sepia, grey, blue, red); their lightness is drawn apart."""


def _faded_ink(rng: np.random.Generator) -> tuple[float, float, float]:
    """A light ink: one of `FADED_INKS` scaled to a luminance of 75 to 165 (of 255)."""
    hue = np.array(FADED_INKS[int(rng.integers(len(FADED_INKS)))], float) * rng.uniform(0.85, 1.15, 3)
    lum = float(hue @ (0.299, 0.587, 0.114))
    return tuple(np.clip(hue * rng.uniform(75, 165) / lum, 0, 255))


def _yellowed(face: Image.Image, rng: np.random.Generator) -> Image.Image:
    """The face with its blue, and a little of its green, taken down: aged paper."""
    from datasets.render import _tinted

    green = rng.uniform(0.9, 1.0)
    return _tinted(face, (1.0, green, green * rng.uniform(0.75, 0.97)))


@dataclass(frozen=True)
class Faded:
    """How a faded face's numerals are drawn: the ink, and the height and shift (in
    numeral heights and widths) on top of the usual jitter."""

    ink: tuple[float, float, float]
    scale: float
    dx: float
    dy: float

    @classmethod
    def draw(cls, rng: np.random.Generator, ink: tuple[float, float, float]) -> Faded:
        """The size and shift drawn from `rng`, after the ink and the paper's yellowing."""
        return cls(ink, float(rng.uniform(0.6, 1.05)), float(rng.uniform(-0.25, 0.35)), float(rng.uniform(-0.2, 0.4)))


def _paint(face: Image.Image, box: tuple[int, int, int, int], text: str, rng: np.random.Generator,
           faded: Faded | None = None) -> None:
    """Erase `box` to the paper around it and draw `text` there in a random typeface, in
    the face's ink or another dark one, or as `faded` says (`rng` draws alike either way)."""
    x0, y0, x1, y1 = box
    a = np.asarray(face, np.float32)
    ring = a[max(0, y0 - 4) : y1 + 4, max(0, x0 - 4) : x1 + 4, :3].reshape(-1, 3)
    grey = ring.mean(axis=1)
    paper = np.median(ring[grey >= np.percentile(grey, 60)], axis=0)
    inside = a[y0:y1, x0:x1, :3].reshape(-1, 3)
    dark = inside[inside.mean(axis=1) <= np.percentile(inside.mean(axis=1), 15)]
    ink = np.median(dark, axis=0) if len(dark) else np.array([30.0, 30.0, 30.0])
    if rng.random() < 0.35:  # another ink: black, brown, blue-black, dark red
        ink = np.array([(20, 20, 20), (70, 45, 25), (25, 30, 60), (90, 20, 20)][int(rng.integers(4))], float)
    if faded is not None:
        ink = np.array(faded.ink, float)
    fill = tuple(int(v) for v in np.clip(ink * rng.uniform(0.8, 1.2, 3), 0, 255)) + (255,)
    d = ImageDraw.Draw(face)
    d.rectangle((x0 - 1, y0 - 1, x1 + 1, y1 + 1), fill=tuple(int(v) for v in paper) + (255,))
    height = (y1 - y0) * rng.uniform(0.85, 1.2)
    path = fonts()[int(rng.integers(len(fonts())))]
    font = ImageFont.truetype(path, 40)
    top = min(font.getbbox(c)[1] for c in text)
    bottom = max(font.getbbox(c)[3] for c in text)
    font = ImageFont.truetype(path, max(6, round(40 * height / max(1, bottom - top))))
    top = min(font.getbbox(c)[1] for c in text)
    x = x0 + (x1 - x0) * rng.uniform(-0.1, 0.1)
    y = y0 - top + (y1 - y0) * rng.uniform(-0.1, 0.1)
    stroke = int(rng.random() < 0.25)
    gap = height * rng.uniform(-0.04, 0.12)
    if faded is not None:
        stroke = 0
        font = ImageFont.truetype(path, max(6, round(font.size * faded.scale)))
        gap *= faded.scale
        x += faded.dx * (x1 - x0)
        y += faded.dy * (y1 - y0) + top - min(font.getbbox(c)[1] for c in text)
    for c in text:
        d.text((x, y), c, font=font, fill=fill, stroke_width=stroke, stroke_fill=fill)
        x += font.getlength(c) + gap


def restyled_face(deck: str, name: str, rng: np.random.Generator,
                  fade: np.random.Generator | None = None, text: str | None = None) -> Image.Image:
    """The face of card `name` of `deck` with both index numerals drawn in one random
    typeface (unchanged where a numeral is not found); faded (light ink, yellowed paper)
    when `fade` is given, with the light ink and paper drawn from it (`rng` draws the
    same typeface, size and place either way). `text` draws another rank's numerals in
    place of the card's own."""
    from datasets.render import load_deck

    face = load_deck(deck).faces[name].copy()
    if not fonts():
        return face
    faded = None
    if fade is not None:
        ink = _faded_ink(fade)
        face = _yellowed(face, fade)
        faded = Faded.draw(fade, ink)
    state = rng.bit_generator.state
    for flipped in (False, True):
        box = numeral_box(deck, name, flipped)
        if box is None:
            continue
        if flipped:
            face = face.transpose(Image.Transpose.ROTATE_180)
        rng.bit_generator.state = state  # the same typeface, size and ink at both ends
        _paint(face, box, text or _rank(name), rng, faded)
        if flipped:
            face = face.transpose(Image.Transpose.ROTATE_180)
    return face
