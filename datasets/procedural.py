"""Procedural Spanish decks: many made-up decks, for models that must read a deck they never saw.

    python -m datasets.procedural --out datasets/out/decks --n 24 --seed 1

Two decks of scans teach a classifier the pip art of two decks: what reads a third is what
every Spanish deck shares, the numeral in two opposite corners and the breaks in the frame
line (the pintas: oros none, copas one, espadas two, bastos three). Each deck drawn here has
its own paper, inks, frame, pinta spacing, typeface, numeral size and place, pip shapes (one of
`FORMS` per suit) and colours; the court figures are drawn from one random figure whatever the rank, so that only
the numeral tells a sota from a caballo or a rey. Each deck is written as an enrolled deck
(`<card>.png` for the 40 Mus cards and `deck.json`, as `datasets.enroll` writes), so
`datasets.generate --decks DIR/p000,DIR/p001,...` renders showdowns of them.

Deterministic by seed: deck k of `--seed s` is the same whatever `--n`.
"""

from __future__ import annotations

import argparse
import colorsys
import json
import math
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from datasets.render import DECK_FORMAT, ENROLLED, SUITS
from datasets.render import DECK_ORDER as ORDER

SIZE = (330, 520)
"""A face's (width, height), px: the Fournier 1878 scans' size."""
SS = 3  # supersampling: drawn at 3x, then shrunk
PINTAS = {"o": 0, "c": 1, "e": 2, "b": 3}
"""Breaks in the frame line by suit."""
_LAYOUTS = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.2), (0.5, 0.8)],
    3: [(0.5, 0.15), (0.5, 0.5), (0.5, 0.85)],
    4: [(0.27, 0.2), (0.73, 0.2), (0.27, 0.8), (0.73, 0.8)],
    5: [(0.27, 0.2), (0.73, 0.2), (0.5, 0.5), (0.27, 0.8), (0.73, 0.8)],
    6: [(0.27, 0.15), (0.73, 0.15), (0.27, 0.5), (0.73, 0.5), (0.27, 0.85), (0.73, 0.85)],
    7: [(0.27, 0.13), (0.73, 0.13), (0.5, 0.33), (0.27, 0.55), (0.73, 0.55), (0.27, 0.87), (0.73, 0.87)],
}
"""Pip centres in the frame's inner box, by count."""
_NATURAL_HUE = {"o": 0.13, "c": 0.0, "e": 0.6, "b": 0.3}
FORMS = 4
"""Pip shapes per suit a deck draws one of (`style["forms"]`): 0 is the first drawn (a ringed
coin, a chalice, a straight sword, a knotted club), 1 to 3 others (a sun, a holed coin,
ringed circles; a round goblet, a beaker, a two-handled cup; a sabre, a rapier, a broad
blade; a staff, a branch, a leafy club)."""


ACE_SCALE = (0.9, 1.8)
ACE_TILT = 42.0
"""An ace's pip is drawn at a deck's scale (from `ACE_SCALE`) of its box before aces had a
size, 0.8 of the frame's inner box, and a sword's or club's tilted by up to `ACE_TILT`
degrees: a Fournier ace's sword or club spans the card corner to corner, its hilt or head
beside the index numeral, where the corner crop sees it (the suits of its aces of espadas
and bastos are what the cross-deck classifier misreads most: `models/HISTORY.md`, "A suit
head on frozen features"). A coin or cup grows to at most `ROUND_ACE_MAX` times that box."""
ROUND_ACE_MAX = 1.15
COURT_SCALE = (1.0, 1.8)
"""The suit sign a deck's court figures hold, at this scale of its first size (a third of
the figure's box): Fournier's are a sword or a club a third of the card long, a cup or a
coin beside the index numeral; its court suits are read 81.5% right by the cross-deck
classifier. A coin or cup grows to at most `ROUND_COURT_MAX`."""
ROUND_COURT_MAX = 1.4


def _rgb(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, min(1.0, max(0.0, s)), min(1.0, max(0.0, v)))
    return round(255 * r), round(255 * g), round(255 * b)


