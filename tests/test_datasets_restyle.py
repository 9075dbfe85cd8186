"""Numeral restyling of card faces (`datasets.restyle`): the numerals are found, only
they change, the same seed gives the same face, and a scene without restyling is
rendered exactly as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

pytestmark = pytest.mark.train

pytest.importorskip("cv2")

from datasets.render import DECKS, MUS_CARDS, load_deck, render_scene  # noqa: E402
from datasets.restyle import fonts, numeral_box, readable, recoloured, restyled_face, signature  # noqa: E402
from datasets.typefaces import distinct, subset  # noqa: E402


def test_fonts_with_digits_are_found():
    assert len(fonts()) >= 5
    assert len({f.rsplit("/", 1)[-1] for f in fonts()}) == len(fonts())


def test_fonts_whose_digits_are_blank_or_all_alike_are_not_readable():
    sigs = np.stack([signature(f) for f in fonts()[:6]])
    blank = np.zeros_like(sigs[0])
    boxes = np.repeat(sigs[0][:1], 10, axis=0)  # one shape for all ten digits: a boxed key, tofu
    assert readable(sigs).all()
    assert readable(np.concatenate([sigs, blank[None], boxes[None]])).tolist() == [True] * 6 + [False, False]


def _hinted_font() -> str:
    """DejaVu Sans Bold as matplotlib ships it: TrueType with hinting, the only kind of
    font a bare CI machine has."""
    import matplotlib

    return str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans-Bold.ttf")


@pytest.mark.parametrize("pick", ["first found", "hinted"])
def test_typefaces_keep_one_of_fonts_that_draw_alike_and_cut_them_to_the_digits(tmp_path, pick):
    font = fonts()[0] if pick == "first found" else _hinted_font()
    assert distinct([font, font]) == [font]
    cut = subset(font, tmp_path)
    assert cut.stat().st_size < Path(font).stat().st_size
    # the cut font draws the same digits: without the hinting it drops they are rasterised
    # a little differently (DejaVu's by 0.015, STIX's by up to 0.033), but each digit is
    # nearest its own and `distinct` takes the two for one typeface
    was, now = signature(font), signature(str(cut))
    nearest = np.abs(now[:, None, :] - was[None, :, :]).mean(axis=2).argmin(axis=1)
    assert nearest.tolist() == list(range(10))
    assert distinct([font, str(cut)]) == [font]


@pytest.mark.parametrize("deck", DECKS)
def test_numerals_are_found_on_most_faces_and_sit_in_the_index_corner(deck):
    found = 0
    for name in MUS_CARDS:
        face = load_deck(deck).faces[name]
        w, h = face.size
        for flipped in (False, True):
            box = numeral_box(deck, name, flipped)
            if box is None:
                continue
            found += 1
            x0, y0, x1, y1 = box
            assert 0 < x0 < x1 < 0.3 * w and 0 < y0 < y1 < 0.18 * h, (name, flipped, box)
            # a numeral is a few percent of the card tall, and two digits are wider than one
            assert 0.025 * h <= y1 - y0 <= 0.1 * h, (name, box)
    assert found >= 0.85 * 2 * len(MUS_CARDS)


def test_two_digit_numerals_are_found_whole():
    for deck in DECKS:
        w = load_deck(deck).faces["1o"].width
        ones = [numeral_box(deck, f"1{s}", False) for s in "oceb"]
        twelves = [numeral_box(deck, f"12{s}", False) for s in "oceb"]
        one = np.median([b[2] - b[0] for b in ones if b])
        twelve = np.median([b[2] - b[0] for b in twelves if b])
        assert twelve > 1.8 * one and twelve < 0.2 * w, (deck, one, twelve)


@pytest.mark.parametrize("deck", DECKS)
def test_restyling_changes_the_numerals_only(deck):
    name = "7c"
    plain = np.asarray(load_deck(deck).faces[name], np.int16)
    styled = np.asarray(restyled_face(deck, name, np.random.default_rng(5)), np.int16)
    assert styled.shape == plain.shape
    changed = np.abs(styled - plain).max(axis=2) > 0
    h, w = changed.shape
    top = numeral_box(deck, name, False)
    bottom = numeral_box(deck, name, True)
    assert top and bottom
    allowed = np.zeros_like(changed)
    pad = 0.03 * h  # the new numeral may stand a little larger or off its old place
    allowed[max(0, int(top[1] - pad)) : int(top[3] + 2 * pad), max(0, int(top[0] - pad)) : int(top[2] + 3 * pad)] = True
    bx0, by0, bx1, by1 = w - bottom[2], h - bottom[3], w - bottom[0], h - bottom[1]
    allowed[max(0, int(by0 - 2 * pad)) : int(by1 + pad), max(0, int(bx0 - 3 * pad)) : int(bx1 + pad)] = True
    assert changed.any()
    assert not (changed & ~allowed).any()
    # both ends changed
    assert changed[: h // 2].any() and changed[h // 2 :].any()


def test_restyling_is_deterministic_by_seed():
    a = restyled_face("naipes-libres", "12e", np.random.default_rng(9))
    b = restyled_face("naipes-libres", "12e", np.random.default_rng(9))
    c = restyled_face("naipes-libres", "12e", np.random.default_rng(10))
    assert np.array_equal(np.asarray(a), np.asarray(b))
    assert not np.array_equal(np.asarray(a), np.asarray(c))


def test_scene_without_restyle_is_unchanged_and_with_it_differs():
    def scene(**kw) -> Image.Image:
        return render_scene(np.random.default_rng(21), size=(480, 360), deck="naipes-libres", effects=False, **kw)

    base = scene()
    again = scene(restyle=0.0)
    styled = scene(restyle=1.0)
    assert np.array_equal(np.asarray(base.image), np.asarray(again.image))
    assert styled.hands == base.hands
    assert not np.array_equal(np.asarray(base.image), np.asarray(styled.image))


def _numeral_ink(face: Image.Image, deck: str, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The mean colour of the darkest tenth of the top-left numeral box, and of its paper."""
    x0, y0, x1, y1 = numeral_box(deck, name, False)
    a = np.asarray(face.convert("RGB"), np.float32)[y0 - 2 : y1 + 2, x0 - 2 : x1 + 6].reshape(-1, 3)
    lum = a @ np.array([0.299, 0.587, 0.114], np.float32)
    return a[lum <= np.percentile(lum, 10)].mean(0), a[lum >= np.percentile(lum, 80)].mean(0)


