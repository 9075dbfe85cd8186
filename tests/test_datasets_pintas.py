"""datasets.pintas: the frame line's slope fitted as a line (`fit_line`, `runtime_strip`'s `fit`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from datasets import pintas
from datasets.render import CARD_ASPECT

cv2 = pytest.importorskip("cv2", reason="datasets.pintas samples its strips with OpenCV, which the train extra brings")

CORNER = (200.0, 150.0, 265.0, 225.0)


def photo(deg: float, breaks: tuple[tuple[float, float], ...] = ()) -> np.ndarray:
    """A grey photo: paper, and a card's frame line (v = 0.05 of its height, u = 0.1..0.9,
    broken over `breaks`) one pixel thick, sloping by `deg`, from the corner `_placed`
    gives CORNER at that slope."""
    origin, width = pintas._placed(CORNER, deg)
    height = width / CARD_ASPECT
    th = math.radians(deg)
    e_u, e_v = np.array([math.cos(th), math.sin(th)]), np.array([-math.sin(th), math.cos(th)])
    img = np.full((600, 700), 235, np.uint8)
    edges = [0.1, *[x for b in breaks for x in b], 0.9]
    for u0, u1 in zip(edges[::2], edges[1::2], strict=True):
        a = origin + u0 * width * e_u + 0.05 * height * e_v
        b = origin + u1 * width * e_u + 0.05 * height * e_v
        cv2.line(img, tuple(int(round(x * 16)) for x in a), tuple(int(round(x * 16)) for x in b), 60, 1,
                 cv2.LINE_AA, 4)
    return img.astype(np.float32)


@pytest.mark.parametrize("true, start", [(7.3, 5.0), (7.3, 9.0), (-12.6, -11.0), (0.4, -1.0)])
def test_the_fitted_slope_is_the_lines(true: float, start: float) -> None:
    """From a start two degrees off, the fitted slope is the drawn line's to a fifth of a
    degree (the coarse searches step by one and two degrees)."""
    got = pintas.fit_line(photo(true, ((0.24, 0.41), (0.59, 0.76))), CORNER, start, 0.9)
    assert abs(got - true) < 0.2, (true, start, got)


def test_runtime_strip_with_fit_finds_the_slope_outside_the_plain_search() -> None:
    """A side sloping by 23 degrees, past the plain search's 16: the plain search ends at its
    edge, the fitted one finds it, and the fitted strip shows the line along one row."""
    img = photo(23.0, ((0.36, 0.64),))
    _, _, plain = pintas.runtime_strip(img, CORNER, [], None, 0)
    strip, extent, fitted = pintas.runtime_strip(img, CORNER, [], None, 0, fit=True)
    assert abs(plain - 23.0) > 5 and abs(fitted - 23.0) < 0.3, (plain, fitted)
    got = pintas.read_line(strip, extent)
    assert got is not None
    present = got[0]
    u = (np.arange(len(present)) + 0.5) / len(present)
    assert present[(u > 0.15) & (u < 0.32)].all() and not present[(u > 0.42) & (u < 0.58)].any()
