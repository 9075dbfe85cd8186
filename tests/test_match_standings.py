"""Club standings (RULES.md "Club standings"; seed 002 art. 25 and 31)."""

from __future__ import annotations

import pytest

from scorer.engine.errors import MalformedError
from scorer.engine.standings import standings


def result(a: str, b: str, va: int, vb: int, sa: int = 0, sb: int = 0) -> dict:
    return {"teams": [a, b], "vacas": [va, vb], "stones": [sa, sb], "winner": 0 if va > vb else 1}


def order(rows: list[dict]) -> list[str]:
    return [r["team"] for r in rows]


def test_matches_won_first() -> None:
    rows = standings([result("A", "B", 3, 0), result("A", "C", 3, 2), result("C", "B", 3, 1)])
    assert order(rows) == ["A", "C", "B"]
    a = rows[0]
    assert (a["played"], a["won"], a["lost"], a["vacas_won"], a["vacas_lost"]) == (2, 2, 0, 6, 2)
    assert [r["rank"] for r in rows] == [1, 2, 3]


def test_then_vacas_won_in_lost_matches() -> None:
    # A and B each win one match; A took 2 vacas in the match it lost, B only 1.
    rows = standings([result("A", "C", 3, 0), result("B", "D", 3, 0), result("A", "D", 2, 3), result("B", "C", 1, 3)])
    # All four won one match; A took 2 vacas in its lost match, B 1, C and D none (C lost fewer vacas).
    assert order(rows) == ["A", "B", "C", "D"]
    assert [r["vacas_won_in_lost"] for r in rows] == [2, 1, 0, 0]
    assert [r["vacas_lost"] for r in rows] == [3, 3, 4, 5]


def test_vacas_won_in_lost_beats_fewest_vacas_lost() -> None:
    # A: won 1 (3-2), lost 1 (2-3): in lost 2, lost 5 vacas. B: won 1 (3-0), lost 1 (0-3): in lost 0, lost 3.
    rows = standings([result("A", "X", 3, 2), result("Y", "A", 3, 2), result("B", "Z", 3, 0), result("W", "B", 3, 0)])
    names = order(rows)
    assert names.index("A") < names.index("B")


def test_then_fewest_vacas_lost() -> None:
    # Both won one match 3-x and lost one 0-3 (no vacas in the lost match); A conceded fewer.
    rows = standings([result("A", "X", 3, 0), result("Y", "A", 3, 0), result("B", "Z", 3, 2), result("W", "B", 3, 0)])
    names = order(rows)
    assert names.index("A") < names.index("B")
    a = next(r for r in rows if r["team"] == "A")
    b = next(r for r in rows if r["team"] == "B")
    assert (a["vacas_lost"], b["vacas_lost"]) == (3, 5)


def test_then_stones() -> None:
    rows = standings([result("A", "X", 3, 0, 120, 40), result("B", "Y", 3, 0, 130, 50)])
    assert order(rows)[:2] == ["B", "A"]
    assert rows[0]["stones"] == 130


def test_then_head_to_head() -> None:
    # A, B, C each win one and lose one 3-0 with equal stones: a circle. D beat by nobody.
    # A and B tied on everything; A beat B.
    results = [
        result("A", "B", 3, 0, 100, 50),
        result("B", "C", 3, 0, 100, 50),
        result("C", "A", 0, 3, 50, 100),
        result("B", "A", 3, 0, 100, 50),
    ]
    # A: won 2 lost 1; B: won 2 lost 1; C: lost 2.
    rows = standings(results)
    assert order(rows)[2] == "C"
    a, b = rows[0], rows[1]
    assert (a["won"], b["won"]) == (2, 2)
    # equal on won, vacas in lost (0), vacas lost (3), stones (250): head-to-head 1-1: shared rank
    assert a["rank"] == b["rank"] == 1
    assert rows[2]["rank"] == 3


