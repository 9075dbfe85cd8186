"""A tournament's store: the league's draw kept when its teams change (the fixtures played
stay in their rounds), and a team's withdrawal, in the state and the zip."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import zipfile
from typing import Any

import pytest

from scorer.storage.db import MIGRATIONS, Database
from scorer.storage.tables import StoreError, TableStore
from scorer.storage.tournaments import TournamentStore
from tests.test_web_tournaments import ordago_hand

TEAMS = ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"]


def _store(path) -> TournamentStore:
    db = Database(path)
    return TournamentStore(db, TableStore(db))


def _played(store: TournamentStore, tour: str, teams: list[str], winner: int = 0) -> str:
    """A finished match of one game a vaca and one vaca to win, enrolled: its table id."""
    header = {"teams": teams, "players": ["A", "B", "C", "D"], "esku": 0,
              "rules": {"kings": 8, "target": 40, "games_per_vaca": 1, "vacas_to_win": 1}}
    rt = store.tables.create(header, [ordago_hand(winner, 0)])
    store.add_table(tour, rt.id)
    return rt.id


def _where(state: dict[str, Any]) -> dict[str, tuple[int, str | None]]:
    """Each table of the fixtures: (its round, counted from 1, and the round's date)."""
    dates = state["round_dates"] or []
    return {g["table"]: (k + 1, dates[k] if dates else None)
            for k, games in enumerate(state["fixtures"]) for g in games if g["table"]}


@pytest.fixture()
def league(tmp_path) -> tuple[TournamentStore, str]:
    """8 pairs, dated weekly, three rounds played but for T3's matches."""
    store = _store(tmp_path / "mus.db")
    tour = store.create({"name": "Liga"})["id"]
    store.set_teams(tour, {"teams": TEAMS, "start": "2026-01-05"})
    for games in store.state(tour)["fixtures"][:3]:
        for g in games:
            if "T3" not in g["teams"]:
                _played(store, tour, g["teams"])
    return store, tour


def test_a_pair_taken_out_keeps_every_fixture_where_it_was(league) -> None:
    store, tour = league
    before = store.state(tour)
    store.set_teams(tour, {"teams": [t for t in TEAMS if t != "T3"], "start": "2026-01-05"})
    after = store.state(tour)
    assert _where(after) == _where(before) and len(_where(after)) == 9
    left = [[g["teams"] for g in games if "T3" not in g["teams"]] for games in before["fixtures"]]
    assert [[g["teams"] for g in games] for games in after["fixtures"]] == left  # the rest stays too
    assert after["round_dates"] == before["round_dates"]


def test_a_save_that_would_move_a_fixture_played_names_it_and_changes_nothing(league) -> None:
    store, tour = league
    before = store.state(tour)
    with pytest.raises(StoreError) as err:
        store.set_teams(tour, {"teams": [t for t in TEAMS if t != "T7"], "start": "2026-01-05"})  # T7 played 3
    e = err.value
    assert (e.status, e.code, e.field, e.reason) == (409, "fixtures_would_move", "move_played", "fixtures_would_move")
    assert e.params["gone"] == ["T7"] and e.params["count"] == 3
    assert {m["to_round"] for m in e.params["moves"]} == {None}
    assert '"move_played": true' in e.message and "withdraw" in e.message
    assert store.state(tour) == before
    with pytest.raises(StoreError) as err:  # the rounds' dates moved: asked too
        store.set_teams(tour, {"teams": TEAMS, "start": "2026-01-06"})
    assert err.value.params["count"] == 9 and err.value.params["moves"][0]["to_date"] == "2026-01-06"
    with pytest.raises(StoreError) as err:
        store.set_teams(tour, {"teams": TEAMS, "move_played": "yes"})
    assert (err.value.status, err.value.field) == (422, "move_played")
    store.set_teams(tour, {"teams": TEAMS[1:], "start": "2026-01-05", "move_played": True})
    assert store.state(tour)["teams"] == TEAMS[1:]


def test_a_league_drawn_before_the_draw_was_kept_is_read_as_its_round_robin(tmp_path) -> None:
    """A tournament of a database from before (version 10: no draw kept) has the fixtures it
    had; a pair that played nothing taken out keeps the one match played in its round."""
    from scorer.engine.standings import round_robin

    path = tmp_path / "v10.db"
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:10]:
        script(conn) if callable(script) else conn.executescript(script)
    conn.execute("INSERT INTO tournaments (id, token, watch_token, name, teams, created) VALUES "
                 "('c1', 'tok', 'w', 'Liga', ?, 0)", (json.dumps(TEAMS[:4]),))
    conn.execute("PRAGMA user_version = 10")
    conn.commit()
    conn.close()
    store = _store(path)
    state = store.state("c1")
    assert [[tuple(g["teams"]) for g in games] for games in state["fixtures"]] == round_robin(TEAMS[:4])
    assert state["fixtures"][0][0]["teams"] == ["T1", "T4"]
    table = _played(store, "c1", ["T1", "T4"])
    store.set_teams("c1", {"teams": ["T1", "T3", "T4"]})  # the round robin of three has T1 – T4 in round 2
    assert _where(store.state("c1")) == {table: (1, None)}


