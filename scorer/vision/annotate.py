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

from PIL import Image, ImageDraw, ImageFont

from scorer.vision.image import load_image

SEAT_COLOURS = ((46, 204, 113), (52, 152, 219), (155, 89, 182), (241, 196, 15))
NO_SEAT = (236, 240, 241)
WARN = (231, 76, 60)
FONT = Path(__file__).with_name("fonts") / "DejaVuSans-LGC.ttf"

# A label: its text, or `(read, held)` where a person named another card than the one
# read: the read struck through, then the card held.
Label = str | tuple[str, str]


def annotate(image: Image.Image | bytes | str | Path, result: dict, quality: int = 85,
             max_side: int | None = None, full: tuple[int, int] | None = None, *,
             card_labels: Sequence[Label | None] | None = None,
             unread_labels: Sequence[Label | None] | None = None,
             seat_labels: Sequence[str | None] | None = None) -> bytes:
    """A JPEG of `image` with the boxes, card names and seats of a scan `result`;
    cards a warning names are outlined in red, their labels on red, drawn last so that no
    other label covers them. `card_labels`: the label of each of `result["cards"]` (None,
    or none given: "12o 97% S1", the card read, its confidence and seat); a pair
    `(read, held)` is drawn with the read struck through. `unread_labels`: those of the
    boxes found but not read (the `low_confidence` warnings with a box and no card; "?"
    by default). `seat_labels`: the line written under each seat's cards (None, or none
    given: "seat 1: 12o 5c 1e 7b" where the result has `hands`; no line for a seat without
    cards in the photo). A label sits above its box's top-left corner; where that would
    cover a label already drawn, inside the box's top, or under the box, or further down.
    With `max_side`, a bigger photo is shrunk
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
    font = _font(max(12, long // 70))
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
    taken: list[tuple[int, int, int, int]] = []
    for bad, box, colour, label in cards:
        if not bad:
            _label(draw, img.size, box, label, font, colour, taken)
    hands = result.get("hands")
    for seat in range(4):
        line = _given(seat_labels, seat)
        if line is None and hands:
            line = f"seat {seat}: {' '.join(hands[seat])}"
        boxes = [c["box"] for c in result.get("cards", ()) if c.get("seat") == seat]
        if line is not None and boxes:
            x = min(b[0] for b in boxes)
            y = max(b[3] for b in boxes)
            _label(draw, img.size, (x, y), line, font, SEAT_COLOURS[seat], taken)
    for bad, box, _, label in cards:
        if bad:
            _label(draw, img.size, box, label, font, WARN, taken)
    for j, box in enumerate(unread):
        label = _given(unread_labels, j)
        _label(draw, img.size, box, "?" if label is None else label, font, WARN, taken)
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


def _label(draw: ImageDraw.ImageDraw, size: tuple[int, int], at: Sequence[float], text: Label,
           font: ImageFont.ImageFont, colour: tuple[int, int, int],
           taken: list[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    """Dark text on a coloured band, kept inside the image, where it covers no band in
    `taken` (to which it is added). A pair `(read, held)`: the read struck through, then
    the card held. `at`: a box (x1, y1, x2, y2), the band tried above its
    top-left corner, then inside its top, then under it; or a point (x, y), the band tried
    under it. Where each covers a band, the first is moved down a band at a time until it
    covers none (or leaves the image, where the first place is kept)."""
    struck, text = (drawable(font, text[0]), drawable(font, text[1])) if isinstance(text, tuple) else ("", text)
    text = drawable(font, text)
    if struck:
        text = f"{struck} {text}"
    x0, t, r, b = draw.textbbox((0, 0), text, font=font)
    w, h = r - x0 + 6, b - t + 6

    def band(x: float, y: float) -> tuple[int, int, int, int]:
        x = min(max(0, int(x)), max(0, size[0] - w))
        y = min(max(0, int(y)), max(0, size[1] - h))
        return x, y, x + w, y + h

    def free(rect: tuple[int, int, int, int]) -> bool:
        return not any(rect[0] < o[2] and o[0] < rect[2] and rect[1] < o[3] and o[1] < rect[3] for o in taken)

    if len(at) == 4:
        places = [band(at[0], at[1] - h), band(at[0], at[1]), band(at[0], at[3])]
    else:
        places = [band(at[0], at[1])]
    rect = next((p for p in places if free(p)), None)
    if rect is None:
        first = places[0]
        rect = first
        for step in range(1, max(1, size[1] // max(1, h)) + 1):
            moved = band(first[0], first[1] + step * (h + 1))
            if moved[1] != first[1] + step * (h + 1):
                break  # off the image's bottom
            if free(moved):
                rect = moved
                break
    taken.append(rect)
    draw.rectangle(rect, fill=colour)
    draw.text((rect[0] + 3 - x0, rect[1] + 3 - t), text, fill=(0, 0, 0), font=font)
    if struck:  # a line through the read, at the middle of its letters
        sx0, st, sr, sb = draw.textbbox((0, 0), struck, font=font)
        mid = rect[1] + 3 + (st + sb) / 2 - t
        draw.line([(rect[0] + 3 + sx0 - x0 - 1, mid), (rect[0] + 3 + sr - x0 + 1, mid)], fill=(0, 0, 0),
                  width=max(1, (b - t) // 9))
    return rect
