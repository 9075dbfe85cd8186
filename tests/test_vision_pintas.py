"""scorer.vision.pintas: the suit from the frame line's breaks, on drawn cards."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from PIL import Image, ImageDraw

from scorer.vision import pintas
from scorer.vision.model import ModelError, Models

CORNER = (200.0, 150.0, 265.0, 225.0)
BASTOS = pintas.BREAKS["b"]


def photo(deg: float, breaks: tuple[tuple[float, float], ...] = (), line: bool = True) -> np.ndarray:
    """A grey photo: a table, a card whose top side slopes by `deg` from the corner that
    `placed` gives CORNER at that slope, and its frame line (v = 0.05 of its height, u =
    0.1..0.9, broken over `breaks`) about a pixel thick, drawn four times larger and shrunk."""
    k = 4
    origin, width = pintas.placed(CORNER, deg)
    height = width / pintas.CARD_ASPECT
    th = math.radians(deg)
    e_u, e_v = np.array([math.cos(th), math.sin(th)]), np.array([-math.sin(th), math.cos(th)])
    img = Image.new("L", (700 * k, 600 * k), 90)
    d = ImageDraw.Draw(img)

    def at(u: float, v: float) -> tuple[float, float]:
        x, y = (origin + u * width * e_u + v * height * e_v) * k
        return float(x), float(y)

    d.polygon([at(0, 0), at(1, 0), at(1, 1), at(0, 1)], fill=235)
    if line:
        edges = [0.1, *[x for b in breaks for x in b], 0.9]
        for u0, u1 in zip(edges[::2], edges[1::2], strict=True):
            d.line([at(u0, 0.05), at(u1, 0.05)], fill=60, width=k)
    return np.asarray(img.resize((700, 600), Image.Resampling.BOX), np.float32)


def test_sample_reads_the_image_where_the_map_says() -> None:
    """Bilinear: on a plane z = 2x + 3y the strip holds the plane at the mapped points, and
    points past the edge read the edge."""
    ys, xs = np.mgrid[0:100, 0:120].astype(np.float32)
    plane = 2 * xs + 3 * ys
    m = np.array([[0.25, 0.1, 10.3], [0.05, 0.5, 20.7], [0, 0, 1]])
    got = pintas.sample(plane, m)
    y, x = np.mgrid[0 : pintas.NV, 0 : pintas.NU]
    px, py = m[0, 0] * x + m[0, 1] * y + m[0, 2], m[1, 0] * x + m[1, 1] * y + m[1, 2]
    assert np.allclose(got, 2 * px + 3 * py, atol=1e-3)
    far = pintas.sample(plane, np.array([[0, 0, 500.0], [0, 0, -40.0], [0, 0, 1]]))
    assert np.allclose(far, plane[0, 119])


@pytest.mark.parametrize("true, start", [(7.3, 5.0), (7.3, 9.0), (-12.6, -11.0), (0.4, -1.0), (-0.5, 1.0)])
def test_the_fitted_slope_is_the_lines(true: float, start: float) -> None:
    """From a start a degree or two off, the fitted slope is the drawn line's to a fifth of a
    degree (the coarse search steps by two)."""
    got = pintas.fit_line(photo(true, pintas.BREAKS["e"]), CORNER, start, 0.9)
    assert abs(got - true) < 0.2, (true, start, got)


def test_a_side_past_the_plain_search_is_found_and_its_breaks_read() -> None:
    """A side at 23 degrees: the search alone (one degree steps to 16) ends at its edge; the
    fitted strip shows the line along one row, with copas' one break."""
    img = photo(23.0, pintas.BREAKS["c"])
    _, _, plain = pintas.side_strip(img, CORNER, [], None, np.arange(-16.0, 16.5, 1.0), fit=False)
    strip, extent, fitted = pintas.side_strip(img, CORNER, [], None)
    assert abs(plain - 23.0) > 5 and abs(fitted - 23.0) < 0.3, (plain, fitted)
    got = pintas.read_line(strip, extent)
    assert got is not None
    u = (np.arange(pintas.NU) + 0.5) / pintas.NU
    assert got[0][(u > 0.15) & (u < 0.32)].all() and not got[0][(u > 0.42) & (u < 0.58)].any()