def test_a_withdrawal_annulled_or_standing_and_undone(league) -> None:
    store, tour = league
    store.withdraw(tour, {"team": "t7"})  # annulled unless said: spelt as the league does
    state = store.state(tour)
    assert state["withdrawn"] == [{"team": "T7", "results": "annulled"}]
    assert "T7" not in [r["team"] for r in state["standings"]]
    assert sum(r["played"] for r in state["standings"]) == 2 * 6  # the 9 played but T7's 3
    theirs = [g for games in state["fixtures"] for g in games if "T7" in g["teams"]]
    assert all(g["withdrawn"] == "T7" for g in theirs)
    assert sum(g["annulled"] for g in theirs) == 3 and sum(g["not_played"] for g in theirs) == 4
    annulled = {m["table"] for m in state["matches"] if m["annulled"]}
    assert len(annulled) == 3
    names = zipfile.ZipFile(io.BytesIO(store.export(tour)[0])).namelist()
    assert sum(n.startswith("annulled/") for n in names) == 3 and sum(n.startswith("matches/") for n in names) == 6

    store.withdraw(tour, {"team": "T7", "results": "stand"})  # the choice changed
    state = store.state(tour)
    assert state["withdrawn"] == [{"team": "T7", "results": "stand"}]
    last = state["standings"][-1]
    assert (last["team"], last["won"], last["withdrawn"], last["rank"]) == ("T7", 2, True, 7)  # T3 played nothing: not ranked yet
    assert not any(m["annulled"] for m in state["matches"])
    rows = list(csv.DictReader(io.StringIO(zipfile.ZipFile(io.BytesIO(store.export(tour)[0])).read(
        "standings.csv").decode())))
    assert [r["withdrawn"] for r in rows] == [""] * 6 + ["yes"] and rows[-1]["team"] == "T7"

    store.reinstate(tour, "T7")
    state = store.state(tour)
    assert state["withdrawn"] == [] and not any(g["not_played"] for games in state["fixtures"] for g in games)
    with pytest.raises(StoreError) as err:
        store.reinstate(tour, "T7")
    assert (err.value.status, err.value.field) == (404, "team")
    for body, field in (({"team": "T9"}, "team"), ({"team": "T7", "results": "forfeit"}, "results"),
                        ({"team": "T7", "why": "x"}, "why")):
        with pytest.raises(StoreError) as err:
            store.withdraw(tour, body)
        assert (err.value.status, err.value.field) == (422, field)


