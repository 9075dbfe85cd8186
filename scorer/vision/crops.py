"""Corner crops: the one function that cuts a card corner out of a photo.

Training data (`datasets/`) and the runtime both cut the classifier's input with
`corner_crop`, so the classifier sees at run time exactly what it was trained on.
"""

from __future__ import annotations

from PIL import Image

CROP_SIZE = 64
CROP_MARGIN = 0.15
FILL = (128, 128, 128)


def corner_crop(
    image: Image.Image,
    box: tuple[float, float, float, float],
    quarter_turns: int = 0,
    size: int = CROP_SIZE,
    margin: float = CROP_MARGIN,
) -> Image.Image:
    """Cut a square around `box` (x1, y1, x2, y2 in image pixels), grown by `margin` of
    its longer side on every side, padded with grey outside the image, turned
    `quarter_turns` x 90 degrees counterclockwise (so that the card stands upright)
    and scaled to `size` x `size`."""
    x1, y1, x2, y2 = box
    side = max(x2 - x1, y2 - y1) * (1 + 2 * margin)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    left, top = round(cx - side / 2), round(cy - side / 2)
    side_px = max(1, round(side))
    square = Image.new("RGB", (side_px, side_px), FILL)
    src = (max(0, left), max(0, top), min(image.width, left + side_px), min(image.height, top + side_px))
    if src[2] > src[0] and src[3] > src[1]:
        square.paste(image.crop(src), (src[0] - left, src[1] - top))
    if quarter_turns % 4:
        square = square.transpose(
            {1: Image.Transpose.ROTATE_90, 2: Image.Transpose.ROTATE_180, 3: Image.Transpose.ROTATE_270}[
                quarter_turns % 4
            ]
        )
    return square.resize((size, size), Image.Resampling.BILINEAR)


INDEX_SIZE = 32
INDEX_PART = (0.62, 0.58)
"""The share of an upright corner box's (width, height), from its top-left, that holds the
index numeral (it sits at about 0.2-0.47 x 0.18-0.43 of the box), with room for the
detector's box jitter and a card fanned up to 30 degrees."""


def far_end(corner: tuple[float, float, float, float], centre: tuple[float, float], quarter_turns: int) -> bool:
    """Whether a corner box lies at the bottom-right end of its card (centre `centre`)
    once the card is turned `quarter_turns` x 90 degrees counterclockwise to stand: its
    numeral is then upside down. Cards are alike turned half round, so this depends on
    where the corner lies in the photo, never on which end of the card it is."""
    dx = (corner[0] + corner[2]) / 2 - centre[0]
    dy = (corner[1] + corner[3]) / 2 - centre[1]
    return (dx + dy > 0) if quarter_turns % 2 == 0 else (dy - dx > 0)


def index_crop(
    image: Image.Image,
    box: tuple[float, float, float, float],
    quarter_turns: int,
    far: bool,
    size: int = INDEX_SIZE,
) -> Image.Image:
    """The numeral part of a corner box (`INDEX_PART` of it, from the corner that is its
    top-left once upright), cut with `corner_crop` turned so the numeral stands, for the
    rank reader. `far` is `far_end` of the corner: its numeral is turned half round."""
    turns = (quarter_turns + (2 if far else 0)) % 4
    x1, y1, x2, y2 = box
    fw, fh = INDEX_PART if turns % 2 == 0 else INDEX_PART[::-1]
    w, h = (x2 - x1) * fw, (y2 - y1) * fh
    # the box corner that becomes the top-left after `turns` counterclockwise quarter turns
    left = x1 if turns in (0, 3) else x2 - w
    top = y1 if turns in (0, 1) else y2 - h
    return corner_crop(image, (left, top, left + w, top + h), turns, size=size, margin=0.04)
