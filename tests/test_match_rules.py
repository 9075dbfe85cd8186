"""Matches: RULES.md "Game, vaca, match", and the mus-match/1 replay.

Hands with known outcomes (kings 8): `strong(team)` gives that team four reyes and four
caballos, the other four ases and four 4s. All passing, the strong team scores grande 1,
pares 6 (two duples) and juego 4 (two 40s, uncontested): 11 stones; the other chica 1.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from scorer.engine.errors import IllegalError, MalformedError, MusError
from scorer.engine.match import Match, replay_match
from scorer.engine.record import parse_hand
from scorer.engine.rules import Rules
from scorer.engine.standings import standings

KINGS = ["12o", "12c", "12e", "12b"]
ASES = ["1o", "1c", "1e", "1b"]
HORSES = ["11o", "11c", "11e", "11b"]
FOURS = ["4o", "4c", "4e", "4b"]


def strong(team: int, esku: int | None = None, grande: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A hand won mostly by `team`; `grande` bets optional; `esku` named only when given."""
    hands = [KINGS, ASES, HORSES, FOURS] if team == 0 else [ASES, KINGS, FOURS, HORSES]
    hand: dict[str, Any] = {"hands": [list(h) for h in hands]}
    if esku is not None:
        hand["esku"] = esku
    if grande:
        hand["bets"] = {"grande": grande}
    return hand


def ordago(team: int, esku: int) -> dict[str, Any]:
    """`team` wins the game by an órdago at grande accepted at once (esku must be named)."""
    return strong(team, esku, [{"seat": esku, "act": "ordago"}, {"seat": (esku + 1) % 4, "act": "quiero"}])


def envido_quiero(team: int, esku: int, n: int) -> dict[str, Any]:
    """Grande envido n, accepted: `team` scores n + 10, the other team 1."""
    return strong(team, esku, [{"seat": esku, "act": "envido", "n": n}, {"seat": (esku + 1) % 4, "act": "quiero"}])


def play_all(match: Match, hands: list[dict]) -> list[dict]:
    return [match.play(h) for h in hands]


# -- game ------------------------------------------------------------------------------------

def test_scores_accumulate_and_the_game_ends_at_40() -> None:
    m = Match(Rules())
    s = play_all(m, [strong(0), strong(0), strong(0)])
    assert [x["score"] for x in s] == [[11, 1], [22, 2], [33, 3]]
    assert m.state()["score"] == [33, 3] and m.state()["games"] == [0, 0]
    last = m.play(strong(0))
    assert last["game_over"] and last["winner"] == 0
    assert last["score"][0] >= 40
    state = m.state()
    assert state["score"] == [0, 0], "scores go back to 0 after a game"
    assert state["vacas"] == [1, 0] and state["games"] == [0, 0]
    assert state["game_scores"] == []
    assert state["hands"] == 4


def test_target_30() -> None:
    m = Match(Rules(target=30))
    play_all(m, [strong(1), strong(1)])
    assert m.state()["score"] == [2, 22]
    s = m.play(strong(1))
    assert s["game_over"] and s["winner"] == 1
    assert m.state()["vacas"] == [0, 1]


def test_game_scores_track_the_current_game() -> None:
    m = Match(Rules())
    play_all(m, [strong(0), strong(1)])
    assert m.state()["game_scores"] == [[11, 1], [12, 12]]


def test_adentro_at_target_minus_5() -> None:
    m = Match(Rules())
    m.play(envido_quiero(0, 0, 3))  # 13-1
    m.play(envido_quiero(0, 1, 3))  # 26-2
    assert m.state()["adentro"] == [False, False]
    s = m.play(envido_quiero(0, 2, 3))  # 39-3
    assert s["score"] == [39, 3]
    assert m.state()["adentro"] == [True, False]
    assert s["adentro"] == [True, False]
    m.play(strong(0))  # the game ends: nobody is adentro in the new game
    assert m.state()["adentro"] == [False, False]


def test_adentro_from_exactly_35_not_34() -> None:
    m = Match(Rules())
    play_all(m, [envido_quiero(0, 0, 2), strong(0), strong(0)])  # 12-1, 23-2, 34-3
    assert m.state()["score"] == [34, 3] and m.state()["adentro"] == [False, False]
    m = Match(Rules())
    play_all(m, [envido_quiero(0, 0, 3), strong(0), strong(0)])  # 13-1, 24-2, 35-3
    assert m.state()["score"] == [35, 3] and m.state()["adentro"] == [True, False]