@pytest.mark.parametrize("suit", pintas.SUITS)
@pytest.mark.parametrize("deg", [-9.0, 3.5, 18.0])
def test_each_suit_is_read_from_its_breaks(suit: str, deg: float) -> None:
    """A card drawn with a suit's breaks, at three slopes, is read as that suit, clear of
    the next best by at least a nat."""
    ll = pintas.corner_suit(photo(deg, pintas.BREAKS[suit]), CORNER, [], None, 0)
    assert ll is not None
    order = np.argsort(-ll)
    assert pintas.SUITS[order[0]] == suit and ll[order[0]] - ll[order[1]] > 1, (suit, deg, ll)


def test_no_line_no_read_and_a_card_over_the_side_ends_it() -> None:
    """A card with no frame line gives no read; a card box over the side from 0.45 on cuts
    what is compared there, so bastos seen to 0.45 cannot be told from espadas' start."""
    assert pintas.corner_suit(photo(4.0, line=False), CORNER, [], None, 0) is None
    img = photo(0.0, BASTOS)
    origin, width = pintas.placed(CORNER, 0.0)
    over = (origin[0] + 0.45 * width, origin[1] - 20, origin[0] + 2 * width, origin[1] + 200)
    assert pintas.seen_to(CORNER, 0.0, [over], None) == pytest.approx(0.45, abs=0.01)
    whole = pintas.corner_suit(img, CORNER, [], None, 0)
    cut = pintas.corner_suit(img, CORNER, [over], None, 0)
    assert whole is not None and cut is not None
    b, e = pintas.SUITS.index("b"), pintas.SUITS.index("e")
    assert whole[b] - whole[e] > cut[b] - cut[e] + 1, (whole, cut)


def test_a_turned_photo_is_read_after_turning_it_back() -> None:
    """The same card in a photo turned a quarter turn clockwise: read with one turn, as
    the pipeline turns a corner's window, it gives the same suit."""
    img = photo(6.0, BASTOS)
    turned = np.ascontiguousarray(np.rot90(img, -1))  # clockwise; one counterclockwise turn undoes it
    h = img.shape[0]
    x1, y1, x2, y2 = CORNER
    box = (h - y2, x1, h - y1, x2)  # CORNER in the turned photo
    ll = pintas.corner_suit(turned, box, [], None, 1)
    assert ll is not None and pintas.SUITS[int(ll.argmax())] == "b", ll
    assert ll.max() > -1 and np.sort(ll)[-2] < ll.max() - 5, ll  # the breaks where bastos has them
    wrong = pintas.corner_suit(turned, box, [], None, 0)
    assert wrong is None or wrong.max() < -5, wrong  # not turned: no side matches


def test_fold_moves_the_suit_and_keeps_what_has_none() -> None:
    """The likelihood moves each row's probability between the suits of a rank; a class
    with no suit keeps its share relative to nothing else lost; a row without a read is
    untouched."""
    names = ["5o", "5c", "5e", "5b", "other"]
    p = np.array([[0.5, 0.3, 0.05, 0.05, 0.1], [0.5, 0.3, 0.05, 0.05, 0.1]], np.float32)
    ll = np.array([-6.0, 0.0, -6.0, -6.0])  # copas
    out = pintas.fold(p, names, [ll, None], 0.5)
    assert out[0, 1] > 0.5 > out[0, 0] and np.isclose(out[0].sum(), 1)
    assert out[0, 4] > p[0, 4]  # the suits' lost mass goes to every class in proportion
    assert np.array_equal(out[1], p[1])
    assert pintas.suit_sureness(p, names)[0] == pytest.approx(0.5 / 0.9)


def test_the_weight_comes_from_the_classifiers_json(tmp_path, monkeypatch) -> None:
    """`pintas_weight` in cards-cls.json turns the step on; absent it is 0 (off); a value
    out of 0..4 is refused by name."""
    import scorer.vision.model as model

    monkeypatch.setattr(model, "_session", lambda path: None)
    monkeypatch.setattr(model, "input_size", lambda *a, **k: 64)
    monkeypatch.setattr(model, "_dynamic_batch", lambda s: True)
    monkeypatch.setattr(model, "_reader", lambda *a, **k: (None, [], 0.0, 0, False, 1.0))
    meta = tmp_path / "cards-cls.json"
    meta.write_text(json.dumps({"names": ["1o", "1c"]}))
    assert Models(tmp_path).pintas_weight == 0
    meta.write_text(json.dumps({"names": ["1o", "1c"], "pintas_weight": 0.5}))
    assert Models(tmp_path).pintas_weight == 0.5
    meta.write_text(json.dumps({"names": ["1o", "1c"], "pintas_weight": 9}))
    with pytest.raises(ModelError, match="pintas_weight"):
        Models(tmp_path)
    meta.write_text(json.dumps({"names": ["1o", "1c"], "pintas_ace_weight": 2}))
    assert (Models(tmp_path).pintas_weight, Models(tmp_path).pintas_ace_weight) == (0, 2)
    meta.write_text(json.dumps({"names": ["1o", "1c"], "pintas_ace_weight": -1}))
    with pytest.raises(ModelError, match="pintas_ace_weight"):
        Models(tmp_path)


