"""Cards into seats and hands, corners into cards, warnings: synthetic boxes only."""

from __future__ import annotations

import pytest

from scorer.vision.layout import (
    LOW_CONFIDENCE,
    Card,
    Read,
    assign_seats,
    group_cards,
    layout,
    maybe_names,
    owner,
    recover_lost,
    unique_names,
)

W, H = 4000, 3000
CW, CH = 260, 400  # a card standing


def _table(skip: tuple[int, ...] = (), jitter: float = 0.0) -> tuple[list[tuple], list[int]]:
    """16 card boxes fanned at the four edges; with the table edge (0 bottom, 1 right,
    2 top, 3 left) of each, cards in each hand listed left to right as its player sees."""
    boxes, edges = [], []
    step = CW * 0.45
    for k in range(4):
        off = (k - 1.5) * step + jitter * ((k * 37) % 11 - 5)
        hands = {
            0: (W / 2 + off, H - 300, False),
            1: (W - 350, H / 2 - off, True),
            2: (W / 2 - off, 300, False),
            3: (350, H / 2 + off, True),
        }
        for e, (cx, cy, sideways) in hands.items():
            if e in skip:
                continue
            w, h = (CH, CW) if sideways else (CW, CH)
            boxes.append((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))
            edges.append(e)
    return boxes, edges


@pytest.mark.parametrize("bottom", [0, 1, 2, 3])
def test_seats_counterclockwise_from_bottom(bottom: int) -> None:
    boxes, edges = _table()
    assert assign_seats(boxes, bottom) == [(bottom + e) % 4 for e in edges]


@pytest.mark.parametrize("bottom", [0, 1, 2, 3])
def test_hands_in_seat_order_left_to_right(bottom: int) -> None:
    boxes, edges = _table(jitter=8)
    names = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4)]
    order = list(range(16))
    # each hand i holds names[4e .. 4e+3] in its player's left-to-right order
    per_edge = {e: [] for e in range(4)}
    cards = []
    for i in order:
        e = edges[i]
        name = names[4 * e + len(per_edge[e])]
        per_edge[e].append(name)
        cards.append(Card(name, 0.95, boxes[i]))
    result = layout(cards[::-1], bottom)  # input order must not matter
    assert result["hands"] == [per_edge[(s - bottom) % 4] for s in range(4)]
    assert [c["seat"] for c in result["cards"]] == [s for s in range(4) for _ in range(4)]
    assert result["warnings"] == []


def test_landscape_and_portrait_photos_alike() -> None:
    boxes, edges = _table()
    # the same layout squeezed into a portrait frame
    portrait = [(b[0] * 0.6, b[1] * 1.4, b[2] * 0.6, b[3] * 1.4) for b in boxes]
    assert assign_seats(portrait, 0) == edges


def test_a_missing_hand_leaves_the_others_right() -> None:
    boxes, edges = _table(skip=(2,))
    assert assign_seats(boxes, 1) == [(1 + e) % 4 for e in edges]
    cards = [Card(f"{i % 10 + 1 if i % 10 < 7 else i % 10 + 3}{'oceb'[i // 10]}", 0.9, b)
             for i, b in enumerate(boxes)]
    result = layout(cards, 1)
    assert [len(h) for h in result["hands"]] == [4, 4, 4, 0]  # top is seat 1 + 2
    assert [w for w in result["warnings"] if w["code"] == "seat_count"] == [
        {"code": "seat_count", "message": "seat 3 has 0 cards, not 4", "seat": 3, "count": 0}
    ]


def test_single_card_has_no_hands() -> None:
    result = layout([Card("12o", 0.97, (100, 100, 400, 560))], 0)
    assert result["hands"] is None
    assert result["cards"] == [{"card": "12o", "conf": 0.97, "box": [100, 100, 400, 560], "seat": None}]
    assert result["warnings"] == []