def test_adentro_at_25_of_30() -> None:
    m = Match(Rules(target=30))
    m.play(envido_quiero(1, 0, 5))  # team 1: 15 + ... wait: strong(1) scores n + 10
    assert m.state()["score"] == [1, 15]
    m.play(envido_quiero(1, 1, 2))  # 2-27
    assert m.state()["score"] == [2, 27]
    assert m.state()["adentro"] == [False, True]


# -- vaca and match ------------------------------------------------------------------------

def test_one_game_a_vaca_three_vacas_win() -> None:
    m = Match(Rules())
    for esku in range(3):
        assert m.state()["winner"] is None
        m.play(ordago(0, m.state()["esku"]))
        assert m.state()["vacas"] == [esku + 1, 0]
    assert m.state()["winner"] == 0
    assert m.over


@pytest.mark.parametrize("per_vaca", [1, 2, 3])
def test_games_per_vaca(per_vaca: int) -> None:
    m = Match(Rules(games_per_vaca=per_vaca))
    for g in range(1, per_vaca):
        m.play(ordago(1, m.state()["esku"]))
        assert m.state()["games"] == [0, g] and m.state()["vacas"] == [0, 0]
    m.play(ordago(1, m.state()["esku"]))
    assert m.state()["games"] == [0, 0], "games count inside the vaca"
    assert m.state()["vacas"] == [0, 1]


def test_games_of_both_teams_inside_a_vaca() -> None:
    m = Match(Rules(games_per_vaca=2))
    m.play(ordago(0, 0))
    m.play(ordago(1, 1))
    assert m.state()["games"] == [1, 1] and m.state()["vacas"] == [0, 0]
    m.play(ordago(1, 2))
    assert m.state()["games"] == [0, 0] and m.state()["vacas"] == [0, 1]


def test_at_most_five_vacas_and_vacas_to_win() -> None:
    m = Match(Rules(vacas_to_win=3))
    for team in (0, 1, 0, 1, 1):
        assert m.state()["winner"] is None
        m.play(ordago(team, m.state()["esku"]))
    assert m.state()["vacas"] == [2, 3] and m.state()["winner"] == 1
    m1 = Match(Rules(vacas_to_win=1))
    m1.play(ordago(0, 0))
    assert m1.state()["winner"] == 0


def test_a_finished_match_refuses_hands_and_does_not_change() -> None:
    m = Match(Rules(vacas_to_win=1), teams=("Txuriak", "Beltzak"))
    m.play(ordago(1, 0))
    before = m.state()
    with pytest.raises(IllegalError, match="the match is over: Beltzak won"):
        m.play(strong(0))
    assert m.state() == before


# -- esku ---------------------------------------------------------------------------------------

def test_esku_turns_each_hand() -> None:
    m = Match(Rules(), esku=2)
    seen = []
    for _ in range(5):
        seen.append(m.state()["esku"])
        m.play(strong(0))
    assert seen == [2, 3, 0, 1, 2]
    assert [e["record"]["esku"] for e in m.history] == [2, 3, 0, 1, 2]


def test_esku_named_by_a_line_and_the_turn_goes_on_from_there() -> None:
    m = Match(Rules())
    m.play(strong(0))  # esku 0
    m.play(ordago(0, 1))  # esku 1: game over
    assert m.state()["esku"] == 2
    m.play(strong(1, esku=0))  # mus corrido: the new game's first hand names its esku
    assert m.history[-1]["record"]["esku"] == 0
    assert m.state()["esku"] == 1
    m.play(strong(1))
    assert m.history[-1]["record"]["esku"] == 1


def test_a_hand_inside_a_game_may_name_another_esku() -> None:
    # HAND-RECORD.md "A match": "a line may still name its esku ..., and the turn goes on from there"
    m = Match(Rules())
    m.play(strong(0))  # esku 0; the game goes on
    assert m.state()["esku"] == 1 and m.score != [0, 0]
    m.play(strong(1, esku=3))
    assert m.history[-1]["record"]["esku"] == 3
    assert m.state()["esku"] == 0  # the turn goes on from the named seat
    replayed = Match.from_lines(lines_of(HEADER, strong(0), strong(1, esku=1), strong(1)))
    assert [e["record"]["esku"] for e in replayed.history] == [3, 1, 2]  # the header's 3, then 0 named 1