class _Unsure:
    """A stand-in for `Models`: reads every corner a 5 of any suit (0.3 oros, 0.25 each of
    the rest, a little `other`), no rank or court suit reader, the pintas at `weight`."""

    names = ["5o", "5c", "5e", "5b", "other"]
    cls_size = 16
    index = suit = None

    def __init__(self, weight: float) -> None:
        self.pintas_weight = weight
        self.pintas_ace_weight = 0.0

    def classify(self, batch: np.ndarray) -> np.ndarray:
        return np.tile(np.array([0.3, 0.25, 0.25, 0.15, 0.05], np.float32), (len(batch), 1))


@pytest.mark.parametrize("weight", [0.0, 0.5])
def test_classify_corners_folds_the_pintas_where_the_json_asks(weight: float) -> None:
    """A corner on a card drawn with bastos' breaks, read unsure (oros first): with a
    pintas weight the read moves to bastos; without, it stays as the classifier said. A
    corner on no card box is never read for its pintas."""
    from scorer.vision.pipeline import classify_corners

    img = Image.fromarray(photo(5.0, BASTOS).astype(np.uint8))
    origin, width = pintas.placed(CORNER, 5.0)
    card = (origin[0] - 10, origin[1] - 5, origin[0] + width + 10, origin[1] + width / pintas.CARD_ASPECT + 10)
    p = classify_corners(_Unsure(weight), img, (1.0, 1.0), [(CORNER, 0, False), (CORNER, 0, None)], [card])
    names = _Unsure.names
    assert names[int(p[1].argmax())] == "5o"  # no card: untouched
    assert names[int(p[0].argmax())] == ("5b" if weight else "5o"), p[0]


class _SureAce(_Unsure):
    """Reads every corner the ace of oros, at `sure` (the rest of the suits alike)."""

    names = ["1o", "1c", "1e", "1b", "other"]

    def __init__(self, weight: float, ace_weight: float, sure: float) -> None:
        self.pintas_weight, self.pintas_ace_weight, self.sure = weight, ace_weight, sure

    def classify(self, batch: np.ndarray) -> np.ndarray:
        rest = (1 - self.sure) / 4
        return np.tile(np.array([self.sure, rest, rest, rest, rest], np.float32), (len(batch), 1))


@pytest.mark.parametrize(("weight", "ace_weight", "sure", "read"), [
    (0.5, 0.0, 0.95, "1o"), (0.0, 2.0, 0.95, "1b"), (0.5, 2.0, 0.95, "1b"), (0.5, 2.0, 0.998, "1o")])
def test_a_corner_read_an_ace_has_its_pintas_read_where_the_json_gives_an_ace_weight(
        weight: float, ace_weight: float, sure: float, read: str) -> None:
    """A corner read the ace of oros, on a card drawn with bastos' breaks: at 0.95 it is
    too sure of its suit for the plain weight (`BELOW`), not for an ace weight
    (`ACE_BELOW`), and the breaks move it to bastos; at 0.998 it is read as it was."""
    from scorer.vision.pipeline import classify_corners

    img = Image.fromarray(photo(5.0, BASTOS).astype(np.uint8))
    origin, width = pintas.placed(CORNER, 5.0)
    card = (origin[0] - 10, origin[1] - 5, origin[0] + width + 10, origin[1] + width / pintas.CARD_ASPECT + 10)
    p = classify_corners(_SureAce(weight, ace_weight, sure), img, (1.0, 1.0), [(CORNER, 0, False)], [card])
    assert _SureAce.names[int(p[0].argmax())] == read, p[0]


