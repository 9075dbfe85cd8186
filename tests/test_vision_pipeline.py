"""The coarse-to-fine pipeline's geometry with an oracle in place of the models.

The oracle detector answers each detector run with the true boxes of a rendered photo,
mapped into that run's input (the letterboxed photo, or a fine tile) by a forward
mapping written here independently of the pipeline; the oracle classifier names the
true corner a crop was cut around. So every coordinate transform of the pipeline
(decode reductions, EXIF orientation, letterbox, tiles, corner crops)
must be right for the cards to come out right.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from scorer.vision import pipeline as P

sys.path.insert(0, str(Path(__file__).parent))
from vision_helpers import NAMES, det_output, jpeg  # noqa: E402

render = pytest.importorskip("datasets.render")


class Oracle:
    """Duck-types `scorer.vision.model.Models` from a scene's ground truth."""

    det_size, cls_size, names = 320, 64, NAMES
    index = suit = None  # no rank reader, no court suit reader
    pintas_weight = pintas_ace_weight = 0.0  # no suit from the frame line

    def __init__(self, scene, monkeypatch: pytest.MonkeyPatch) -> None:
        self.cards = [(tuple(c["box"]), c["card"]) for c in scene.cards]
        self.corners = [(tuple(k["box"]), c["card"]) for c in scene.cards for k in c["corners"] if k["labelled"]]
        self.full = scene.image.size
        self.letterboxed: list[tuple] = []
        self.tiles: list[list[P.Placed]] = []
        self.crops: list[tuple] = []
        self.calls = 0
        real_letterbox, real_tiles, real_crop = P.letterbox, P.fine_tiles, P.corner_crop

        def letterbox(image, size):
            out = real_letterbox(image, size)
            self.letterboxed.append((image.size, out[1], out[2]))
            return out

        def fine_tiles(rects, ref, tile):
            self.tiles = real_tiles(rects, ref, tile)
            return self.tiles

        def corner_crop(image, box, quarter_turns=0, size=64):
            f = self.full[0] / image.width
            self.crops.append(tuple(v * f for v in box))
            return real_crop(image, box, quarter_turns, size=size)

        monkeypatch.setattr(P, "letterbox", letterbox)
        monkeypatch.setattr(P, "fine_tiles", fine_tiles)
        monkeypatch.setattr(P, "corner_crop", corner_crop)

    def detect(self, batch: np.ndarray) -> np.ndarray:
        self.calls += 1
        if self.calls == 1:  # coarse: the photo letterboxed
            (w, _), r, (left, top) = self.letterboxed[-1]
            s = w / self.full[0] * r
            boxes = [(0, b[0] * s + left, b[1] * s + top, b[2] * s + left, b[3] * s + top, 0.9)
                     for b, _ in self.cards]
            return det_output(boxes)
        outs = []
        for placed in self.tiles:
            found = []
            for cls, truth in ((0, self.cards), (1, self.corners)):
                for b, _ in truth:
                    for pl in placed:
                        hit = _into_tile(b, pl)
                        if hit is not None:
                            found.append((cls, *hit, 0.9))
            outs.append(det_output(found)[0])
        return np.stack(outs)

    def classify(self, batch: np.ndarray) -> np.ndarray:
        boxes, self.crops = self.crops[-len(batch):], []
        probs = np.full((len(batch), len(NAMES)), 0.001, np.float32)
        for i, b in enumerate(boxes):
            best = max(self.corners, key=lambda t: _iou(b, t[0]))
            probs[i, NAMES.index(best[1] if _iou(b, best[0]) > 0.5 else "other")] = 0.95
        return probs


def _iou(a: tuple, b: tuple) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    return w * h / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h)


def _into_tile(b: tuple, pl: P.Placed) -> tuple | None:
    """A photo box in tile pixels through one placed piece, if 60% of it is there."""
    p = pl.piece
    sx, sy = p.w / (p.rect[2] - p.rect[0]), p.h / (p.rect[3] - p.rect[1])
    u1, v1, u2, v2 = (b[0] - p.rect[0]) * sx, (b[1] - p.rect[1]) * sy, (b[2] - p.rect[0]) * sx, (b[3] - p.rect[1]) * sy
    c1, d1, c2, d2 = max(u1, 0), max(v1, 0), min(u2, p.w), min(v2, p.h)
    if c2 <= c1 or d2 <= d1 or (c2 - c1) * (d2 - d1) < 0.6 * (u2 - u1) * (v2 - v1):
        return None
    return (c1 + pl.left, d1 + pl.top, c2 + pl.left, d2 + pl.top)


