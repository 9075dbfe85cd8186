"""The app's icon as PNG, drawn here (no image files to ship or fetch).

The same mark as the favicon and the top bar's logo: a gold coin and a cream one on the
felt green. `png(size)` is the icon for browsers and home screens (rounded corners,
transparent outside them); `png(size, maskable=True)` fills the whole square with the
green and draws the mark 85% as large, inside the centred circle of 80% (the W3C
"maskable" safe zone), so a launcher may cut it to any shape.
"""

from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image, ImageDraw

FELT = (30, 77, 58, 255)  # #1e4d3a, the theme colour
GOLD = (226, 176, 74, 255)  # #e2b04a
GOLD_RIM = (185, 134, 42, 255)  # #b9862a
CREAM = (244, 234, 214, 255)  # #f4ead6
SIZES = (180, 192, 512)  # Apple's touch icon, then the manifest's two


def _circle(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, **kw) -> None:
    d.ellipse((cx - r, cy - r, cx + r, cy + r), **kw)


@lru_cache(maxsize=8)
def png(size: int, maskable: bool = False) -> bytes:
    """The icon, `size` pixels square, as PNG bytes."""
    if not 16 <= size <= 1024:
        raise ValueError(f"icon size {size!r}: 16 to 1024 pixels")
    s = 4 * size  # drawn 4 times larger, then shrunk: smooth edges
    img = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    if maskable:
        d.rectangle((0, 0, s, s), fill=FELT)
        scale, off = 0.85 * s / 32, 0.075 * s  # the mark 85% as large, well inside the safe circle
    else:
        d.rounded_rectangle((0, 0, s - 1, s - 1), radius=7 * s / 32, fill=FELT)
        scale, off = s / 32, 0.0
    u = scale  # one unit of the favicon's 32x32 grid
    _circle(d, off + 12 * u, off + 17 * u, 7 * u, fill=GOLD)
    _circle(d, off + 12 * u, off + 17 * u, 4.5 * u, outline=GOLD_RIM, width=max(1, round(0.6 * u)))
    _circle(d, off + 22 * u, off + 13 * u, 4 * u, fill=CREAM)
    out = io.BytesIO()
    img.resize((size, size), Image.LANCZOS).save(out, "PNG", optimize=True)
    return out.getvalue()