def test_warnings_duplicate_low_confidence_not_mus() -> None:
    boxes, _ = _table()
    names = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4)]
    names[5] = names[0]  # misread
    cards = [Card(n, 0.9, b) for n, b in zip(names, boxes, strict=True)]
    cards[3] = Card(names[3], 0.4, boxes[3], ("5o",))
    cards.append(Card("8b", 0.95, (1900, 1400, 2160, 1800)))  # loose in the middle
    result = layout(cards, 0)
    codes = [w["code"] for w in result["warnings"]]
    assert codes.count("duplicate") == 1 and codes.count("low_confidence") == 1 and codes.count("not_mus_card") == 1
    assert "seat_count" not in codes  # the 8 is not in a hand
    eight = next(c for c in result["cards"] if c["card"] == "8b")
    assert eight["seat"] is None and "8b" not in sum(result["hands"], [])
    low = next(w for w in result["warnings"] if w["code"] == "low_confidence")
    assert "5o" in low["message"] and low["box"] == [round(v) for v in boxes[3]]
    assert low["others"] == ["5o"]
    assert all(isinstance(w["message"], str) and w["message"] for w in result["warnings"])


@pytest.mark.parametrize(("conf", "flagged"), [(0.65, True), (LOW_CONFIDENCE - 1e-3, True), (LOW_CONFIDENCE, False), (0.9, False)])
def test_reads_under_the_warning_line_are_flagged(conf: float, flagged: bool) -> None:
    # 0.65 is flagged: on the check showdowns most wrong reads lay between 0.6 and 0.7
    boxes, _ = _table()
    names = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4)]
    cards = [Card(n, 0.95, b) for n, b in zip(names, boxes, strict=True)]
    cards[7] = Card(names[7], conf, boxes[7])
    low = [w for w in layout(cards, 0)["warnings"] if w["code"] == "low_confidence"]
    assert [w["card"] for w in low] == ([names[7]] if flagged else [])


def test_unsure_read_names_what_else_it_may_be() -> None:
    # the other corners' reads first, then the read's own next names; no 8s or 9s, no repeats
    card = Card("11c", 0.5, (0, 0, 10, 10), ("12c",), (("12c", 0.3), ("9c", 0.1), ("11o", 0.05), ("10c", 0.04)))
    assert maybe_names(card) == ["12c", "11o", "10c"]
    assert maybe_names(card, most=1) == ["12c"]
    assert maybe_names(Card("11c", 0.5, (0, 0, 10, 10))) == []


def test_owner_prefers_the_box_whose_corner_it_sits_in() -> None:
    under = (1000.0, 1000.0, 1120.0, 1400.0)  # visible strip of a card under another
    top = (1100.0, 1000.0, 1360.0, 1400.0)
    tl_under = (1000.0, 1000.0, 1110.0, 1120.0)
    tl_top = (1100.0, 1000.0, 1210.0, 1120.0)
    assert owner(tl_under, [under, top]) == 0
    assert owner(tl_top, [under, top]) == 1
    assert owner((10.0, 10.0, 50.0, 50.0), [under, top]) is None


def test_group_cards() -> None:
    card_a, card_b, card_c = (0.0, 0.0, 260.0, 400.0), (1000.0, 0.0, 1260.0, 400.0), (2000.0, 0.0, 2260.0, 400.0)
    reads = [
        Read((0, 0, 110, 120), "12o", 0.9),  # both corners of a: one card
        Read((150, 280, 260, 400), "12o", 0.8),
        Read((1000, 0, 1110, 120), "3c", 0.9),  # b read two ways: the stronger wins, less sure
        Read((1150, 280, 1260, 400), "2c", 0.3),
        Read((3000, 0, 3110, 120), "7e", 0.9),  # a corner with no card box
    ]
    cards, unread = group_cards(reads, [card_a, card_b, card_c])
    by_name = {c.name: c for c in cards}
    assert sorted(by_name) == ["12o", "3c", "7e"]
    assert by_name["12o"].box == card_a and by_name["12o"].conf == 0.9
    assert by_name["3c"].others == ("2c",) and by_name["3c"].conf < 0.9
    assert by_name["7e"].box == (3000, 0, 3110, 120)
    assert unread == [card_c]


