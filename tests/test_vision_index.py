"""The rank reader: where a numeral is cut from a corner box, and how its rank read is
combined with the corner classifier's."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image, ImageDraw

from scorer.vision.crops import INDEX_PART, far_end, index_crop
from scorer.vision.model import ModelError, combine, rank_of, read_weight

TURNS = {1: Image.Transpose.ROTATE_90, 2: Image.Transpose.ROTATE_180, 3: Image.Transpose.ROTATE_270}


def _card_photo() -> tuple[Image.Image, tuple[float, float, float, float], list[tuple[float, float, float, float]]]:
    """A standing 130x200 card on grey with an "L" mark where a numeral sits in each index
    corner (the bottom-right one turned half round, as on a Spanish card); the card box
    and its two corner boxes."""
    img = Image.new("RGB", (300, 300), (90, 90, 90))
    d = ImageDraw.Draw(img)
    card = (80.0, 50.0, 210.0, 250.0)
    d.rectangle(card, fill=(250, 250, 250))
    mark = Image.new("RGB", (20, 20), (250, 250, 250))
    md = ImageDraw.Draw(mark)
    md.rectangle((3, 2, 7, 17), fill=(0, 0, 0))  # the L's stem
    md.rectangle((3, 13, 16, 17), fill=(200, 0, 0))  # its foot, red
    w, h = card[2] - card[0], card[3] - card[1]
    cw, ch = 0.42 * w, 0.30 * h  # a corner patch, as the detector boxes it
    img.paste(mark, (int(card[0] + 0.1 * w), int(card[1] + 0.06 * h)))
    img.paste(mark.transpose(Image.Transpose.ROTATE_180), (int(card[2] - 0.1 * w) - 20, int(card[3] - 0.06 * h) - 20))
    corners = [(card[0], card[1], card[0] + cw, card[1] + ch), (card[2] - cw, card[3] - ch, card[2], card[3])]
    return img, card, corners


def _turn(box, k: int, size: int = 300):
    """A box in the photo turned `k` quarter turns counterclockwise."""
    x1, y1, x2, y2 = box
    for _ in range(k):
        x1, y1, x2, y2 = y1, size - x2, y2, size - x1
    return x1, y1, x2, y2


def _l_upright(crop: Image.Image) -> bool:
    """The mark reads as an upright L: the black stem left of the red foot, which is low."""
    a = np.asarray(crop, np.int32)
    black = (a.sum(axis=2) < 150)
    red = (a[..., 0] > 150) & (a[..., 1] < 80)
    if black.sum() < 5 or red.sum() < 5:
        return False
    by, bx = np.nonzero(black)
    ry, rx = np.nonzero(red)
    return bx.mean() < rx.mean() and by.mean() < ry.mean()


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_index_crop_stands_the_numeral_up_at_either_end_of_a_card_turned_any_way(k):
    img, card, corners = _card_photo()
    photo = img.transpose(TURNS[k]) if k else img
    card_t = _turn(card, k)
    centre = ((card_t[0] + card_t[2]) / 2, (card_t[1] + card_t[3]) / 2)
    turns = 0 if (card_t[3] - card_t[1]) >= (card_t[2] - card_t[0]) else 1
    fars = []
    for c in corners:
        box = _turn(c, k)
        far = far_end(box, centre, turns)
        fars.append(far)
        crop = index_crop(photo, box, turns, far, size=32)
        assert crop.size == (32, 32)
        assert _l_upright(crop), f"quarter turns {k}, corner {c}"
    assert sorted(fars) == [False, True]  # one corner is each card's near end, one its far end


def test_index_crop_keeps_the_numeral_and_leaves_out_most_of_the_corner():
    img, _, corners = _card_photo()
    crop = index_crop(img, corners[0], 0, False, size=64)
    # the crop spans INDEX_PART of the box from its top-left: the mark is inside, whole
    assert _l_upright(crop)
    a = np.asarray(crop, np.int32)
    assert (a.sum(axis=2) < 150).sum() > 40
    assert INDEX_PART[0] < 1 and INDEX_PART[1] < 1


NAMES = ["5c", "5e", "7c", "7e", "other"]
RANKS = ["5", "7"]


def test_combine_weight_zero_changes_nothing_and_rows_stay_probabilities():
    p = np.array([[0.6, 0.1, 0.2, 0.05, 0.05]], np.float32)
    r = np.array([[0.03, 0.97]], np.float32)
    assert np.array_equal(combine(p, NAMES, r, RANKS, 0.0), p)
    out = combine(p, NAMES, r, RANKS, 0.5)
    assert out.shape == p.shape and abs(float(out.sum()) - 1) < 1e-5 and (out >= 0).all()


def test_combine_the_numeral_outweighs_the_pip_art_and_the_suit_is_kept():
    # the classifier reads 5 of copas, the numeral clearly says 7: 7 of copas it is
    p = np.array([[0.75, 0.05, 0.1, 0.05, 0.05]], np.float32)
    r = np.array([[0.01, 0.99]], np.float32)
    out = combine(p, NAMES, r, RANKS, 0.7)
    assert NAMES[int(out.argmax())] == "7c"
    assert out[0, NAMES.index("other")] == pytest.approx(0.05, abs=1e-5)  # not a card: untouched


def test_combine_a_rank_the_classifier_all_but_ruled_out_takes_the_suit_of_the_pips():
    # copas by the pips (0.9 of it on the 5); of the 7s it said nothing to speak of, espadas
    # a shade ahead: the suit of the 7 is the pips' copas all the same
    p = np.array([[0.9, 0.05, 0.0001, 0.0002, 0.0497]], np.float32)
    r = np.array([[0.001, 0.999]], np.float32)
    out = combine(p, NAMES, r, RANKS, 0.8)
    assert NAMES[int(out.argmax())] == "7c"


def test_combine_agreeing_readers_grow_surer():
    p = np.array([[0.8, 0.05, 0.05, 0.05, 0.05]], np.float32)
    r = np.array([[0.97, 0.03]], np.float32)
    out = combine(p, NAMES, r, RANKS, 0.5)
    assert NAMES[int(out.argmax())] == "5c" and out[0, 0] > p[0, 0]


def test_rank_of_names():
    assert [rank_of(n) for n in ("12o", "1b", "8e", "other", "x")] == ["12", "1", "8", None, None]


@pytest.mark.parametrize("bad", [-0.1, 1.5, "0.5", True, None])
def test_a_bad_rank_reader_weight_is_refused_by_name(tmp_path, bad):
    f = tmp_path / "cards-index.json"
    f.write_text(json.dumps({"names": RANKS, "weight": bad}))
    with pytest.raises(ModelError, match="weight"):
        read_weight(f)


def test_the_rank_reader_weight_defaults_and_reads(tmp_path):
    f = tmp_path / "cards-index.json"
    f.write_text(json.dumps({"names": RANKS}))
    assert 0 < read_weight(f) < 1
    f.write_text(json.dumps({"names": RANKS, "weight": 0.8}))
    assert read_weight(f) == 0.8


def test_numeral_crops_come_beside_the_corner_crops_and_change_none_of_them(tmp_path):
    pytest.importorskip("tqdm")
    from datasets.generate import RANKS
    from datasets.generate import main as generate

    common = ["--seed", "5", "--n", "0", "--cls-scenes", "2", "--workers", "1", "--val-frac", "0.5"]
    assert generate(["--out", str(tmp_path / "a"), *common]) == 0
    assert generate(["--out", str(tmp_path / "b"), *common, "--crops", "both"]) == 0
    a = {f.relative_to(tmp_path / "a"): f.read_bytes() for f in (tmp_path / "a" / "cls").rglob("*.png")}
    b = {f.relative_to(tmp_path / "b"): f.read_bytes() for f in (tmp_path / "b" / "cls").rglob("*.png")}
    assert a and set(a) == set(b)
    cards = [k for k in a if k.parent.name != "other"]
    # the same corner crops, byte for byte, as with corner crops alone (the jitter is shared)
    assert all(a[k] == b[k] for k in cards)
    numerals = list((tmp_path / "b" / "index").rglob("*.png"))
    assert len(numerals) == len(cards)
    # each numeral crop is filed under the rank of the card whose corner crop it sits beside
    rank_of_crop = {k.name: k.parent.name[:-1] for k in cards}
    assert all(f.parent.name == rank_of_crop[f.name] and f.parent.name in RANKS for f in numerals)


def test_zoomed_out_numeral_crops_change_some_numerals_and_nothing_else(tmp_path):
    pytest.importorskip("tqdm")
    from datasets.generate import main as generate

    common = ["--seed", "5", "--n", "0", "--cls-scenes", "2", "--workers", "1", "--crops", "both"]
    assert generate(["--out", str(tmp_path / "a"), *common]) == 0
    assert generate(["--out", str(tmp_path / "z"), *common, "--index-zoom", "0"]) == 0
    assert generate(["--out", str(tmp_path / "b"), *common, "--index-zoom", "0.5"]) == 0

    def crops(d: str, part: str) -> dict:
        return {f.relative_to(tmp_path / d): f.read_bytes() for f in (tmp_path / d / part).rglob("*.png")}

    assert crops("a", "index") == crops("z", "index")  # zoom 0: as before, byte for byte
    assert crops("a", "cls") == crops("b", "cls")  # the corner crops never change
    a, b = crops("a", "index"), crops("b", "index")
    assert set(a) == set(b)
    changed = sum(a[k] != b[k] for k in a)
    assert 0.25 * len(a) < changed < 0.75 * len(a), (changed, len(a))


def test_zoom_out_reaches_the_loosest_box_asked_for_and_no_further():
    from datasets.generate import _zoom_out

    box = (100.0, 200.0, 140.0, 260.0)
    rng = np.random.default_rng(3)
    scales = {most: [(b[2] - b[0]) / 40 for b in (_zoom_out(rng, box, most) for _ in range(300))]
              for most in (1.7, 2.4)}
    for most, s in scales.items():
        assert 1.1 <= min(s) and max(s) <= most + 1e-9
    assert max(scales[1.7]) < 1.7 < max(scales[2.4])
    rng1, rng2 = np.random.default_rng(4), np.random.default_rng(4)
    assert _zoom_out(rng1, box) == _zoom_out(rng2, box, 1.7)  # the default: the shipped recipes' boxes


def test_generate_refuses_a_zoom_max_tighter_than_the_corner_box(tmp_path, capsys):
    pytest.importorskip("tqdm")
    from datasets.generate import main as generate

    with pytest.raises(SystemExit):
        generate(["--out", str(tmp_path), "--n", "0", "--cls-scenes", "1", "--zoom-max", "0.9"])
    assert "--zoom-max must be 1.1 or more" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_generate_refuses_restyle_options_without_restyle(tmp_path, capsys):
    pytest.importorskip("tqdm")
    from datasets.generate import main as generate

    with pytest.raises(SystemExit):
        generate(["--out", str(tmp_path), "--n", "0", "--cls-scenes", "1", "--recolor", "0.5", "--swap", "0.2"])
    err = capsys.readouterr().err
    assert "--swap 0.2, --recolor 0.5 act on restyled cards only" in err
    assert not any(tmp_path.iterdir())


COURT = [f"{r}{s}" for r in (10, 11, 12) for s in "bceo"]


def test_combine_suits_moves_a_court_card_to_the_suit_read_and_leaves_the_rest():
    from scorer.vision.model import combine_suits

    names = [*COURT, "5o", "other"]
    p = np.zeros((2, len(names)), np.float32)
    p[0, names.index("11o")], p[0, names.index("11c")], p[0, names.index("5o")], p[0, -1] = 0.48, 0.42, 0.05, 0.05
    p[1, names.index("5o")], p[1, -1] = 0.9, 0.1
    suits = np.array([[0.01, 0.95, 0.02, 0.02], [0.97, 0.01, 0.01, 0.01]], np.float32)
    assert np.array_equal(combine_suits(p, names, suits, list("bceo"), 0.0), p)
    out = combine_suits(p, names, suits, list("bceo"), 0.6)
    assert names[int(out[0].argmax())] == "11c"
    court = [names.index(n) for n in COURT]
    assert out[0, court].sum() == pytest.approx(0.9, abs=1e-5)  # the court cards' share is kept
    elevens = [names.index(f"11{s}") for s in "bceo"]
    assert out[0, elevens].sum() == pytest.approx(0.9, abs=1e-5)  # and the rank's
    # a sure rank keeps its rank when the reader reads another suit
    q = np.full((1, len(names)), 0.1 / (len(names) - 1), np.float32)
    q[0, names.index("12o")] = 0.9
    moved = combine_suits(q, names, suits[:1], list("bceo"), 0.7)
    assert names[int(moved[0].argmax())] == "12c"
    assert out[0, names.index("5o")] == pytest.approx(0.05) and out[0, -1] == pytest.approx(0.05)
    assert np.allclose(out[1], p[1])  # no court card read: the suit reader has no say
    assert np.allclose(out.sum(axis=1), 1.0, atol=1e-5)