@pytest.mark.parametrize("seed, size, orientation", [(11, (2000, 1500), None), (12, (1200, 1600), 6),
                                                     (13, (1600, 1200), 3)])
def test_oracle_models_read_every_visible_card_in_its_seat(seed, size, orientation, monkeypatch) -> None:
    bottom = seed % 4
    scene = render.render_scene(np.random.default_rng(seed), kind="table", size=size, bottom=bottom,
                                effects=False)
    stored = scene.image
    if orientation == 6:  # stored a quarter turn counterclockwise; the tag turns it back
        stored = stored.transpose(Image.Transpose.ROTATE_90)
    elif orientation == 3:
        stored = stored.transpose(Image.Transpose.ROTATE_180)
    oracle = Oracle(scene, monkeypatch)
    result = P.scan(oracle, jpeg(stored, orientation=orientation), bottom=bottom)
    assert result["size"] == list(size)
    want = {c["card"]: c["seat"] for c in scene.cards if any(k["labelled"] for k in c["corners"])}
    got = {c["card"]: c["seat"] for c in result["cards"]}
    assert set(got) == set(want)
    assert sum(got[n] != s for n, s in want.items()) <= 1
    assert oracle.calls == 2  # one coarse run, one batch of fine tiles
    for c in result["cards"]:  # boxes are the true card boxes, in the upright photo
        truth = next(tuple(t["box"]) for t in scene.cards if t["card"] == c["card"])
        assert _iou(tuple(c["box"]), truth) > 0.8, (c, truth)


def test_card_boxes_whose_corners_the_detector_missed_are_read_at_their_index_corners(monkeypatch) -> None:
    """The fine pass finds the cards but no corner: each card box's index corners (top
    left and bottom right of a card standing, top right and bottom left of one lying)
    are cut and classified directly."""
    bottom = 2
    scene = render.render_scene(np.random.default_rng(11), kind="table", size=(2000, 1500), bottom=bottom,
                                effects=False, distractors=False)
    oracle = Oracle(scene, monkeypatch)
    oracle_corners, oracle.corners = oracle.corners, []
    detect = oracle.detect

    def no_corners(batch):
        oracle.corners = []
        out = detect(batch)
        oracle.corners = oracle_corners  # the classifier still knows the truth
        return out

    oracle.detect = no_corners
    # the oracle names only crops on a true corner, so the shifted second readings of an
    # axis-aligned guess average lower than a model's would: accept what it reads surely
    monkeypatch.setattr(P, "FALLBACK_CONF", 0.5)
    result = P.scan(oracle, jpeg(scene.image), bottom=bottom)
    want = {c["card"]: c["seat"] for c in scene.cards if any(k["labelled"] for k in c["corners"])}
    got = {c["card"]: c["seat"] for c in result["cards"]}
    assert len(set(got) & set(want)) >= 12, (got, want)
    assert set(got) <= set(want)
    assert sum(got[n] != want[n] for n in got) <= 1


def test_at_most_a_deal_drops_only_the_unsure_extras() -> None:
    from scorer.vision.layout import Card

    names = [f"{r}{s}" for r in (1, 2, 3, 4) for s in "oceb"]
    cards = [Card(n, 0.9, (i * 10, 0, i * 10 + 8, 10)) for i, n in enumerate(names)]
    extra = [Card("5o", 0.3, (0, 50, 8, 60)), Card("6o", 0.95, (20, 50, 28, 60)), Card("8o", 0.2, (40, 50, 48, 60))]
    out = P.at_most_a_deal(cards + extra)
    assert [c.name for c in out] == names + ["6o", "8o"]  # a sure 17th stays (and is warned of); 8s are not counted
    assert P.at_most_a_deal(cards[:10] + extra[:1]) == cards[:10] + extra[:1]