def test_rendered_showdowns_grouped_and_seated_from_their_true_boxes() -> None:
    """Real layouts (fans, perspective, distractors) from `datasets.render`: the true
    card and corner boxes in, every card with a visible corner out, in its seat."""
    np = pytest.importorskip("numpy")
    render = pytest.importorskip("datasets.render")
    lost = wrong_seat = 0
    for seed in range(12):
        bottom = seed % 4
        scene = render.render_scene(np.random.default_rng(seed), kind="table", size=(800, 600), bottom=bottom,
                                    effects=False)
        reads = [Read(tuple(k["box"]), str(c["card"]), 0.9) for c in scene.cards for k in c["corners"] if k["labelled"]]
        cards, _ = group_cards(reads, [tuple(c["box"]) for c in scene.cards])
        want = {str(c["card"]): c["seat"] for c in scene.cards if any(k["labelled"] for k in c["corners"])}
        result = layout(cards, bottom)
        got = {c["card"]: c["seat"] for c in result["cards"]}
        lost += len(set(want) - set(got))
        wrong_seat += sum(got.get(n) != s for n, s in want.items() if n in got)
    assert lost <= 2 and wrong_seat <= 2, (lost, wrong_seat)


def test_a_neighbours_sure_corner_over_a_card_box_is_a_card_of_its_own() -> None:
    """Fans overlap: a box can hold its own index and a neighbour's. Both sure reads at
    the same end of the box are two cards, not one card read two ways."""
    card = (0.0, 0.0, 260.0, 400.0)
    own = Read((150, 280, 260, 400), "4b", 1.0)
    neighbour = Read((120, 250, 230, 370), "7o", 1.0)
    cards, _ = group_cards([neighbour, own], [card])
    assert sorted(c.name for c in cards) == ["4b", "7o"]
    # the same two names at opposite ends of the box: one card, its two indices disagree
    far = Read((0, 0, 110, 120), "7o", 0.95)
    cards, _ = group_cards([far, own], [card])
    assert [c.name for c in cards] == ["4b"] and cards[0].others == ("7o",)


def test_a_showdown_short_of_a_card_takes_a_sure_read_outvoted_in_its_box() -> None:
    """Two cards nearly one on the other share a box: one sure corner at each end. One
    card of two is counted (its read discounted for the disagreement), until the
    showdown turns out a card short."""
    boxes, edges = _table()
    b = boxes[0]
    under = Read((b[0], b[1], b[0] + 110, b[1] + 120), "4o", 0.995, (("4c", 0.003),))
    own = Read((b[2] - 110, b[3] - 120, b[2], b[3]), "3e", 0.999)
    one, _ = group_cards([own, under], [b])
    assert [c.name for c in one] == ["3e"] and one[0].others == ("4o",) and one[0].conf < LOW_CONFIDENCE
    # the bottom hand: the two cards in box 0, and two more; its fourth box is not there
    names = iter(["1o", "2o", "5o", "6o", "7o", "10o", "11o", "12o", "1c", "2c", "3c", "5c", "6c", "7c"])
    rest = [Card(next(names), 0.99, bx) for k, bx in enumerate(boxes) if k and k != 4]
    short = one + rest
    out = recover_lost(short, [own, under], boxes)
    assert out[-1] == Card("4o", 0.995, b, (), (("4c", 0.003),))
    assert out[0] == Card("3e", 0.999, b)
    result = layout(out, 0)
    assert not result["warnings"], result["warnings"]
    bottom = [c.name for c, k in zip(rest, [k for k in range(16) if k and k != 4], strict=True) if edges[k] == 0]
    assert sorted(result["hands"][0]) == sorted(["3e", "4o", *bottom])
    # not when the showdown has its 16, nor for a read under the line, a name taken or an 8
    full = short + [Card("7b", 0.99, boxes[4])]
    assert recover_lost(full, [own, under], boxes) == full
    assert recover_lost(short, [own, Read(under.box, "4o", 0.2)], boxes) == short
    assert recover_lost(short, [own, Read(under.box, "1o", 0.999)], boxes) == short
    assert recover_lost(short, [own, Read(under.box, "8o", 0.999)], boxes) == short
    # an 8 lying on the table is not one of the deal's 16: the showdown is still short
    eight = Card("8b", 0.99, boxes[4])
    assert recover_lost([*short, eight], [own, under], boxes)[-1].name == "4o"
    # a read over the line but under LOW_CONFIDENCE makes a card flagged for a person to confirm
    unsure = layout(recover_lost(short, [own, Read(under.box, "4o", 0.45)], boxes), 0)
    assert [w["card"] for w in unsure["warnings"] if w["code"] == "low_confidence"] == ["4o"]
    assert not [w for w in unsure["warnings"] if w["code"] == "seat_count"]