@pytest.mark.parametrize("shape", [(48, 320), (48, 113), (7, 5), (1, 9), (20, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_paper_level_is_numpys_90th_percentile_exactly(shape: tuple[int, int], dtype: type) -> None:
    a = (np.random.default_rng(shape[0] * 1000 + shape[1]).random(shape) * 255).astype(dtype)
    got, want = pintas._percentile90(a), np.percentile(a, 90, axis=0)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_the_coarse_search_scores_its_short_strip_as_the_whole_strip() -> None:
    """The slope search samples only the columns its score reads (`COARSE`): each angle's
    score is the one the whole strip gives, to the bit."""
    gray = photo(5.0, BASTOS)
    for deg in pintas.ANGLES[::4]:
        whole = pintas.line_score(pintas.strip_at(gray, CORNER, float(deg)), 0.3)
        short = pintas.line_score(pintas.strip_at(gray, CORNER, float(deg), pintas.COARSE), 0.3)
        assert short == whole, deg


class _Fixed(_Unsure):
    """Reads every corner `row` over `names`, with the pintas weights given."""

    def __init__(self, names: list[str], row: list[float], weight: float, ace_weight: float) -> None:
        self.names, self.row = names, np.array(row, np.float32)
        self.pintas_weight, self.pintas_ace_weight = weight, ace_weight

    def classify(self, batch: np.ndarray) -> np.ndarray:
        return np.tile(self.row, (len(batch), 1))


def _read_on_bastos(models: _Fixed) -> str:
    from scorer.vision.pipeline import classify_corners

    img = Image.fromarray(photo(5.0, BASTOS).astype(np.uint8))
    origin, width = pintas.placed(CORNER, 5.0)
    card = (origin[0] - 10, origin[1] - 5, origin[0] + width + 10, origin[1] + width / pintas.CARD_ASPECT + 10)
    p = classify_corners(models, img, (1.0, 1.0), [(CORNER, 0, False)], [card])
    return models.names[int(p[0].argmax())]


def test_an_ace_unsure_enough_for_both_weights_is_folded_at_the_ace_weight() -> None:
    """An ace of oros read at 0.85 (under both thresholds) on bastos' breaks: a plain
    weight of 0.01 alone could not move it; the ace weight 2 does."""
    row = [0.85, 0.05, 0.05, 0.04, 0.01]
    aces = ["1o", "1c", "1e", "1b", "other"]
    assert _read_on_bastos(_Fixed(aces, row, 0.01, 0.0)) == "1o"
    assert _read_on_bastos(_Fixed(aces, row, 0.01, 2.0)) == "1b"


def test_a_card_not_read_an_ace_is_left_to_the_plain_weight() -> None:
    """A 5 of oros read at 0.95 on bastos' breaks, with only an ace weight given: not
    read again (it is no ace, and the plain step is off); at 0.85 with the plain weight, it is."""
    fives = ["5o", "5c", "5e", "5b", "other"]
    assert _read_on_bastos(_Fixed(fives, [0.95, 0.02, 0.01, 0.01, 0.01], 0.0, 4.0)) == "5o"
    assert _read_on_bastos(_Fixed(fives, [0.85, 0.05, 0.05, 0.04, 0.01], 0.5, 0.0)) == "5b"


def test_the_score_refuses_a_strip_too_short_for_its_reach() -> None:
    strip = pintas.strip_at(photo(5.0, BASTOS), CORNER, 5.0, pintas.COARSE)
    assert pintas.line_score(strip, pintas.COARSE_REACH) > 0
    with pytest.raises(ValueError, match="too short"):
        pintas.line_score(strip, 0.6)


def test_fold_takes_one_weight_per_row_as_each_row_alone() -> None:
    names = ["5o", "5c", "5e", "5b", "other"]
    p = np.array([[0.4, 0.3, 0.2, 0.05, 0.05], [0.4, 0.3, 0.2, 0.05, 0.05]], np.float32)
    ll = np.array([-3.0, -1.0, -2.0, 0.0])
    both = pintas.fold(p, names, [ll, ll], np.array([0.5, 2.0]))
    assert np.array_equal(both[0], pintas.fold(p[:1], names, [ll], 0.5)[0])
    assert np.array_equal(both[1], pintas.fold(p[1:], names, [ll], 2.0)[0])
    assert not np.array_equal(both[0], both[1])