def deck_style(rng: np.random.Generator) -> dict:
    """One deck's look, drawn once for its 40 faces."""
    from datasets.restyle import fonts

    faces = fonts()
    paper_v = rng.uniform(0.86, 1.0)
    ink = _rgb(rng.choice([0.0, 0.05, 0.08, 0.6, 0.95]), rng.uniform(0.2, 0.9), rng.uniform(0.05, 0.35))
    natural = rng.random() < 0.6
    hues = {s: (_NATURAL_HUE[s] + rng.normal(0, 0.04)) if natural else rng.random() for s in SUITS}
    return {
        "paper": _rgb(rng.uniform(0.08, 0.16), rng.uniform(0.0, 0.22), paper_v),
        "mottle": float(rng.uniform(0, 9)),
        "grain": float(rng.uniform(0, 5)),
        "ink": ink,
        "frame": (float(rng.uniform(0.05, 0.1)), float(rng.uniform(0.035, 0.07))),
        "line": float(rng.uniform(0.6, 2.4)),
        "double": bool(rng.random() < 0.2),
        "gap": float(rng.uniform(0.55, 1.3)),  # a break's length, of a part (`_frame`)
        "gap_shift": float(rng.uniform(-0.02, 0.02)),  # the breaks moved along the side, of the width
        "gap_spread": float(rng.uniform(0.88, 1.08)),  # their distance from the middle, scaled
        "font": str(faces[int(rng.integers(len(faces)))]) if faces else None,
        "numeral_h": float(rng.uniform(0.04, 0.075)),
        "numeral_at": (float(rng.uniform(0.005, 0.03)), float(rng.uniform(0.004, 0.025))),
        "numeral_ink": ink if rng.random() < 0.7 else _rgb(rng.random(), rng.uniform(0.4, 1), rng.uniform(0.2, 0.6)),
        "stroke": int(rng.integers(0, 2)),
        "hues": hues,
        "pip_sat": float(rng.uniform(0.45, 1.0)),
        "pip_val": float(rng.uniform(0.55, 0.95)),
        "outline": bool(rng.random() < 0.7),
        "motif": int(rng.integers(3)),
        "pip_scale": float(rng.uniform(0.75, 1.05)),
        "figure": [_rgb(rng.random(), rng.uniform(0.3, 0.9), rng.uniform(0.35, 0.95)) for _ in range(5)],
        # drawn last, so that a seed's other draws are what they were before pips had forms
        "forms": {suit: int(rng.integers(FORMS)) for suit in SUITS},
        # and after them the aces' size and tilt (`ACE_SCALE`, `ACE_TILT`)
        "ace": {"scale": float(rng.uniform(*ACE_SCALE)), "tilt": float(rng.uniform(-ACE_TILT, ACE_TILT))},
        "court": float(rng.uniform(*COURT_SCALE)),
    }


