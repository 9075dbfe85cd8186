"""Hands as the renderer lays them (`datasets.render`): tight fans show a quarter to a
third of each card, and asking for none leaves the scenes exactly as before."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = pytest.mark.train

pytest.importorskip("cv2")

from datasets.render import TIGHT_SPREAD, _hand_items, _rot, render_scene  # noqa: E402

HAND = ["1o", "4c", "7e", "12b"]


def _spreads(seed: int, tight: bool) -> list[float]:
    """The gaps between neighbouring cards along the hand, over a card's width."""
    ch, aspect, pos = 200.0, 0.64, int(seed % 4)
    items = _hand_items(np.random.default_rng(seed), HAND, pos, np.array([500.0, 500.0]), ch, aspect, tight)
    back = _rot(pos * math.pi / 2).T  # into the hand's own axes (roughly: its base angle wobbles)
    along = [float((back @ (it.center - items[0].center))[0]) for it in items]
    return [abs(b - a) / (ch * aspect) for a, b in zip(along, along[1:], strict=False)]


def test_tight_hands_leave_a_quarter_to_a_third_of_each_card_showing() -> None:
    lo, hi = TIGHT_SPREAD
    tight = [s for seed in range(60) for s in _spreads(seed, True)]
    loose = [s for seed in range(60) for s in _spreads(seed, False)]
    # jitter and the fan's tilt blur single gaps, not their middle
    assert lo < np.median(tight) < hi
    assert np.percentile(tight, 90) < hi + 0.1
    assert np.median(loose) > hi  # the usual hands are mostly wider


def test_no_tight_hands_draw_the_scene_as_before_and_some_change_it() -> None:
    def scene(**kw):
        return render_scene(np.random.default_rng(23), size=(480, 360), deck="naipes-libres", effects=False, **kw)

    base, again, tight = scene(), scene(tight=0.0), scene(tight=1.0)
    assert np.array_equal(np.asarray(base.image), np.asarray(again.image))
    assert tight.hands == base.hands
    assert not np.array_equal(np.asarray(base.image), np.asarray(tight.image))


def test_a_retake_is_another_photo_of_the_same_table() -> None:
    def scene(**kw):
        return render_scene(np.random.default_rng(5), size=(480, 360), deck="naipes-libres", bottom=2, **kw)

    base, again, retake, other = scene(), scene(retake=None), scene(retake=1), scene(retake=2)
    assert np.array_equal(np.asarray(base.image), np.asarray(again.image))  # None: the stream as before
    assert retake.hands == base.hands == other.hands and retake.bottom == base.bottom
    seats = {c["card"]: c["seat"] for c in base.cards}
    assert {c["card"]: c["seat"] for c in retake.cards if c["card"] in seats} == {
        c["card"]: seats[c["card"]] for c in retake.cards if c["card"] in seats}
    assert not np.array_equal(np.asarray(base.image), np.asarray(retake.image))
    assert not np.array_equal(np.asarray(retake.image), np.asarray(other.image))
    assert np.array_equal(np.asarray(retake.image), np.asarray(scene(retake=1).image))  # deterministic
