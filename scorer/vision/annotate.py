"""The annotated photo: a box per card with its name, confidence and seat."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from scorer.vision.image import load_image

SEAT_COLOURS = ((46, 204, 113), (52, 152, 219), (155, 89, 182), (241, 196, 15))
NO_SEAT = (236, 240, 241)
WARN = (231, 76, 60)


def annotate(image: Image.Image | bytes | str | Path, result: dict, quality: int = 85,
             max_side: int | None = None, full: tuple[int, int] | None = None) -> bytes:
    """A JPEG of `image` with the boxes, card names and seats of a scan `result`;
    cards a warning names are outlined in red. With `max_side`, a bigger photo is shrunk
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
    font = ImageFont.load_default(size=max(12, long // 70))
    flagged = {tuple(int(v) for v in w["box"]) for w in result.get("warnings", ()) if w.get("box")}
    flagged |= {w.get("card") for w in result.get("warnings", ()) if w.get("code") == "duplicate"}
    labelled: set[tuple[int, ...]] = set()
    for c in result.get("cards", ()):
        seat = c.get("seat")
        colour = NO_SEAT if seat is None else SEAT_COLOURS[seat % 4]
        box = [int(v) for v in c["box"]]
        bad = tuple(box) in flagged or c["card"] in flagged
        draw.rectangle(box, outline=WARN if bad else colour, width=width * (2 if bad else 1))
        label = f"{c['card']} {round(100 * c['conf'])}%" + ("" if seat is None else f" S{seat}")
        # a second card in the same box (two cards nearly one on the other): its name inside
        _label(draw, img.size, (box[0], box[1]), label, font, colour, below=tuple(box) in labelled)
        labelled.add(tuple(box))
    for w in result.get("warnings", ()):
        if w.get("card") is None and w.get("box"):  # a card found but not read
            box = [int(v) for v in w["box"]]
            draw.rectangle(box, outline=WARN, width=width * 2)
            _label(draw, img.size, (box[0], box[1]), "?", font, WARN)
    hands = result.get("hands")
    if hands:
        for seat in range(4):
            boxes = [c["box"] for c in result["cards"] if c.get("seat") == seat]
            if boxes:
                x = min(b[0] for b in boxes)
                y = max(b[3] for b in boxes)
                _label(draw, img.size, (x, y), f"seat {seat}: {' '.join(hands[seat])}", font, SEAT_COLOURS[seat], below=True)
    out = io.BytesIO()
    img.save(out, "JPEG", quality=quality)
    return out.getvalue()


def _scaled(result: dict, s: float) -> dict:
    """The boxes of a scan result (cards and warnings) times `s`."""

    def box(b: list[float]) -> list[float]:
        return [v * s for v in b]

    return {
        **result,
        "cards": [{**c, "box": box(c["box"])} for c in result.get("cards", ())],
        "warnings": [{**w, "box": box(w["box"])} if w.get("box") else w for w in result.get("warnings", ())],
    }


def _label(draw: ImageDraw.ImageDraw, size: tuple[int, int], at: tuple[int, int], text: str,
           font: ImageFont.ImageFont, colour: tuple[int, int, int], below: bool = False) -> None:
    """Dark text on a coloured band above (or below) the point, kept inside the image."""
    x0, t, r, b = draw.textbbox((0, 0), text, font=font)
    w, h = r - x0 + 6, b - t + 6
    x = min(max(0, at[0]), max(0, size[0] - w))
    y = at[1] if below else at[1] - h
    y = min(max(0, y), max(0, size[1] - h))
    draw.rectangle([x, y, x + w, y + h], fill=colour)
    draw.text((x + 3 - x0, y + 3 - t), text, fill=(0, 0, 0), font=font)
