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


def test_a_deje_to_one_team_and_a_dispute_to_the_other_in_one_lance():
    """Seat 0's false pares bet and refused: the deje paid to team 0 stands (points drawn are
    not taken back, seed 002 art. 5 and 21); its bets annulled, team 1 count their pares.
    The lance's entry sums both (its `stones`, "all it scored") under the last to score;
    the events say who got what."""
    s = settle(rec(P1, {"pares": seq(0, "envido", 1, "no_quiero")}, declared={"pares": [True, True, False, False]}))
    pares = [(e["team"], e["stones"], e["why"]) for e in s["events"] if e["lance"] == "pares"]
    assert pares == [(0, 1, "deje: envido refused"), (1, 1, "false pares of seat 0 (seed 004 art. 13a): seat 1 pareja")]
    assert s["lances"]["pares"] == {"best": 1, "team": 1, "status": "refused", "stake": 1, "stones": 2}


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


# -- an accepted órdago is a bet like any other: annulled with the bets of its lance


def test_an_accepted_ordago_in_pares_on_a_false_pares_is_annulled_and_the_game_goes_on():
    """Seed 004 art. 13a: "Annoncer des paires si on n'en a pas : a) Si le partenaire n'en a
    pas, on annule tout pari fait sur les paires. Bien entendu, l'adversaire compte les points
    de sa ou de ses paires." The órdago is one of those bets: annulled, it decides nothing."""
    hands = ["1o 4c 5e 6b", "12o 12c 4e 7b", "10o 11c 5c 7c", "1c 6e 7e 4o"]  # seat 0 has no pares
    s = settle(rec(hands, {"grande": seq(0, "envido", 1, "quiero"), "pares": seq(0, "ordago", 1, "quiero")},
                   declared={"pares": [True, True, False, False]}))
    assert not s["ordago"] and not s["game_over"] and s["winner"] is None
    assert line(s, "pares") == [(1, 1, "false pares of seat 0 (seed 004 art. 13a): seat 1 pareja")]
    assert s["lances"]["pares"] == {"best": 1, "team": 1, "status": "accepted", "stake": 0, "stones": 1}
    # the lances before the órdago count as in any hand (the envido at grande: 2 to seat 1's reyes)
    assert line(s, "grande") == [(1, 2, "envido 2, accepted; best grande seat 1")]
    assert "juego" not in s["lances"] and "punto" not in s["lances"]  # the hand stopped at the órdago
    assert s["disputes"][0]["rule"] == "seed 004 art. 13a"
    assert s["disputes"][0]["effect"].endswith("the ordago accepted in pares is annulled with them: the game goes on")


def test_an_accepted_ordago_in_pares_where_no_seat_holds_pares_settles():
    """Every card shown, nobody holds pares: seed 004 art. 13a annuls the órdago (seat 0, the
    first false pares from esku), "l'adversaire compte les points de sa ou de ses paires":
    none. Nothing is missing to settle it."""
    hands = [["12o", "11c", "6e", "7b"], ["4o", "5c", "6c", "7c"], ["1o", "3c", "4e", "5b"], ["10c", "2o", "4c", "5e"]]
    s = settle({"esku": 0, "score": [10, 10], "hands": hands, "declared": {"pares": [True, True, False, False]},
                "bets": {"pares": [{"seat": 0, "act": "ordago"}, {"seat": 1, "act": "quiero"}]}})
    assert not s["ordago"] and not s["game_over"]
    assert line(s, "pares") == []
    assert s["lances"]["pares"] == {"best": None, "team": None, "status": "accepted", "stake": 0, "stones": 0}
    assert disputes(s) == [(0, "pares", "false_declaration", "seed 004 art. 13a"),
                           (1, "pares", "false_declaration", "seed 004 art. 13a")]
    assert s["disputes"][1]["effect"].startswith("reported; the first contradiction")
    assert s["score"] == [11, 11]  # grande and chica, all passed


def test_an_accepted_ordago_in_punto_with_an_undeclared_juego_is_annulled():
    """Seed 002 art. 18: "Si un joueur oublie de déclarer son jeu - Si personne n'a le jeu, tous
    les points engagés sont annulés et l'adversaire tire 2 ttanttos (le point + le refus). Le jeu
    « oublié » n'est pas pris en compte." (seed 004 art. 16a alike). Seat 0's hidden 33 does
    not win the punto órdago: the órdago is annulled and team 1 scores 2."""
    hands = [["12o", "11c", "6e", "7b"], ["4o", "5c", "6c", "7c"], ["1o", "2c", "4e", "5b"], ["1c", "2o", "4c", "5e"]]
    s = settle({"esku": 0, "score": [10, 10], "hands": hands, "declared": {"juego": [False] * 4},
                "bets": {"punto": [{"seat": 0, "act": "ordago"}, {"seat": 1, "act": "quiero"}]}})
    assert not s["ordago"] and not s["game_over"] and s["winner"] is None
    assert line(s, "punto") == [(1, 2, "undeclared juego of seat 0 (seed 002 art. 18, seed 004 art. 16a): tira 2")]
    assert s["lances"]["punto"] == {"best": 0, "team": 1, "status": "accepted", "stake": 0, "stones": 2}
    assert s["score"] == [13, 12]  # grande, chica, pares all passed (team 0), then the 2 of art. 18
    assert disputes(s) == [(0, "juego", "undeclared", "seed 002 art. 18, seed 004 art. 16a")]


