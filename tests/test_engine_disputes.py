"""Declarations the cards contradict (seed 002 art. 16-19, seed 004 art. 13-16)."""

from __future__ import annotations

from scorer.engine import settle


def rec(hands, bets=None, declared=None):
    out = {"esku": 0, "score": [0, 0], "hands": [h.split() if h else None for h in hands]}
    return out | ({"bets": bets} if bets else {}) | ({"declared": declared} if declared else {})


def seq(*pairs):
    return [{"seat": seat, "act": act} for seat, act in zip(pairs[::2], pairs[1::2], strict=True)]


def line(settled, lance):
    return [(e["team"], e["stones"], e["why"]) for e in settled["events"]
            if e["lance"] == lance and not e["why"].startswith("deje")]

P1 = ["1o 4c 5e 6b", "12o 12c 4e 7b", "10o 11c 5c 7c", "1c 6e 7e 4o"]  # only seat 1 has pares


def disputes(s):
    return [(d["seat"], d["lance"], d["kind"], d["rule"]) for d in s["disputes"]]


def test_dispute_entry_shape():
    s = settle(rec(P1, {"pares": seq(0, "envido", 1, "quiero")}, declared={"pares": [True, True, False, False]}))
    assert s["disputes"][0] == {
        "seat": 0, "lance": "pares", "kind": "false_declaration", "declared": True, "cards": False,
        "rule": "seed 004 art. 13a", "effect": "bets on pares annulled; the opponents count their pares",
    }


def test_false_pares_partner_without_bets_annulled_opponents_count_theirs():
    s = settle(rec(P1, {"pares": seq(0, "envido", 1, "quiero")}, declared={"pares": [True, True, False, False]}))
    assert line(s, "pares") == [(1, 1, "false pares of seat 0 (seed 004 art. 13a): seat 1 pareja")]
    assert s["lances"]["pares"] == {"best": 1, "team": 1, "status": "accepted", "stake": 0, "stones": 1}


def test_false_pares_flags_the_bet_of_a_seat_with_neither_pares_nor_juego():
    s = settle(rec(P1, {"pares": seq(0, "envido", 1, "quiero")}, declared={"pares": [True, True, False, False]}))
    assert disputes(s) == [(0, "pares", "false_declaration", "seed 004 art. 13a"),
                           (0, "pares", "bet_for_partner", "seed 002 art. 19")]


def test_false_pares_partner_and_opponents_with_pares_opponents_count_the_tira():
    hands = ["1o 4c 5e 6b", "12o 12c 4e 7b", "10o 10c 5c 7c", "1c 6e 7e 4o"]
    s = settle(rec(hands, {"pares": seq(0, "envido", 1, "quiero")}, declared={"pares": [True, True, True, False]}))
    assert disputes(s)[0] == (0, "pares", "false_declaration", "seed 004 art. 13b")
    assert line(s, "pares") == [(1, 2, "false pares of seat 0 (seed 004 art. 13b): tira 1, seat 1 pareja")]


def test_false_pares_partner_with_pares_opponents_without():
    hands = ["1o 4c 5e 6b", "12o 11c 4e 7b", "10o 10c 5c 7c", "1c 6e 7e 4o"]
    s = settle(rec(hands, declared={"pares": [True, False, True, False]}))
    assert disputes(s)[0][3] == "engine ruling (as seed 004 art. 15b)"
    assert line(s, "pares") == [(0, 1, "only team 0 has pares: seat 2 pareja")]


def test_undeclared_pares_does_not_count_and_opponents_score_the_tira():
    hands = ["1o 1c 5e 6b", "12o 12c 4e 7b", "10o 11c 5c 7c", "2c 6e 7e 4o"]
    s = settle(rec(hands, declared={"pares": [False, True, False, False]}))
    assert disputes(s) == [(0, "pares", "undeclared", "seed 002 art. 16, seed 004 art. 14")]
    assert line(s, "pares") == [(1, 1, "only team 1 has pares: seat 1 pareja"),
                                (1, 1, "undeclared pares of seat 0 (seed 002 art. 16, seed 004 art. 14): tira 1")]
    assert s["lances"]["pares"]["stones"] == 2


