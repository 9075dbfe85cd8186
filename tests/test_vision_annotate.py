"""The annotated photo's labels: a flagged card's label is drawn on red, never under
another; a label moves where it would cover one already drawn; a tight fan's labels stand
apart, readable at a phone's width."""

from __future__ import annotations

import io
import sys

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
    # by its box: the two labels side by side a band above the two corners (`_crowds`)
    assert y1 - 60 <= ys.min() and ys.max() <= y1 and x1 - 100 <= xs.min() and xs.max() <= x1 + 150
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


def _tight_fans(w: int, h: int, step: int) -> list[list[int]]:
    """Four hands of four cards, each a tight fan along its edge: corners `step` px apart."""
    cw, ch = w // 8, w // 5
    out = []
    for edge, (x, y) in enumerate([(w // 2 - cw, h - ch - 20), (w - ch - 30, h // 2 - cw),
                                   (w // 2 - cw, 20), (30, h // 2 - cw)]):
        for i in range(4):
            if edge % 2 == 0:  # along the bottom and top edges: corners across
                out.append([x + step * i, y + 3 * (i % 2), x + step * i + cw, y + ch])
            else:  # the side edges: corners down
                out.append([x, y + step * i, x + ch, y + step * i + cw])
    return out


def test_the_labels_of_tight_fans_are_apart_readable_at_a_phones_width_and_each_by_its_card(monkeypatch) -> None:
    """A photo shown 360 px wide (a phone): cards in a tight fan lie a few px apart there,
    and their labels, each above its card's corner, lay over each other, too small to
    read. Each label is now apart from every other, sized to read at 360 px, and near
    its card (a tight fan's in a row, in the cards' order)."""
    mod = sys.modules["scorer.vision.annotate"]  # the module: `scorer.vision.annotate` is the function
    drawn: list[tuple[object, tuple[int, int, int, int], tuple[float, ...]]] = []
    real = mod._label

    def spy(draw, size, at, text, *args, **kw):
        rect = real(draw, size, at, text, *args, **kw)
        drawn.append((text, rect, tuple(at)))
        return rect

    monkeypatch.setattr(mod, "_label", spy)
    w, h = 2048, 1536
    boxes = _tight_fans(w, h, step=20)  # 3.5 px apart at 360 px
    names = ["12o", "11c", "10e", "7b", "1o", "2c", "3e", "4b", "5o", "6c", "7o", "12e", "1b", "11o", "10c", "4e"]
    cards = [{"card": c, "conf": 0.97, "box": b, "seat": k // 4} for k, (c, b) in enumerate(zip(names, boxes, strict=True))]
    unread = cards.pop(9)["box"]  # 6c found, not read
    result = {"cards": cards, "hands": None,
              "warnings": [{"code": "low_confidence", "card": "10e", "box": boxes[2]},
                           {"code": "low_confidence", "card": None, "box": unread}]}
    labels: list[object] = [c["card"] for c in cards]
    labels[3] = ("7b", "7o")  # a correction: struck read, card held
    seats = ["Begoña · 12o 11c 10e 7o", "Γιώργος · 1o 2c 3e 4b", "Дмитрий · 5o 6c 7o 12e", "Josu Agirre · 1b 11o 10c 4e"]
    out = annotate(Image.new("RGB", (w, h), GREY), result, card_labels=labels, unread_labels=["6c"], seat_labels=seats)
    assert Image.open(io.BytesIO(out)).size == (w, h)
    # every card labelled, the unread box and each seat too
    assert sorted(map(str, (t for t, _, _ in drawn))) == sorted(map(str, labels + ["6c"] + seats))
    shown = 360 / w
    for i, (text, a, _) in enumerate(drawn):
        assert 0 <= a[0] and a[2] <= w and 0 <= a[1] and a[3] <= h, text
        assert (a[3] - a[1]) * shown >= 10, text  # a band 10 px high or more at 360 px
        for other, b, _ in drawn[i + 1:]:  # apart by 1 px at 360 px, or more
            sep = 1 / shown
            assert not (a[0] < b[2] + sep and b[0] < a[2] + sep and a[1] < b[3] + sep and b[1] < a[3] + sep), (text, other)
    # each card's label within four bands of its card's corner
    for text, a, at in drawn:
        if len(at) == 4:
            dx = max(a[0] - at[0], 0, at[0] - a[2])
            dy = max(a[1] - at[1], 0, at[1] - a[3])
            assert (dx * dx + dy * dy) ** 0.5 <= 4 * (a[3] - a[1]), text
    # the bottom fan's labels in a row in its cards' order, above the cards
    row = {str(t): r for t, r, at in drawn if len(at) == 4 and at[1] > h // 2 and r[1] > h // 2}
    assert [row[t] for t in ("12o", "11c", "10e", "('7b', '7o')")] == sorted(row.values())
    assert all(r[3] <= boxes[0][1] for r in row.values())


def test_a_seats_line_moved_off_its_place_is_joined_to_its_cards_by_a_line() -> None:
    """A seat's line goes under its cards; where that place is taken it moves to the
    nearest free one, and a line in the seat's colour joins it to the point under the
    cards, as a card's label moved off its corner is joined to its card."""
    img = Image.new("RGB", (800, 600), GREY)
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=14)
    point = (300, 400)
    # the place under the point, and a wide margin round it, taken by another band
    taken = [(200, 395, 700, 470)]
    rect = _label(draw, img.size, point, "seat 2: 1o 2o 3o 4o", font, SEAT_COLOURS[2], taken)
    assert not (rect[0] < 700 and 200 < rect[2] and rect[1] < 470 and 395 < rect[3])  # moved off
    px = np.asarray(img).astype(int)
    seat = _near(px, SEAT_COLOURS[2], 10)
    # the line's end at the point: a dot of the seat's colour on it
    assert seat[point[1] - 1:point[1] + 2, point[0] - 1:point[0] + 2].all()
    # and the seat's colour halfway from the point to the band
    end = (min(max(point[0], rect[0]), rect[2]), min(max(point[1], rect[1]), rect[3]))
    mx, my = (point[0] + end[0]) // 2, (point[1] + end[1]) // 2
    assert seat[my - 2:my + 3, mx - 2:mx + 3].any()


def test_a_seats_line_in_its_place_has_no_line() -> None:
    img = Image.new("RGB", (800, 600), GREY)
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=14)
    rect = _label(draw, img.size, (300, 400), "seat 2: 1o 2o 3o 4o", font, SEAT_COLOURS[2], [])
    assert rect[:2] == (300, 400)  # under the point, its top-left corner on it
    px = np.asarray(img).astype(int)
    assert not _near(px[:395], SEAT_COLOURS[2], 10).any()  # nothing drawn above the point