def test_match_records_carry_a_hands_rules_and_refuse_others() -> None:
    m = Match(Rules(games_per_vaca=2, vacas_to_win=1))
    m.play({**strong(0), "rules": {"kings": 8, "games_per_vaca": 2}})  # the match's own: fine
    assert m.history[-1]["record"]["rules"] == {"kings": 8, "target": 40, "real31": False}
    with pytest.raises(IllegalError, match=r"^rules\.games_per_vaca: 3 differs from the match rules \(2\); "
                       r"games_per_vaca belongs in the mus-match/1 header's rules, not a hand's$"):
        m.play({**strong(1), "rules": {"games_per_vaca": 3}})
    with pytest.raises(IllegalError, match=r"^rules\.vacas_to_win: 2 differs .*header's rules"):
        m.play({**strong(1), "rules": {"vacas_to_win": 2}})
    with pytest.raises(MalformedError, match=r'^rules\.kigns: "kigns" is not a rule'):
        m.play({**strong(1), "rules": {"kigns": 8}})
    assert len(m.history) == 1
    line = json.loads(m.to_lines()[1])
    assert "rules" not in line and "score" not in line


# -- errors change nothing ---------------------------------------------------------------------

@pytest.mark.parametrize(
    ("hand", "error", "field"),
    [
        ({"hands": [["8o", "12c", "12e", "12b"], ASES, HORSES, FOURS]}, MalformedError, "hands[0][0]"),
        ({"hands": [KINGS, KINGS, HORSES, FOURS]}, IllegalError, "hands"),
        ({"esku": 4, "hands": [KINGS, ASES, HORSES, FOURS]}, MalformedError, "esku"),
        ({"score": [3, 3], "hands": [KINGS, ASES, HORSES, FOURS]}, IllegalError, "score"),
        ({"rules": {"target": 30}, "hands": [KINGS, ASES, HORSES, FOURS]}, IllegalError, "rules.target"),
        ({"format": "mus-match/1"}, MalformedError, "format"),
        (["not", "a", "hand"], MalformedError, ""),
    ],
)
def test_bad_hands_change_nothing(hand: object, error: type[MusError], field: str) -> None:
    m = Match(Rules())
    m.play(strong(0))
    before = (m.state(), len(m.history))
    with pytest.raises(error) as info:
        m.play(hand)  # type: ignore[arg-type]
    assert info.value.field.startswith(field)
    assert (m.state(), len(m.history)) == before


def test_a_line_may_repeat_the_match_score_and_rules() -> None:
    m = Match(Rules())
    m.play(strong(0))
    m.play({**strong(0), "score": [11, 1], "rules": {"kings": 8, "target": 40}})
    assert m.state()["score"] == [22, 2]


def test_bad_match_setup() -> None:
    with pytest.raises(MalformedError, match="teams"):
        Match(Rules(), teams=("Only one",))
    with pytest.raises(MalformedError, match="players"):
        Match(Rules(), players=("A", "B", "C"))
    with pytest.raises(MalformedError, match="esku"):
        Match(Rules(), esku=4)
    with pytest.raises(MusError, match="games_per_vaca"):
        Match({"games_per_vaca": 4})


# -- mus-match/1 --------------------------------------------------------------------------------

HEADER = {"format": "mus-match/1", "rules": {"kings": 8, "target": 40, "vacas_to_win": 1},
          "teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"], "esku": 3}


def lines_of(*objs: object) -> list[str]:
    return [json.dumps(o) for o in objs]


def test_replay_rows_and_state() -> None:
    rows = replay_match(lines_of(HEADER, strong(0), strong(1), ordago(1, 1)))
    assert [r["hand"] for r in rows] == [1, 2, 3]
    assert [r["line"] for r in rows] == [2, 3, 4]
    assert [r["record"]["esku"] for r in rows] == [3, 0, 1]
    assert rows[0]["record"]["score"] == [0, 0] and rows[1]["record"]["score"] == [11, 1]
    assert rows[1]["state"]["score"] == [12, 12]
    assert rows[-1]["settlement"]["ordago"] is True
    assert rows[-1]["state"]["winner"] == 1 and rows[-1]["state"]["vacas"] == [0, 1]


def test_replay_skips_blank_lines_and_counts_them() -> None:
    text = "\n".join(lines_of(HEADER)) + "\n\n" + json.dumps(strong(0)) + "\n"
    rows = replay_match(text.split("\n"))
    assert rows[0]["line"] == 3


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{"hands": [["8o"]]', "line 3: not JSON"),
        ('{"esku": ' + "9" * 5000 + "}", "line 3: not JSON: a number of more than 4300 digits"),
        ('{"hands": ' + "[" * 5000 + "]" * 5000 + "}", "line 3: not JSON: arrays or objects nested too deep"),
        (json.dumps({"hands": [["8o", "12c", "12e", "12b"], ASES, HORSES, FOURS]}), 'line 3: hands[0][0]: "8o"'),
        (json.dumps(strong(0, esku=7)), "line 3: esku"),
    ],
)
def test_replay_errors_name_the_line(bad: str, message: str) -> None:
    with pytest.raises(MusError) as info:
        replay_match([*lines_of(HEADER, strong(0)), bad, json.dumps(strong(0))])
    assert str(info.value).startswith(message)
    assert info.value.line == 3


