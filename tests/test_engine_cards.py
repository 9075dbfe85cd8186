"""Cards, notation, and the evaluation of every lance (RULES.md "Cards and values", "The four lances")."""

from __future__ import annotations

import dataclasses
from collections import Counter
from itertools import combinations

import pytest

from scorer.engine import DECK, Card, MalformedError, MusError, evaluate
from scorer.engine.evaluate import CODE, best_seat, table


def ev(text: str, kings: int = 8, real31: bool = False):
    return evaluate([Card.parse(t) for t in text.split()], kings, real31)


def test_card_notation_round_trips():
    for card in DECK:
        assert Card.parse(str(card)) is card
    assert str(Card.parse("12o")) == "12o"
    assert Card.parse("12o") == Card(12, "o")
    assert Card.parse("7") == Card(7, None)
    assert str(Card.parse("7")) == "7"


def test_card_repr_reads_like_code():
    assert repr(Card.parse("12o")) == "Card.parse('12o')"
    assert eval(repr(Card.parse("3c"))) == Card(3, "c")
    assert repr(Card.parse("5")) == "Card.parse('5')"


def test_card_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Card.parse("1o").rank = 2  # type: ignore[misc]


def test_deck_has_forty_distinct_cards():
    assert len(DECK) == len(set(DECK)) == 40


@pytest.mark.parametrize("text", ["8o", "9b", "8", "9"])
def test_eights_and_nines_are_not_mus_cards(text):
    with pytest.raises(MalformedError, match="no 8s or 9s") as err:
        Card.parse(text)
    assert f'"{text}"' in str(err.value)


@pytest.mark.parametrize("bad", ["13o", "12x", "o12", "", " 12o", 12, None, ["12o"], "1O"])
def test_unknown_cards_are_refused(bad):
    with pytest.raises(MusError):
        Card.parse(bad)


@pytest.mark.parametrize("rank,suit", [(8, "o"), (13, None), (12, "x"), ("12", "o"), (True, "o")])
def test_card_constructor_checks_rank_and_suit(rank, suit):
    with pytest.raises(MalformedError):
        Card(rank, suit)


def test_eight_kings_three_is_rey_two_is_as():
    assert ev("3o 3c 3e 3b").grande == ev("12o 12c 12e 12b").grande
    assert ev("2o 2c 2e 2b").chica == ev("1o 1c 1e 1b").chica
    assert ev("3o 12c 4e 5b").pares_kind == 1  # a pair of reyes
    assert ev("3o 3c 2e 1b").points == 22


def test_four_kings_three_and_two_keep_rank_and_value():
    assert ev("3o 12c 4e 5b", kings=4).pares_kind == 0
    assert ev("3o 3c 2e 1b", kings=4).points == 9
    assert ev("3o 4c 5e 6b", kings=4).grande < ev("4o 4c 5e 6b", kings=4).grande
    assert ev("2o 4c 5e 6b", kings=4).chica < ev("1o 4c 5e 6b", kings=4).chica  # 2 above 1
    assert ev("3o 4c 5e 6b", kings=4).grande > ev("2o 4c 5e 6b", kings=4).grande


def test_points_values():
    assert ev("12o 11c 10e 1b").points == 31
    assert ev("7o 6c 5e 4b").points == 22


def test_grande_compares_high_to_low():
    assert ev("12o 12c 1e 1b").grande > ev("12o 11c 11e 11b").grande
    assert ev("12o 7c 6e 5b").grande > ev("11o 11c 11e 11b").grande


def test_chica_compares_low_to_high_lower_wins():
    assert ev("1o 1c 12e 12b").chica > ev("1o 4c 4e 4b").chica
    assert ev("1o 5c 6e 7b").chica > ev("4o 4c 4e 4b").chica


def test_pares_kinds_order():
    pareja, medias, duples = ev("12o 12c 1e 4b"), ev("4o 4c 4e 1b"), ev("5o 5c 4e 4b")
    assert (pareja.pares_kind, medias.pares_kind, duples.pares_kind) == (1, 2, 3)
    assert pareja.pares < medias.pares < duples.pares
    assert ev("1o 4c 5e 6b").pares == 0
    assert ev("12o 12c 4e 5b").pares > ev("11o 11c 4e 5b").pares
    assert ev("5o 5c 5e 1b").pares > ev("4o 4c 4e 12b").pares


def test_four_of_a_kind_is_duples_of_two_equal_pairs():
    rrrr, rrcc = ev("12o 12c 12e 12b"), ev("12o 12c 11e 11b")
    assert rrrr.pares_kind == 3
    assert rrrr.pares > rrcc.pares  # "R-R-R-R beats R-R-C-C"
    assert ev("6o 6c 1e 1b").pares > ev("5o 5c 5e 5b").pares  # "6-6-1-1 beats 5-5-5-5"