def test_unique_names_gives_the_less_sure_duplicate_its_next_name() -> None:
    a = Card("5c", 0.9, (0, 0, 10, 10), alts=(("4c", 0.05),))
    b = Card("5c", 0.6, (20, 0, 30, 10), alts=(("5o", 0.01), ("4c", 0.3), ("6c", 0.08)))
    c = Card("4c", 0.8, (40, 0, 50, 10))
    out = unique_names([a, b, c])
    assert [x.name for x in out] == ["5c", "6c", "4c"]  # 4c is taken, 5o too unlikely
    assert out[1].others == ("5c",) and out[1].conf == 0.08
    # no acceptable next name: the duplicate stays (and will be warned about)
    d = Card("5c", 0.5, (60, 0, 70, 10), alts=(("4c", 0.4),))
    assert [x.name for x in unique_names([a, d, c])] == ["5c", "5c", "4c"]


def test_a_duplicate_takes_the_name_read_at_its_other_corner() -> None:
    """A box whose two corners disagree keeps the other corner's name as its next one:
    when its winning name is better read elsewhere, it becomes that card."""
    card, other = (0.0, 0.0, 260.0, 400.0), (1000.0, 0.0, 1260.0, 400.0)
    reads = [
        Read((0, 0, 110, 120), "3e", 0.99, (("2e", 0.004),)),  # a neighbour's corner, misplaced
        Read((150, 280, 260, 400), "2e", 0.9, (("3e", 0.05),)),
        Read((1000, 0, 1110, 120), "3e", 1.0),
    ]
    cards, _ = group_cards(reads, [card, other])
    first = next(c for c in cards if c.box == card)
    assert first.name == "3e" and first.alts == (("2e", 0.9),)
    out = unique_names(cards)
    assert sorted(c.name for c in out) == ["2e", "3e"]
    assert next(c for c in out if c.box == card).conf == 0.9


def _photo(hands: list[list[str]], conf: dict[str, float] | None = None, missing: tuple[str, ...] = (),
           extra: dict[str, int] | None = None) -> dict:
    """A scan of one photo of a showdown: `hands` by seat, less `missing`, plus `extra`
    names in the seats given (a misread), every read 0.99 sure unless `conf` says."""
    conf = conf or {}
    cards = [(n, s) for s, hand in enumerate(hands) for n in hand if n not in missing] + list((extra or {}).items())
    return layout([Card(n, conf.get(n, 0.99), (s * 1000 + k * 100, 0, s * 1000 + k * 100 + 90, 140))
                   for k, (n, s) in enumerate(cards)], 0) | {
        "cards": [{"card": n, "conf": conf.get(n, 0.99), "box": [k, k, k + 9, k + 9], "seat": s}
                  for k, (n, s) in enumerate(cards)],
        "hands": [[n for n, s2 in cards if s2 == s] for s in range(4)]}


HANDS = [["1o", "2o", "3o", "4o"], ["1c", "2c", "3c", "4c"], ["1e", "2e", "3e", "4e"], ["1b", "2b", "3b", "4b"]]


def _warnings(scan: dict) -> list[dict]:
    from scorer.vision.layout import warnings_for

    seats = [c["seat"] for c in scan["cards"]]
    return warnings_for([Card(c["card"], c["conf"], tuple(c["box"])) for c in scan["cards"]], seats)


def test_a_second_photo_reads_the_card_the_first_missed() -> None:
    from scorer.vision.layout import combine

    first, second = _photo(HANDS, missing=("3e",)), _photo(HANDS, missing=("1o",))
    first["warnings"], second["warnings"] = _warnings(first), _warnings(second)
    assert [w["code"] for w in first["warnings"]] == ["seat_count"]
    both = combine([first, second])
    assert both["hands"] == HANDS and both["warnings"] == [] and both["photos"] == 2
    by = {c["card"]: c for c in both["cards"]}
    assert by["3e"]["photo"] == 1 and by["1o"]["photo"] == 0 and by["3e"]["seat"] == 2
    assert combine([first])["hands"][2] == ["1e", "2e", "4e"]  # one photo: as read