def test_replay_refuses_a_hand_after_the_winner() -> None:
    with pytest.raises(IllegalError, match="line 3: the match is over"):
        replay_match(lines_of(HEADER, ordago(0, 3), strong(0)))


def test_replay_needs_a_header() -> None:
    with pytest.raises(MalformedError, match="line 1: format"):
        replay_match(lines_of(strong(0)))
    with pytest.raises(MalformedError, match="line 1"):
        replay_match([])
    with pytest.raises(MusError, match="line 1: rules.target"):
        replay_match(lines_of({**HEADER, "rules": {"target": 50}}))


def test_header_and_lines_round_trip() -> None:
    m = Match.from_lines(lines_of(HEADER, strong(0), strong(1, esku=0)))  # the esku in turn, named
    assert m.header() == {**HEADER, "rules": Rules(vacas_to_win=1).to_json()}
    again = Match.from_lines(m.to_lines())
    assert again.state() == m.state()
    assert [e["settlement"] for e in again.history] == [e["settlement"] for e in m.history]


def test_results_feed_the_standings() -> None:
    a = Match(Rules(vacas_to_win=2), teams=("A", "B"))
    for team in (0, 1, 0):
        a.play(ordago(team, a.state()["esku"]))
    b = Match(Rules(vacas_to_win=2), teams=("B", "C"))
    for team in (0, 0):
        b.play(ordago(team, b.state()["esku"]))
    assert a.result()["winner"] == 0 and a.result()["vacas"] == [2, 1]
    rows = standings([a.result(), b.result()])
    # A and B won one match each; B took a vaca in the match it lost, A lost none.
    assert [r["team"] for r in rows] == ["B", "A", "C"]
    assert rows[0]["vacas_won_in_lost"] == 1


def test_a_live_hand_record_plays_in_the_match() -> None:
    from scorer.engine import LiveHand

    m = Match(Rules())
    m.play(strong(0))
    state = m.state()
    live = LiveHand.start(m.rules, state["esku"], tuple(state["score"]))
    while live.phase not in ("showdown", "over"):
        seat = live.to_speak
        if live.phase == "pares_declare":
            action = {"seat": seat, "act": "declare", "pares": True}  # four of a kind each
        elif live.phase == "juego_declare":
            action = {"seat": seat, "act": "declare", "juego": seat % 2 == 0}  # the 40s of team 0
        else:
            action = {"seat": seat, "act": "paso"}
        live = live.apply(action)
    record = live.to_record(strong(0)["hands"])
    assert record["score"] == [11, 1] and "rules" in record
    settlement = m.play(record)  # its score, rules and esku agree with the match's: accepted
    assert settlement["score"] == [22, 2] and settlement["disputes"] == []
    assert m.state()["esku"] == 2


def test_a_match_file_exported_before_with_every_rule_in_its_lines_is_read() -> None:
    """Until the records carried a hand's rules only, the web export (and `Match.to_lines`)
    wrote all the table's rules in every hand line, the match's length included, equal to
    the header's: such a file is still read (ruling 17), the length left out of the records
    and of a new export; a line whose length differs from the header's is refused."""
    rules = Rules(games_per_vaca=2, vacas_to_win=1).to_json()
    header = {"format": "mus-match/1", "rules": rules, "teams": ["A", "B"], "players": ["a", "b", "c", "d"], "esku": 0}
    old = [json.dumps(header), *(json.dumps({**strong(0), "esku": e, "rules": rules}) for e in (0, 1))]
    m = Match.from_lines(old)
    assert [e["record"]["rules"] for e in m.history] == [{"kings": 8, "target": 40, "real31": False}] * 2
    assert all("rules" not in json.loads(line) for line in m.to_lines()[1:])
    differs = [*old, json.dumps({**strong(0), "rules": {**rules, "vacas_to_win": 3}})]
    with pytest.raises(IllegalError, match=r"^line 4: rules\.vacas_to_win: 3 differs from the match rules \(1\); "
                       r"vacas_to_win belongs in the mus-match/1 header's rules"):
        Match.from_lines(differs)


