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