def test_each_card_keeps_its_surest_read_of_all_photos() -> None:
    from scorer.vision.layout import combine

    glare, clear = _photo(HANDS, conf={"2b": 0.55, "4o": 0.98}), _photo(HANDS, conf={"2b": 0.95, "4o": 0.9})
    both = combine([glare, clear])
    assert both["hands"] == HANDS and both["warnings"] == []
    by = {c["card"]: c for c in both["cards"]}
    assert (by["2b"]["conf"], by["2b"]["photo"]) == (0.95, 1) and (by["4o"]["conf"], by["4o"]["photo"]) == (0.98, 0)


def test_an_unsure_misread_that_crowds_a_seat_is_dropped_but_sure_ones_are_kept_and_flagged() -> None:
    from scorer.vision.layout import combine

    # photo 1 misreads 4b as 5b (unsure); photo 2 reads 4b; 5b would make seat 3 five cards
    wrong = _photo(HANDS, conf={"5b": 0.5}, missing=("4b",), extra={"5b": 3})
    both = combine([wrong, _photo(HANDS)])
    assert both["hands"] == HANDS  # 5b dropped; but a person confirms which of the two it was
    assert [(w["code"], w.get("cards")) for w in both["warnings"]] == [("photos_disagree", ["4b", "5b"])]
    # a sure misread is not the combiner's to drop: the seat is reported five cards long
    sure = combine([_photo(HANDS, missing=("4b",), extra={"5b": 3}), _photo(HANDS)])
    assert len(sure["hands"][3]) == 5
    assert [(w["code"], w.get("seat")) for w in sure["warnings"]] == [("seat_count", 3), ("photos_disagree", None)]


def test_combined_unsure_reads_keep_their_warning_and_photo() -> None:
    from scorer.vision.layout import combine

    a = _photo(HANDS, conf={"3c": 0.4})
    a["warnings"] = [{"code": "low_confidence", "card": "3c", "conf": 0.4, "others": ["3e"], "box": [0, 0, 1, 1],
                      "message": "3c (or 3e) read with confidence 0.40: please confirm"}]
    b = _photo(HANDS, conf={"3c": 0.6})
    both = combine([a, b])
    (w,) = both["warnings"]
    assert w["code"] == "low_confidence" and w["card"] == "3c" and w["conf"] == 0.6 and w["photo"] == 1


def test_photos_that_name_a_card_two_ways_say_so() -> None:
    from scorer.vision.layout import combine

    # the second photo reads 4b as 5b, sure: which is right is a person's to say
    both = combine([_photo(HANDS), _photo(HANDS, missing=("4b",), extra={"5b": 3})])
    (w, seat) = sorted(both["warnings"], key=lambda w: w["code"])
    # (the second photo alone would have reported seat 3 with four cards, all sure)
    assert w["code"] == "photos_disagree" and w["cards"] == ["4b", "5b"] and "4b, 5b" in w["message"]
    assert seat["code"] == "seat_count"
    # a card one photo missed is no disagreement
    assert combine([_photo(HANDS), _photo(HANDS, missing=("4b",))])["warnings"] == []


def _fan(spread: float, conf: dict[str, float]) -> list[Card]:
    """Seat 0's four cards fanned `spread` of a card's width apart at the bottom edge; the
    other seats' cards laid wide apart; every read 0.99 sure unless `conf` says."""
    cards = [Card(n, conf.get(n, 0.99), (1500 + k * spread * CW, H - 500, 1500 + k * spread * CW + CW, H - 100))
             for k, n in enumerate(HANDS[0])]
    edge = {1: lambda k: (W - 450, 700 + k * 500, W - 50, 960 + k * 500),
            2: lambda k: (1200 + k * 400, 100, 1460 + k * 400, 500),
            3: lambda k: (50, 700 + k * 500, 450, 960 + k * 500)}
    return cards + [Card(n, conf.get(n, 0.99), edge[s](k)) for s in (1, 2, 3) for k, n in enumerate(HANDS[s])]