def test_duples_by_higher_pair_then_lower_pair():
    # seed 004 art. 12: 2 onze + 2 sept beat 2 onze + 2 six
    assert ev("11o 11c 7e 7b").pares > ev("11e 11b 6o 6c").pares
    assert ev("12o 12c 1e 1b").pares > ev("11e 11b 10o 10c").pares


def test_nothing_else_breaks_a_pares_tie():
    assert ev("12o 12c 1e 4b").pares == ev("12e 12b 7o 6c").pares


@pytest.mark.parametrize("better,worse", [(31, 32), (32, 40), (40, 37), (37, 36), (36, 35), (35, 34), (34, 33)])
def test_juego_order(better, worse):
    hands = {31: "12o 11c 10e 1b", 32: "12o 11c 5e 7b", 40: "12o 11c 10e 12b", 37: "12o 11c 7e 10b",
             36: "12o 11c 6e 10b", 35: "12o 11c 5e 10b", 34: "12o 11c 4e 10b", 33: "12o 11c 6e 7b"}
    assert ev(hands[better]).points == better and ev(hands[worse]).points == worse
    assert ev(hands[better]).juego > ev(hands[worse]).juego > 0


def test_below_31_is_no_juego_and_punto_is_the_total():
    v = ev("12o 11c 5e 4b")
    assert v.juego == 0 and v.punto == 29
    assert ev("12o 11c 6e 4b").punto > v.punto


def test_real31_beats_every_other_31_only_when_the_option_is_on():
    real, plain = "7o 7c 7e 10b", "12o 11c 10e 1b"
    assert ev(real).juego == ev(plain).juego
    assert ev(real, real31=True).juego > ev(plain, real31=True).juego
    assert ev(real, real31=True).juego_bonus == 3
    assert ev("7o 7c 7e 11b", real31=True).juego == ev(plain, real31=True).juego  # a caballo is no sota


def test_juego_bonus():
    assert ev("12o 11c 10e 1b").juego_bonus == 3
    assert ev("12o 11c 10e 12b").juego_bonus == 2
    assert ev("12o 11c 5e 4b").juego_bonus == 0


def test_ties_go_to_the_seat_closer_to_esku():
    same = ev("12o 12c 1e 4b")
    values = [same, ev("12e 12b 1c 4o"), same, same]
    assert best_seat(values, "grande", (1, 2, 3, 0)) == 1
    assert best_seat(values, "grande", (3, 0, 1, 2)) == 3
    assert best_seat([same, None, same, same], "grande", (0, 1, 2, 3)) is None


def test_table_covers_the_715_rank_multisets():
    for kings in (4, 8):
        for real31 in (False, True):
            assert len(table(kings, real31)) == 715


def _census(kings: int):
    tab, codes = table(kings, False), [CODE[c.rank] for c in DECK]
    kinds, juegos, thirty_ones = Counter(), 0, 0
    for a, b, c, d in combinations(codes, 4):
        v = tab[a + b + c + d]
        kinds[v.pares_kind] += 1
        juegos += v.juego > 0
        thirty_ones += v.points == 31
    return kinds, juegos, thirty_ones


def test_golden_counts_over_all_91390_hands_eight_kings():
    kinds, juegos, thirty_ones = _census(8)
    assert sum(kinds.values()) == 91_390
    assert kinds[1] + kinds[2] + kinds[3] == 51_710
    assert (kinds[1], kinds[2], kinds[3]) == (43_776, 4_448, 3_486)
    assert juegos == 24_444
    assert thirty_ones == 8_384


def test_four_kings_census_is_consistent():
    kinds, juegos, thirty_ones = _census(4)
    assert sum(kinds.values()) == 91_390
    # with 4 kings every rank has 4 cards: C(10,1)*C(4,4)... checked by direct counting
    direct = Counter()
    for hand in combinations(DECK, 4):
        ranks = sorted(Counter(c.rank for c in hand).values(), reverse=True)
        direct[{(4,): 3, (3, 1): 2, (2, 2): 3, (2, 1, 1): 1}.get(tuple(ranks), 0)] += 1
    assert kinds == direct


def test_punto_thirty_is_best_four_is_worst():
    assert ev("12o 11c 10e 12b").juego  # 40 is juego, not punto
    thirty, worst = ev("12o 11c 10e 12b".replace("12b", "1b")), ev("1o 1c 1e 1b")
    assert thirty.points == 31 and thirty.juego  # 31 is juego
    assert ev("12o 11c 5e 5b").punto == 30 and ev("12o 11c 5e 5b").juego == 0
    assert worst.punto == 4
    assert ev("12o 11c 5e 5b").punto > ev("12o 11c 5e 4b").punto > worst.punto