def test_a_sure_name_read_first_in_two_boxes_has_their_other_corners_read(monkeypatch) -> None:
    """A card's far corner is spared once its first corner is read sure, unless that
    sure name was read first in another card box too: then one of the two is a
    neighbour's corner lying over the box, and the far corner names the card."""
    from types import SimpleNamespace

    from scorer.vision.layout import group_cards, unique_names

    names = ["2e", "3e", "4c"]
    a, b = (0.0, 0.0, 260.0, 400.0), (1000.0, 0.0, 1260.0, 400.0)
    a_top, a_far = (0.0, 0.0, 110.0, 120.0), (150.0, 280.0, 260.0, 400.0)
    b_top, b_far = (1000.0, 0.0, 1110.0, 120.0), (1150.0, 280.0, 1260.0, 400.0)

    def run(b_name: str) -> tuple[list, list[int]]:
        said = {a_top: ("3e", 0.99), a_far: ("2e", 0.9), b_top: (b_name, 1.0), b_far: (b_name, 1.0)}

        def classify(models, image, scale, crops, cards=None):
            p = np.zeros((len(crops), len(names) + 1), np.float32)
            for i, (box, _, _) in enumerate(crops):
                name, conf = said[box]
                p[i, names.index(name)], p[i, -1] = conf, 1 - conf
            return p

        monkeypatch.setattr(P, "classify_corners", classify)
        corners = np.array([[*b_top, 0.9], [*a_top, 0.8], [*b_far, 0.7], [*a_far, 0.6]], np.float32)
        return P.read(SimpleNamespace(names=names), Image.new("RGB", (1300, 400)), (1300, 400), corners, [a, b])

    spared, skipped = run("4c")
    assert sorted(r.name for r in spared) == ["3e", "4c"]  # a's far corner not read: its first read is sure
    assert skipped == [2, 3]  # and reported, to be read if the showdown turns out short
    reads, skipped = run("3e")
    assert sorted(r.name for r in reads) == ["2e", "3e", "3e", "3e"] and skipped == []
    cards, _ = group_cards(reads, [a, b])
    assert sorted(c.name for c in unique_names(cards)) == ["2e", "3e"]


@pytest.mark.parametrize("box, want, ways", [
    # a card standing: its bottom-right index corner, moved up and left (tilted in a fan)
    ((0.0, 0.0, 100.0, 160.0), (100 - 30 - 9, 160 - 45 - 13.5), 1),
    # a card lying: its bottom-left index corner, moved right and up
    ((0.0, 0.0, 160.0, 100.0), (0 + 13.5, 100 - 30 - 9), 1),
    # a box near square, a little taller than wide, holding a card lying tilted
    ((0.0, 0.0, 100.0, 110.0), (0 + 13.5, 110 - 30 - 9), 2),
])
def test_an_unread_box_is_probed_inwards_of_its_corners(box, want, ways, monkeypatch) -> None:
    """A tilted card's index corners lie inside its upright box: `probe` cuts each
    corner's spot and the spots moved inwards (for a box near square, as a card standing
    and as one lying), and names the box by its surest read."""
    seen: list[tuple] = []

    def classify_corners(models, image, scale, crops, cards=None):
        seen.extend(crops)
        p = np.full((len(crops), len(NAMES)), 0.001, np.float32)
        for i, (b, _, _) in enumerate(crops):
            hit = abs(b[0] - want[0]) < 0.5 and abs(b[1] - want[1]) < 0.5
            p[i, NAMES.index("5e" if hit else "other")] = 0.9
        return p

    class Names:
        names = NAMES

    monkeypatch.setattr(P, "classify_corners", classify_corners)
    corners = np.array([[0, 0, 30, 45]] * 3, np.float32)  # the photo's corners: 30 x 45
    image = Image.new("RGB", (200, 200))
    (best,) = P.probe(Names(), image, (200, 200), [box], corners)
    assert best is not None and best.name == "5e"
    assert len(seen) == ways * 2 * len(P.PROBE_INWARD)
    assert all(box[0] <= b[0] and b[2] <= box[2] + 1e-6 and box[1] <= b[1] and b[3] <= box[3] + 1e-6
               for b, _, _ in seen)  # every spot inside the card box
    assert {far for _, _, far in seen} == {False, True}