def test_a_match_line_without_hands_or_with_a_bare_mas_is_refused() -> None:
    header = json.dumps({"format": "mus-match/1", "rules": {}, "esku": 0})
    line = {k: v for k, v in strong(0).items() if k != "hands"}
    with pytest.raises(MalformedError, match=r"^line 2: hands: missing; a seat whose cards were not shown is null$"):
        Match.from_lines([header, json.dumps(line)])
    bare = strong(0, grande=[{"seat": 0, "act": "envido"}, {"seat": 1, "act": "mas"}, {"seat": 2, "act": "quiero"}])
    with pytest.raises(MalformedError, match=r"^line 2: bets\.grande\[1\]\.n: missing in"):
        Match.from_lines([header, json.dumps(bare)])


NULL_DECLARED = {"hands": [KINGS, ASES, HORSES, FOURS],
                 "declared": {"pares": [True, None, True, None], "juego": None}}


def test_a_matchs_records_and_lines_carry_no_declaration_null() -> None:
    """A line's declaration `null` (a seat's, a whole list, `declared` itself) is read as the
    cards hold (ruling 15) but never written: the record a match keeps, `to_lines` and the
    replay's rows say it in the contract's words (the same settlement); a line's own
    `esku` stays."""
    m = Match(Rules())
    first = m.play(NULL_DECLARED)
    m.play({**strong(1, esku=3), "declared": None})
    records = [e["record"] for e in m.history]
    assert records[0]["declared"] == {"pares": [True, True, True, True]}
    assert "declared" not in records[1] and records[1]["esku"] == 3
    assert first == Match(Rules()).play({"hands": NULL_DECLARED["hands"]})
    lines = m.to_lines()
    assert all("null" not in line for line in lines[1:])
    assert [json.loads(line).get("declared") for line in lines[1:]] == [{"pares": [True] * 4}, None]
    assert json.loads(lines[2])["esku"] == 3
    assert Match.from_lines(lines).state() == m.state()
    rows = replay_match(lines_of(HEADER, NULL_DECLARED))
    assert rows[0]["record"]["declared"] == {"pares": [True] * 4}


@pytest.mark.parametrize("rules,field,value", [
    ({"target": 40.0}, "rules.target", "40.0"),
    ({"kings": 8.0}, "rules.kings", "8.0"),
    ({"real31": 0}, "rules.real31", "0"),
    ({"games_per_vaca": True}, "rules.games_per_vaca", "true"),
    ({"vacas_to_win": 1.0}, "rules.vacas_to_win", "1.0"),
    ({"kings": None}, "rules.kings", "null"),
])
def test_a_lines_rules_of_the_wrong_type_are_malformed_not_equal(rules, field, value) -> None:
    """A line's rules are checked as a hand's are (a hand record refuses 40.0, True for 1, 0
    for false) before they are compared with the header's: 1.0 == 1 in Python, not in a
    record. A wrong type is a `MalformedError` naming the key and quoting the value; a
    well-typed value other than the header's still "differs" (`IllegalError`)."""
    m = Match(Rules(games_per_vaca=1, vacas_to_win=1, real31=False))
    with pytest.raises(MalformedError) as err:
        m.play({**strong(0), "rules": rules})
    assert err.value.field == field and str(err.value).startswith(f"{field}: {value} is not ")
    assert "differs" not in str(err.value) and m.hands == 0
    if field in ("rules.kings", "rules.target", "rules.real31"):  # a hand record says the same of its own rules
        with pytest.raises(MalformedError, match=rf"^{field.replace('.', '[.]')}: {value} is not "):
            parse_hand({**strong(0), "esku": 0, "rules": rules})
    with pytest.raises(MalformedError, match=rf"^line 2: {field.replace('.', '[.]')}: {value} is not "):
        Match.from_lines(lines_of({**HEADER, "rules": m.rules.to_json()}, {**strong(0), "rules": rules}))


def test_a_lines_well_typed_rule_other_than_the_headers_differs() -> None:
    m = Match(Rules(target=40, real31=False))
    with pytest.raises(IllegalError, match=r"^rules\.target: 30 differs from the match rules \(40\)$"):
        m.play({**strong(0), "rules": {"target": 30}})
    with pytest.raises(IllegalError, match=r"^rules\.real31: true differs from the match rules \(false\)$"):
        m.play({**strong(0), "rules": {"real31": True}})
    m.play({**strong(0), "rules": {"target": 40, "real31": False, "kings": 8}})
    assert m.hands == 1