def test_a_faded_face_has_light_ink_and_yellowed_paper_and_is_the_same_for_the_same_seeds():
    deck, name = "naipes-libres", "7c"
    dark, paper = _numeral_ink(restyled_face(deck, name, np.random.default_rng(3)), deck, name)
    lums, yellow = [], []
    for k in range(12):
        face = restyled_face(deck, name, np.random.default_rng(3), np.random.default_rng([k, 2]))
        ink, faded_paper = _numeral_ink(face, deck, name)
        lums.append(float(ink @ np.array([0.299, 0.587, 0.114])))
        yellow.append(faded_paper[0] - faded_paper[2])  # red over blue: yellowed
    assert dark @ np.array([0.299, 0.587, 0.114]) < 60  # the deck's own ink is dark
    assert np.median(lums) > 70, lums  # a faded ink is light
    assert min(yellow) > paper[0] - paper[2] + 5, (yellow, paper)
    again = restyled_face(deck, name, np.random.default_rng(3), np.random.default_rng([0, 2]))
    first = restyled_face(deck, name, np.random.default_rng(3), np.random.default_rng([0, 2]))
    assert np.array_equal(np.asarray(again), np.asarray(first))


def _restyled_scene(**kw):
    """A small scene of the drawn deck, every card restyled, with the given options."""
    return render_scene(np.random.default_rng(21), size=(480, 360), deck="naipes-libres", effects=False,
                        restyle=1.0, **kw)


def test_scene_without_fade_is_unchanged_and_with_it_differs():
    base, again, faded = (_restyled_scene(**kw).image for kw in ({}, {"fade": 0.0}, {"fade": 1.0}))
    assert np.array_equal(np.asarray(base), np.asarray(again))
    assert not np.array_equal(np.asarray(base), np.asarray(faded))