def _paper(style: dict, rng: np.random.Generator, w: int, h: int) -> Image.Image:
    base = np.array(style["paper"], np.float32)
    low = rng.normal(0, 1, (max(2, h // 40), max(2, w // 40))).astype(np.float32)
    mottle = np.asarray(Image.fromarray(low).resize((w, h), Image.Resampling.BICUBIC), np.float32)
    img = base + (style["mottle"] * mottle)[..., None] * np.array([1.0, 0.95, 0.7], np.float32)
    img += rng.normal(0, style["grain"] + 1e-3, (h, w, 1)).astype(np.float32)
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))


def _pip_colour(style: dict, suit: str, rng: np.random.Generator, dv: float = 0.0) -> tuple[int, int, int]:
    return _rgb(style["hues"][suit] + rng.normal(0, 0.015), style["pip_sat"], style["pip_val"] + dv)


def _long_pip(style: dict, suit: str, rng: np.random.Generator, length: int) -> Image.Image:
    """A sword or a club, standing, on a transparent layer `length` px tall."""
    w = max(8, length // 5)
    im = Image.new("RGBA", (w, length), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    c, dark = _pip_colour(style, suit, rng), _pip_colour(style, suit, rng, -0.35)
    out = style["ink"] if style["outline"] else None
    lw = max(1, length // 90)
    form = style["forms"][suit]
    if suit == "e" and form == 1:  # a sabre: a blade curving to one side, a knuckle guard
        pts = [(w / 2 + w * 0.3 * math.sin(math.pi * t / 2) ** 2 + dx, length * (0.2 + 0.78 * t))
               for dx, ts in ((-w * 0.16, np.linspace(0, 1, 12)), (w * 0.12, np.linspace(1, 0, 12))) for t in ts]
        d.polygon(pts, fill=c, outline=out)
        d.arc((w * 0.1, length * 0.02, w * 0.9, length * 0.24), 180, 360, fill=dark, width=max(2, lw * 3))
        d.rectangle((w / 2 - w * 0.1, length * 0.05, w / 2 + w * 0.1, length * 0.2), fill=dark, outline=out)
    elif suit == "e" and form == 2:  # a rapier: a thin blade, a round cup guard
        d.polygon([(w / 2 - w * 0.07, length * 0.24), (w / 2 + w * 0.07, length * 0.24), (w / 2, length - 1)],
                  fill=c, outline=out)
        d.ellipse((w * 0.2, length * 0.16, w * 0.8, length * 0.27), fill=dark, outline=out)
        d.rectangle((w / 2 - w * 0.07, length * 0.02, w / 2 + w * 0.07, length * 0.18), fill=dark, outline=out)
    elif suit == "e" and form == 3:  # a broad blade, its guard swept down
        d.polygon([(w * 0.22, length * 0.22), (w * 0.78, length * 0.22), (w * 0.7, length * 0.85),
                   (w / 2, length - 1), (w * 0.3, length * 0.85)], fill=c, outline=out)
        d.polygon([(0, length * 0.26), (w / 2, length * 0.17), (w, length * 0.26), (w / 2, length * 0.22)],
                  fill=dark, outline=out)
        d.rectangle((w / 2 - w * 0.1, length * 0.03, w / 2 + w * 0.1, length * 0.19), fill=dark, outline=out)
    elif suit == "e":
        guard_y = int(length * 0.22)
        d.polygon([(w / 2 - w * 0.22, guard_y), (w / 2 + w * 0.22, guard_y), (w / 2 + w * 0.1, length * 0.93),
                   (w / 2, length - 1), (w / 2 - w * 0.1, length * 0.93)], fill=c, outline=out)
        d.rectangle((w * 0.08, guard_y - length * 0.025, w * 0.92, guard_y + length * 0.012), fill=dark, outline=out)
        d.rectangle((w / 2 - w * 0.12, length * 0.07, w / 2 + w * 0.12, guard_y), fill=dark, outline=out)
        r = w * 0.13
        d.ellipse((w / 2 - r, length * 0.07 - 2 * r, w / 2 + r, length * 0.07), fill=dark, outline=out)
    elif form == 1:  # a staff: straight, ringed
        d.rectangle((w * 0.3, 0, w * 0.7, length - 1), fill=c, outline=out)
        for _ in range(int(rng.integers(2, 5))):
            y = rng.uniform(0.1, 0.9) * length
            d.rectangle((w * 0.22, y - length * 0.015, w * 0.78, y + length * 0.015), fill=dark, outline=out)
    elif form == 2:  # a branch: crooked, with cut stubs
        xs = w / 2 + rng.uniform(-0.12, 0.12, 6) * w
        ys = np.linspace(0, length - 1, 6)
        for k in range(5):
            d.line((xs[k], ys[k], xs[k + 1], ys[k + 1]), fill=c, width=max(3, round(w * (0.5 - 0.05 * k))))
        for k in range(int(rng.integers(2, 5))):
            y = rng.uniform(0.15, 0.8) * length
            side = -1 if k % 2 else 1
            d.line((w / 2, y, w / 2 + side * w * 0.45, y - length * 0.06), fill=dark, width=max(2, round(w * 0.14)))
    elif form == 3:  # a club in leaf: tapered, leaves along it
        d.polygon([(w * 0.25, 0), (w * 0.75, 0), (w * 0.6, length - 1), (w * 0.4, length - 1)], fill=c, outline=out)
        for k in range(int(rng.integers(3, 6))):
            y = rng.uniform(0.1, 0.8) * length
            side = -1 if k % 2 else 1
            cx = w / 2 + side * w * 0.32
            d.ellipse((cx - w * 0.18, y - length * 0.035, cx + w * 0.18, y + length * 0.035), fill=dark, outline=out)
    else:
        top, bottom = w * 0.42, w * 0.2
        d.polygon([(w / 2 - top, 0), (w / 2 + top, 0), (w / 2 + bottom, length - 1), (w / 2 - bottom, length - 1)],
                  fill=c, outline=out)
        for k in range(int(rng.integers(3, 7))):
            y = rng.uniform(0.1, 0.85) * length
            side = -1 if k % 2 else 1
            half = top + (bottom - top) * y / length
            r = w * 0.1
            d.ellipse((w / 2 + side * half - r, y - r, w / 2 + side * half + r, y + r), fill=dark, outline=out, width=lw)
        d.line((w / 2, length * 0.1, w / 2 - w * 0.05, length * 0.8), fill=dark, width=lw)
    return im


def _round_pip(d: ImageDraw.ImageDraw, style: dict, suit: str, rng: np.random.Generator,
               cx: float, cy: float, r: float) -> None:
    """A coin or a cup centred at (cx, cy), about 2r across."""
    c, dark = _pip_colour(style, suit, rng), _pip_colour(style, suit, rng, -0.35)
    out = style["ink"] if style["outline"] else None
    lw = max(1, round(r / 18))
    form = style["forms"][suit]
    if suit == "o" and form == 1:  # a sun: a disc with rays
        rays = [(cx + (r if k % 2 == 0 else 0.72 * r) * math.cos(math.pi * k / 12),
                 cy + (r if k % 2 == 0 else 0.72 * r) * math.sin(math.pi * k / 12)) for k in range(24)]
        d.polygon(rays, fill=c, outline=out)
        d.ellipse((cx - 0.55 * r, cy - 0.55 * r, cx + 0.55 * r, cy + 0.55 * r), fill=dark, outline=out)
        d.ellipse((cx - 0.2 * r, cy - 0.2 * r, cx + 0.2 * r, cy + 0.2 * r), fill=c)
    elif suit == "o" and form == 2:  # a holed coin: a square hole, a rim
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=c, outline=out, width=lw)
        d.ellipse((cx - 0.88 * r, cy - 0.88 * r, cx + 0.88 * r, cy + 0.88 * r), outline=dark, width=lw)
        d.rectangle((cx - 0.25 * r, cy - 0.25 * r, cx + 0.25 * r, cy + 0.25 * r), fill=style["paper"], outline=dark,
                    width=lw * 2)
    elif suit == "o" and form == 3:  # ringed circles, a beaded border
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=c, outline=out, width=lw)
        for k in range(16):
            a = 2 * math.pi * k / 16
            x, y = cx + 0.85 * r * math.cos(a), cy + 0.85 * r * math.sin(a)
            d.ellipse((x - 0.08 * r, y - 0.08 * r, x + 0.08 * r, y + 0.08 * r), fill=dark)
        for f in (0.6, 0.35):
            d.ellipse((cx - f * r, cy - f * r, cx + f * r, cy + f * r), outline=dark, width=lw * 2)
    elif suit == "o":
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=c, outline=out, width=lw)
        d.ellipse((cx - 0.75 * r, cy - 0.75 * r, cx + 0.75 * r, cy + 0.75 * r), outline=dark, width=lw * 2)
        if style["motif"] == 0:
            d.line((cx - 0.6 * r, cy, cx + 0.6 * r, cy), fill=dark, width=lw * 2)
            d.line((cx, cy - 0.6 * r, cx, cy + 0.6 * r), fill=dark, width=lw * 2)
        elif style["motif"] == 1:
            for a in range(0, 360, 60):
                x, y = cx + 0.4 * r * math.cos(math.radians(a)), cy + 0.4 * r * math.sin(math.radians(a))
                d.ellipse((x - 0.18 * r, y - 0.18 * r, x + 0.18 * r, y + 0.18 * r), fill=dark)
        else:
            d.ellipse((cx - 0.3 * r, cy - 0.3 * r, cx + 0.3 * r, cy + 0.3 * r), fill=dark)
    elif form == 1:  # a round goblet: a bowl, a thin stem, a wide foot
        d.ellipse((cx - 0.7 * r, cy - r, cx + 0.7 * r, cy + 0.05 * r), fill=c, outline=out, width=lw)
        d.rectangle((cx - 0.7 * r, cy - r, cx + 0.7 * r, cy - 0.75 * r), fill=dark)
        d.rectangle((cx - 0.07 * r, cy, cx + 0.07 * r, cy + 0.75 * r), fill=dark, outline=out)
        d.ellipse((cx - 0.6 * r, cy + 0.72 * r, cx + 0.6 * r, cy + r), fill=c, outline=out)
    elif form == 2:  # a beaker: wider at the top, a short foot, no stem
        d.polygon([(cx - 0.75 * r, cy - r), (cx + 0.75 * r, cy - r), (cx + 0.4 * r, cy + 0.7 * r),
                   (cx - 0.4 * r, cy + 0.7 * r)], fill=c, outline=out)
        for f in (-0.6, -0.1):
            d.line((cx - 0.7 * r + 0.2 * r * (f + 1), cy + f * r, cx + 0.7 * r - 0.2 * r * (f + 1), cy + f * r),
                   fill=dark, width=lw * 2)
        d.rectangle((cx - 0.5 * r, cy + 0.7 * r, cx + 0.5 * r, cy + r), fill=dark, outline=out)
    elif form == 3:  # a two-handled cup
        d.arc((cx - r, cy - 0.9 * r, cx - 0.3 * r, cy - 0.1 * r), 90, 270, fill=dark, width=max(2, lw * 3))
        d.arc((cx + 0.3 * r, cy - 0.9 * r, cx + r, cy - 0.1 * r), 270, 450, fill=dark, width=max(2, lw * 3))
        d.chord((cx - 0.65 * r, cy - 1.2 * r, cx + 0.65 * r, cy + 0.1 * r), 0, 180, fill=c, outline=out, width=lw)
        d.rectangle((cx - 0.65 * r, cy - 0.6 * r, cx + 0.65 * r, cy - 0.55 * r), fill=c, outline=out)
        d.rectangle((cx - 0.1 * r, cy - 0.05 * r, cx + 0.1 * r, cy + 0.65 * r), fill=dark, outline=out)
        d.rectangle((cx - 0.5 * r, cy + 0.65 * r, cx + 0.5 * r, cy + r), fill=c, outline=out)
    else:
        d.chord((cx - 0.8 * r, cy - 1.3 * r, cx + 0.8 * r, cy + 0.1 * r), 0, 180, fill=c, outline=out, width=lw)
        d.rectangle((cx - 0.8 * r, cy - 0.62 * r, cx + 0.8 * r, cy - 0.5 * r), fill=dark)
        d.rectangle((cx - 0.12 * r, cy - 0.05 * r, cx + 0.12 * r, cy + 0.6 * r), fill=dark, outline=out)
        d.ellipse((cx - 0.25 * r, cy + 0.1 * r, cx + 0.25 * r, cy + 0.4 * r), fill=c, outline=out)
        d.polygon([(cx - 0.15 * r, cy + 0.6 * r), (cx + 0.15 * r, cy + 0.6 * r), (cx + 0.55 * r, cy + r),
                   (cx - 0.55 * r, cy + r)], fill=c, outline=out)


def _pip(img: Image.Image, style: dict, suit: str, rng: np.random.Generator,
         cx: float, cy: float, cell: tuple[float, float], angle: float = 0.0) -> None:
    cw, ch = cell
    if suit in "oc":
        _round_pip(ImageDraw.Draw(img), style, suit, rng, cx, cy, 0.5 * min(cw, ch) * style["pip_scale"])
        return
    layer = _long_pip(style, suit, rng, max(12, round(ch * 0.95 * style["pip_scale"])))
    if angle:
        layer = layer.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
    img.paste(layer, (round(cx - layer.width / 2), round(cy - layer.height / 2)), layer)


def _figure(img: Image.Image, style: dict, suit: str, rng: np.random.Generator, box: tuple[float, ...]) -> None:
    """A court figure (the same kind for every court rank) holding its suit's pip."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    d = ImageDraw.Draw(img)
    cols = [style["figure"][k] for k in rng.permutation(5)]
    out = style["ink"] if style["outline"] else None
    lw = max(1, round(w / 120))
    cx = x0 + w * rng.uniform(0.4, 0.6)
    if rng.random() < 0.35:  # a beast behind the figure
        d.ellipse((x0 + 0.05 * w, y0 + 0.5 * h, x1 - 0.05 * w, y0 + 0.8 * h), fill=cols[4], outline=out, width=lw)
    head_y, head_r = y0 + h * rng.uniform(0.1, 0.2), w * rng.uniform(0.08, 0.12)
    d.polygon([(cx - w * 0.18, head_y + head_r * 1.5), (cx + w * 0.18, head_y + head_r * 1.5),
               (cx + w * rng.uniform(0.25, 0.4), y1), (cx - w * rng.uniform(0.25, 0.4), y1)], fill=cols[0], outline=out)
    d.rectangle((cx - w * 0.2, head_y + h * 0.25, cx + w * 0.2, head_y + h * 0.3), fill=cols[1])
    d.ellipse((cx - head_r, head_y - head_r, cx + head_r, head_y + head_r), fill=(236, 200, 170), outline=out, width=lw)
    hat = int(rng.integers(3))
    if hat == 0:
        d.polygon([(cx - head_r, head_y - head_r * 0.6), (cx - head_r * 0.6, head_y - head_r * 1.8), (cx, head_y - head_r),
                   (cx + head_r * 0.6, head_y - head_r * 1.8), (cx + head_r, head_y - head_r * 0.6)], fill=cols[2], outline=out)
    elif hat == 1:
        d.ellipse((cx - head_r * 1.6, head_y - head_r * 1.5, cx + head_r * 1.6, head_y - head_r * 0.5), fill=cols[2], outline=out)
    px = x0 + w * (rng.uniform(0.12, 0.3) if rng.random() < 0.6 else rng.uniform(0.7, 0.88))
    py = y0 + h * rng.uniform(0.08, 0.4)
    grow = style["court"] if suit in "eb" else min(style["court"], ROUND_COURT_MAX)
    _pip(img, style, suit, rng, px, py, (w * 0.3 * grow, h * 0.3 * grow), float(rng.uniform(-30, 30)))


def _numeral(img: Image.Image, style: dict, text: str, at: tuple[float, float]) -> None:
    d = ImageDraw.Draw(img)
    height = style["numeral_h"] * img.height
    if style["font"]:
        font = ImageFont.truetype(style["font"], 100)
        _, y0, _, y1 = font.getbbox(text)
        font = ImageFont.truetype(style["font"], max(6, round(100 * height / max(1, y1 - y0))))
    else:
        font = ImageFont.load_default(size=max(6, round(height)))
    top = font.getbbox(text)[1]
    d.text((at[0], at[1] - top), text, font=font, fill=style["numeral_ink"],
           stroke_width=style["stroke"] * SS, stroke_fill=style["numeral_ink"])


def pinta_breaks(style: dict, suit: str, w: float) -> list[tuple[float, float]]:
    """Where the frame's top side breaks for `suit` (x from, x to, in a face `w` wide), as
    printed decks break it: the side cut in 2n + 1 equal parts for n pintas, every other
    part a break (copas the middle third, espadas the 2nd and 4th fifths, bastos the 2nd,
    4th and 6th sevenths: the drawn deck's within 0.005 of its width, Fournier 1878's
    within 0.03), each deck's breaks a little longer or shorter (`gap`, of a part),
    further from the middle or nearer (`gap_spread`) and moved along (`gap_shift`)."""
    fx = style["frame"][0] * w
    n = PINTAS[suit]
    part = (w - 2 * fx) / (2 * n + 1)
    half = part * style["gap"] / 2
    out = []
    for k in range(n):
        centre = w / 2 + (fx + part * (2 * k + 1.5) - w / 2) * style["gap_spread"] + style["gap_shift"] * w
        out.append((centre - half, centre + half))
    return out


def _frame(img: Image.Image, style: dict, suit: str) -> None:
    """The frame line with the suit's breaks (pintas, `pinta_breaks`) in its top and bottom
    sides."""
    w, h = img.size
    d = ImageDraw.Draw(img)
    fx, fy = style["frame"][0] * w, style["frame"][1] * h
    lw = max(1, round(style["line"] * SS))
    breaks = pinta_breaks(style, suit, w)

    def side(y: float, mirrored: bool) -> None:
        cuts = sorted((w - b, w - a) for a, b in breaks) if mirrored else breaks
        start = fx
        for a, b in cuts:
            d.line((start, y, a, y), fill=style["ink"], width=lw)
            start = b
        d.line((start, y, w - fx, y), fill=style["ink"], width=lw)

    for inset in ((0.0, 0.012) if style["double"] else (0.0,)):
        ix, iy = fx + inset * w, fy + inset * w
        side(iy, False)
        side(h - iy, True)
        d.line((ix, iy, ix, h - iy), fill=style["ink"], width=lw)
        d.line((w - ix, iy, w - ix, h - iy), fill=style["ink"], width=lw)


def draw_face(style: dict, name: str, rng: np.random.Generator) -> Image.Image:
    """The face of card `name` (e.g. "11o") in `style`, `SIZE` px."""
    w, h = SIZE[0] * SS, SIZE[1] * SS
    rank, suit = int(name[:-1]), name[-1]
    img = _paper(style, rng, w, h).convert("RGBA")
    fx, fy = style["frame"][0] * w, style["frame"][1] * h
    inner = (fx + 0.07 * w, fy + 0.09 * h, w - fx - 0.07 * w, h - fy - 0.09 * h)
    iw, ih = inner[2] - inner[0], inner[3] - inner[1]
    if rank <= 7:
        spots = _LAYOUTS[rank]
        cols = len({x for x, _ in spots})
        rows = len({y for _, y in spots})
        ace = style["ace"]
        big = ace["scale"] if suit in "eb" else min(ace["scale"], ROUND_ACE_MAX)
        cell = (iw / max(2, cols) if rank > 1 else iw * 0.8 * big, ih / max(1, rows) if rank > 1 else ih * 0.8 * big)
        for k, (u, v) in enumerate(spots):
            tilt = (18 if k % 2 else -18) if suit == "b" and rank > 1 else float(rng.uniform(-6, 6))
            if rank == 7 and k == 2 and suit in "eb":
                tilt = 90
            if rank == 1 and suit in "eb":
                tilt += ace["tilt"]
            _pip(img, style, suit, rng, inner[0] + u * iw, inner[1] + v * ih, cell, tilt)
    else:
        _figure(img, style, suit, rng, (inner[0] - 0.04 * w, inner[1] - 0.05 * h, inner[2] + 0.04 * w, inner[3] + 0.05 * h))
    _frame(img, style, suit)
    # the numeral inside the frame's top-left corner, and turned half round at the bottom right
    at = (fx + style["numeral_at"][0] * w, fy + style["numeral_at"][1] * h)
    plate = (fx + 1, fy + 1, at[0] + 0.16 * w, at[1] + (style["numeral_h"] + 0.012) * h)
    for flip in (False, True):
        if flip:
            img = img.transpose(Image.Transpose.ROTATE_180)
        ImageDraw.Draw(img).rectangle(plate, fill=style["paper"])
        _numeral(img, style, str(rank), at)
        if flip:
            img = img.transpose(Image.Transpose.ROTATE_180)
    img = img.convert("RGB").resize(SIZE, Image.Resampling.LANCZOS)
    return img.filter(ImageFilter.GaussianBlur(float(rng.uniform(0.0, 0.5))))


def write_deck(out: Path, seed: int, k: int) -> Path:
    """Deck `k` of `seed`, written as an enrolled deck folder `out/p{k:03d}`."""
    rng = np.random.default_rng([seed, k])
    style = deck_style(rng)
    folder = out / f"p{k:03d}"
    folder.mkdir(parents=True, exist_ok=True)
    for name in ORDER:
        draw_face(style, name, rng).save(folder / f"{name}.png")
    meta = {"format": DECK_FORMAT, "order": list(ORDER), "procedural": {"seed": seed, "deck": k,
            "font": Path(style["font"]).name if style["font"] else None, "forms": style["forms"]},
            "photos": [], "back": None}
    (folder / ENROLLED).write_text(json.dumps(meta, indent=1))
    return folder


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.procedural", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder for the decks (p000, p001, ...)")
    p.add_argument("--n", type=int, default=24, help="decks to draw (default 24)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--sheet", action="store_true", help="also write sheet.jpg: a few faces of each deck")
    p.add_argument("--workers", type=int, default=1, help="decks drawn at once (each deck is the same either way)")
    a = p.parse_args(argv)
    out = Path(a.out)
    if a.workers > 1:
        from functools import partial
        from multiprocessing import Pool

        with Pool(a.workers) as pool:
            folders = pool.map(partial(write_deck, out, a.seed), range(a.n))
    else:
        folders = [write_deck(out, a.seed, k) for k in range(a.n)]
    if a.sheet:
        names = ("1o", "4c", "7e", "5b", "10o", "11c", "12e", "11b")
        tw, th = SIZE[0] // 2, SIZE[1] // 2
        sheet = Image.new("RGB", (tw * len(names), th * len(folders)), "white")
        for j, f in enumerate(folders):
            for i, n in enumerate(names):
                sheet.paste(Image.open(f / f"{n}.png").resize((tw, th)), (i * tw, j * th))
        sheet.save(out / "sheet.jpg", quality=90)
    print(f"{len(folders)} decks in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