def test_an_accepted_ordago_in_juego_on_a_false_juego_is_annulled():
    """Seed 002 art. 17: "Si un joueur annonce le jeu en se trompant ... Si seulement les
    adversaires ont le jeu, tout ce qui s'est joué sur le point est annulé et les adversaires
    tirent les points de leur(s) jeu(x)." Seed 004 art. 15c: "on annule les paris fait, au jeu,
    et l'adversaire tirera les points correspondants à son jeu." """
    hands = [NOJ["s0"], "12b 11b 10b 1b", NOJ["s2"], NOJ["s3"]]
    s = settle(rec(hands, {"juego": seq(0, "ordago", 1, "quiero")}, declared={"juego": [True, True, False, False]}))
    assert not s["ordago"] and not s["game_over"]
    assert line(s, "juego") == [(1, 3, "false juego of seat 0 (seed 002 art. 17, seed 004 art. 15c): seat 1 31")]
    assert s["lances"]["juego"] == {"best": 1, "team": 1, "status": "accepted", "stake": 0, "stones": 3}
    assert disputes(s) == [(0, "juego", "false_declaration", "seed 002 art. 17, seed 004 art. 15c")]


def test_an_accepted_ordago_in_juego_with_the_partner_holding_juego_is_annulled_too():
    """Seed 002 art. 17: "Si le partenaire de celui qui s'est trompé a également le jeu, les
    adversaires tirent les points de leur(s) propres jeu(x) + un ttantto du refus." (seed 004
    art. 15d: "on annule les paris faits au jeu")."""
    hands = ["12o 12e 1o 4b", "12c 11c 10c 1c", "12b 11b 7b 5b", "10e 6c 2e 4c"]
    s = settle(rec(hands, {"juego": seq(0, "ordago", 1, "quiero")}, declared={"juego": [True, True, True, False]}))
    assert not s["ordago"] and not s["game_over"]
    assert line(s, "juego") == [(1, 4, "false juego of seat 0 (seed 002 art. 17, seed 004 art. 15d): tira 1, seat 1 31")]


def test_a_false_pares_annuls_the_ordago_even_after_an_earlier_contradiction_that_annuls_nothing():
    """Seat 0 forgot its pares (seed 002 art. 16, seed 004 art. 14: it "ne vaut ni pour taper, ni
    pour tenir"; nothing annulled); seat 1 bet an órdago on a false pares, which seed 004 art.
    13a annuls: the contradiction that annuls the órdago rules the lance."""
    hands = ["1o 1c 5e 6b", "12o 11c 4e 7b", "10o 10c 5c 7c", "2c 6e 7e 4o"]
    s = settle(rec(hands, {"pares": seq(1, "ordago", 2, "quiero")}, declared={"pares": [False, True, True, False]}))
    assert not s["ordago"] and not s["game_over"]
    assert line(s, "pares") == [(0, 1, "false pares of seat 1 (seed 004 art. 13a): seat 2 pareja")]
    assert [(d["seat"], d["kind"]) for d in s["disputes"]][:2] == [(0, "undeclared"), (1, "false_declaration")]
    assert s["disputes"][0]["effect"] == (
        "reported; the contradiction of seat 1, which annuls the ordago, rules the lance")


def test_an_undeclared_pares_annuls_nothing_and_the_ordago_decides_the_game():
    """Seed 004 art. 14: "Ces paires niées ne valent ni pour taper, ni pour tenir, ni pour les
    compter ensuite." Nothing there annuls a bet: the órdago between the declared pares stands."""
    hands = ["1o 1c 5e 6b", "12o 12c 4e 7b", "10o 10c 5c 7c", "2c 6e 7e 4o"]
    s = settle(rec(hands, {"pares": seq(1, "ordago", 2, "quiero")}, declared={"pares": [False, True, True, False]}))
    assert s["ordago"] and s["winner"] == 1 and s["lances"]["pares"]["best"] == 1
    assert disputes(s) == [(0, "pares", "undeclared", "seed 002 art. 16")]
    assert s["disputes"][0]["effect"].startswith("reported; the ordago accepted in pares decides the game")


def test_undeclared_pares_partner_has_pares_opponents_none_only_the_partners_count():
    # seed 004 art. 14: "Ces paires niées ne valent ni pour taper, ni pour tenir, ni pour les
    # compter ensuite." Nobody against them holds pares: no tira (seed 002 art. 16), the
    # partner's pareja alone counts
    hands = ["1o 1c 5e 6b", "12o 11c 4e 7b", "10o 10c 5c 7c", "2c 6e 7e 4o"]
    s = settle(rec(hands, declared={"pares": [False, False, True, False]}))
    assert [d[:3] for d in disputes(s)] == [(0, "pares", "undeclared")]
    assert line(s, "pares") == [(0, 1, "only team 0 has pares: seat 2 pareja")]
    assert s["lances"]["pares"]["stones"] == 1
