"""`datasets.enroll`: a deck's 40 faces cut out of photos of its cards laid out, and drawn
again by the renderer. The photos are rendered at test time (`render_scene(kind="layout")`)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from PIL import Image

pytest.importorskip("cv2", reason="datasets.enroll needs OpenCV, which the train extra brings")

from datasets.enroll import (  # noqa: E402
    ORDER,
    EnrollError,
    edge_contrast,
    enroll,
    find_cards,
    fit_sides,
    in_rows,
    main,
    order_corners,
)
from datasets.render import MUS_RANKS, SUITS, layout_photos, load_deck, render_scene  # noqa: E402
from scorer.vision.model import Models  # noqa: E402


def _layout(tmp_path, decks: str = "naipes-libres", per_photo: int = 10, seed: int = 1) -> list:
    photos = []
    for k, image in zip(range(0, len(ORDER), per_photo), layout_photos(seed, decks, per_photo=per_photo), strict=True):
        path = tmp_path / f"p{k:02d}.jpg"
        image.save(path, quality=92)
        photos.append(path)
    return photos


def test_a_layout_photo_lays_its_cards_apart_in_reading_order() -> None:
    names = [f"{r}c" for r in MUS_RANKS]
    scene = render_scene(np.random.default_rng(3), kind="layout", size=(1600, 1200), hands=[names],
                         deck="fournier-1878")
    assert [c["card"] for c in scene.cards] == names and scene.hands is None and not scene.distractors
    assert all(c["visible"] > 0.95 for c in scene.cards)  # none overlaps another
    centres = np.array([np.mean(c["quad"], axis=0) for c in scene.cards])
    assert (np.diff(centres[:5, 0]) > 0).all() and (centres[5:, 1] > centres[:5, 1].max()).all()


def test_corners_are_ordered_clockwise_from_the_top_left() -> None:
    quad = np.array([[10.0, 90.0], [60.0, 10.0], [0.0, 0.0], [70.0, 100.0]])
    assert order_corners(quad).tolist() == [[0, 0], [60, 10], [70, 100], [10, 90]]


def test_cards_are_taken_in_rows_top_to_bottom_each_left_to_right() -> None:
    grid = [(r, c) for r in range(4) for c in range(10)]
    quads = []
    for r, c in grid:
        x, y = 100 * c + random.Random(r * 10 + c).uniform(-10, 10), 160 * r + 8 * c  # rows sag to the right
        quads.append(np.array([[x, y], [x + 64, y], [x + 64, y + 100], [x, y + 100]], float))
    shuffled = list(zip(grid, quads, strict=True))
    random.Random(5).shuffle(shuffled)
    ordered = in_rows([q for _, q in shuffled])
    back = {id(q): g for g, q in shuffled}
    assert [back[id(q)] for q in ordered] == grid


def _rounded_rect_contour(w: float, h: float, r: float, step: float = 0.5) -> np.ndarray:
    """Points round a w x h rectangle at the origin with corners rounded to radius r."""
    pts = []
    for (cx, cy), a0 in (((w - r, r), -90), ((w - r, h - r), 0), ((r, h - r), 90), ((r, r), 180)):
        pts += [(cx + r * np.cos(np.radians(a)), cy + r * np.sin(np.radians(a))) for a in np.arange(a0, a0 + 90, 5)]
    out = []
    for a, b in zip(pts, pts[1:] + pts[:1], strict=True):
        n = max(1, int(np.hypot(b[0] - a[0], b[1] - a[1]) / step))
        out += [(a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n) for k in range(n)]
    return np.array(out)


def test_an_outline_is_fitted_to_the_cards_straight_sides_not_its_rounded_corners_or_a_bump() -> None:
    contour = _rounded_rect_contour(120.0, 190.0, 9.0) + [30.0, 20.0]
    bump = (contour[:, 1] < 21) & (contour[:, 0] > 100) & (contour[:, 0] < 110)
    contour[bump, 1] -= 12  # a bit of the table's pattern taken in along the top
    cut = np.array([[33.0, 10.0], [150.0, 21.0], [147.0, 207.0], [32.0, 209.0]])  # corners where the hull cut them
    fitted = fit_sides(contour, order_corners(cut))
    truth = np.array([[30.0, 20.0], [150.0, 20.0], [150.0, 210.0], [30.0, 210.0]])
    assert np.abs(fitted - truth).max() < 0.6
    assert np.abs(cut - truth).max() > 8


def test_the_outline_kept_is_the_one_along_the_cards_edge() -> None:
    img = np.full((200, 160, 3), (30, 90, 40), np.uint8)  # felt
    img[20:180, 30:130] = (235, 228, 205)  # the card
    img[170:172, 40:120] = (60, 40, 30)  # its frame line near the bottom
    edge = np.array([[30.0, 20.0], [129.0, 20.0], [129.0, 179.0], [30.0, 179.0]])
    short = edge.copy()
    short[2:, 1] = 170.5  # bottom side on the frame line
    wide = edge + [[-8, -8], [8, -8], [8, 8], [-8, 8]]  # on the felt
    assert edge_contrast(img, edge) > 3 * max(edge_contrast(img, short), edge_contrast(img, wide))


@pytest.mark.parametrize("deck", ["fournier-1878", "naipes-libres"])
def test_cards_laid_out_are_outlined_to_their_corners(deck: str) -> None:
    scene = render_scene(np.random.default_rng([9700, 4]), kind="layout", size=(1600, 1200),
                         hands=[list(ORDER[:10])], deck=deck)
    found = find_cards(Models(), scene.image)
    assert len(found) == 10
    for t, q in zip(scene.cards, found, strict=True):  # both in reading order
        tq = order_corners(np.array(t["quad"]))
        height = float(np.linalg.norm(tq[3] - tq[0]))
        # within 2.5% of the card's height at every corner (the cut before the twentieth
        # session was 2% in on most cards, and up to 15% off on a patterned table)
        assert np.linalg.norm(order_corners(q) - tq, axis=1).max() < 0.025 * height, t["card"]


def test_a_deck_photographed_laid_out_is_cut_into_40_upright_faces_the_renderer_draws(tmp_path) -> None:
    report = enroll(_layout(tmp_path), tmp_path / "deck", Models())
    assert report["format"] == "mus-deck/1" and list(report["cards"]) == list(ORDER)
    assert report["agree"] >= 36  # the shipped readers know this deck: the faces are whole and upright
    face = Image.open(tmp_path / "deck" / "12b.png")
    assert face.height == 520 and 0.55 <= face.width / face.height <= 0.75
    assert (tmp_path / "deck" / "sheet.jpg").is_file()
    assert json.loads((tmp_path / "deck" / "deck.json").read_text())["agree"] == report["agree"]
    deck = load_deck(str(tmp_path / "deck"))
    assert sorted(deck.faces) == sorted(ORDER) and deck.back.size == face.size
    scene = render_scene(np.random.default_rng(7), size=(1600, 1200), deck=str(tmp_path / "deck"),
                         decks=(str(tmp_path / "deck"),))
    assert len([c for c in scene.cards if c["seat"] is not None]) == 16
    assert {c["deck"] for c in scene.cards} == {str(tmp_path / "deck")}


def test_photos_that_do_not_hold_a_deck_are_refused_naming_what_was_found(tmp_path, capsys) -> None:
    photos = _layout(tmp_path)
    with pytest.raises(EnrollError, match=r"found 30 cards \(.*p00.jpg: 10, .*\); a Mus deck has 40"):
        enroll(photos[:3], tmp_path / "deck", Models())
    assert not (tmp_path / "deck").exists()  # nothing half written
    with pytest.raises(EnrollError, match=r"no-back.jpg: "):
        enroll(photos, tmp_path / "deck", Models(), back=tmp_path / "no-back.jpg")
    assert not (tmp_path / "deck").exists()  # a bad back photo leaves no half deck either
    photos = photos[:3]
    (tmp_path / "bad.jpg").write_bytes(b"\xff\xd8\xff\xe0 not a photo")
    assert main([*map(str, photos), str(tmp_path / "bad.jpg"), "--out", str(tmp_path / "deck")]) == 2
    assert "bad.jpg: not a readable JPEG image (damaged or truncated)" in capsys.readouterr().err


def test_a_deck_laid_out_of_order_is_written_but_warned_about(tmp_path, capsys) -> None:
    photos = _layout(tmp_path)
    rc = main([*map(str, reversed(photos)), "--out", str(tmp_path / "deck")])  # bastos first
    assert rc == 0
    err = capsys.readouterr().err
    assert "warning: only" in err and "were the cards laid oros, copas, espadas, bastos" in err
    assert len(ORDER) == 4 * len(MUS_RANKS) and ORDER[:2] == ("1o", "2o") and SUITS[-1] == "b"


@pytest.mark.train
def test_adapt_tunes_the_rank_reader_on_showdowns_of_an_enrolled_deck_and_measures_it(tmp_path) -> None:
    pytest.importorskip("ultralytics")
    from datasets.adapt import main as adapt

    enroll(_layout(tmp_path, "fournier-1878"), tmp_path / "deck", Models())
    out = tmp_path / "club"
    assert adapt(["--deck", str(tmp_path / "deck"), "--out", str(out), "--time", "0.001", "--deck-scenes", "3",
                  "--deck-check", "1", "--replay-scenes", "0", "--readers", "index"]) == 0
    report = json.loads((out / "ADAPTED.json").read_text())
    assert report["photos"] == {"adapt": 0, "check": 0} and report["deck"]["scenes"] == 3
    assert report["readers"]["index"]["deck"] > 20 and report["readers"]["index"]["harvested"] == 0
    assert report["check"]["showdowns of the deck"] == 1 and report["verdict"] in ("better", "same", "worse")
    assert report["check"]["after"]["photos"] == 1 and 0 <= report["check"]["after"]["seated"] <= 16
    shipped = Models().model_dir
    assert (out / "cards-index.onnx").read_bytes() != (shipped / "cards-index.onnx").read_bytes()
    assert (out / "cards-cls.onnx").read_bytes() == (shipped / "cards-cls.onnx").read_bytes()