def test_undeclared_pares_opponents_score_the_tira_even_if_the_partner_has_pares():
    hands = ["1o 1c 5e 6b", "12o 12c 4e 7b", "10o 10c 5c 7c", "2c 6e 7e 4o"]
    s = settle(rec(hands, declared={"pares": [False, True, True, False]}))
    assert disputes(s) == [(0, "pares", "undeclared", "seed 002 art. 16")]
    assert line(s, "pares") == [(1, 1, "all passed; best pares seat 1; bonus: seat 1 pareja"),
                                (1, 1, "undeclared pares of seat 0 (seed 002 art. 16): tira 1")]


def test_undeclared_juego_partner_and_opponents_have_juego_opponents_score_the_tira():
    hands = [J31, "12b 11b 10b 1b", "12c 11c 7b 5b", "10c 1c 2e 4c"]
    s = settle(rec(hands, declared={"juego": [False, True, True, False]}))
    assert disputes(s) == [(0, "juego", "undeclared", "seed 002 art. 18")]
    assert line(s, "juego") == [(1, 3, "all passed; best juego seat 1; bonus: seat 1 31"),
                                (1, 1, "undeclared juego of seat 0 (seed 002 art. 18): tira 1")]


def test_undeclared_pares_when_nobody_else_has_pares_scores_nothing():
    hands = ["1o 1c 5e 6b", "12o 11c 4e 7b", "10o 11e 5c 7c", "2c 6e 7e 4o"]
    s = settle(rec(hands, declared={"pares": [False, False, False, False]}))
    assert disputes(s) == [(0, "pares", "undeclared", "seed 002 art. 16, seed 004 art. 14")]
    assert line(s, "pares") == []


NOJ = {"s0": "12o 12c 1e 4b", "s1": "11o 5c 4e 7b", "s2": "7o 6c 5o 4o", "s3": "10c 1c 2e 4c"}


def test_false_juego_nobody_else_opponents_score_two():
    s = settle(rec(list(NOJ.values()), declared={"juego": [True, False, False, False]}))
    assert disputes(s) == [(0, "juego", "false_declaration", "seed 002 art. 17, seed 004 art. 15a")]
    assert line(s, "juego") == [(1, 2, "false juego of seat 0 (seed 002 art. 17, seed 004 art. 15a): tira 2")]
    assert "punto" not in s["lances"]


def test_false_juego_partner_has_opponents_not_the_federation_rule_wins():
    hands = [NOJ["s0"], NOJ["s1"], "12b 11b 10b 1b", NOJ["s3"]]
    s = settle(rec(hands, declared={"juego": [True, False, True, False]}))
    assert disputes(s) == [(0, "juego", "false_declaration", "seed 002 art. 17, over seed 004 art. 15b")]
    assert line(s, "juego") == [(1, 1, "false juego of seat 0 (seed 002 art. 17, over seed 004 art. 15b): tira 1")]


def test_false_juego_opponents_have_bets_annulled():
    hands = [NOJ["s0"], "12b 11b 10b 1b", NOJ["s2"], NOJ["s3"]]
    s = settle(rec(hands, {"juego": seq(0, "envido", 1, "quiero")}, declared={"juego": [True, True, False, False]}))
    assert disputes(s) == [(0, "juego", "false_declaration", "seed 002 art. 17, seed 004 art. 15c")]
    assert line(s, "juego") == [(1, 3, "false juego of seat 0 (seed 002 art. 17, seed 004 art. 15c): seat 1 31")]
    assert s["lances"]["juego"]["stake"] == 0


