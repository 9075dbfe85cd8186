"""Settlement (`mus-settlement/1`): the HAND-RECORD example, every line of the count, the game's end."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from scorer.engine import IllegalError, MalformedError, settle

EXAMPLE = json.loads((Path(__file__).parents[1] / "examples" / "hand.json").read_text())

# HAND-RECORD.md, "The settlement", verbatim.
EXPECTED = {
    "format": "mus-settlement/1",
    "score": [19, 41],
    "game_over": True,
    "winner": 1,
    "ordago": False,
    "lances": {
        "grande": {"best": 0, "team": 0, "status": "accepted", "stake": 5, "stones": 5},
        "chica": {"best": 3, "team": 1, "status": "paso", "stake": 0, "stones": 1},
        "pares": {"best": 1, "team": 0, "status": "refused", "stake": 1, "stones": 2},
        "juego": {"best": 1, "team": 1, "status": "uncontested", "stake": 0, "stones": 3},
    },
    "events": [
        {"lance": "pares", "team": 0, "stones": 1, "why": "deje: envido refused", "score": [13, 37]},
        {"lance": "grande", "team": 0, "stones": 5, "why": "envido 2, 3 more, accepted; best grande seat 0",
         "score": [18, 37]},
        {"lance": "chica", "team": 1, "stones": 1, "why": "all passed; best chica seat 3", "score": [18, 38]},
        {"lance": "pares", "team": 0, "stones": 1, "why": "bonus after refused bet: seat 0 pareja", "score": [19, 38]},
        {"lance": "juego", "team": 1, "stones": 3, "why": "only team 1 has juego: seat 1 31", "score": [19, 41]},
    ],
    "amarrakos": [[3, 4], [8, 1]],
    "adentro": [False, False],
    "disputes": [],
}


def test_hand_record_example_settles_key_for_key():
    got = settle(copy.deepcopy(EXAMPLE))
    assert got == EXPECTED
    assert list(got) == list(EXPECTED)
    for name, entry in EXPECTED["lances"].items():
        assert list(got["lances"][name]) == list(entry)
    assert json.loads(json.dumps(got)) == EXPECTED


def test_settle_does_not_modify_its_input():
    record = copy.deepcopy(EXAMPLE)
    settle(record)
    assert record == EXAMPLE


def test_settle_takes_the_hand_record_parse_hand_made():
    """`parse_hand` gives a `HandRecord`; `settle` took only the dict (a `HandRecord` was
    "not a hand record (a JSON object)"). It settles as the dict it was made of, as often
    as asked, and is left as it was."""
    from scorer.engine import parse_hand

    record = parse_hand(copy.deepcopy(EXAMPLE))
    assert settle(record) == settle(record) == EXPECTED
    assert record.to_json() == parse_hand(copy.deepcopy(EXAMPLE)).to_json()
    disputed = rec(["1o 1c 4e 5b", "12o 11c 7e 6b", "3o 3c 2e 7b", "10o 10c 5e 4b"],
                   declared={"pares": [False, False, True, True]})
    assert settle(parse_hand(disputed)) == settle(disputed)
    with pytest.raises(MalformedError, match="is not a hand record"):
        settle(json.dumps(EXAMPLE))  # type: ignore[arg-type]


def rec(hands, bets=None, declared=None, score=(0, 0), esku=0, rules=None):
    out = {"format": "mus-hand/1", "esku": esku, "score": list(score), "hands": [h.split() if h else None for h in hands]}
    if bets:
        out["bets"] = bets
    if declared:
        out["declared"] = declared
    if rules:
        out["rules"] = rules
    return out


def seq(*pairs):
    """`seq(0, "envido", 1, "quiero")` -> actions; `("mas", 3)` for an act with n."""
    out = []
    for seat, what in zip(pairs[::2], pairs[1::2], strict=True):
        name, n = (what, None) if isinstance(what, str) else what
        out.append({"seat": seat, "act": name} | ({"n": n} if n else {}))
    return out


def line(settled, lance):
    """The showdown events of `lance` (dejes excluded)."""
    return [(e["team"], e["stones"], e["why"]) for e in settled["events"]
            if e["lance"] == lance and not e["why"].startswith("deje")]


# A: pareja de reyes, medias de caballos (34), duples 6-5, nothing (18)
A = ["12o 12c 1e 4b", "11o 11c 11e 4c", "5o 5c 6e 6b", "1o 4o 7c 6c"]
# B: 31, 40 (pair of reyes), 32, 22
B = ["12o 11o 10o 1o", "12c 11c 10c 12e", "12b 11b 7b 5b", "4c 5c 6c 7c"]
# C: no juego anywhere; punto 11, 29, 22, 28
C = ["1o 1c 4e 5b", "12o 11o 4o 5o", "7o 6o 5c 4c", "12c 7c 6e 5e"]


def test_grande_and_chica_all_passed_winner_scores_one():
    s = settle(rec(A))
    assert line(s, "grande") == [(0, 1, "all passed; best grande seat 0")]
    assert line(s, "chica") == [(1, 1, "all passed; best chica seat 3")]
    assert s["lances"]["grande"] == {"best": 0, "team": 0, "status": "paso", "stake": 0, "stones": 1}


def test_grande_accepted_winner_scores_the_stake():
    s = settle(rec(A, {"grande": seq(0, ("envido", 3), 1, ("mas", 2), 2, "quiero")}))
    assert line(s, "grande") == [(0, 5, "envido 3, 2 more, accepted; best grande seat 0")]


def test_grande_refused_scores_nothing_more_than_the_deje():
    s = settle(rec(A, {"grande": seq(0, "paso", 1, "envido", 2, "no_quiero", 0, "no_quiero")}))
    assert line(s, "grande") == []
    assert s["lances"]["grande"] == {"best": 0, "team": 1, "status": "refused", "stake": 1, "stones": 1}
    assert s["events"][0] == {"lance": "grande", "team": 1, "stones": 1, "why": "deje: envido refused",
                              "score": [0, 1]}


def test_pares_all_passed_winner_team_counts_every_holder():
    s = settle(rec(A))
    assert line(s, "pares") == [(0, 4, "all passed; best pares seat 2; bonus: seat 0 pareja, seat 2 duples")]


def test_pares_accepted_stake_plus_bonus():
    s = settle(rec(A, {"pares": seq(0, "envido", 1, "quiero")}))
    assert line(s, "pares") == [(0, 6, "envido 2, accepted; best pares seat 2; bonus: seat 0 pareja, seat 2 duples")]
    assert s["lances"]["pares"] == {"best": 2, "team": 0, "status": "accepted", "stake": 2, "stones": 6}


def test_pares_refused_betting_team_counts_its_own_even_if_beaten():
    s = settle(rec(A, {"pares": seq(0, "paso", 1, "envido", 2, "no_quiero", 0, "no_quiero")}))
    assert line(s, "pares") == [(1, 2, "bonus after refused bet: seat 1 medias")]
    assert s["lances"]["pares"] == {"best": 2, "team": 1, "status": "refused", "stake": 1, "stones": 3}


def test_pares_held_by_one_team_only():
    s = settle(rec(B))
    assert line(s, "pares") == [(1, 1, "only team 1 has pares: seat 1 pareja")]
    assert s["lances"]["pares"]["status"] == "uncontested"


def test_nobody_with_pares_scores_nothing():
    s = settle(rec(["1o 6c 4e 5b", "12e 11e 4o 5o", "7o 6o 5c 4c", "12c 7c 6e 10b"]))
    assert s["lances"]["pares"] == {"best": None, "team": None, "status": "not_played", "stake": 0, "stones": 0}


def test_juego_all_passed_with_31_worth_three():
    s = settle(rec(B))
    assert line(s, "juego") == [(0, 5, "all passed; best juego seat 0; bonus: seat 0 31, seat 2 32")]


def test_juego_accepted_stake_plus_bonus():
    s = settle(rec(B, {"juego": seq(0, "paso", 1, ("envido", 5), 2, "quiero")}))
    assert line(s, "juego") == [(0, 10, "envido 5, accepted; best juego seat 0; bonus: seat 0 31, seat 2 32")]


def test_juego_refused_betting_team_counts_its_own():
    s = settle(rec(B, {"juego": seq(0, "paso", 1, "envido", 2, "no_quiero", 0, "no_quiero")}))
    assert line(s, "juego") == [(1, 2, "bonus after refused bet: seat 1 40")]
    assert s["lances"]["juego"]["stones"] == 3


def test_punto_when_nobody_has_juego():
    s = settle(rec(C))
    assert "juego" not in s["lances"]
    assert line(s, "punto") == [(1, 1, "all passed; best punto seat 1")]


def test_punto_accepted_stake_plus_one():
    s = settle(rec(C, {"punto": seq(0, "envido", 1, "quiero")}))
    assert line(s, "punto") == [(1, 3, "envido 2, accepted; best punto seat 1; punto 1")]


def test_punto_refused_betting_team_scores_one():
    s = settle(rec(C, {"punto": seq(0, "envido", 1, "no_quiero", 3, "no_quiero")}))
    assert line(s, "punto") == [(0, 1, "punto after refused bet: 1")]
    assert s["lances"]["punto"] == {"best": 1, "team": 0, "status": "refused", "stake": 1, "stones": 2}


def test_the_count_goes_in_lance_order_after_the_dejes():
    s = settle(rec(A, {"chica": seq(0, "envido", 1, "no_quiero", 3, "no_quiero")}))
    assert [e["lance"] for e in s["events"]] == ["chica", "grande", "pares", "juego"]
    assert [e["score"] for e in s["events"]] == [[1, 0], [2, 0], [6, 0], [6, 2]]


def test_the_game_stops_the_moment_a_team_reaches_the_target():
    s = settle(rec(A, score=(35, 0)))
    assert s["score"] == [40, 1] and s["game_over"] and s["winner"] == 0
    assert [e["lance"] for e in s["events"]] == ["grande", "chica", "pares"]
    assert s["lances"]["juego"] == {"best": 1, "team": None, "status": "uncontested", "stake": 0, "stones": 0}


def test_target_30():
    s = settle(rec(A, score=(25, 0), rules={"target": 30}))
    assert s["winner"] == 0 and s["score"] == [30, 1]


def test_a_deje_reaching_the_target_ends_the_game_nothing_later_counts():
    s = settle(rec(A, {"grande": seq(0, "paso", 1, "envido", 2, "no_quiero", 0, "no_quiero")}, score=(0, 39)))
    assert s["score"] == [0, 40] and s["winner"] == 1 and s["game_over"] and not s["ordago"]
    assert list(s["lances"]) == ["grande"]
    assert len(s["events"]) == 1


def test_bets_after_a_deje_ended_the_game_are_refused():
    with pytest.raises(IllegalError) as err:
        settle(rec(A, {"grande": seq(0, "envido", 1, "no_quiero", 3, "no_quiero"),
                       "chica": seq(0, "paso")}, score=(39, 0)))
    assert err.value.field == "bets.chica"


def test_accepted_ordago_decides_the_game_and_only_that_lance_counts():
    s = settle(rec(A, {"chica": seq(0, "ordago", 1, "quiero")}, score=(10, 20)))
    assert s["ordago"] and s["game_over"] and s["winner"] == 1
    assert s["score"] == [10, 40]
    assert s["events"] == [{"lance": "chica", "team": 1, "stones": 20,
                            "why": "ordago, accepted; best chica seat 3 wins the game", "score": [10, 40]}]
    assert s["lances"]["grande"] == {"best": 0, "team": None, "status": "paso", "stake": 0, "stones": 0}
    assert list(s["lances"]) == ["grande", "chica"]


def test_dejes_before_an_accepted_ordago_stand():
    s = settle(rec(A, {"grande": seq(0, "envido", 1, "no_quiero", 3, "no_quiero"),
                       "chica": seq(0, "envido", 1, "ordago", 2, "quiero")}, score=(10, 20)))
    assert s["score"] == [11, 40] and s["winner"] == 1


def test_refused_ordago_pays_the_deje_and_play_goes_on():
    s = settle(rec(A, {"grande": seq(0, "envido", 1, "ordago", 2, "no_quiero", 0, "no_quiero")}))
    assert s["lances"]["grande"] == {"best": 0, "team": 1, "status": "refused", "stake": 2, "stones": 2}
    assert not s["ordago"] and "pares" in s["lances"]


def test_an_accepted_ordago_needs_the_cards():
    with pytest.raises(MalformedError, match="cards are needed"):
        settle(rec([None, None, None, None], {"grande": seq(0, "ordago", 1, "quiero")}))


def test_amarrakos_and_adentro():
    s = settle(rec(A, score=(29, 10)))
    assert s["score"] == [34, 13]
    assert s["amarrakos"] == [[6, 4], [2, 3]]
    assert s["adentro"] == [False, False]
    s = settle(rec(A, score=(30, 10)))
    assert s["score"] == [35, 13] and s["adentro"] == [True, False]


def test_winner_is_not_adentro():
    s = settle(rec(A, score=(36, 36)))
    assert s["winner"] == 0 and s["adentro"] == [False, True]


def test_rank_only_cards_settle_like_suited_ones():
    ranks = [" ".join(c[:-1] for c in h.split()) for h in A]
    assert settle(rec(ranks)) == settle(rec(A))


def test_cards_of_a_seat_unknown():
    declared = {"pares": [True, True, True, False], "juego": [False, True, False, False]}
    s = settle(rec(A[:3] + [None], declared=declared))
    assert s["lances"]["grande"]["best"] is None and s["lances"]["grande"]["team"] is None
    assert s["lances"]["pares"]["best"] == 2  # seat 3 declared no pares: not needed
    assert [e["lance"] for e in s["events"]] == ["pares", "juego"]


def test_unknown_cards_need_a_declaration():
    with pytest.raises(MalformedError) as err:
        settle(rec(A[:3] + [None]))
    assert err.value.field == "declared.pares[3]"


def test_no_cards_at_all_still_settles_the_dejes():
    declared = {"pares": [False] * 4, "juego": [False] * 4}
    s = settle(rec([None] * 4, {"grande": seq(0, "envido", 1, "no_quiero", 3, "no_quiero")}, declared=declared))
    assert s["score"] == [1, 0] and not s["game_over"]
    assert all(entry["best"] is None for entry in s["lances"].values())


def test_four_kings_mode():
    hands = ["3o 3c 1e 4b", "11o 11c 5e 6b", "7o 6c 5o 4o", "10o 1c 2e 4c"]
    eight, four = settle(rec(hands)), settle(rec(hands, rules={"kings": 4}))
    assert eight["lances"]["grande"]["best"] == 0  # two reyes
    assert four["lances"]["grande"]["best"] == 1


def test_real31_option():
    hands = ["12o 11o 10o 1o", "7o 7c 7e 10b", "4c 5c 6c 1c", "4b 5b 6b 1b"]
    assert settle(rec(hands))["lances"]["juego"]["best"] == 0
    assert settle(rec(hands, rules={"real31": True}))["lances"]["juego"]["best"] == 1


def test_esku_breaks_ties():
    hands = ["12o 12c 1e 4b", "12e 12b 1c 4o", "7o 6c 5o 4c", "10o 6o 2e 4e"]
    assert settle(rec(hands, esku=0))["lances"]["grande"]["best"] == 0
    assert settle(rec(hands, esku=1))["lances"]["grande"]["best"] == 1


# -- a player who passed facing a bet ("paso": for my part, seed 004 art. 10) gives up the lance
# (RULES.md "Betting inside a lance": out of that lance; seeds 000 and 003: "renonce à tout gain
# ... même si ... il avait le meilleur jeu")
OUT = ["4o 5c 6e 7b", "11o 11c 5e 6b", "12o 12c 12e 1b", "10o 1c 2e 4c"]


def test_a_seat_that_passed_for_its_part_counts_for_nothing_when_its_partner_accepts():
    s = settle(rec(OUT, {"grande": seq(0, "paso", 1, "envido", 2, "paso", 0, "quiero")}))
    # seat 2 holds the best grande but passed for its part: seat 1 (caballos) beats seat 0 and wins the stake
    assert line(s, "grande") == [(1, 2, "envido 2, accepted; best grande seat 1")]
    assert s["lances"]["grande"]["best"] == 1
    # all passed, the same cards: seat 2 wins as ever
    assert line(settle(rec(OUT)), "grande") == [(0, 1, "all passed; best grande seat 2")]


def test_the_pares_of_a_seat_that_passed_for_its_part_neither_win_nor_add_to_the_bonus():
    # a pareja each: reyes (seat 0), caballos, ases (seat 2), sotas; seat 2 passes, seat 0 accepts
    hands = ["12o 12c 4e 5b", "11o 11c 5e 6b", "1o 1c 4o 7c", "10o 10c 6e 7e"]
    s = settle(rec(hands, {"pares": seq(0, "paso", 1, "envido", 2, "paso", 0, "quiero")}))
    assert line(s, "pares") == [(0, 3, "envido 2, accepted; best pares seat 0; bonus: seat 0 pareja")]
    # without the paso both of team 0's parejas count
    s = settle(rec(hands, {"pares": seq(0, "paso", 1, "envido", 2, "quiero")}))
    assert line(s, "pares") == [(0, 4, "envido 2, accepted; best pares seat 0; bonus: seat 0 pareja, seat 2 pareja")]


def test_an_accepted_ordago_goes_past_a_seat_that_passed_with_the_best_cards():
    s = settle(rec(OUT, {"grande": seq(0, "paso", 1, "ordago", 2, "paso", 0, "quiero")}))
    assert s["winner"] == 1 and s["lances"]["grande"]["best"] == 1


# -- seed 004 art. 12 and seed 002 art. 15: combinations of equal worth, and the last hand
def test_seed_004_art_12_two_onze_two_sept_beat_two_onze_two_six_even_from_the_last_seat():
    # "2 onze + 2 sept même en dernière main sont supérieurs à 2 onze + 2 six"
    hands = ["11o 11c 6e 6b", "1o 4c 5e 10b", "1c 4o 5c 10c", "11e 11b 7o 7c"]
    s = settle(rec(hands, declared={"pares": [True, False, False, True]},
                   bets={"pares": seq(0, "envido", 3, "quiero")}))
    assert s["lances"]["pares"]["best"] == 3 and line(s, "pares")[0][0] == 1


@pytest.mark.parametrize("esku", [1, 3])
def test_seed_002_art_15_equal_duples_go_to_the_seat_closer_to_esku(esku):
    # rey-rey and caballo-caballo against tres-tres (a rey with 8 kings) and caballo-caballo
    hands = ["1o 4c 5e 6b", "12o 12c 11o 11c", "1c 4o 5c 7c", "3o 3c 11e 11b"]
    s = settle(rec(hands, declared={"pares": [False, True, False, True]}, esku=esku))
    assert s["lances"]["pares"]["status"] == "uncontested"
    assert s["lances"]["pares"]["best"] == esku


# -- ties: the seat closer to esku, whichever teams hold them (RULES.md "Four lances")
def _closer_to_esku(seats, esku):
    return min(seats, key=lambda s: (s - esku) % 4)


@pytest.mark.parametrize("esku", [0, 1, 2, 3])
def test_a_punto_tie_and_a_chica_tie_between_opponents_go_to_the_seat_closer_to_esku(esku):
    # punto 28 for seats 0 and 1 (rey, caballo/sota, 7, as), nobody has juego; chica 1-4-5-6 for seats 2 and 3
    hands = ["12o 11o 7o 1o", "12c 10c 7c 1c", "4e 5e 6e 1e", "4b 5b 6b 1b"]
    s = settle(rec(hands, esku=esku))
    assert s["lances"]["punto"]["best"] == _closer_to_esku([0, 1], esku)
    assert s["lances"]["chica"]["best"] == _closer_to_esku([2, 3], esku)
    assert line(s, "punto") == [(_closer_to_esku([0, 1], esku) % 2, 1,
                                 f"all passed; best punto seat {_closer_to_esku([0, 1], esku)}")]


@pytest.mark.parametrize("esku", [0, 1])
def test_equal_medias_go_to_the_seat_closer_to_esku_the_fourth_card_breaks_nothing(esku):
    # RULES.md: "medias by the trio's rank ... Nothing else breaks a tie": 12-12-3 and 3-3-12 are
    # both medias of reyes (8 kings), the as beside one and the 7 beside the other count for nothing
    hands = ["12o 12c 3o 1o", "3c 3e 12e 7o", "4o 5c 6e 7b", "4c 5o 6o 10b"]
    s = settle(rec(hands, {"pares": seq(esku, "envido", 1 - esku, "quiero")},
                   declared={"pares": [True, True, False, False]}, esku=esku))
    assert s["lances"]["pares"]["best"] == esku
    assert line(s, "pares") == [(esku, 4, f"envido 2, accepted; best pares seat {esku}; bonus: seat {esku} medias")]


def test_chica_accepted_winner_scores_the_stake():
    s = settle(rec(A, {"chica": seq(0, ("envido", 3), 1, "quiero")}))
    assert line(s, "chica") == [(1, 3, "envido 3, accepted; best chica seat 3")]
    assert s["lances"]["chica"] == {"best": 3, "team": 1, "status": "accepted", "stake": 3, "stones": 3}


def test_a_refused_bet_counts_nothing_of_a_seat_that_passed_for_its_part():
    # seat 1 passes for its part, seat 3 raises, team 0 refuses: team 1 counts its own
    # combinations (RULES.md "Bonus"), but not seat 1's medias: "Le joueur qui n'accepte pas
    # une enchère renonce à tout gain qu'il aurait pu percevoir lors de cette phase" (seed 000)
    hands = ["12o 12c 4e 5b", "11o 11c 11e 6b", "1o 1c 4o 7c", "10o 10c 6e 7e"]
    s = settle(rec(hands, {"pares": seq(0, "envido", 1, "paso", 3, ("mas", 2), 0, "no_quiero")}))
    assert line(s, "pares") == [(1, 1, "bonus after refused bet: seat 3 pareja")]
    assert s["lances"]["pares"]["stones"] == 3  # the deje of 2 and the pareja
    # seat 1 raising itself keeps its medias in the count
    s = settle(rec(hands, {"pares": seq(0, "envido", 1, ("mas", 2), 2, "no_quiero")}))
    assert line(s, "pares") == [(1, 3, "bonus after refused bet: seat 1 medias, seat 3 pareja")]


# -- seed 000 "Remarque", seed 003 "Hinweis": a bet past the target, accepted, does not win
# the game by itself: "la manche n'est pas encore gagnée ou perdue. Il faut donc continuer à
# jouer jusqu'au bout." The hand is counted to its end, in order, dejes first.
BIG = ["1o 1c 4e 5b", "12o 12c 11e 10b", "6o 7c 4c 5c", "11o 10c 7e 6e"]  # grande seat 1, chica seat 0


def test_seeds_000_003_an_accepted_bet_past_40_counts_in_its_turn():
    grande = seq(0, "paso", 1, ("envido", 50), 2, "quiero")
    s = settle(rec(BIG, {"grande": grande}, score=(39, 0)))
    assert not s["ordago"] and s["winner"] == 1 and s["score"] == [39, 50]
    assert line(s, "grande") == [(1, 50, "envido 50, accepted; best grande seat 1")]
    # team 0's deje in chica is scored at once and reaches 40 before the count: the 50 never counts
    s = settle(rec(BIG, {"grande": grande, "chica": seq(0, "envido", 1, "no_quiero")}, score=(39, 0)))
    assert s["winner"] == 0 and s["score"] == [40, 0]
    assert line(s, "grande") == []
    assert s["lances"]["grande"]["status"] == "accepted" and s["lances"]["grande"]["stones"] == 0


@pytest.mark.parametrize("esku", [0, 1, 2, 3])
def test_seed_002_art_15_two_opponents_with_duples(esku):
    # "Si deux adversaires ont les doubles avec les mêmes paires les plus importantes, celui qui a
    # les meilleures paires inférieures l'emporte et au cas où ils auraient exactement les mêmes
    # doubles, c'est celui qui est esku qui l'emporte."
    first, second = sorted([0, 1], key=lambda s: (s - esku) % 4)
    bets = {"pares": seq(first, "envido", second, "quiero")}
    declared = {"pares": [True, True, False, False]}
    rest = ["1o 4c 5e 6b", "1c 4o 5c 7c"]
    # reyes and caballos against reyes (3s, with 8 kings) and sotas: the lower pair decides
    s = settle(rec(["12o 12c 11o 11c", "3o 3c 10e 10b", *rest], bets, declared, esku=esku))
    assert line(s, "pares") == [(0, 5, "envido 2, accepted; best pares seat 0; bonus: seat 0 duples")]
    # exactly the same duples (reyes and caballos): the seat closer to esku
    s = settle(rec(["12o 12c 11o 11c", "3o 3c 11e 11b", *rest], bets, declared, esku=esku))
    assert line(s, "pares") == [(first, 5, f"envido 2, accepted; best pares seat {first}; bonus: seat {first} duples")]