def test_head_to_head_decides() -> None:
    results = [
        result("A", "B", 3, 1, 100, 100),
        result("C", "A", 3, 1, 100, 100),
        result("B", "D", 3, 1, 100, 100),
        result("C", "D", 3, 1, 100, 100),
    ]
    rows = standings(results)
    # A and B: won 1, lost 1 (1 vaca in it), 4 vacas lost, 200 stones; A beat B.
    assert order(rows) == ["C", "A", "B", "D"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert (rows[1]["head_to_head"], rows[2]["head_to_head"]) == (1, 0)


def test_three_way_circle_shares_the_rank() -> None:
    results = [result("A", "B", 3, 1), result("B", "C", 3, 1), result("C", "A", 3, 1)]
    rows = standings(results)
    assert [r["rank"] for r in rows] == [1, 1, 1]
    assert order(rows) == ["A", "B", "C"]


def test_winner_by_name_and_derived() -> None:
    rows = standings([{"teams": ["A", "B"], "vacas": [1, 3], "winner": "B"}, {"teams": ["A", "C"], "vacas": [3, 2]}])
    assert order(rows) == ["A", "B", "C"]
    a = rows[0]
    assert (a["won"], a["lost"], a["vacas_won_in_lost"]) == (1, 1, 1)


def test_unfinished_match_only_lists_teams() -> None:
    rows = standings([{"teams": ["A", "B"], "vacas": [1, 1], "winner": None}])
    assert {r["team"] for r in rows} == {"A", "B"}
    assert all(r["played"] == 0 for r in rows)


@pytest.mark.parametrize(
    "bad",
    [
        {"teams": ["A"], "vacas": [1, 3]},
        {"teams": ["A", "A"], "vacas": [1, 3]},
        {"teams": ["A", "B"], "vacas": [1]},
        {"teams": ["A", "B"], "vacas": [1, 3], "winner": "C"},
        {"teams": ["A", "B"], "vacas": [1, 3], "winner": 2},
        {"teams": ["A", "B"], "vacas": [-1, 3]},
    ],
)
def test_bad_results_name_the_field(bad: dict) -> None:
    with pytest.raises(MalformedError, match=r"results\[0\]\."):
        standings([bad])


def test_empty() -> None:
    assert standings([]) == []


@pytest.mark.parametrize("n", range(2, 13))
def test_round_robin_meets_every_pair_once_and_nobody_twice_a_round(n: int) -> None:
    from scorer.engine import round_robin

    teams = [f"T{k}" for k in range(n)]
    rounds = round_robin(teams)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    met = [frozenset(p) for r in rounds for p in r]
    assert len(met) == len(set(met)) == n * (n - 1) // 2  # every pair once
    for r in rounds:
        playing = [t for p in r for t in p]
        assert len(playing) == len(set(playing)) == n - n % 2  # nobody twice; one rests when n is odd
    assert round_robin(teams) == rounds  # the same fixtures every time
    first = [p[0] for r in rounds for p in r]
    assert 0 < first.count("T0") < n - 1 or n <= 2  # T0 is not always first


def test_round_robin_refuses_a_team_named_twice() -> None:
    from scorer.engine import MalformedError, round_robin

    with pytest.raises(MalformedError) as err:
        round_robin(["A", "B", "C", "A"])
    # the team and its places, not the whole list quoted
    assert str(err.value) == 'teams[3]: "A" is named twice (teams[0] and teams[3])'
    assert (err.value.field, err.value.value) == ("teams[3]", "A")


@pytest.mark.parametrize("n", range(2, 9))
def test_round_robin_return_leg_swaps_every_pairing(n: int) -> None:
    from scorer.engine import round_robin

    teams = [f"T{k}" for k in range(n)]
    one, two = round_robin(teams), round_robin(teams, legs=2)
    assert two[: len(one)] == one  # the first leg as before
    assert two[len(one):] == [[(b, a) for a, b in r] for r in one]  # then each pairing with its sides swapped
    played = [p for r in two for p in r]
    assert len(played) == len(set(played)) == n * (n - 1)  # every ordered pair once: home and away


@pytest.mark.parametrize("legs", [0, 3, True, "2"])
def test_round_robin_refuses_other_legs(legs: object) -> None:
    from scorer.engine import MalformedError, round_robin

    with pytest.raises(MalformedError, match=r"legs: .* is neither 1 nor 2"):
        round_robin(["A", "B"], legs=legs)  # type: ignore[arg-type]


def test_team_key_folds_case_accents_and_spaces() -> None:
    from scorer.engine import team_key

    assert team_key(" Gorriák ") == team_key("GORRIAK") == team_key("gorriak") == "gorriak"
    assert team_key("Los  de\tArriba") == "los de arriba"
    assert team_key("Gorriak") != team_key("Gorriak B")


def test_round_robin_refuses_a_team_spelt_twice() -> None:
    from scorer.engine import MalformedError, round_robin

    with pytest.raises(MalformedError) as err:
        round_robin(["Gorriak", "Beltzak", "gorriak"])
    assert str(err.value) == 'teams[2]: "gorriak" is "Gorriak" again (teams[0] and teams[2])'


def test_spellings_of_one_name_are_one_team() -> None:
    # Gorriak beat Beltzak 3-1, then "gorriak" (typed on another phone) lost 2-3 to "BELTZAK":
    # one row each, won 1 lost 1; Gorriak won 2 vacas in its loss, Beltzak 1 in its.
    rows = standings([
        {"teams": ["Gorriak", "Beltzak"], "vacas": [3, 1], "stones": [100, 50]},
        {"teams": ["gorriak ", "BELTZAK"], "vacas": [2, 3], "stones": [70, 90]},
    ])
    assert [(r["team"], r["played"], r["won"], r["lost"], r["vacas_won_in_lost"]) for r in rows] == [
        ("Gorriak", 2, 1, 1, 2), ("Beltzak", 2, 1, 1, 1)]
    assert [r["stones"] for r in rows] == [170, 140]


def test_names_give_the_spelling_shown() -> None:
    rows = standings([{"teams": ["gorriak", "beltzak"], "vacas": [3, 0]}], names=["Gorriak", "Beltzak", "Urdinak"])
    assert [r["team"] for r in rows] == ["Gorriak", "Beltzak"]


def test_head_to_head_across_spellings() -> None:
    # A and B tie on every count; "b" beat "a" when they met, spelt otherwise.
    rows = standings([
        {"teams": ["A", "C"], "vacas": [3, 0]},
        {"teams": ["B", "D"], "vacas": [3, 0]},
        {"teams": ["b", "a"], "vacas": [3, 0]},  # B beat A
        {"teams": ["a ", "d"], "vacas": [3, 0]},
        {"teams": ["B", "c"], "vacas": [0, 3]},
    ])
    # A: won 2 (C, D) lost 1 (B); B: won 2 (D, A) lost 1 (C); tied on everything else
    top = rows[:2]
    assert [r["team"] for r in top] == ["B", "A"]
    assert [r["head_to_head"] for r in top] == [1, 0]
    assert [r["rank"] for r in top] == [1, 2]


def test_one_team_spelt_twice_in_a_result_is_refused() -> None:
    from scorer.engine import MalformedError

    with pytest.raises(MalformedError, match=r"results\[0\]\.teams"):
        standings([{"teams": ["Gorriak", "GORRIAK"], "vacas": [3, 0]}])


@pytest.mark.parametrize("n", [2, 4, 8, 16, 32])
def test_knockout_draw_keeps_the_top_seeds_apart(n: int) -> None:
    from scorer.engine import knockout_draw

    seeds = [f"S{k}" for k in range(1, n + 1)]
    pairs = knockout_draw(seeds)
    assert len(pairs) == n // 2 and sorted(t for p in pairs for t in p) == sorted(seeds)  # every seed once
    assert pairs[0] == ("S1", f"S{n}")  # the first meets the last
    assert all(int(a[1:]) + int(b[1:]) == n + 1 for a, b in pairs)  # and so on inwards
    # seeds 1..2^k sit in 2^k different parts of the bracket: they cannot meet before
    # the round in which 2^k teams are left
    k = 1
    while 2 ** k <= n:
        part = n // 2 ** k  # teams in one part of the bracket
        slots = [t for p in pairs for t in p]  # the bracket from top to bottom
        top = [slots.index(f"S{s}") // part for s in range(1, 2 ** k + 1)]
        assert len(set(top)) == 2 ** k, (k, top)
        k += 1


@pytest.mark.parametrize("seeds", [[], ["A"], ["A", "a"], ["A", "B", "a"]])
def test_knockout_draw_refuses_fewer_than_two_and_a_team_twice(seeds: list[str]) -> None:
    from scorer.engine import MalformedError, knockout_draw

    with pytest.raises(MalformedError, match="teams"):
        knockout_draw(seeds)


def test_knockout_draw_names_the_team_seeded_twice() -> None:
    from scorer.engine import MalformedError, knockout_draw

    with pytest.raises(MalformedError) as err:
        knockout_draw(["A", "B", "C", "b"])
    assert str(err.value) == 'teams[3]: "b" is "B" again (teams[1] and teams[3])'


@pytest.mark.parametrize(("n", "first_round"), [
    (3, [("S1", None), ("S2", "S3")]),
    (5, [("S1", None), ("S4", "S5"), ("S2", None), ("S3", None)]),
    (6, [("S1", None), ("S4", "S5"), ("S2", None), ("S3", "S6")]),
    (7, [("S1", None), ("S4", "S5"), ("S2", "S7"), ("S3", "S6")]),
])
def test_knockout_draw_gives_the_top_seeds_the_byes(n: int, first_round: list) -> None:
    from scorer.engine import knockout_draw

    seeds = [f"S{k}" for k in range(1, n + 1)]
    assert knockout_draw(seeds) == first_round  # the next power of two, the byes (None) last


def _played(results: dict) -> list[dict]:
    """Finished matches `{teams, table, ranked, vacas, finished, winner}`: `results` maps
    a pairing (a frozenset of two teams) to its winner, won 2-1."""
    out = []
    for k, (teams, winner) in enumerate(results.items()):
        a, b = sorted(teams)
        out.append({"teams": [a, b], "table": f"t{k}", "ranked": True, "vacas": [2, 1] if winner == a else [1, 2],
                    "finished": True, "winner": 0 if winner == a else 1})
    return out


def test_a_bracket_of_three_plays_out_with_a_bye() -> None:
    from scorer.engine.tournament import knockout

    seeds = ["Gorriak", "Urdinak", "Berdeak"]
    bracket = knockout(seeds, [])
    semi = bracket["rounds"][0]
    assert semi[0] == {"teams": ["Gorriak", None], "table": None, "result": None, "walkover": None, "vacas": None, "finished": True,
                       "winner": "Gorriak", "bye": True, "withdrawn": None, "not_played": False}  # through at once, with no table
    assert semi[1]["teams"] == ["Urdinak", "Berdeak"] and semi[1]["bye"] is False and semi[1]["winner"] is None
    assert bracket["rounds"][1][0]["teams"] == ["Gorriak", None] and bracket["champion"] is None
    # Berdeak win their semi-final, then beat the top seed in the final
    matches = _played({frozenset(["Urdinak", "Berdeak"]): "Berdeak", frozenset(["Gorriak", "Berdeak"]): "Berdeak"})
    bracket = knockout(seeds, matches)
    assert bracket["rounds"][1][0]["teams"] == ["Gorriak", "Berdeak"]
    assert bracket["champion"] == "Berdeak"
    assert knockout(seeds, matches, third_place=True)["third_place"] is None  # no two semi-finals lost


@pytest.mark.parametrize(("n", "rounds"), [
    (5, [[["S1", None], ["S4", "S5"], ["S2", None], ["S3", None]], [["S1", "S5"], ["S2", "S3"]], [["S1", "S3"]]]),
    (6, [[["S1", None], ["S4", "S5"], ["S2", None], ["S3", "S6"]], [["S1", "S5"], ["S2", "S6"]], [["S1", "S6"]]]),
    (7, [[["S1", None], ["S4", "S5"], ["S2", "S7"], ["S3", "S6"]], [["S1", "S5"], ["S7", "S6"]], [["S1", "S7"]]]),
])
def test_brackets_of_five_six_and_seven_play_out_with_byes(n: int, rounds: list) -> None:
    """The lower seed wins every match but the top seed's: who meets whom each round, the
    champion, and the third place between the semi-finals' losers."""
    from scorer.engine.tournament import knockout

    seeds = [f"S{k}" for k in range(1, n + 1)]
    results: dict = {}
    for _ in range(3):  # each round's winners, as far as they are known
        bracket = knockout(seeds, _played(results))
        for games in bracket["rounds"]:
            for g in games:
                a, b = g["teams"]
                if a and b and not g["bye"]:
                    results[frozenset([a, b])] = a if a == "S1" else max(a, b, key=lambda t: int(t[1:]))
    bracket = knockout(seeds, _played(results), third_place=True)
    assert [[g["teams"] for g in games] for games in bracket["rounds"]] == rounds
    assert [g["bye"] for g in bracket["rounds"][0]] == [g[1] is None for g in rounds[0]]
    assert all(g["table"] is None for g in bracket["rounds"][0] if g["bye"])
    assert all(not g["bye"] for games in bracket["rounds"][1:] for g in games)  # byes only in the first round
    assert bracket["champion"] == "S1"
    semis = bracket["rounds"][-2]
    losers = [g["teams"][1] if g["winner"] == g["teams"][0] else g["teams"][0] for g in semis]
    assert bracket["third_place"]["teams"] == losers and bracket["third"] is None  # not played yet


def test_tie_breaks_name_what_split_each_tie_on_matches_won() -> None:
    from scorer.engine.standings import tie_breaks

    # test_then_vacas_won_in_lost_matches: all four won one match
    rows = standings([result("A", "C", 3, 0), result("B", "D", 3, 0), result("A", "D", 2, 3), result("B", "C", 1, 3)])
    assert tie_breaks(rows) == [
        {"ahead": "A", "behind": "B", "by": "vacas_won_in_lost", "values": [2, 1]},
        {"ahead": "B", "behind": "C", "by": "vacas_won_in_lost", "values": [1, 0]},
        {"ahead": "C", "behind": "D", "by": "vacas_lost", "values": [4, 5]}]
    rows = standings([result("A", "X", 3, 0, 120, 40), result("B", "Y", 3, 0, 130, 50)])
    assert tie_breaks(rows)[0] == {"ahead": "B", "behind": "A", "by": "stones", "values": [130, 120]}
    # test_head_to_head_decides: C won two, then A and B split by their meeting, D lost two
    rows = standings([result("A", "B", 3, 1, 100, 100), result("C", "A", 3, 1, 100, 100),
                      result("B", "D", 3, 1, 100, 100), result("C", "D", 3, 1, 100, 100)])
    assert tie_breaks(rows) == [{"ahead": "A", "behind": "B", "by": "head_to_head", "values": [1, 0]}]
    # a circle: level on everything, the place shared
    rows = standings([result("A", "B", 3, 1), result("B", "C", 3, 1), result("C", "A", 3, 1)])
    assert [(x["ahead"], x["behind"], x["by"]) for x in tie_breaks(rows)] == [("A", "B", None), ("B", "C", None)]
    assert tie_breaks(standings([result("A", "B", 3, 1)])) == []  # matches won split them


def test_a_team_withdrawn_with_its_results_annulled_leaves_the_standings_with_its_matches() -> None:
    """A pair that withdraws half way: with its results annulled, every other team is
    ranked on the matches between them alone, and the pair is not ranked at all."""
    results = [result("A", "B", 3, 0), result("C", "A", 3, 1), result("B", "C", 3, 2), result("B", "D", 3, 0)]
    rows = standings(results, withdrawn={"d": "annulled"})  # by team_key, as the league spells it or not
    assert sorted(order(rows)) == ["A", "B", "C"] and all("withdrawn" not in r for r in rows)
    assert [r["played"] for r in rows] == [2, 2, 2]
    assert rows == standings(results[:3])


def test_a_team_withdrawn_with_its_results_standing_is_ranked_last_and_marked() -> None:
    from scorer.engine.standings import tie_breaks

    results = [result("A", "B", 3, 0), result("A", "C", 3, 1), result("D", "B", 3, 0), result("D", "C", 3, 2)]
    rows = standings(results, withdrawn={"A": "stand"})
    assert order(rows) == ["D", "C", "B", "A"] and [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert rows[-1]["withdrawn"] is True and (rows[-1]["won"], rows[-1]["played"]) == (2, 2)  # its results stand
    assert rows[0]["won"] == 2 and "withdrawn" not in rows[0]
    assert all("A" not in (x["ahead"], x["behind"]) for x in tie_breaks(rows))  # last for withdrawing, no tie
    with pytest.raises(MalformedError, match="withdrawn"):
        standings(results, withdrawn={"A": "forfeit"})


# -- a league's draw, kept when its teams change -------------------------------------------

def _table(a: str, b: str, n: int, finished: bool = True) -> dict:
    """A league match as a tournament's state lists it, won by `a`."""
    return {"table": f"t{n}", "teams": [a, b], "ranked": True, "vacas": [2, 0], "finished": finished,
            "winner": 0 if finished else None}


def _rounds(draw: list, group: int = 0) -> list[list[tuple[str, str]]]:
    return [[tuple(p) for p in pairs] for leg in draw[group] for pairs in leg]


def test_a_draw_with_nothing_played_is_the_round_robin() -> None:
    from scorer.engine.standings import round_robin
    from scorer.engine.tournament import redraw, standard_draw

    teams = ["A", "B", "C", "D", "E", "F"]
    assert _rounds(standard_draw([teams], 2)) == round_robin(teams, 2)
    assert redraw(standard_draw([teams + ["G"]]), [teams], 1, []) == standard_draw([teams])


def test_a_team_taken_out_leaves_every_other_pairing_in_its_round() -> None:
    """8 pairs, three rounds played but for C's matches: taking C out (nothing of its played)
    keeps every pairing played and to play where it was; one pair rests each round (the
    round robin of the 7 left puts them elsewhere)."""
    from scorer.engine.tournament import draw_fixtures, moves, redraw, standard_draw

    teams = list("ABCDEFGH")
    old = standard_draw([teams])
    played = [_table(a, b, n) for n, (a, b) in enumerate(p for pairs in _rounds(old)[:3] for p in pairs)
              if "C" not in (a, b)]
    left = [t for t in teams if t != "C"]
    new = redraw(old, [left], 1, played)
    assert _rounds(new) == [[p for p in pairs if "C" not in p] for pairs in _rounds(old)]
    assert _rounds(new) != _rounds(standard_draw([left]))
    before, after = draw_fixtures(old, played), draw_fixtures(new, played)
    assert moves(before, None, after, None) == []
    # the same teams again: the draw as it was
    assert redraw(new, [left], 1, played) == new


def test_a_team_taken_out_of_an_odd_home_and_away_league_leaves_the_return_leg_in_its_rounds() -> None:
    """3 pairs, two legs: Bixente taken out (it played nothing), the first leg loses a round
    of its own, but the return leg's Ane-Iker, played in round 5, stays in round 5."""
    from scorer.engine.tournament import draw_fixtures, moves, redraw, standard_draw

    old = standard_draw([["Ane", "Bixente", "Iker"]], 2)
    played = [_table("Iker", "Ane", 1), _table("Ane", "Iker", 2)]
    before = draw_fixtures(old, played)
    assert [k for k, games in enumerate(before, 1) for g in games if g["table"]] == [2, 5]
    new = redraw(old, [["Ane", "Iker"]], 2, played)
    assert moves(before, None, draw_fixtures(new, played), None) == []
    assert [len(leg) for leg in new[0]] == [3, 3]  # the calendar as it was: the return leg from round 4
    assert redraw(new, [["Ane", "Iker"]], 2, played) == new  # saved again: as it was


def _random_league(rng):
    """A league drawn at random (1 to 3 groups of 2 to 7, one of 3 to 8 alone; 1 or 2 legs)
    with a third of its pairings played or begun."""
    from scorer.engine.tournament import standard_draw

    names = iter(f"T{n:02d}" for n in range(99))
    count = rng.choice([1, 1, 2, 3])
    groups = [[next(names) for _ in range(rng.randint(3, 8) if count == 1 else rng.randint(2, 7))]
              for _ in range(count)]
    legs = rng.choice([1, 2])
    draw = standard_draw(groups, legs)
    pairs = [p for group in draw for leg in group for games in leg for p in games]
    played = [_table(a, b, n, rng.random() < 0.8) for n, (a, b) in enumerate(pairs) if rng.random() < 0.3]
    return groups, legs, draw, played


def test_a_pair_taken_out_that_played_nothing_moves_no_fixture_played_or_begun() -> None:
    """Over leagues drawn at random (odd and even, one leg or two, in groups or not): a team
    that played nothing taken out leaves every pairing played or begun in its round and on
    its date, and the save asks nothing."""
    import random

    from scorer.engine.tournament import draw_fixtures, moves, redraw

    rng = random.Random(20240611)
    tried = set()
    for _ in range(1500):
        groups, legs, old, played = _random_league(rng)
        busy = {t for m in played for t in m["teams"]}
        idle = [t for group in groups for t in group if t not in busy and (len(groups) == 1 or len(group) > 2)]
        if not played or not idle:
            continue
        out = rng.choice(idle)
        left = [[t for t in group if t != out] for group in groups]
        grouped = len(groups) > 1
        before, after = draw_fixtures(old, played, grouped), draw_fixtures(redraw(old, left, legs, played), played, grouped)
        dates = [f"2026-{1 + k // 28:02d}-{1 + k % 28:02d}" for k in range(max(len(before), len(after)))]
        assert moves(before, dates, after, dates) == [], (groups, legs, out, played)
        tried.add((len(groups), legs, len(next(g for g in groups if out in g)) % 2))
    assert len(tried) == 12  # every kind of league met


def test_a_team_added_after_some_rounds_keeps_the_played_pairings_in_theirs() -> None:
    from scorer.engine.tournament import draw_fixtures, moves, redraw, standard_draw

    teams = list("ABCDEF")
    old = standard_draw([teams])
    played = [_table(a, b, n) for n, (a, b) in enumerate(p for pairs in _rounds(old)[:2] for p in pairs)]
    new = redraw(old, [teams + ["G", "H"]], 1, played)
    rounds = _rounds(new)
    assert rounds[:2] == [pairs + rounds[k][len(pairs):] for k, pairs in enumerate(_rounds(old)[:2])]
    pairs = [frozenset(p) for r in rounds for p in r]
    assert len(pairs) == len(set(pairs)) == 28  # every pair of 8 once
    assert all(len({t for p in r for t in p}) == 2 * len(r) for r in rounds)  # nobody twice in a round
    assert len(rounds) <= 9
    assert moves(draw_fixtures(old, played), None, draw_fixtures(new, played), None) == []


def test_a_second_leg_added_keeps_the_first_and_mirrors_it() -> None:
    from scorer.engine.tournament import redraw, standard_draw

    teams = list("ABCDE")
    old = standard_draw([teams])
    played = [_table(*_rounds(old)[1][0], 1)]
    assert redraw(old, [teams], 2, played) == standard_draw([teams], 2)


def test_moves_name_each_played_fixture_out_of_its_round_or_date() -> None:
    from scorer.engine.tournament import draw_fixtures, moves, redraw, standard_draw

    teams = list("ABCD")
    old = standard_draw([teams])
    (a, b) = _rounds(old)[1][0]
    played = [_table(a, b, 1)]
    before = draw_fixtures(old, played)
    # its team gone: out of the fixtures
    gone = next(t for t in teams if t not in (a, b))
    keep = [t for t in teams if t != a]
    after = draw_fixtures(redraw(old, [keep], 1, played), played)
    assert moves(before, None, after, None) == [{"teams": [a, b], "table": "t1", "round": 2, "date": None,
                                                  "to_round": None, "to_date": None}]
    # the same round on another date
    same = draw_fixtures(redraw(old, [teams], 1, played), played)
    assert moves(before, ["2026-01-05", "2026-01-12", "2026-01-19"], same, ["2026-01-05", "2026-01-13", "2026-01-21"]
                 ) == [{"teams": [a, b], "table": "t1", "round": 2, "date": "2026-01-12", "to_round": 2,
                        "to_date": "2026-01-13"}]
    assert moves(before, None, same, ["2026-01-05", "2026-01-13", "2026-01-21"]) == []  # dated now, not moved
    assert gone  # (a team that played nothing may go: nothing moves)
    rest = [t for t in teams if t != gone]
    assert moves(before, None, draw_fixtures(redraw(old, [rest], 1, played), played), None) == []
