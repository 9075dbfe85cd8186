"""`datasets.procedural`: made-up Spanish decks, drawn at test time and read back by the renderer."""

from __future__ import annotations

import json

import numpy as np
from PIL import Image

from datasets.procedural import (
    ACE_SCALE,
    ACE_TILT,
    COURT_SCALE,
    FORMS,
    ORDER,
    PINTAS,
    ROUND_ACE_MAX,
    ROUND_COURT_MAX,
    SIZE,
    SS,
    _frame,
    deck_style,
    draw_face,
    main,
    pinta_breaks,
)
from datasets.render import CORNER_H, CORNER_W, MUS_CARDS, load_deck, render_scene


def _gaps(row: np.ndarray) -> int:
    """Runs of paper between ink along one row of a frame line."""
    ink = row < 128
    xs = np.where(ink)[0]
    run = ink[xs[0]:xs[-1] + 1]
    return int(np.count_nonzero(np.diff(run.astype(np.int8)) == -1))


def test_the_frame_breaks_once_per_pinta_at_the_top_and_the_bottom() -> None:
    for seed in range(6):
        style = deck_style(np.random.default_rng(seed))
        style["ink"], style["double"] = (0, 0, 0), False
        for suit, n in PINTAS.items():
            img = Image.new("RGB", (SIZE[0] * SS, SIZE[1] * SS), "white")
            _frame(img, style, suit)
            a = np.asarray(img.convert("L"))
            fy = round(style["frame"][1] * img.height)
            top = a[fy - 2:fy + 3].min(axis=0)
            bottom = a[img.height - fy - 2:img.height - fy + 3].min(axis=0)
            assert _gaps(top) == n and _gaps(bottom) == n, (seed, suit)


# the drawn deck's breaks, of the card's width (`python -m datasets.pintas layout`)
DRAWN_BREAKS = {"o": [], "c": [(0.359, 0.641)], "e": [(0.244, 0.413), (0.588, 0.756)],
                "b": [(0.197, 0.316), (0.441, 0.559), (0.684, 0.803)]}


def test_the_pintas_break_the_side_where_printed_decks_do() -> None:
    # a made-up deck's breaks at its middle settings are the drawn deck's; each deck's own
    # keep their order from the corner (bastos, then espadas, then copas), which a corner
    # crop sees: the first break of each suit stands apart from the others'
    style = {**deck_style(np.random.default_rng(0)), "frame": (0.07, 0.05), "gap": 1.0, "gap_spread": 1.0,
             "gap_shift": 0.0}
    for suit, want in DRAWN_BREAKS.items():
        got = pinta_breaks(style, suit, 1.0)
        assert np.allclose(got, want, atol=0.005) if want else got == [], (suit, got)
    for seed in range(100):
        style = deck_style(np.random.default_rng(seed))
        first = {suit: pinta_breaks(style, suit, 1.0)[0][0] for suit in "ceb"}
        assert style["frame"][0] < first["b"] < first["e"] - 0.02 < first["c"] - 0.04, (seed, first)
        for suit in "ceb":  # breaks apart, inside the side
            xs = [x for br in pinta_breaks(style, suit, 1.0) for x in br]
            assert xs == sorted(xs) and style["frame"][0] < xs[0] and xs[-1] < 1 - style["frame"][0]


def test_a_face_is_the_same_for_the_same_seed_and_differs_between_decks() -> None:
    faces = [draw_face(deck_style(np.random.default_rng(s)), "11c", np.random.default_rng(s)) for s in (4, 4, 5)]
    assert faces[0].size == SIZE and faces[0].mode == "RGB"
    assert np.array_equal(np.asarray(faces[0]), np.asarray(faces[1]))
    assert not np.array_equal(np.asarray(faces[0]), np.asarray(faces[2]))


def test_the_numeral_is_printed_in_the_corner_patch_and_nowhere_else_differs_by_rank() -> None:
    # the same deck and drawing seed for a 10 and an 11 of a suit: the figure is drawn the same,
    # only the numerals differ, and they lie in the two corner patches the crops are cut from
    style = deck_style(np.random.default_rng(8))
    ten, eleven = (np.asarray(draw_face(style, n, np.random.default_rng(1)), np.int16) for n in ("10e", "11e"))
    diff = np.abs(ten - eleven).max(axis=2) > 40
    ys, xs = np.nonzero(diff)
    assert len(ys) > 20
    w, h = SIZE
    in_top_left = (xs < CORNER_W * w) & (ys < CORNER_H * h)
    in_bottom_right = (xs >= (1 - CORNER_W) * w) & (ys >= (1 - CORNER_H) * h)
    assert (in_top_left | in_bottom_right).all()
    assert in_top_left.any() and in_bottom_right.any()