def test_a_swapped_face_keeps_the_other_cards_art_and_takes_the_given_numerals():
    deck, art = "naipes-libres", "7c"
    plain = np.asarray(load_deck(deck).faces[art], np.int16)
    own = np.asarray(restyled_face(deck, art, np.random.default_rng(5)), np.int16)
    swapped = np.asarray(restyled_face(deck, art, np.random.default_rng(5), text="11"), np.int16)
    h, w = plain.shape[:2]
    far = np.ones((h, w), bool)  # away from both index corners: the art, untouched
    far[: int(0.25 * h), : int(0.4 * w)] = False
    far[int(0.75 * h) :, int(0.6 * w) :] = False
    assert np.array_equal(swapped[far], plain[far])
    changed = np.abs(swapped - own).max(axis=2) > 0
    assert changed[: h // 2].any() and changed[h // 2 :].any()  # "11", not "7", at both ends
    assert not changed[far].any()


def test_scene_without_swap_is_unchanged_and_with_it_keeps_its_labels():
    base, again, swapped = _restyled_scene(), _restyled_scene(swap=0.0), _restyled_scene(swap=1.0)
    assert np.array_equal(np.asarray(base.image), np.asarray(again.image))
    assert not np.array_equal(np.asarray(base.image), np.asarray(swapped.image))
    assert swapped.hands == base.hands
    assert [c["card"] for c in swapped.cards] == [c["card"] for c in base.cards]


def test_art_swap_takes_another_rank_and_for_corner_crops_the_same_suit():
    from datasets.render import Item, _art_swap

    item = Item("card", np.zeros(2), 0.0, 100.0, name="7c", deck="naipes-libres")
    anysuit = [_art_swap(np.random.default_rng(k), item, 1.0) for k in range(40)]
    samesuit = [_art_swap(np.random.default_rng(k), item, 1.0, same_suit=True) for k in range(40)]
    assert all(a and a[:-1] != "7" for a in anysuit + samesuit)
    assert len({a[-1] for a in anysuit}) > 1  # the rank reader's crops: any suit's art
    assert {a[-1] for a in samesuit} == {"c"}  # the classifier's: the suit label must hold
    assert len(set(samesuit)) > 3
    assert _art_swap(np.random.default_rng(0), item, 0.0) is None


def test_recolouring_turns_the_arts_hues_and_leaves_the_paper_and_the_shape():
    import cv2

    face = load_deck("naipes-libres").faces["5b"].convert("RGBA")  # green clubs
    a = np.asarray(face)
    turned = np.asarray(recoloured(face, 0.5))
    assert turned.shape == a.shape and np.array_equal(turned[..., 3], a[..., 3])
    hsv, hsv2 = (cv2.cvtColor(np.ascontiguousarray(x[..., :3]), cv2.COLOR_RGB2HSV_FULL) for x in (a, turned))
    inked = hsv[..., 1] > 120  # the art's saturated inks
    assert inked.mean() > 0.01
    shift = (hsv2[..., 0].astype(int) - hsv[..., 0].astype(int)) % 256
    assert np.median(shift[inked]) in range(120, 137)  # half the circle: green to magenta
    grey = hsv[..., 1] < 20  # paper and black lines: barely changed
    assert np.abs(turned[..., :3].astype(int) - a[..., :3].astype(int))[grey].max() <= 12
    assert np.abs(np.asarray(recoloured(face, 0.0)).astype(int) - a.astype(int)).max() <= 8  # HSV round trip


def test_scene_without_recolor_is_unchanged_and_with_it_keeps_its_labels():
    base, again, turned = _restyled_scene(), _restyled_scene(recolor=0.0), _restyled_scene(recolor=1.0)
    assert np.array_equal(np.asarray(base.image), np.asarray(again.image))
    assert not np.array_equal(np.asarray(base.image), np.asarray(turned.image))
    assert [c["card"] for c in turned.cards] == [c["card"] for c in base.cards]
    assert [c["corners"] for c in turned.cards] == [c["corners"] for c in base.cards]  # the same boxes