def test_false_juego_partner_and_opponents_have_tira_and_juego():
    hands = ["12o 12e 1o 4b", "12c 11c 10c 1c", "12b 11b 7b 5b", "10e 6c 2e 4c"]
    s = settle(rec(hands, {"juego": seq(0, "envido", 1, "quiero")}, declared={"juego": [True, True, True, False]}))
    assert disputes(s)[0] == (0, "juego", "false_declaration", "seed 002 art. 17, seed 004 art. 15d")
    assert line(s, "juego") == [(1, 4, "false juego of seat 0 (seed 002 art. 17, seed 004 art. 15d): tira 1, seat 1 31")]


J31 = "12o 11o 10o 1o"


def test_undeclared_juego_nobody_else_punto_annulled_opponents_score_two():
    hands = [J31, "11c 5c 4e 7b", "7o 6c 5o 4o", "10c 1c 2e 4c"]
    s = settle(rec(hands, {"punto": seq(0, "envido", 1, "quiero")}, declared={"juego": [False] * 4}))
    assert disputes(s) == [(0, "juego", "undeclared", "seed 002 art. 18, seed 004 art. 16a")]
    assert line(s, "punto") == [(1, 2, "undeclared juego of seat 0 (seed 002 art. 18, seed 004 art. 16a): tira 2")]
    assert s["lances"]["punto"]["team"] == 1


def test_undeclared_juego_partner_has_only_the_partners_counts():
    hands = [J31, "11c 5c 4e 7e", "12b 11b 7b 5b", "10c 1c 2e 4c"]
    s = settle(rec(hands, declared={"juego": [False, False, True, False]}))
    assert disputes(s) == [(0, "juego", "undeclared", "seed 004 art. 16b")]
    assert line(s, "juego") == [(0, 2, "only team 0 has juego: seat 2 32")]


def test_undeclared_juego_opponents_have_tira_and_their_juego():
    hands = [J31, "12b 11b 10b 1b", "7o 6c 5o 4o", "10c 1c 2e 4c"]
    s = settle(rec(hands, declared={"juego": [False, True, False, False]}))
    assert disputes(s) == [(0, "juego", "undeclared", "seed 002 art. 18, seed 004 art. 16c")]
    assert line(s, "juego") == [(1, 3, "only team 1 has juego: seat 1 31"),
                                (1, 1, "undeclared juego of seat 0 (seed 002 art. 18, seed 004 art. 16c): tira 1")]


def test_matching_declarations_raise_no_dispute():
    hands = [J31, "12b 11b 10b 1b", "7o 6c 5o 4o", "10c 1c 2e 4c"]
    assert settle(rec(hands, declared={"juego": [True, True, False, False]}))["disputes"] == []


def test_unknown_cards_are_trusted():
    hands = [None, "12b 11b 10b 1b", "7o 6c 5o 4o", "10c 1c 2e 4c"]
    s = settle(rec(hands, declared={"pares": [False, False, False, True], "juego": [True, True, False, False]}))
    assert s["disputes"] == []


def test_only_the_first_contradiction_from_esku_rules_the_lance():
    hands = ["1o 4c 5e 6b", "12o 11c 4e 7b", "10o 11e 5c 7c", "1c 6e 7e 4o"]  # nobody has pares
    s = settle(rec(hands, {"pares": seq(0, "envido", 1, "quiero")}, declared={"pares": [True, True, False, False]}))
    assert [d["seat"] for d in s["disputes"] if d["kind"] == "false_declaration"] == [0, 1]
    assert s["disputes"][1]["effect"].startswith("reported; the first contradiction")
    assert line(s, "pares") == []


def test_an_accepted_ordago_in_pares_is_won_by_a_combination_the_cards_show():
    hands = ["1o 4c 5e 6b", "12o 12c 4e 7b", "10o 11c 5c 7c", "1c 6e 7e 4o"]  # seat 0 has no pares
    s = settle(rec(hands, {"pares": seq(0, "ordago", 1, "quiero")}, declared={"pares": [True, True, False, False]}))
    assert s["ordago"] and s["winner"] == 1 and s["lances"]["pares"]["best"] == 1
    assert s["disputes"][0]["effect"].startswith("reported; the ordago accepted in pares decides the game")