def test_an_unsure_card_in_a_tight_fan_asks_for_that_hand_spread() -> None:
    from scorer.vision.layout import TIGHT_COVER

    tight = layout(_fan(0.3, {"2o": 0.5}), bottom=2)
    assert tight["hands"] is not None and sorted(tight["hands"][2]) == sorted(HANDS[0])
    (w,) = [w for w in tight["warnings"] if w["code"] == "tight_fan"]
    assert w["seat"] == 2 and w["cards"] == ["2o"] and "2o" in w["message"]  # seat 2 sits at the bottom
    assert 1 - 0.3 >= TIGHT_COVER > 1 - 0.5
    # the same card spread half a card apart, or read sure in the tight fan: no such warning
    assert not [w for w in layout(_fan(0.5, {"2o": 0.5}), 2)["warnings"] if w["code"] == "tight_fan"]
    assert not [w for w in layout(_fan(0.3, {}), 2)["warnings"] if w["code"] == "tight_fan"]
    # an unsure card of a hand laid wide apart is flagged for a person, with no word of the fan
    wide = layout(_fan(0.3, {"2e": 0.5}), 2)
    assert [w["code"] for w in wide["warnings"]] == ["low_confidence"]


def test_a_tight_fan_warning_stays_while_its_card_is_still_unsure_there() -> None:
    from scorer.vision.layout import combine

    first = layout(_fan(0.3, {"2o": 0.5}), 0)
    still = combine([first, _photo(HANDS, conf={"2o": 0.4})])
    assert [(w["cards"], w["photo"]) for w in still["warnings"] if w["code"] == "tight_fan"] == [(["2o"], 0)]
    read = combine([first, _photo(HANDS)])  # the second photo read it sure
    assert not [w for w in read["warnings"] if w["code"] == "tight_fan"]
    assert [sorted(h) for h in read["hands"]] == [sorted(h) for h in HANDS]


def _showdown(unsure: dict[str, float], unread: int = 0) -> dict:
    """`layout` of a full showdown, each card of `unsure` read that sure and the rest 0.95,
    with `unread` card boxes found but not read."""
    boxes, edges = _table()
    names = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4)]
    cards = [Card(n, unsure.get(n, 0.95), b) for n, b in zip(names, boxes, strict=True)]
    return layout(cards, 0, [(10 + 300 * k, 10, 200 + 300 * k, 300) for k in range(unread)])


def test_a_showdown_read_this_unsure_says_the_deck_may_be_unfamiliar() -> None:
    from scorer.vision.layout import UNFAMILIAR_DECK

    low = LOW_CONFIDENCE - 0.1
    few = _showdown({n: low for n in ["1o", "2c", "3e"][: UNFAMILIAR_DECK - 1]})
    assert "unfamiliar_deck" not in [w["code"] for w in few["warnings"]]  # a known deck's bad photo
    many = _showdown({n: low for n in ["1o", "2c", "3e", "4b", "2o", "3c"][:UNFAMILIAR_DECK]})
    (w,) = [w for w in many["warnings"] if w["code"] == "unfamiliar_deck"]
    assert w["count"] == UNFAMILIAR_DECK and "deck page" in w["message"]
    # boxes found and not read count as unsure too; a read at the line does not
    mixed = _showdown({"1o": low, "2c": LOW_CONFIDENCE}, unread=UNFAMILIAR_DECK - 1)
    assert [w["count"] for w in mixed["warnings"] if w["code"] == "unfamiliar_deck"] == [UNFAMILIAR_DECK]
    # a close-up of a few cards is no showdown: no such warning
    alone = layout([Card(n, low, (100 * k, 0, 100 * k + 90, 140)) for k, n in enumerate(["1o", "2o", "3o", "4o"])])
    assert alone["hands"] is None and "unfamiliar_deck" not in [w["code"] for w in alone["warnings"]]


def test_photos_read_together_count_the_reads_still_unsure() -> None:
    from scorer.vision.layout import UNFAMILIAR_DECK, combine

    names = [n for hand in HANDS for n in hand][:UNFAMILIAR_DECK]
    unsure = _photo(HANDS, conf=dict.fromkeys(names, 0.5))
    assert "unfamiliar_deck" in [w["code"] for w in unsure["warnings"]]
    # a second photo reads them sure: no longer unsure, no longer an unfamiliar deck
    assert "unfamiliar_deck" not in [w["code"] for w in combine([unsure, _photo(HANDS)])["warnings"]]
    both = combine([unsure, _photo(HANDS, conf=dict.fromkeys(names, 0.6))])
    assert [w["count"] for w in both["warnings"] if w["code"] == "unfamiliar_deck"] == [UNFAMILIAR_DECK]