def test_the_league_ends_without_the_pairings_of_a_withdrawn_pair(tmp_path) -> None:
    store = _store(tmp_path / "mus.db")
    tour = store.create({"name": "Liga"})["id"]
    store.set_teams(tour, {"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    _played(store, tour, ["Gorriak", "Urdinak"])
    _played(store, tour, ["Berdeak", "Gorriak"], winner=1)
    assert store.state(tour)["champion"] is None  # Urdinak – Berdeak to play
    store.withdraw(tour, {"team": "Berdeak", "results": "stand"})
    state = store.state(tour)
    assert state["champion"] == "Gorriak" and state["standings"][-1]["team"] == "Berdeak"
    # a team that withdrew and is then taken out of the teams stays withdrawn, its results as chosen
    store.set_teams(tour, {"teams": ["Gorriak", "Urdinak", "Berdeak", "Horiak"]})
    assert store.state(tour)["withdrawn"] == [{"team": "Berdeak", "results": "stand"}]
    store.set_teams(tour, {"teams": ["Gorriak", "Urdinak", "Horiak"], "move_played": True})
    state = store.state(tour)
    assert state["withdrawn"] == [{"team": "Berdeak", "results": "stand"}]
    assert state["standings"][-1]["team"] == "Berdeak" and state["standings"][-1]["withdrawn"] is True
    store.reinstate(tour, "berdeak")
    assert store.state(tour)["withdrawn"] == []


# -- results entered without hands (a match played on paper, a walkover) ------------------------
def test_a_result_entered_without_hands_and_a_walkover_take_their_pairings_and_count(tmp_path) -> None:
    store = _store(tmp_path / "mus.db")
    tour = store.create({"name": "Liga", "rules": {"vacas_to_win": 2}})["id"]
    store.set_teams(tour, {"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    played = _played(store, tour, ["Gorriak", "Urdinak"])  # a table, 1-0
    paper = store.add_result(tour, {"teams": ["berdeak", "Gorriak"], "vacas": [1, 2], "stones": [70, 95],
                                    "winner": "gorriak"}, revision=1)
    walkover = store.add_result(tour, {"teams": ["Urdinak", "Berdeak"], "walkover": "Berdeak"}, revision=2)
    state = store.state(tour)
    assert state["revision"] == 3
    pairings = {frozenset(g["teams"]): g for games in state["fixtures"] for g in games}
    g = pairings[frozenset(["Berdeak", "Gorriak"])]
    assert (g["table"], g["result"], g["walkover"], g["finished"], g["winner"]) == (None, paper, None, True, "Gorriak")
    assert g["vacas"] == ([1, 2] if g["teams"][0] == "Berdeak" else [2, 1])
    g = pairings[frozenset(["Urdinak", "Berdeak"])]
    assert (g["result"], g["walkover"], g["winner"]) == (walkover, "Berdeak", "Urdinak")
    assert pairings[frozenset(["Gorriak", "Urdinak"])]["table"] == played
    assert state["champion"] == "Gorriak"  # every pairing finished: the sole leader
    rows = {r["team"]: r for r in state["standings"]}
    assert (rows["Gorriak"]["won"], rows["Gorriak"]["vacas_won"], rows["Gorriak"]["stones"]) == (2, 3, 40 + 95)
    # the walkover: won by vacas_to_win to 0 by the team present, no stones; played by both
    assert (rows["Urdinak"]["won"], rows["Urdinak"]["vacas_won"], rows["Urdinak"]["vacas_lost"]) == (1, 2, 1)
    assert (rows["Berdeak"]["played"], rows["Berdeak"]["vacas_lost"], rows["Berdeak"]["stones"]) == (2, 4, 70)
    entered = [m for m in state["matches"] if m["result"]]
    assert [(m["table"], m["games"], m["hands"], m["walkover"], m["off_fixtures"]) for m in entered] == [
        (None, None, 0, None, False), (None, None, 0, "Berdeak", False)]
    # the zip: no match file for either, tournament.json lists both
    z = zipfile.ZipFile(io.BytesIO(store.export(tour)[0]))
    assert [n for n in z.namelist() if n.endswith(".jsonl")] == ["matches/01-gorriak-urdinak.jsonl"]
    saved = json.loads(z.read("tournament.json"))
    assert [(m["result"], m["walkover"]) for m in saved["matches"] if m["result"]] == [(paper, None),
                                                                                     (walkover, "Berdeak")]
    # taken out: its pairing waits to be played again, the standings without it
    store.remove_result(tour, walkover, revision=3)
    state = store.state(tour)
    g = next(g for games in state["fixtures"] for g in games if set(g["teams"]) == {"Urdinak", "Berdeak"})
    assert (g["result"], g["finished"], state["champion"]) == (None, False, None)
    with pytest.raises(StoreError) as err:
        store.remove_result(tour, walkover)
    assert (err.value.status, err.value.field) == (404, "result")


def test_a_result_corrected_keeps_its_id_its_place_and_its_pairing(tmp_path) -> None:
    store = _store(tmp_path / "mus.db")
    tour = store.create({"name": "Liga"})["id"]
    store.set_teams(tour, {"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    paper = store.add_result(tour, {"teams": ["Gorriak", "Urdinak"], "vacas": [3, 1]})
    table = _played(store, tour, ["Gorriak", "Urdinak"])  # the same pairing played after: a friendly
    later = store.add_result(tour, {"teams": ["Urdinak", "Berdeak"], "walkover": "Berdeak"})
    before = store.state(tour)
    store.correct_result(tour, paper, {"teams": ["Gorriak", "Urdinak"], "vacas": [2, 3], "stones": [90, 120]},
                         revision=before["revision"])
    state = store.state(tour)
    assert state["revision"] == before["revision"] + 1
    assert [(m["table"], m["result"]) for m in state["matches"]] == [(None, paper), (table, None), (None, later)]
    m = state["matches"][0]
    assert (m["vacas"], m["stones"], m["winner"], m["off_fixtures"]) == ([2, 3], [90, 120], 1, False)
    g = next(g for games in state["fixtures"] for g in games if set(g["teams"]) == {"Gorriak", "Urdinak"})
    assert (g["result"], g["table"], g["winner"]) == (paper, None, "Urdinak")  # still its pairing's, not the table's
    rows = {r["team"]: r for r in state["standings"]}
    was = {r["team"]: r for r in before["standings"]}
    assert (rows["Urdinak"]["won"], rows["Gorriak"]["won"]) == (was["Urdinak"]["won"] + 1, was["Gorriak"]["won"] - 1)
    # turned into a walkover: the same place still
    store.correct_result(tour, paper, {"teams": ["Gorriak", "Urdinak"], "walkover": "Urdinak"})
    state = store.state(tour)
    assert [(m["result"], m["walkover"]) for m in state["matches"] if m["result"]] == [(paper, "Urdinak"),
                                                                                     (later, "Berdeak")]
    # refused: stale, unknown, a field at fault; nothing changes
    before = store.state(tour)
    for call, want in (
        (lambda: store.correct_result(tour, paper, {"teams": ["Gorriak", "Urdinak"], "vacas": [3, 0]},
                                      revision=before["revision"] - 1), (409, "stale_revision", "revision")),
        (lambda: store.correct_result(tour, "nosuchresult", {"teams": ["Gorriak", "Urdinak"], "vacas": [3, 0]}),
         (404, "not_found", "result")),
        (lambda: store.correct_result(tour, table, {"teams": ["Gorriak", "Urdinak"], "vacas": [3, 0]}),
         (404, "not_found", "result")),  # a table is no result entered
        (lambda: store.correct_result(tour, paper, {"teams": ["Gorriak", "Urdinak"], "vacas": [3, 3]}),
         (422, "invalid", "vacas")),
        (lambda: store.correct_result(tour, paper, {"teams": ["Gorriak", "Moreak"], "vacas": [3, 0]}),
         (422, "invalid", "teams[1]")),
    ):
        with pytest.raises(StoreError) as err:
            call()
        assert (err.value.status, err.value.code, err.value.field) == want, err.value.message
        assert store.state(tour) == before


def test_a_walkover_entered_once_the_bracket_is_drawn_takes_its_pairing(tmp_path) -> None:
    store = _store(tmp_path / "mus.db")
    tour = store.create({"name": "Copa"})["id"]
    store.set_knockout(tour, {"teams": ["A", "B", "C", "D"]})
    store.add_result(tour, {"teams": ["A", "D"], "walkover": "D"})
    store.add_result(tour, {"teams": ["C", "B"], "vacas": [3, 2]})
    state = store.state(tour)
    semis, final = state["knockout"]["rounds"]
    assert [g["winner"] for g in semis] == ["A", "C"] and final[0]["teams"] == ["A", "C"]
    assert semis[0]["walkover"] == "D" and {m["stage"] for m in state["matches"]} == {"knockout"}
    store.add_result(tour, {"teams": ["C", "A"], "vacas": [1, 3]})
    assert store.state(tour)["champion"] == "A"
    assert store.state(tour)["standings"] == []  # the final stage counts in no standings


def test_a_seed_that_withdraws_loses_its_pairings_not_played_by_walkover_until_it_comes_back(tmp_path) -> None:
    """Before: a seed that withdrew once the bracket was drawn still had its semi-final "to
    play" (with a table to open), and the final waited for it for ever. Now each of its
    pairings not played goes to its opponent by walkover (the tournament's vacas to win to
    0, as an entered one), so that the bracket goes on; one played keeps its result; a pair
    of two that withdrew is not played; undone, the pairings wait to be played again."""
    store = _store(tmp_path / "mus.db")
    tour = store.create({"name": "Copa", "rules": {"vacas_to_win": 2}})["id"]
    store.set_teams(tour, {"teams": ["A", "B", "C", "D"]})
    for g in [g for games in store.state(tour)["fixtures"] for g in games]:  # the league played out: A, B, C, D
        _played(store, tour, g["teams"], winner=int("ABCD".index(g["teams"][0]) > "ABCD".index(g["teams"][1])))
    league = store.state(tour)["standings"]
    assert [r["team"] for r in league] == ["A", "B", "C", "D"]
    store.set_knockout(tour, {"teams": ["A", "B", "C", "D"], "third_place": True})
    begun = store.tables.create({"teams": ["A", "D"], "players": ["P", "Q", "R", "S"], "esku": 0,
                                 "rules": {"vacas_to_win": 2}}, []).id  # A – D begun, not finished
    store.add_table(tour, begun)
    played = _played(store, tour, ["B", "C"])  # the other semi-final: B won it
    state = store.state(tour)
    semis = state["knockout"]["rounds"][0]
    assert (semis[0]["table"], semis[0]["finished"], semis[0]["withdrawn"], semis[0]["not_played"]) == (
        begun, False, None, False)

    store.withdraw(tour, {"team": "D", "results": "stand"})
    state = store.state(tour)
    (semi_ad, semi_bc), (final,) = state["knockout"]["rounds"]
    assert {k: semi_ad[k] for k in ("teams", "table", "result", "walkover", "vacas", "finished", "winner",
                                     "withdrawn", "not_played")} == {
        "teams": ["A", "D"], "table": None, "result": None, "walkover": "D", "vacas": [2, 0], "finished": True,
        "winner": "A", "withdrawn": "D", "not_played": False}
    assert (semi_bc["table"], semi_bc["winner"], semi_bc["withdrawn"]) == (played, "B", None)
    assert (final["teams"], final["finished"], final["withdrawn"]) == (["A", "B"], False, None)
    third = state["knockout"]["third_place"]  # the semi-finals' losers: D withdrew, C is third
    assert (third["teams"], third["walkover"], third["vacas"], third["winner"]) == (["D", "C"], "D", [0, 2], "C")
    assert state["knockout"]["third"] == "C" and state["champion"] is None
    stages = {m["table"]: m["stage"] for m in state["matches"] if m["table"] in (begun, played)}
    assert stages == {begun: "friendly", played: "knockout"}  # the table begun plays no pairing now
    # the league's standings as a withdrawal leaves them, the final stage counting in none
    assert [(r["team"], r["played"], r.get("withdrawn", False)) for r in state["standings"]] == [
        (r["team"], r["played"], r["team"] == "D") for r in league]
    assert not any(m["annulled"] for m in state["matches"])

    store.withdraw(tour, {"team": "B"})  # the winner of a semi-final played: its result stays
    state = store.state(tour)
    (semi_ad, semi_bc), (final,) = state["knockout"]["rounds"]
    assert (semi_bc["table"], semi_bc["winner"], semi_bc["walkover"], semi_bc["withdrawn"]) == (played, "B", None, "B")
    assert (final["walkover"], final["vacas"], final["winner"], state["champion"]) == ("B", [2, 0], "A", "A")
    assert [r["team"] for r in state["standings"]] == ["A", "C", "D"]  # B's league results annulled, as today

    store.withdraw(tour, {"team": "A"})  # both of the final withdrew: not played, no champion
    state = store.state(tour)
    (semi_ad, _), (final,) = state["knockout"]["rounds"]
    assert (semi_ad["not_played"], semi_ad["winner"], semi_ad["walkover"], semi_ad["finished"]) == (
        True, None, None, False)
    assert (final["teams"], final["not_played"], final["winner"], state["champion"]) == (["A", "B"], True, None, None)
    assert state["knockout"]["third"] == "C"

    for team in ("A", "B", "D"):  # undone: nothing of it was stored, the bracket is as it was
        store.reinstate(tour, team)
    state = store.state(tour)
    (semi_ad, semi_bc), (final,) = state["knockout"]["rounds"]
    assert (semi_ad["table"], semi_ad["walkover"], semi_ad["finished"], semi_ad["withdrawn"]) == (
        begun, None, False, None)
    assert (final["teams"], state["knockout"]["third_place"]["teams"], state["champion"]) == (
        [None, "B"], [None, "C"], None)  # A – D to be played again, at its table
    assert {m["table"]: m["stage"] for m in state["matches"] if m["table"] == begun} == {begun: "knockout"}
    assert [r["team"] for r in state["standings"]] == ["A", "B", "C", "D"]


def test_a_seed_of_a_knockout_only_cup_withdraws_and_comes_back(tmp_path) -> None:
    """Before: a cup played as a knockout only (no league teams entered, its seeds typed
    when drawing it) could not withdraw a seed (422 `team`: only the league's teams could).
    Now any seed can, spelt as the seeds spell it: its pairings not played go by walkover,
    as a league team's do; undone, they wait again. A name that is neither a league team
    nor a seed is still a 422 naming `team`, and so is any name before there is either."""
    store = _store(tmp_path / "mus.db")
    tour = store.create({"name": "Copa", "rules": {"vacas_to_win": 2}})["id"]
    with pytest.raises(StoreError) as err:  # nothing to withdraw from yet
        store.withdraw(tour, {"team": "Gorriak"})
    assert (err.value.status, err.value.field) == (422, "team") and "none of them entered yet" in err.value.message
    store.set_knockout(tour, {"teams": ["Gorriak", "Urdinak", "Berdeak", "Horiak"]})
    played = _played(store, tour, ["Urdinak", "Berdeak"])  # the other semi-final: Urdinak won it
    before = store.state(tour)
    assert before["standings"] == [] and before["teams"] == []

    store.withdraw(tour, {"team": "HORIAK", "results": "stand"})  # by team_key, spelt as the seed
    state = store.state(tour)
    assert state["withdrawn"] == [{"team": "Horiak", "results": "stand"}]
    (semi_gh, semi_ub), (final,) = state["knockout"]["rounds"]
    assert (semi_gh["teams"], semi_gh["walkover"], semi_gh["vacas"], semi_gh["finished"], semi_gh["winner"],
            semi_gh["withdrawn"], semi_gh["table"], semi_gh["result"]) == (
        ["Gorriak", "Horiak"], "Horiak", [2, 0], True, "Gorriak", "Horiak", None, None)
    assert (semi_ub["table"], semi_ub["winner"]) == (played, "Urdinak")
    assert (final["teams"], final["finished"]) == (["Gorriak", "Urdinak"], False)
    assert state["standings"] == [] and state["fixtures"] == [] and state["champion"] is None
    # the zip: tournament.json says it; its standings.csv is its header alone, as without the withdrawal
    z = zipfile.ZipFile(io.BytesIO(store.export(tour)[0]))
    saved = json.loads(z.read("tournament.json"))
    assert saved["withdrawn"] == state["withdrawn"] and saved["knockout"]["rounds"][0][0]["walkover"] == "Horiak"
    assert len(z.read("standings.csv").decode().splitlines()) == 1

    for body in ({"team": "Moreak"}, {"team": ""}, {"team": None}):  # neither a league team nor a seed
        with pytest.raises(StoreError) as err:
            store.withdraw(tour, body)
        assert (err.value.status, err.value.field) == (422, "team")
        assert "final stage's seeds" in err.value.message and "league's teams" not in err.value.message
    store.reinstate(tour, "horiak")
    state = store.state(tour)
    semi_gh = state["knockout"]["rounds"][0][0]
    assert (state["withdrawn"], semi_gh["walkover"], semi_gh["finished"], semi_gh["withdrawn"]) == ([], None, False, None)
    assert state["knockout"] == before["knockout"]


def test_a_seed_that_is_no_league_team_withdraws_too(tmp_path) -> None:
    """A league with a final stage: a league team withdraws as before, spelt as entered (even
    where a seed spells it otherwise), and so does a seed that is none of the league's teams
    (a guest pair), spelt as the seed; the 422 names both lists."""
    store = _store(tmp_path / "mus.db")
    tour = store.create({"name": "Liga"})["id"]
    store.set_teams(tour, {"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    store.set_knockout(tour, {"teams": ["GORRIAK", "Urdinak", "Berdeak", "Gonbidatuak"]})
    store.withdraw(tour, {"team": "gorriak"})
    store.withdraw(tour, {"team": "gonbidatuak", "results": "stand"})
    state = store.state(tour)
    assert state["withdrawn"] == [{"team": "Gorriak", "results": "annulled"},
                                  {"team": "Gonbidatuak", "results": "stand"}]
    (semi_a, semi_b), _ = state["knockout"]["rounds"]
    assert (semi_a["teams"], semi_a["not_played"]) == (["GORRIAK", "Gonbidatuak"], True)  # both withdrew
    with pytest.raises(StoreError) as err:
        store.withdraw(tour, {"team": "Moreak"})
    assert (err.value.status, err.value.field) == (422, "team")
    assert "league's teams" in err.value.message and "final stage's seeds" in err.value.message


@pytest.mark.parametrize(("body", "field"), [
    ({"teams": ["T1", "t1"], "vacas": [3, 1]}, "teams[1]"),  # one team twice, case aside
    ({"teams": ["T1", "T9"], "vacas": [3, 1]}, "teams[1]"),  # not a team of the league
    ({"teams": ["T1"], "vacas": [3, 1]}, "teams"),
    ({"teams": ["T1", "T2"]}, "vacas"),
    ({"teams": ["T1", "T2"], "vacas": [3, 3]}, "vacas"),  # nobody won
    ({"teams": ["T1", "T2"], "vacas": [2, 1]}, "vacas"),  # the winner short of vacas_to_win
    ({"teams": ["T1", "T2"], "vacas": [3, -1]}, "vacas"),
    ({"teams": ["T1", "T2"], "vacas": [3.0, 1]}, "vacas"),
    ({"teams": ["T1", "T2"], "vacas": [True, 3]}, "vacas"),
    ({"teams": ["T1", "T2"], "vacas": [3, 1], "stones": [1]}, "stones"),
    ({"teams": ["T1", "T2"], "vacas": [3, 1], "winner": "T2"}, "winner"),  # the vacas make T1 the winner
    ({"teams": ["T1", "T2"], "vacas": [3, 1], "winner": "T3"}, "winner"),
    ({"teams": ["T1", "T2"], "walkover": "T3"}, "walkover"),  # not one of the pair
    ({"teams": ["T1", "T2"], "walkover": "T1", "vacas": [0, 3]}, "vacas"),  # a walkover's vacas are set
    ({"teams": ["T1", "T2"], "walkover": "T1", "winner": "T1"}, "winner"),
    ({"teams": ["T1", "T2"], "vacas": [3, 1], "table": "x"}, "table"),
])
def test_a_bad_result_is_refused_by_name_and_nothing_recorded_is_lost(league, body, field) -> None:
    store, tour = league
    store.add_result(tour, {"teams": ["T3", "T4"], "walkover": "T4"})
    before = store.state(tour)
    with pytest.raises(StoreError) as err:
        store.add_result(tour, body)
    assert (err.value.status, err.value.code, err.value.field) == (422, "invalid", field)
    assert err.value.message.startswith(f"{field}: ")
    assert store.state(tour) == before


def test_setting_the_teams_reads_the_tournament_once(league, monkeypatch) -> None:
    """`set_teams` reads the tournament's row once, for the state before and the draw it
    keeps (it read it twice), and changes what it changed before."""
    store, tour = league
    reads = []
    get = TournamentStore.get
    monkeypatch.setattr(TournamentStore, "get", lambda self, tid: reads.append(tid) or get(self, tid))
    before = store.state(tour)
    reads.clear()
    store.set_teams(tour, {"teams": [t for t in TEAMS if t != "T3"], "start": "2026-01-05"})
    assert reads == [tour]
    after = store.state(tour)
    assert after["revision"] == before["revision"] + 1 and "T3" not in after["teams"]
    assert _where(after) == _where(before)