def test_the_command_writes_decks_the_renderer_draws(tmp_path, capsys) -> None:
    assert main(["--out", str(tmp_path), "--n", "1", "--seed", "3"]) == 0
    folder = tmp_path / "p000"
    meta = json.loads((folder / "deck.json").read_text())
    assert meta["format"] == "mus-deck/1" and meta["order"] == list(ORDER) and meta["procedural"]["deck"] == 0
    assert set(meta["procedural"]["forms"]) == set("oceb")
    assert sorted(p.stem for p in folder.glob("*.png")) == sorted(MUS_CARDS)
    deck = load_deck(str(folder))
    assert set(deck.faces) == set(MUS_CARDS)
    scene = render_scene(np.random.default_rng(2), size=(800, 600), deck=str(folder), decks=(str(folder),))
    assert len(scene.cards) >= 16 and all(c["card"] in MUS_CARDS for c in scene.cards if c["card"])
    assert "1 decks" in capsys.readouterr().out


def test_decks_drawn_at_once_are_the_decks_drawn_in_turn(tmp_path) -> None:
    """`--workers` draws several decks at once; each deck depends on its seed and number alone."""
    assert main(["--out", str(tmp_path / "one"), "--n", "2", "--seed", "3"]) == 0
    assert main(["--out", str(tmp_path / "two"), "--n", "2", "--seed", "3", "--workers", "2"]) == 0
    for deck in ("p000", "p001"):
        for name in ("1o", "12b", "deck.json"):
            f = name if name.endswith(".json") else f"{name}.png"
            assert (tmp_path / "one" / deck / f).read_bytes() == (tmp_path / "two" / deck / f).read_bytes()


def test_each_suit_has_four_pip_forms_drawn_alike_for_a_seed() -> None:
    forms = {tuple(sorted(deck_style(np.random.default_rng(s))["forms"].items())) for s in range(12)}
    assert all(0 <= f < FORMS for fs in forms for _, f in fs) and len(forms) > 6
    for name in ("1o", "3c", "4e", "5b"):
        faces = []
        for form in range(FORMS):
            style = deck_style(np.random.default_rng(3))
            style["forms"] = dict.fromkeys("oceb", form)
            a, b = (np.asarray(draw_face(style, name, np.random.default_rng(1)), np.int16) for _ in range(2))
            assert np.array_equal(a, b), (name, form)
            faces.append(a)
        # each form draws another pip: the faces differ well beyond the paper's grain
        for i in range(FORMS):
            for j in range(i + 1, FORMS):
                assert np.abs(faces[i] - faces[j]).mean() > 1.0, (name, i, j)


def test_a_big_tilted_ace_reaches_the_corner_patch_and_a_deck_draws_its_ace_size_once() -> None:
    """A deck's aces of espadas and bastos may span the card as Fournier's do, the hilt or the
    club's head in the corner patch the classifier's crop is cut from."""
    style = deck_style(np.random.default_rng(3))
    assert ACE_SCALE[0] <= style["ace"]["scale"] <= ACE_SCALE[1] and abs(style["ace"]["tilt"]) <= ACE_TILT
    w, h = SIZE
    for suit in "eb":
        # drawn twice from one seed, the pip tiny and big: only the pip's pixels differ
        faces = [np.asarray(draw_face({**style, "ace": {"scale": scale, "tilt": 40.0}}, f"1{suit}",
                                      np.random.default_rng(1)), np.int16) for scale in (0.05, ACE_SCALE[1])]
        pip = np.abs(faces[0] - faces[1]).max(axis=2) > 40
        ys, xs = np.nonzero(pip)
        in_corner = (xs < CORNER_W * w) & (ys < CORNER_H * h)
        assert in_corner.sum() > 0.02 * CORNER_W * w * CORNER_H * h, suit
        # tilted 40 degrees, it spans more than half the card's width
        assert xs.max() - xs.min() > 0.5 * w, suit
    # a coin's ace grows no further than ROUND_ACE_MAX
    coins = [np.asarray(draw_face({**style, "ace": {"scale": s, "tilt": 0.0}}, "1o", np.random.default_rng(1)))
             for s in (ROUND_ACE_MAX, ACE_SCALE[1])]
    assert np.array_equal(coins[0], coins[1])


def test_a_deck_draws_its_court_figures_suit_sign_at_its_own_size() -> None:
    style = deck_style(np.random.default_rng(3))
    assert COURT_SCALE[0] <= style["court"] <= COURT_SCALE[1]

    def sign(name: str, grow: float) -> int:
        """Pixels of the figure's suit sign at `grow`, against the same face with a tiny one."""
        a, b = (np.asarray(draw_face({**style, "court": g}, name, np.random.default_rng(2)), np.int16)
                for g in (0.05, grow))
        return int((np.abs(a - b).max(axis=2) > 40).sum())

    for suit in "eb":  # a sword or club twice as long covers about four times the pixels
        assert sign(f"10{suit}", 2 * COURT_SCALE[0]) > 2.5 * sign(f"10{suit}", COURT_SCALE[0]), suit
    assert sign("12o", ROUND_COURT_MAX) == sign("12o", COURT_SCALE[1])  # a coin grows no further
