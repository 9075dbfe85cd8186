"""The annotated photo's labels: a flagged card's label is drawn last, on red, and a label
moves where it would cover one already drawn."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scorer.vision import annotate
from scorer.vision.annotate import SEAT_COLOURS, WARN, _label

GREY = (90, 90, 90)


def _near(px: np.ndarray, colour: tuple[int, int, int], tol: int = 40) -> np.ndarray:
    return np.abs(px - np.array(colour)).sum(2) < tol


def test_a_flagged_cards_label_is_not_painted_over_by_its_neighbours() -> None:
    # two cards of one seat, one nearly on the other (as in a tight fan); the unsure one comes
    # first, so that drawn in order its label would lie under its neighbour's
    unsure = {"card": "2e", "conf": 0.62, "box": [202, 204, 500, 380], "seat": 1}
    sure = {"card": "12o", "conf": 0.92, "box": [200, 200, 500, 420], "seat": 1}
    result = {"cards": [unsure, sure], "hands": None,
              "warnings": [{"code": "low_confidence", "card": "2e", "box": unsure["box"]}]}
    out = annotate(Image.new("RGB", (800, 600), GREY), result, quality=95)
    px = np.asarray(Image.open(io.BytesIO(out)).convert("RGB")).astype(int)
    # the flagged card's outline: red, 4 px wide (twice the line) inside its box; 3 px more for the JPEG
    x1, y1, x2, y2 = unsure["box"]
    outline = np.zeros(px.shape[:2], bool)
    outline[y1 - 3:y2 + 4, x1 - 3:x2 + 4] = True
    outline[y1 + 7:y2 - 6, x1 + 7:x2 - 6] = False
    band = _near(px, WARN) & ~outline  # red that is not the outline: its label's band
    assert band.sum() > 150
    ys, xs = np.nonzero(band)
    assert y1 - 30 <= ys.min() and ys.max() <= y1 + 30 and x1 <= xs.min() and xs.max() <= x1 + 150  # by its box
    # and the sure card's label, in the seat's colour, is still there above both boxes
    assert _near(px[: sure["box"][1] - 3], SEAT_COLOURS[1]).sum() > 300


def test_labels_move_off_the_labels_already_drawn() -> None:
    img = Image.new("RGB", (800, 600), GREY)
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=12)
    taken: list[tuple[int, int, int, int]] = []
    # five cards of a tight fan: boxes a few pixels apart, and one card's box twice (two cards read there)
    boxes = [[300 + 3 * i, 300 + 2 * i, 500, 500] for i in range(4)] + [[300, 300, 500, 500]]
    rects = [_label(draw, img.size, box, f"{i}o 99% S0", font, SEAT_COLOURS[0], taken) for i, box in enumerate(boxes)]
    rects.append(_label(draw, img.size, (300, 500), "seat 0: 1o 2o 3o 4o", font, SEAT_COLOURS[0], taken))
    assert taken == rects
    for i, a in enumerate(rects):
        assert 0 <= a[0] and a[2] <= 800 and 0 <= a[1] and a[3] <= 600
        for b in rects[i + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)
    # the first label stays where it always was: above its box's top-left corner
    assert rects[0][0] == 300 and rects[0][3] == 300
