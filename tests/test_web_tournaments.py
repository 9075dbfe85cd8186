"""Tournaments through the API: create, enrol tables with both tokens, standings that
follow the tables' hands, and every refusal leaving the tournament as it was."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from scorer.engine.explain import french_spacing
from scorer.storage.tournaments import MAX_TOURNAMENT_NAME
from web import create_app

pytestmark = pytest.mark.webapi

RRRR = ["12o", "12c", "12e", "12b"]  # the best grande there is
OTHERS = [["1o", "1c", "4e", "5b"], ["4o", "5o", "6o", "7o"], ["4c", "5c", "6c", "7c"]]


def ordago_hand(winner_seat: int, esku: int) -> dict[str, Any]:
    """One hand: the esku says órdago at grande, the next seat accepts; RRRR at `winner_seat` wins it."""
    rest = iter(OTHERS)
    hands = [RRRR if s == winner_seat else next(rest) for s in range(4)]
    pares = [h is RRRR or h[0][:-1] == h[1][:-1] for h in hands]
    juego = [h is RRRR for h in hands]
    return {"hands": hands, "declared": {"pares": pares, "juego": juego},
            "bets": {"grande": [{"seat": esku, "act": "ordago"}, {"seat": (esku + 1) % 4, "act": "quiero"}]}}


def match_file(teams: list[str], winners: list[int], vacas_to_win: int) -> str:
    """A `mus-match/1` file whose games go to `winners` (team 0 or 1), one órdago hand each."""
    header = {"format": "mus-match/1", "teams": teams, "players": ["A", "B", "C", "D"], "esku": 0,
              "rules": {"kings": 8, "target": 40, "games_per_vaca": 1, "vacas_to_win": vacas_to_win}}
    lines = [json.dumps(header)]
    for k, team in enumerate(winners):
        esku = k % 4
        lines.append(json.dumps(ordago_hand(team, esku)))
    return "\n".join(lines) + "\n"


@pytest.fixture()
def client(tmp_path):
    return create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True}).test_client()


@pytest.fixture()
def tournament(client) -> dict[str, Any]:
    r = client.post("/api/tournaments", json={"name": "  Liga de   invierno "})
    assert r.status_code == 201, r.json
    assert r.headers["Location"].endswith(f"/api/tournaments/{r.json['id']}")
    t = r.json
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    return t


def imported(client, teams: list[str], winners: list[int], vacas_to_win: int = 2) -> dict[str, Any]:
    r = client.post("/api/tables/import", data=match_file(teams, winners, vacas_to_win),
                    headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 201, r.json
    return r.json


def enrol(client, tournament: dict[str, Any], table: dict[str, Any]):
    return client.post(f"/api/tournaments/{tournament['id']}/tables", headers=tournament["auth"],
                       json={"table": table["id"], "token": table["token"]})


def test_a_new_tournament_has_its_name_tokens_links_and_no_matches(client, tournament) -> None:
    assert tournament["name"] == "Liga de invierno"  # spaces tidied
    assert tournament["token"] != tournament["watch_token"] and len(tournament["token"]) >= 40
    assert tournament["url"].endswith(f"/c/{tournament['id']}?token={tournament['token']}")
    assert tournament["watch_url"].endswith(f"?token={tournament['watch_token']}")
    r = client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"])
    assert r.status_code == 200
    assert r.json == {"id": tournament["id"], "name": "Liga de invierno", "revision": 0, "matches": [], "standings": [],
                      "rules": {"kings": 8, "target": 40, "real31": False, "games_per_vaca": 1, "vacas_to_win": 3},
                      "teams": [], "legs": 1, "schedule": None, "fixtures": [], "round_dates": None, "groups": None,
                      "knockout": None, "champion": None, "withdrawn": []}


def test_standings_rank_the_enrolled_matches_and_follow_them(client, tournament) -> None:
    # Gorriak beat Urdinak 2-1 and Berdeak 2-0; Urdinak beat Berdeak 2-1
    a = imported(client, ["Gorriak", "Urdinak"], [0, 1, 0])
    b = imported(client, ["Berdeak", "Gorriak"], [1, 1])
    c = imported(client, ["Urdinak", "Berdeak"], [1, 0, 0])
    for table in (a, b, c):
        assert enrol(client, tournament, table).status_code == 201
    again = enrol(client, tournament, a)
    assert again.status_code == 200 and len(again.json["matches"]) == 3  # enrolled once
    state = client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json
    rows = {r["team"]: r for r in state["standings"]}
    assert [r["team"] for r in state["standings"]] == ["Gorriak", "Urdinak", "Berdeak"]
    assert (rows["Gorriak"]["won"], rows["Gorriak"]["lost"], rows["Gorriak"]["vacas_won"]) == (2, 0, 4)
    assert (rows["Urdinak"]["won"], rows["Urdinak"]["vacas_won_in_lost"]) == (1, 1)
    assert (rows["Berdeak"]["won"], rows["Berdeak"]["vacas_lost"]) == (0, 4)
    first = state["matches"][0]
    assert first["table"] == a["id"] and first["vacas"] == [2, 1] and first["winner"] == 0 and first["finished"]
    assert first["watch_token"] == a["watch_token"]  # the organiser may watch every table

    # a match still being played lists its teams and counts nothing yet
    d = client.post("/api/tables", json={"teams": ["Horiak", "Gorriak"], "players": ["E", "F", "G", "H"],
                                         "rules": {"kings": 8, "target": 40}, "esku": 0}).json
    assert enrol(client, tournament, d).status_code == 201
    state = client.get(f"/api/tournaments/{tournament['id']}?token={tournament['watch_token']}").json
    rows = {r["team"]: r for r in state["standings"]}
    assert rows["Horiak"]["played"] == 0 and rows["Gorriak"]["played"] == 2
    assert state["matches"][-1]["finished"] is False and state["matches"][-1]["hands"] == 0
    assert all("watch_token" not in m for m in state["matches"])  # spectators get no table links

    # ... and a hand settled at that table moves the tournament at once: an accepted órdago
    auth = {"Authorization": f"Bearer {d['token']}"}
    v = client.get(f"/api/tables/{d['id']}", headers=auth).json["version"]
    for k, act in enumerate([{"seat": 0, "act": "ordago"}, {"seat": 1, "act": "quiero"}]):
        r = client.post(f"/api/tables/{d['id']}/actions", headers=auth,
                        json={"client_id": f"c{k}", "version": v, "action": act})
        assert r.status_code == 200, r.json
        v = r.json["version"]
    hand = ordago_hand(1, 0)  # seat 1 (Gorriak) holds RRRR
    r = client.post(f"/api/tables/{d['id']}/showdown", headers=auth,
                    json={"client_id": "c9", "version": v, "hands": hand["hands"], "declared": hand["declared"]})
    assert r.status_code == 200, r.json
    state = client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json
    last = state["matches"][-1]
    assert (last["hands"], last["vacas"], last["finished"]) == (1, [0, 1], False)  # Gorriak's first vaca of 3


def test_only_the_right_tokens_read_or_enrol(client, tournament) -> None:
    table = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    path = f"/api/tournaments/{tournament['id']}"
    assert client.get(path).json["error"]["code"] == "missing_token"
    assert client.get(path + "?token=nope").status_code == 403
    assert client.get(path + f"?token={table['token']}").json["error"]["code"] == "bad_token"
    assert client.get("/api/tournaments/nosuch?token=x").status_code == 404
    watch = {"Authorization": f"Bearer {tournament['watch_token']}"}
    r = client.post(path + "/tables", headers=watch, json={"table": table["id"], "token": table["token"]})
    assert (r.status_code, r.json["error"]["code"]) == (403, "read_only")
    r = client.post(path + "/tables", headers=tournament["auth"], json={"table": table["id"], "token": table["watch_token"]})
    assert (r.status_code, r.json["error"]["code"], r.json["error"]["field"]) == (403, "bad_token", "token")
    assert r.json["error"]["reason"] == "watch_link"  # the spectators' link: the page says the players' is needed
    r = client.post(path + "/tables", headers=tournament["auth"], json={"table": table["id"], "token": "nope"})
    assert (r.status_code, r.json["error"]["code"], r.json["error"].get("reason")) == (403, "bad_token", None)
    r = client.post(path + "/tables", headers=tournament["auth"], json={"table": "nosuch", "token": table["token"]})
    assert r.status_code == 404
    r = client.post(path + "/tables", headers=tournament["auth"], json={"table": table["id"]})
    assert (r.status_code, r.json["error"]["field"]) == (400, "token")
    r = client.post(path + "/tables", headers=tournament["auth"], json={"table": table["id"], "token": [table["token"]]})
    assert (r.status_code, r.json["error"]["field"]) == (400, "token") and "is not a token" in r.json["error"]["message"]
    r = client.post(path + "/tables", headers=tournament["auth"], json={"table": {"id": table["id"]}, "token": "x"})
    assert (r.status_code, r.json["error"]["field"]) == (400, "table")
    r = client.post(path + "/tables", headers=tournament["auth"], data="[1", content_type="application/json")
    assert r.json["error"]["code"] == "bad_json"
    assert client.get(path, headers=tournament["auth"]).json["matches"] == []  # nothing enrolled


def test_enrolling_without_a_table_says_it_is_missing(client, tournament) -> None:
    """An empty body was answered "table: None is not a table id"; a missing field says it
    is missing, as `token` (and `client_id`, `version`, ...) do."""
    table = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    path = f"/api/tournaments/{tournament['id']}/tables"
    for body in ({}, {"token": table["token"]}, {"table": None, "token": table["token"]}):
        r = client.post(path, headers=tournament["auth"], json=body)
        assert r.status_code == 400 and r.json["error"] == {
            "status": 400, "code": "invalid", "field": "table",
            "message": "table: missing (the id of the table to enrol)"}, r.json
    r = client.post(path, headers=tournament["auth"], json={"table": "", "token": table["token"]})
    assert r.json["error"]["message"] == 'table: "" is not a table id'
    assert client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json["matches"] == []


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "   "}, {"name": 7}, {"name": "x" * (MAX_TOURNAMENT_NAME + 1)}])
def test_a_tournament_needs_a_name(client, body) -> None:
    r = client.post("/api/tournaments", json=body)
    assert r.status_code == 422
    assert r.json["error"]["code"] == "invalid" and r.json["error"]["field"] == "name"
    assert json.dumps(body.get("name"))[:20] in r.json["error"]["message"] or "longer" in r.json["error"]["message"]


def test_the_organiser_takes_a_table_out_and_the_table_stays(client, tournament) -> None:
    a = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    b = imported(client, ["Berdeak", "Horiak"], [1, 1])
    for table in (a, b):
        assert enrol(client, tournament, table).status_code == 201
    path = f"/api/tournaments/{tournament['id']}/tables/{a['id']}"
    watch = {"Authorization": f"Bearer {tournament['watch_token']}"}
    assert client.delete(path, headers=watch).json["error"]["code"] == "read_only"
    assert client.delete(path).status_code == 401
    r = client.delete(path, headers=tournament["auth"])
    assert r.status_code == 200 and [m["table"] for m in r.json["matches"]] == [b["id"]]
    assert {row["team"] for row in r.json["standings"]} == {"Berdeak", "Horiak"}
    again = client.delete(path, headers=tournament["auth"])
    assert (again.status_code, again.json["error"]["field"]) == (404, "table")
    assert client.get(f"/api/tables/{a['id']}?token={a['token']}").json["vacas"] == [2, 0]  # untouched


def test_creating_tournaments_counts_against_the_creation_limit(tmp_path) -> None:
    # tournaments and tables share one budget per address (CREATE_MAX_PER_ADDRESS); past
    # it a 429 with Retry-After, and the tournament made before is as it was and still run
    client = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True,
                         "CREATE_MAX_PER_ADDRESS": 2}).test_client()
    t = client.post("/api/tournaments", json={"name": "Liga"}).json
    auth = {"Authorization": f"Bearer {t['token']}"}
    table = imported(client, ["Gorriak", "Urdinak"], [0])  # the second creation
    before = client.get(f"/api/tournaments/{t['id']}", headers=auth).json
    r = client.post("/api/tournaments", json={"name": "Another"})
    assert r.status_code == 429 and r.json["error"]["code"] == "too_many_creations"
    assert set(r.json["error"]) == {"status", "code", "message", "field"} and int(r.headers["Retry-After"]) >= 1
    assert client.post("/api/tables", json={}).status_code == 429
    assert client.get(f"/api/tournaments/{t['id']}", headers=auth).json == before
    # enrolling a table, renaming: not creations
    assert enrol(client, {**t, "auth": auth}, table).status_code == 201
    assert client.patch(f"/api/tournaments/{t['id']}", headers=auth, json={"name": "Liga 2"}).status_code == 200
    # another address may still start one
    r = client.post("/api/tournaments", json={"name": "Elsewhere"}, environ_base={"REMOTE_ADDR": "10.1.2.3"})
    assert r.status_code == 201


def test_a_tournament_body_must_be_an_object(client) -> None:
    r = client.post("/api/tournaments", json=["Liga"])
    assert (r.status_code, r.json["error"]["code"]) == (400, "bad_json")
    assert "an array" in r.json["error"]["message"]


def test_a_table_whose_teams_share_a_name_is_refused_or_left_out_of_the_ranking(client, tournament) -> None:
    # a table opened here refuses two teams of one name; an imported match file may hold them
    same = imported(client, ["Gorriak", "Gorriak"], [])
    r = enrol(client, tournament, same)
    assert (r.status_code, r.json["error"]["code"], r.json["error"]["field"]) == (422, "same_team_names", "table")
    assert '"Gorriak"' in r.json["error"]["message"]
    assert client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json["matches"] == []
    # nor is a match of two teams of one name imported over a table added (as a rename: 422 on teams)
    a = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    b = imported(client, ["Berdeak", "Horiak"], [1])
    for table in (a, b):
        assert enrol(client, tournament, table).status_code == 201
    r = client.post(f"/api/tables/{a['id']}/import?client_id=x&version={a['version']}",
                    headers={"Authorization": f"Bearer {a['token']}", "Content-Type": "application/x-ndjson"},
                    data=match_file(["Urdinak", "Urdinak"], [0], 2))
    assert (r.status_code, r.json["error"]["code"], r.json["error"]["field"]) == (422, "invalid", "teams")
    state = client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json
    assert [m["ranked"] for m in state["matches"]] == [True, True]
    # a table stored so before (imported over before that was refused) is listed, not ranked
    store = client.application.extensions["mus_store"]
    with store.db.write() as conn:
        conn.execute("UPDATE tables SET header = json_set(header, '$.teams', json('[\"Urdinak\",\"Urdinak\"]')), "
                     "version = version + 1 WHERE id = ?", (a["id"],))
    state = client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json
    assert [m["ranked"] for m in state["matches"]] == [False, True]
    assert {row["team"] for row in state["standings"]} == {"Berdeak", "Horiak"}
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=en").get_data(as_text=True)
    assert page.count('class="hint not-ranked"') == 1


def test_a_full_tournament_refuses_another_table(client, tournament, monkeypatch) -> None:
    import scorer.storage.tournaments as T

    monkeypatch.setattr(T, "MAX_TABLES", 2)
    tables = [imported(client, [f"A{k}", f"B{k}"], [0]) for k in range(3)]
    assert [enrol(client, tournament, t).status_code for t in tables[:2]] == [201, 201]
    r = enrol(client, tournament, tables[2])
    assert (r.status_code, r.json["error"]["code"]) == (409, "too_many_tables")
    assert enrol(client, tournament, tables[0]).status_code == 200  # one already in still answers
    state = client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json
    assert [m["table"] for m in state["matches"]] == [t["id"] for t in tables[:2]]


def test_a_deleted_table_leaves_the_tournament(client, tournament, tmp_path) -> None:
    table = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    assert enrol(client, tournament, table).status_code == 201
    store = client.application.extensions["mus_store"]
    with store.db.write() as conn:
        conn.execute("DELETE FROM tables WHERE id = ?", (table["id"],))
    store._forget(table["id"])
    state = client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json
    assert state["matches"] == [] and state["standings"] == []


def test_a_league_draws_its_fixtures_and_ticks_the_matches_played(client, tournament) -> None:
    path = f"/api/tournaments/{tournament['id']}/teams"
    teams = ["Gorriak", "Urdinak", "Berdeak", "Horiak"]
    r = client.put(path, headers=tournament["auth"], json={"teams": [" Gorriak ", *teams[1:]]})
    assert r.status_code == 200 and r.json["teams"] == teams
    rounds = r.json["fixtures"]
    assert len(rounds) == 3 and all(len(games) == 2 for games in rounds)
    pairs = {frozenset(g["teams"]) for games in rounds for g in games}
    assert len(pairs) == 6 and all(g["table"] is None for games in rounds for g in games)
    # a match between two of them, entered with its teams the other way round, fills its pairing
    played = imported(client, ["Horiak", "Gorriak"], [0, 0])
    assert enrol(client, tournament, played).status_code == 201
    state = client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json
    (game,) = [g for games in state["fixtures"] for g in games if set(g["teams"]) == {"Gorriak", "Horiak"}]
    assert game["table"] == played["id"] and game["finished"] and game["winner"] == "Horiak"
    assert game["vacas"] == ([0, 2] if game["teams"][0] == "Gorriak" else [2, 0])  # in the pairing's order
    assert sum(g["table"] is not None for games in state["fixtures"] for g in games) == 1


def test_a_leagues_page_names_the_teams_yet_to_play(client, tournament) -> None:
    path = f"/api/tournaments/{tournament['id']}/teams"
    assert client.put(path, headers=tournament["auth"], json={"teams": ["Gorriak", "Urdinak", "Berdeak"]}).status_code == 200
    page = f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=en"

    def waiting() -> str | None:
        html = client.get(page).get_data(as_text=True)
        found = re.search(r'<p class="hint league-waiting">Yet to play: ([^<]*)</p>', html)
        return found and found.group(1)

    assert waiting() == "Gorriak, Urdinak, Berdeak"  # no match yet: every team, as entered
    assert enrol(client, tournament, imported(client, ["Urdinak", "Gorriak"], [0, 0])).status_code == 201
    assert waiting() == "Berdeak"  # the two who played are in the table above
    assert enrol(client, tournament, imported(client, ["Berdeak", "Gorriak"], [1, 1])).status_code == 201
    assert waiting() is None


@pytest.mark.parametrize(("teams", "field"), [(["A"], "teams"), ("A,B", "teams"), (["A", " A "], "teams[1]"),
                                              (["A", ""], "teams[1]"), (["A", 3], "teams[1]"),
                                              ([f"T{k}" for k in range(33)], "teams")])
def test_bad_teams_are_refused_and_change_nothing(client, tournament, teams, field) -> None:
    path = f"/api/tournaments/{tournament['id']}/teams"
    assert client.put(path, headers=tournament["auth"], json={"teams": ["A", "B"]}).status_code == 200
    r = client.put(path, headers=tournament["auth"], json={"teams": teams})
    assert (r.status_code, r.json["error"]["field"]) == (422, field)
    watch = {"Authorization": f"Bearer {tournament['watch_token']}"}
    assert client.put(path, headers=watch, json={"teams": ["C", "D"]}).json["error"]["code"] == "read_only"
    assert client.get(f"/api/tournaments/{tournament['id']}", headers=watch).json["teams"] == ["A", "B"]


@pytest.mark.parametrize(("body", "field"), [({"teams": ["A", "B"], "legs": 3}, "legs"),
                                             ({"teams": ["A", "B"], "legs": "2"}, "legs"),
                                             ({"teams": ["A", "B"], "legs": True}, "legs"),
                                             ({"teams": ["Gorriak", "GORRIÁK"]}, "teams[1]")])
def test_bad_legs_and_one_team_spelt_twice_are_refused(client, tournament, body, field) -> None:
    path = f"/api/tournaments/{tournament['id']}/teams"
    r = client.put(path, headers=tournament["auth"], json=body)
    assert (r.status_code, r.json["error"]["field"]) == (422, field)
    assert field in r.json["error"]["message"]
    if field == "teams[1]":
        assert '"GORRIÁK" is "Gorriak" again' in r.json["error"]["message"]
    state = client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json
    assert (state["teams"], state["legs"]) == ([], 1)


def test_a_league_home_and_away_ticks_each_leg_with_its_own_table(client, tournament) -> None:
    path = f"/api/tournaments/{tournament['id']}/teams"
    r = client.put(path, headers=tournament["auth"], json={"teams": ["Gorriak", "Urdinak", "Berdeak"], "legs": 2})
    assert r.status_code == 200 and r.json["legs"] == 2
    rounds = r.json["fixtures"]
    assert len(rounds) == 6 and all(len(games) == 1 for games in rounds)  # 3 teams: one rests each round
    games = [g for games in rounds for g in games]
    assert sorted(tuple(g["teams"]) for g in games) == sorted(
        [(a, b) for a in ("Gorriak", "Urdinak", "Berdeak") for b in ("Gorriak", "Urdinak", "Berdeak") if a != b])
    # Urdinak beat Gorriak, then they meet again: the first table ticks the first leg, the second the other
    first = imported(client, ["urdinak", "gorriak"], [0, 0])  # typed in lower case on a phone
    again = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    for table in (first, again):
        assert enrol(client, tournament, table).status_code == 201
    state = client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json
    legs = [g for games in state["fixtures"] for g in games if set(g["teams"]) == {"Gorriak", "Urdinak"}]
    assert [g["table"] for g in legs] == [first["id"], again["id"]]
    assert [g["winner"] for g in legs] == ["Urdinak", "Gorriak"]  # the pairing's own spelling
    # one row for each team however its table spelt it, shown as the league wrote it
    rows = {r["team"]: (r["played"], r["won"], r["lost"]) for r in state["standings"]}
    assert rows == {"Gorriak": (2, 1, 1), "Urdinak": (2, 1, 1)}
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=en").get_data(as_text=True)
    assert page.count('class="round-title"') == 6 and page.count("open-fixture") == 4
    assert 'name="legs" value="2" checked' in page


def test_a_pairing_played_again_at_another_table_is_flagged_where_it_counts_twice(client, tournament) -> None:
    """A match entered wrongly and played again at a new table (or a table opened twice for
    one pairing): both count in the standings, while the fixtures, played once, show one.
    The page said nothing, and a team could play 4 matches in a league of 3 rounds. The
    table no pairing took is marked `off_fixtures` and the page says so, beside its
    'Quitar'; in a league home and away, the second meeting is no extra."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    first = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    other = imported(client, ["Berdeak", "Horiak"], [1, 1])
    again = imported(client, ["Urdinak", "Gorriak"], [0, 0])
    typo = imported(client, ["Gorriak", "Berdeaks"], [0, 0])  # a name mistyped is flagged as such alone
    for table in (first, other, again, typo):
        assert enrol(client, tournament, table).status_code == 201
    # without the league's teams there are no fixtures to be off
    assert not any(m["off_fixtures"] for m in client.get(base, headers=auth).json["matches"])
    assert client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak", "Berdeak", "Horiak"]}
                      ).status_code == 200
    state = client.get(base, headers=auth).json
    off = {m["table"]: m["off_fixtures"] for m in state["matches"]}
    assert off == {first["id"]: False, other["id"]: False, again["id"]: True, typo["id"]: False}
    assert {r["team"]: r["played"] for r in state["standings"]}["Gorriak"] == 3  # it still counts, as before
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=es").get_data(as_text=True)
    rows = {m.group(1): m.group(2) for m in re.finditer(r'<li class="match-row[^"]*" data-table="([^"]+)">(.*?)</li>',
                                                          page, re.S)}
    assert "off-fixtures" in rows[again["id"]] and "Urdinak y Gorriak ya tienen su partida" in rows[again["id"]]
    assert all("off-fixtures" not in rows[t["id"]] for t in (first, other, typo))
    # taken out, the flag goes with it; home and away, a second meeting is the return leg
    assert client.delete(f"{base}/tables/{again['id']}", headers=auth).status_code == 200
    assert not any(m["off_fixtures"] for m in client.get(base, headers=auth).json["matches"])
    assert client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak", "Berdeak", "Horiak"],
                                                           "legs": 2}).status_code == 200
    assert enrol(client, tournament, again).status_code == 201
    assert not any(m["off_fixtures"] for m in client.get(base, headers=auth).json["matches"])


def test_a_pairing_takes_its_finished_table_over_one_left_unfinished(client, tournament) -> None:
    """A table entered wrongly and left unfinished, its match played again to the end at a
    new table: the pairing took the first table, so the fixture stayed 'en juego' for ever
    (no champion, however every match ended) while the finished table counted in the
    standings and was the one the page called one too many. The pairing takes a finished
    table before an unfinished one; the unfinished one is off the fixtures, and the page
    says it would count once finished."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    assert client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak"]}).status_code == 200
    left = imported(client, ["Gorriak", "Urdinak"], [1])  # one vaca of two: unfinished
    again = imported(client, ["Gorriak", "Urdinak"], [0, 1, 0])
    for table in (left, again):
        assert enrol(client, tournament, table).status_code == 201
    state = client.get(base, headers=auth).json
    (game,) = state["fixtures"][0]
    assert (game["table"], game["finished"], game["winner"]) == (again["id"], True, "Gorriak")
    assert state["champion"] == "Gorriak"
    assert {m["table"]: m["off_fixtures"] for m in state["matches"]} == {left["id"]: True, again["id"]: False}
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=es").get_data(as_text=True)
    rows = {m.group(1): m.group(2) for m in re.finditer(r'<li class="match-row[^"]*" data-table="([^"]+)">(.*?)</li>',
                                                          page, re.S)}
    assert "off-fixtures" in rows[left["id"]] and "Si se termina, esta contará también" in rows[left["id"]]
    assert "off-fixtures" not in rows[again["id"]]


def test_a_table_whose_teams_are_one_name_spelt_twice_is_refused(client, tournament) -> None:
    table = imported(client, ["Gorriak", "gorriak"], [])  # opened here, such a table is refused (a 422 on teams)
    r = enrol(client, tournament, table)
    assert (r.status_code, r.json["error"]["code"]) == (422, "same_team_names")
    assert '"Gorriak" and "gorriak"' in r.json["error"]["message"]


def test_the_organiser_exports_the_tournament_and_the_command_line_ranks_it_alike(client, tournament, tmp_path) -> None:
    import csv
    import io
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    tables = [imported(client, ["Gorriak", "Urdinak"], [0, 1, 0]), imported(client, ["=Berdeak", "Peña Txoko"], [1, 1]),
              imported(client, ["urdinak", "=Berdeak"], [0, 0]), imported(client, ["Horiak", "Gorriak"], [0])]
    for table in tables:
        assert enrol(client, tournament, table).status_code == 201
    state = client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json
    r = client.get(f"/api/tournaments/{tournament['id']}/export", headers=tournament["auth"])
    assert r.status_code == 200 and r.mimetype == "application/zip"
    assert r.headers["Content-Disposition"] == 'attachment; filename="liga-de-invierno.zip"'
    z = zipfile.ZipFile(io.BytesIO(r.data))
    names = sorted(n for n in z.namelist() if not n.startswith("excel/"))  # the spreadsheets: below
    assert names == ["matches/01-gorriak-urdinak.jsonl", "matches/02-berdeak-pena-txoko.jsonl",
                     "matches/03-urdinak-berdeak.jsonl", "matches/04-horiak-gorriak.jsonl",
                     "standings.csv", "tournament.json"]
    # each match file is the table's own export
    for table, name in zip(tables, names[:4], strict=True):
        own = client.get(f"/api/tables/{table['id']}/export", headers={"Authorization": f"Bearer {table['token']}"})
        assert z.read(name).decode() == own.get_data(as_text=True)
    saved = json.loads(z.read("tournament.json"))
    assert saved["standings"] == state["standings"] and "watch_token" not in json.dumps(saved)
    rows = list(csv.DictReader(io.StringIO(z.read("standings.csv").decode())))
    assert [(row["rank"], row["team"], row["won"]) for row in rows] == [
        (str(s["rank"]), ("'" if s["team"].startswith("=") else "") + s["team"], str(s["won"]))
        for s in state["standings"]]
    assert "'=Berdeak" in [row["team"] for row in rows]  # not a formula to a spreadsheet
    # `mus-scorer standings` over the exported matches ranks as the tournament does
    z.extractall(tmp_path)
    files = sorted(str(p) for p in Path(tmp_path, "matches").iterdir())
    proc = subprocess.run([sys.executable, "-m", "scorer", "standings", *files, "--json"], capture_output=True,
                          text=True, timeout=60, cwd=Path(__file__).resolve().parent.parent)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["standings"] == state["standings"]
    (tmp_path / "league.zip").write_bytes(r.data)  # the zip itself, as downloaded
    proc = subprocess.run([sys.executable, "-m", "scorer", "standings", str(tmp_path / "league.zip"), "--json"],
                          capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parent.parent)
    assert proc.returncode == 0 and json.loads(proc.stdout)["standings"] == state["standings"], proc.stderr
    # a final stage's tables go to knockout/, out of the league's files, as out of its standings
    assert client.put(f"/api/tournaments/{tournament['id']}/knockout", headers=tournament["auth"],
                      json={"teams": ["Gorriak", "Urdinak"]}).status_code == 200
    final = imported(client, ["Urdinak", "Gorriak"], [0, 0])
    assert enrol(client, tournament, final).status_code == 201
    z = zipfile.ZipFile(io.BytesIO(client.get(f"/api/tournaments/{tournament['id']}/export",
                                              headers=tournament["auth"]).data))
    assert "knockout/05-urdinak-gorriak.jsonl" in z.namelist()
    assert sum(name.startswith("matches/") for name in z.namelist()) == 4
    assert json.loads(z.read("tournament.json"))["standings"] == state["standings"]


def test_the_zip_holds_the_standings_and_every_match_as_excel_opens_them_in_the_pages_language(
        client, tournament) -> None:
    """A federation's clerk double-clicks the CSV in Excel on Windows: without a byte order
    mark it read "PeÃ±a Txoko", and a Spanish Excel splits columns at ";" only. The zip's
    `excel/` folder holds the standings and one row per match (round, date, table, both
    pairs, vacas and games each, winner, state) in the request's language; the machine's
    `standings.csv` stays as it was (English keys, no BOM)."""
    import csv
    import datetime as dt
    import io
    import zipfile

    teams = ["Gorriak", "Peña Txoko", "=Berdeak", "Horiak"]
    assert client.put(f"/api/tournaments/{tournament['id']}/teams", headers=tournament["auth"],
                      json={"teams": teams, "start": "2026-01-10", "every_days": 7}).status_code == 200
    done = imported(client, ["Peña Txoko", "Gorriak"], [0, 1, 0])  # Peña Txoko wins 2-1, three games
    playing = imported(client, ["Horiak", "=Berdeak"], [1])
    for table in (done, playing):
        assert enrol(client, tournament, table).status_code == 201
    state = state_of(client, tournament)
    path = f"/api/tournaments/{tournament['id']}/export"
    z = zipfile.ZipFile(io.BytesIO(client.get(path + "?lang=es", headers=tournament["auth"]).data))
    assert {"excel/clasificacion.csv", "excel/resultados.csv"} <= set(z.namelist())
    assert z.read("standings.csv").startswith(b"rank,team,")  # the machine's, as before
    raw = z.read("excel/resultados.csv")
    assert raw.startswith(b"\xef\xbb\xbf") and "Peña Txoko".encode() in raw
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig")), delimiter=";"))
    assert rows[0] == ["Fase", "Ronda", "Fecha", "Mesa", "Pareja A", "Pareja B", "Vacas A", "Vacas B",
                       "Juegos A", "Juegos B", "Ganadora", "Estado",
                       "Reglas distintas de las del torneo"]  # these tables play to 2 vacas, the league to 3
    assert len(rows) == 1 + 6  # every pairing of the league, played or not
    fixture = {tuple(r[4:6]): r for r in rows[1:]}
    order = [g["teams"] for games in state["fixtures"] for g in games]
    pair = next(p for p in order if set(p) == {"Gorriak", "Peña Txoko"})
    won = fixture[tuple(pair)]
    today = dt.date.today().isoformat()
    k = next(k for k, games in enumerate(state["fixtures"]) for g in games if g["teams"] == pair)
    flip = pair[0] != "Peña Txoko"
    assert won[:4] == ["Liga", str(k + 1), today, "1"]
    assert won[6:] == (["1", "2", "1", "2"] if flip else ["2", "1", "2", "1"]) + ["Peña Txoko", "terminada",
                                                                                  "a 2 vacas (el torneo: 3)"]
    other = next(p for p in order if set(p) == {"Horiak", "=Berdeak"})
    live = fixture[("'" + other[0] if other[0].startswith("=") else other[0],
                    "'" + other[1] if other[1].startswith("=") else other[1])]  # no formula for Excel
    assert live[3] == "2" and live[10:] == ["", "en juego", "a 2 vacas (el torneo: 3)"]
    unplayed = [r for r in rows[1:] if r[-2] == "por jugar"]
    assert len(unplayed) == 4 and all(r[2] == state["round_dates"][int(r[1]) - 1] and r[3] == "" for r in unplayed)
    standings = list(csv.reader(io.StringIO(z.read("excel/clasificacion.csv").decode("utf-8-sig")), delimiter=";"))
    assert standings[0][:3] == ["Puesto", "Pareja", "Partidas jugadas"]
    assert standings[1][:2] == ["1", "Peña Txoko"]
    # in English (the phone's language): "," and English words
    z = zipfile.ZipFile(io.BytesIO(client.get(path, headers={**tournament["auth"], "Accept-Language": "en-GB"}).data))
    head = z.read("excel/results.csv").decode("utf-8-sig").splitlines()[0]
    assert head == ("Stage,Round,Date,Table,Team A,Team B,Vacas A,Vacas B,Games A,Games B,Winner,State,"
                    "Rules other than the tournament's")
    assert "excel/standings.csv" in z.namelist()


def test_only_the_organiser_exports(client, tournament) -> None:
    path = f"/api/tournaments/{tournament['id']}/export"
    watch = client.get(path, headers={"Authorization": f"Bearer {tournament['watch_token']}"})
    assert (watch.status_code, watch.json["error"]["code"], watch.json["error"]["field"]) == (403, "read_only", "token")
    assert client.get(path).json["error"]["code"] == "missing_token"
    assert client.get(path + "?token=nope").json["error"]["code"] == "bad_token"
    assert client.get("/api/tournaments/nope/export", headers=tournament["auth"]).status_code == 404
    empty = zipfile_names(client.get(path, headers=tournament["auth"]).data)
    assert empty == ["excel/clasificacion.csv", "excel/reglas.csv", "excel/resultados.csv", "standings.csv",
                     "tournament.json"]


def zipfile_names(data: bytes) -> list[str]:
    import io
    import zipfile

    return sorted(zipfile.ZipFile(io.BytesIO(data)).namelist())


def state_of(client, tournament) -> dict[str, Any]:
    return client.get(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"]).json


def test_a_final_stage_plays_out_and_names_the_champions(client, tournament) -> None:
    ko = f"/api/tournaments/{tournament['id']}/knockout"
    # the league: Gorriak beat Horiak; a league table between the semi-finalists too
    league = [imported(client, ["Gorriak", "Horiak"], [0, 0]), imported(client, ["Urdinak", "Berdeak"], [1, 1])]
    for table in league:
        assert enrol(client, tournament, table).status_code == 201
    before = state_of(client, tournament)["standings"]
    r = client.put(ko, headers=tournament["auth"], json={"teams": ["Gorriak", " Urdinak", "Berdeak", "Horiak"]})
    assert r.status_code == 200, r.json
    bracket = r.json["knockout"]
    assert bracket["teams"] == ["Gorriak", "Urdinak", "Berdeak", "Horiak"]
    assert [[g["teams"] for g in games] for games in bracket["rounds"]] == [
        [["Gorriak", "Horiak"], ["Urdinak", "Berdeak"]], [[None, None]]]
    # the league's tables, added before the draw, play no knockout match
    assert all(g["table"] is None for games in bracket["rounds"] for g in games) and bracket["champion"] is None
    # semi-finals: Horiak beat Gorriak; "berdeak" (typed so) beat Urdinak
    semi1, semi2 = imported(client, ["Horiak", "Gorriak"], [0, 0]), imported(client, ["berdeak", "Urdinak"], [0, 0])
    for table in (semi1, semi2):
        assert enrol(client, tournament, table).status_code == 201
    state = state_of(client, tournament)
    rounds = state["knockout"]["rounds"]
    assert [g["table"] for g in rounds[0]] == [semi1["id"], semi2["id"]]
    assert [g["winner"] for g in rounds[0]] == ["Horiak", "Berdeak"]  # the bracket's spelling
    assert rounds[1][0]["teams"] == ["Horiak", "Berdeak"] and rounds[1][0]["table"] is None
    assert state["standings"] == before  # knockout matches are not league matches
    assert {m["table"]: m["stage"] for m in state["matches"]} == {
        league[0]["id"]: "league", league[1]["id"]: "league", semi1["id"]: "knockout", semi2["id"]: "knockout"}
    assert state["champion"] is None
    # the final, being played and then won by Berdeak
    final = imported(client, ["Berdeak", "Horiak"], [0])
    assert enrol(client, tournament, final).status_code == 201
    state = state_of(client, tournament)
    assert state["knockout"]["rounds"][1][0]["table"] == final["id"] and state["champion"] is None
    r = client.post(f"/api/tables/{final['id']}/import?client_id=f&version={final['version']}",
                    headers={"Authorization": f"Bearer {final['token']}", "Content-Type": "application/x-ndjson"},
                    data=match_file(["Berdeak", "Horiak"], [0, 0], 2))
    assert r.status_code == 200, r.json
    state = state_of(client, tournament)
    assert state["knockout"]["champion"] == state["champion"] == "Berdeak"
    page = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=en").get_data(as_text=True)
    assert 'class="banner champion"' in page and "Berdeak" in page
    assert "Semi-finals" in page and "Final</h3>" in page and page.count('<span class="stage">') == 3
    # taken away, the stage's tables count in the league again
    watch = {"Authorization": f"Bearer {tournament['watch_token']}"}
    assert client.delete(ko, headers=watch).json["error"]["code"] == "read_only"
    r = client.delete(ko, headers=tournament["auth"])
    assert r.status_code == 200 and r.json["knockout"] is None and r.json["champion"] is None
    assert {m["stage"] for m in r.json["matches"]} == {"league"}
    assert sum(row["played"] for row in r.json["standings"]) == 2 * 5
    assert client.delete(ko, headers=tournament["auth"]).status_code == 404


def test_a_bracket_drawn_again_keeps_its_tables(client, tournament) -> None:
    ko = f"/api/tournaments/{tournament['id']}/knockout"
    assert client.put(ko, headers=tournament["auth"], json={"teams": ["Gorriak", "Urdinak"]}).status_code == 200
    final = imported(client, ["Gorriak", "Urdinaak"], [1, 1])
    assert enrol(client, tournament, final).status_code == 201
    assert state_of(client, tournament)["knockout"]["rounds"][0][0]["table"] is None  # a typo in the bracket
    r = client.put(ko, headers=tournament["auth"], json={"teams": ["Gorriak", "Urdinaak"]})  # put right
    assert r.json["knockout"]["rounds"][0][0]["table"] == final["id"] and r.json["champion"] == "Urdinaak"


@pytest.mark.parametrize(("teams", "field"), [(["A"], "teams"), ("A,B", "teams"), (["A", "a"], "teams[1]"),
                                              (["A", ""], "teams[1]"), ([f"T{k}" for k in range(17)], "teams"),
                                              ([f"T{k}" for k in range(32)], "teams")])
def test_a_bad_bracket_is_refused_and_changes_nothing(client, tournament, teams, field) -> None:
    ko = f"/api/tournaments/{tournament['id']}/knockout"
    r = client.put(ko, headers=tournament["auth"], json={"teams": teams})
    assert (r.status_code, r.json["error"]["field"]) == (422, field)
    assert state_of(client, tournament)["knockout"] is None


def test_a_league_played_out_has_a_champion_unless_the_top_is_shared(client, tournament) -> None:
    path = f"/api/tournaments/{tournament['id']}/teams"
    assert client.put(path, headers=tournament["auth"], json={"teams": ["A", "B", "C"]}).status_code == 200
    for teams, winners in ((["A", "B"], [0, 0]), (["B", "C"], [0, 0])):
        assert enrol(client, tournament, imported(client, teams, winners)).status_code == 201
    assert state_of(client, tournament)["champion"] is None  # A-C still to play
    last = imported(client, ["C", "A"], [0, 0])  # C beats A: each won one match 2-0, a three-way tie
    assert enrol(client, tournament, last).status_code == 201
    state = state_of(client, tournament)
    assert {row["rank"] for row in state["standings"]} == {1} and state["champion"] is None
    r = client.post(f"/api/tables/{last['id']}/import?client_id=l&version={last['version']}",
                    headers={"Authorization": f"Bearer {last['token']}", "Content-Type": "application/x-ndjson"},
                    data=match_file(["C", "A"], [1, 1], 2))  # A beats C after all: A won both
    assert r.status_code == 200, r.json
    assert state_of(client, tournament)["champion"] == "A"


def test_the_bracket_form_offers_the_top_of_the_standings(client, tournament) -> None:
    for teams, winners in ((["A", "B"], [0, 0]), (["C", "D"], [1, 0, 1]), (["E", "F"], [0, 1, 0])):
        assert enrol(client, tournament, imported(client, teams, winners)).status_code == 201
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}").get_data(as_text=True)
    form = page[page.index('id="set-knockout"'):]
    # six teams ranked: the top four (A 2-0, then D and E 2-1 by name, then C: lost 1-2)
    assert form[form.index("<textarea"):form.index("</textarea>")].split(">", 1)[1] == "A\nD\nE\nC"
    assert "remove-knockout" not in page  # nothing to remove yet
    watch = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}").get_data(as_text=True)
    assert "set-knockout" not in watch


def test_the_organiser_renames_and_deletes_the_tournament_and_its_tables_stay(client, tournament) -> None:
    path = f"/api/tournaments/{tournament['id']}"
    watch = {"Authorization": f"Bearer {tournament['watch_token']}"}
    table = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    assert enrol(client, tournament, table).status_code == 201
    r = client.patch(path, headers=tournament["auth"], json={"name": "  Liga   de primavera "})
    assert r.status_code == 200 and r.json["name"] == "Liga de primavera"
    for body in ({"name": ""}, {"name": 3}, {}, ["x"]):
        bad = client.patch(path, headers=tournament["auth"], json=body)
        assert bad.status_code in (400, 422), body
    assert client.patch(path, headers=watch, json={"name": "Mine"}).json["error"]["code"] == "read_only"
    assert state_of(client, tournament)["name"] == "Liga de primavera"  # nothing changed by the refusals
    assert client.delete(path, headers=watch).json["error"]["code"] == "read_only"
    assert client.get(path, headers=tournament["auth"]).status_code == 200
    r = client.delete(path, headers=tournament["auth"])
    assert r.status_code == 204 and r.data == b""
    assert "Content-Type" not in r.headers, r.headers  # no content, no type (not text/html)
    assert client.get(path, headers=tournament["auth"]).json["error"]["code"] == "not_found"
    assert client.delete(path, headers=tournament["auth"]).status_code == 404
    own = client.get(f"/api/tables/{table['id']}", headers={"Authorization": f"Bearer {table['token']}"})
    assert own.status_code == 200 and own.json["vacas"] == [2, 0]  # the table stays as it was
    page = client.get(f"/t/{table['id']}/sheet?token={table['token']}").get_data(as_text=True)
    assert "Liga de primavera" not in page  # and counts in no tournament now


def test_a_league_with_a_start_date_dates_its_rounds(client, tournament) -> None:
    path = f"/api/tournaments/{tournament['id']}/teams"
    body = {"teams": ["Gorriak", "Urdinak", "Berdeak", "Horiak"], "legs": 2, "start": "2026-12-03", "every_days": 7}
    r = client.put(path, headers=tournament["auth"], json=body)
    assert r.status_code == 200, r.json
    assert r.json["schedule"] == {"start": "2026-12-03", "every_days": 7}
    dates = r.json["round_dates"]
    assert len(dates) == len(r.json["fixtures"]) == 6
    assert dates[:3] == ["2026-12-03", "2026-12-10", "2026-12-17"] and dates[-1] == "2027-01-07"  # over the new year
    page = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=es").get_data(as_text=True)
    assert '<time datetime="2026-12-03">jue 3 dic</time>' in page and "jue 31 dic" in page
    assert "Thu Dec 3" in client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=en").get_data(
        as_text=True)
    # every_days left out: a week; the teams entered again without a start: no dates
    r = client.put(path, headers=tournament["auth"], json={"teams": body["teams"], "start": "2027-02-01"})
    assert r.json["round_dates"] == ["2027-02-01", "2027-02-08", "2027-02-15"]
    r = client.put(path, headers=tournament["auth"], json={"teams": body["teams"]})
    assert r.json["schedule"] is None and r.json["round_dates"] is None


@pytest.mark.parametrize(("extra", "field"), [({"start": "2026-13-01"}, "start"), ({"start": "3/12/2026"}, "start"),
                                              ({"start": "2024-W01-1"}, "start"), ({"start": "20240101T0"}, "start"),
                                              ({"start": "9999-12-31", "legs": 2}, "start"),
                                              ({"start": 20261203}, "start"), ({"start": "2026-12-3"}, "start"),
                                              ({"start": "2026-12-03", "every_days": 0}, "every_days"),
                                              ({"start": "2026-12-03", "every_days": 61}, "every_days"),
                                              ({"start": "2026-12-03", "every_days": "7"}, "every_days")])
def test_a_bad_schedule_is_refused_by_name(client, tournament, extra, field) -> None:
    path = f"/api/tournaments/{tournament['id']}/teams"
    r = client.put(path, headers=tournament["auth"], json={"teams": ["A", "B"], **extra})
    assert (r.status_code, r.json["error"]["field"]) == (422, field)
    assert state_of(client, tournament)["teams"] == []


# -- pages ------------------------------------------------------------------------------
def test_the_tournament_page_shows_the_standings_to_both_links(client, tournament) -> None:
    a = imported(client, ["Gorriak", "Urdinak"], [0, 1, 0])
    assert enrol(client, tournament, a).status_code == 201
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=es")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Clasificación" in html and "Liga de invierno" in html
    assert html.index('data-team="Gorriak"') < html.index('data-team="Urdinak"')
    assert f"/w/{a['id']}?token={a['watch_token']}" in html  # the organiser watches each table
    assert f"/?tournament={tournament['id']}&amp;ttoken={tournament['token']}" in html
    watch = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}").get_data(as_text=True)
    assert 'data-team="Gorriak"' in watch
    assert a["watch_token"] not in watch and tournament["token"] not in watch  # spectators: no other keys
    assert 'class="btn btn-ghost remove-table' in html and "remove-table" not in watch  # only the organiser
    assert 'data-url="http://' in html and f'?token={tournament["token"]}"' in html  # the key, to copy
    assert "copy-link" not in watch
    assert f'/api/tournaments/{tournament["id"]}/export?token={tournament["token"]}&amp;lang=es"' in html  # the zip
    assert "export-tournament" not in watch
    assert 'id="rename-tournament"' in html and "delete-tournament" in html and "delete-tournament" not in watch
    qr = client.get(f"/c/{tournament['id']}/qr.svg?token={tournament['watch_token']}")
    assert qr.status_code == 200 and qr.mimetype == "image/svg+xml"


def test_a_watcher_follows_each_table_in_play_from_the_tournament_page_never_with_the_players_key(
        client, tournament) -> None:
    """People following with the watch link saw the matches but could open none: only the
    organiser had "Ver". Each table still played now has it for them too, with that
    table's watch link (read-only), never its players' token; a finished one has none."""
    done = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    playing = imported(client, ["Berdeak", "Horiak"], [1])
    for table in (done, playing):
        assert enrol(client, tournament, table).status_code == 201
    watch = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=es").get_data(as_text=True)
    links = re.findall(r'class="btn btn-ghost no-print watch-table" href="([^"]+)"', watch)
    assert links == [f"/w/{playing['id']}?token={playing['watch_token']}"]
    assert playing["token"] not in watch and done["token"] not in watch and done["watch_token"] not in watch
    assert "remove-table" not in watch
    page = client.get(links[0])  # the table's spectator view opens with it, read-only
    assert page.status_code == 200 and 'data-role="watch"' in page.get_data(as_text=True)


@pytest.mark.parametrize("lang, said", [("es", "Vacas ganadas–perdidas"), ("eu", "Bakak irabazi–galdu"),
                                        ("fr", "Manches gagnées–perdues"), ("en", "Vacas won–lost")])
def test_the_standings_vacas_column_says_what_its_two_figures_are(client, tournament, lang, said) -> None:
    """PJ, G and P say their long names on hover and to a screen reader; "Vacas", whose cells
    read "4–2", did not say which figure is won and which lost."""
    assert enrol(client, tournament, imported(client, ["Gorriak", "Urdinak"], [0, 0])).status_code == 201
    html = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang={lang}").get_data(as_text=True)
    head = re.search(r"<thead>.*?</thead>", html, re.S).group(0)
    assert f'aria-label="{said}"><abbr title="{said}">' in head


def test_a_tables_page_and_sheet_name_the_tournament_it_counts_in(client, tournament) -> None:
    a = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    before = client.get(f"/t/{a['id']}?token={a['token']}&lang=en").get_data(as_text=True)
    assert 'class="hint counts-in"' not in before
    assert enrol(client, tournament, a).status_code == 201
    page = client.get(f"/t/{a['id']}?token={a['token']}&lang=en").get_data(as_text=True)
    assert "This table counts in the tournament Liga de invierno." in page
    sheet = client.get(f"/t/{a['id']}/sheet?token={a['watch_token']}&lang=es").get_data(as_text=True)
    assert "<strong>Liga de invierno</strong>" in sheet


def test_the_fixtures_show_on_the_page_and_open_their_table_with_its_names(client, tournament) -> None:
    client.put(f"/api/tournaments/{tournament['id']}/teams", headers=tournament["auth"],
               json={"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    html = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=es").get_data(as_text=True)
    assert html.count('class="round-title"') == 3 and "Jornada 3" in html
    assert html.count("open-fixture") == 3  # three pairings, none played yet
    link = re.search(r'class="btn btn-ghost no-print open-fixture" href="([^"]+)"', html).group(1).replace("&amp;", "&")
    assert "team0=" in link and "team1=" in link and f"ttoken={tournament['token']}" in link
    page = client.get(link).get_data(as_text=True)
    q = parse_qs(urlsplit(link).query)
    for k in (0, 1):
        assert re.search(rf'name="team{k}"[^>]*value="{q[f"team{k}"][0]}"', page)
    watch = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}").get_data(as_text=True)
    assert 'class="round-title"' in watch and "open-fixture" not in watch and "set-teams" not in watch


@pytest.mark.parametrize(("query", "status"), [("", 401), ("?token=nope", 403)])
def test_the_tournament_page_refuses_a_missing_or_wrong_token(client, tournament, query, status) -> None:
    r = client.get(f"/c/{tournament['id']}{query}")
    assert r.status_code == status and "Liga de invierno" not in r.get_data(as_text=True)


def test_a_new_table_page_for_a_tournament_needs_the_organisers_token(client, tournament) -> None:
    ok = client.get(f"/?tournament={tournament['id']}&ttoken={tournament['token']}&lang=en")
    assert ok.status_code == 200 and 'id="create-tournament"' not in ok.get_data(as_text=True)
    assert "This table will count in the tournament Liga de invierno." in ok.get_data(as_text=True)
    assert "known-teams" not in ok.get_data(as_text=True)  # no team in it yet
    assert enrol(client, tournament, imported(client, ["Gorriak", "Urdinak"], [0])).status_code == 201
    html = client.get(f"/?tournament={tournament['id']}&ttoken={tournament['token']}").get_data(as_text=True)
    assert '<option value="Gorriak"><option value="Urdinak"></datalist>' in html  # names as the standings know them
    assert html.count('list="known-teams"') == 2
    assert client.get(f"/?tournament={tournament['id']}&ttoken={tournament['watch_token']}").status_code == 403
    assert client.get("/?tournament=nosuch&ttoken=x").status_code == 404
    plain = client.get("/?lang=en").get_data(as_text=True)
    assert 'id="create-tournament"' in plain and 'id="tournament-note"' not in plain


def test_a_league_in_groups_plays_each_group_its_own_fixtures_and_standings(client, tournament, tmp_path) -> None:
    import subprocess
    import sys
    from pathlib import Path

    path = f"/api/tournaments/{tournament['id']}/teams"
    groups = [["Gorriak", "Urdinak", "Berdeak"], ["Horiak", "Beltzak", "Zuriak", "Moreak"]]
    r = client.put(path, headers=tournament["auth"], json={"groups": groups, "start": "2026-12-03"})
    assert r.status_code == 200, r.json
    state = r.json
    assert state["teams"] == groups[0] + groups[1]
    assert [(g["name"], g["teams"], g["standings"]) for g in state["groups"]] == [("A", groups[0], []),
                                                                                 ("B", groups[1], [])]
    # three rounds: A's three (one team resting each) beside B's three
    assert [len(games) for games in state["fixtures"]] == [3, 3, 3] and len(state["round_dates"]) == 3
    met = {}
    for games in state["fixtures"]:
        playing = [t for g in games for t in g["teams"]]
        assert len(playing) == len(set(playing))  # nobody twice in a round
        for g in games:
            met[frozenset(g["teams"])] = g["group"]
    assert met == {frozenset((a, b)): name for name, teams in zip("AB", groups, strict=True)
                   for i, a in enumerate(teams) for b in teams[i + 1:]}
    # a match in each group, and one between two groups (a friendly: in no group's standings)
    a = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    b = imported(client, ["Beltzak", "horiak"], [1, 1])
    friendly = imported(client, ["Gorriak", "Horiak"], [1, 1])
    for table in (a, b, friendly):
        assert enrol(client, tournament, table).status_code == 201
    state = state_of(client, tournament)
    assert [[(row["team"], row["won"]) for row in g["standings"]] for g in state["groups"]] == [
        [("Gorriak", 1), ("Urdinak", 0)], [("Horiak", 1), ("Beltzak", 0)]]
    assert sum(row["played"] for row in state["standings"]) == 6  # the friendly counts in the whole league's
    ticked = {frozenset(g["teams"]): g["table"] for games in state["fixtures"] for g in games if g["table"]}
    assert ticked == {frozenset(("Gorriak", "Urdinak")): a["id"], frozenset(("Horiak", "Beltzak")): b["id"]}
    assert state["champion"] is None
    # the page: a standings table a group, the teams yet to play named, each fixture tagged
    page = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=en").get_data(as_text=True)
    assert "Group A</h3>" in page and "Group B</h3>" in page and page.count("standings-table") == 2
    assert "Yet to play: Berdeak" in page and "Yet to play: Zuriak, Moreak" in page
    assert {m["table"]: m["group"] for m in state["matches"]} == {a["id"]: "A", b["id"]: "B", friendly["id"]: None}
    assert page.count('class="hint no-group"') == 1 and "In no group" in page
    assert page.count('class="group-tag"') == 9
    # the zip: each group's standings beside the whole league's, and the command line ranks them alike
    r = client.get(f"/api/tournaments/{tournament['id']}/export", headers=tournament["auth"])
    names = zipfile_names(r.data)
    assert {"standings.csv", "standings-group-A.csv", "standings-group-B.csv"} <= set(names)
    (tmp_path / "groups.zip").write_bytes(r.data)
    proc = subprocess.run([sys.executable, "-m", "scorer", "standings", str(tmp_path / "groups.zip"), "--json"],
                          capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parent.parent)
    assert proc.returncode == 0, proc.stderr
    ranked = json.loads(proc.stdout)
    assert ranked["standings"] == state["standings"]
    assert ranked["groups"] == [{k: g[k] for k in ("name", "teams", "standings")} for g in state["groups"]]
    proc = subprocess.run([sys.executable, "-m", "scorer", "standings", str(tmp_path / "groups.zip"), "--lang", "es"],
                          capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parent.parent)
    text = proc.stdout.splitlines()
    assert proc.returncode == 0 and text[0] == "Grupo A" and "Grupo B" in text and "Todas las partidas" in text
    assert text[text.index("Grupo B") + 2].split()[:2] == ["1", "Horiak"]
    # one league again: group B's match played would leave the fixtures, said first; then the groups go, the tables stay
    r = client.put(path, headers=tournament["auth"], json={"teams": groups[0]})
    assert (r.status_code, r.json["error"]["code"], r.json["error"]["field"]) == (409, "fixtures_would_move", "move_played")
    assert [m["to_round"] for m in r.json["error"]["params"]["moves"]] == [None]
    r = client.put(path, headers=tournament["auth"], json={"teams": groups[0], "move_played": True})
    assert r.json["groups"] is None and len(r.json["fixtures"]) == 3 and "group" not in r.json["fixtures"][0][0]
    assert len(r.json["matches"]) == 3


def test_groups_played_out_name_no_champion_and_offer_a_crossed_bracket(client, tournament) -> None:
    path = f"/api/tournaments/{tournament['id']}/teams"
    groups = [["A1", "A2", "A3"], ["B1", "B2", "B3"]]
    assert client.put(path, headers=tournament["auth"], json={"groups": groups}).status_code == 200
    for teams, winners in ((["A1", "A2"], [0, 0]), (["A2", "A3"], [0, 0]), (["A1", "A3"], [0, 0]),
                           (["B3", "B1"], [1, 1]), (["B1", "B2"], [0, 0]), (["B2", "B3"], [0, 1, 0])):
        assert enrol(client, tournament, imported(client, teams, winners)).status_code == 201
    state = state_of(client, tournament)
    assert all(g["finished"] for games in state["fixtures"] for g in games)
    assert state["champion"] is None  # a league in groups goes on to a final stage
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}").get_data(as_text=True)
    form = page[page.index('id="set-knockout"'):]
    seeds = form[form.index("<textarea"):form.index("</textarea>")].split(">", 1)[1].split("\n")
    assert seeds == ["A1", "B1", "A2", "B2"]  # each group's winner meets the other's runner-up
    teams_form = page[page.index('id="set-teams"'):]
    assert teams_form[teams_form.index("<textarea"):teams_form.index("</textarea>")].split(">", 1)[1] == \
        "A1\nA2\nA3\n\nB1\nB2\nB3"
    r = client.put(f"/api/tournaments/{tournament['id']}/knockout", headers=tournament["auth"], json={"teams": seeds})
    assert [g["teams"] for g in r.json["knockout"]["rounds"][0]] == [["A1", "B2"], ["B1", "A2"]]


@pytest.mark.parametrize(("body", "field"), [
    ({"groups": "A,B"}, "groups"), ({"groups": [["A", "B"]]}, "groups"),
    ({"groups": [["A", "B"], ["C"]]}, "groups[1]"), ({"groups": [["A", "B"], "C,D"]}, "groups[1]"),
    ({"groups": [["A", "B"], ["C", "a"]]}, "groups[1][1]"), ({"groups": [["A", "B"], ["C", ""]]}, "groups[1][1]"),
    ({"groups": [["A", "A "], ["C", "D"]]}, "groups[0][1]"),
    ({"groups": [[f"T{k}", f"U{k}"] for k in range(9)]}, "groups"),
    ({"groups": [[f"T{k}-{j}" for j in range(11)] for k in range(3)]}, "groups"),
    ({"groups": [["A", "B"], ["C", "D"]], "teams": ["A", "B", "C", "D"]}, "groups"),
    ({"groups": [["A", "B"], ["C", "D"]], "legs": 3}, "legs"),
])
def test_bad_groups_are_refused_by_name_and_change_nothing(client, tournament, body, field) -> None:
    path = f"/api/tournaments/{tournament['id']}/teams"
    assert client.put(path, headers=tournament["auth"], json={"groups": [["X", "Y"], ["Z", "W"]]}).status_code == 200
    r = client.put(path, headers=tournament["auth"], json=body)
    assert (r.status_code, r.json["error"]["field"]) == (422, field), r.json
    state = state_of(client, tournament)
    assert [g["teams"] for g in state["groups"]] == [["X", "Y"], ["Z", "W"]]


def test_the_semi_finals_losers_play_for_third_place(client, tournament) -> None:
    ko = f"/api/tournaments/{tournament['id']}/knockout"
    seeds = ["Gorriak", "Urdinak", "Berdeak", "Horiak"]
    r = client.put(ko, headers=tournament["auth"], json={"teams": seeds, "third_place": True})
    assert r.status_code == 200, r.json
    assert r.json["knockout"]["third_place"] == {"teams": [None, None], "table": None, "result": None,
                                                 "walkover": None, "vacas": None, "finished": False, "winner": None, "bye": False,
                                                 "withdrawn": None, "not_played": False}
    # semi-finals: Gorriak and Urdinak go through; Horiak and Berdeak meet for third place
    for table in (imported(client, ["Gorriak", "Horiak"], [0, 0]), imported(client, ["Berdeak", "Urdinak"], [1, 1])):
        assert enrol(client, tournament, table).status_code == 201
    assert state_of(client, tournament)["knockout"]["third_place"]["teams"] == ["Horiak", "Berdeak"]
    third = imported(client, ["Berdeak", "Horiak"], [0, 1, 0])
    final = imported(client, ["Urdinak", "Gorriak"], [0, 0])
    for table in (third, final):
        assert enrol(client, tournament, table).status_code == 201
    state = state_of(client, tournament)
    bracket = state["knockout"]
    assert bracket["third_place"]["table"] == third["id"] and bracket["third_place"]["vacas"] == [1, 2]
    assert (bracket["third"], bracket["champion"], state["champion"]) == ("Berdeak", "Urdinak", "Urdinak")
    assert bracket["rounds"][1][0]["table"] == final["id"]
    assert {m["stage"] for m in state["matches"]} == {"knockout"} and state["standings"] == []
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=en").get_data(as_text=True)
    assert "Third place</h3>" in page and "Third place: Berdeak" in page
    assert page.index("Third place</h3>") < page.index("Final</h3>")
    assert 'name="third_place" checked' in page
    # drawn again without it, the third-place table, added since the draw, is a friendly: in no standings
    r = client.put(ko, headers=tournament["auth"], json={"teams": seeds})
    assert r.json["knockout"]["third_place"] is None and r.json["knockout"]["third"] is None
    assert {m["table"]: m["stage"] for m in r.json["matches"]}[third["id"]] == "friendly"
    assert r.json["standings"] == []


@pytest.mark.parametrize(("body", "field"), [({"teams": ["A", "B"], "third_place": True}, "third_place"),
                                             ({"teams": ["A", "B", "C"], "third_place": True}, "third_place"),
                                             ({"teams": ["A", "B", "C", "D"], "third_place": "yes"}, "third_place"),
                                             ({"teams": ["A", "B", "C", "D"], "third_place": 1}, "third_place")])
def test_a_bad_third_place_is_refused_by_name(client, tournament, body, field) -> None:
    r = client.put(f"/api/tournaments/{tournament['id']}/knockout", headers=tournament["auth"], json=body)
    assert (r.status_code, r.json["error"]["field"]) == (422, field)
    assert state_of(client, tournament)["knockout"] is None


@pytest.mark.parametrize(("groups", "size", "n"), [(2, 2, 4), (2, 5, 4), (3, 3, 4), (4, 2, 8), (4, 4, 8), (5, 3, 8),
                                                   (6, 2, 8), (7, 4, 8), (8, 2, 16), (8, 4, 16)])
def test_a_bracket_from_groups_takes_about_two_a_group_and_keeps_each_groups_apart(groups, size, n) -> None:
    from scorer.engine import knockout_draw
    from scorer.engine.tournament import qualifiers

    named = [[f"{'ABCDEFGH'[g]}{k}" for k in range(1, size + 1)] for g in range(groups)]
    # every group ranked as entered, its last team yet to play; across groups, later groups' teams first
    standings = sorted((t for teams in named for t in teams[:-1]), key=lambda t: (t[1:], -ord(t[0])))
    state = {"standings": [{"team": t} for t in standings],
             "groups": [{"name": t[0][0], "teams": t, "standings": [{"team": x} for x in t[:-1]]} for t in named]}
    seeds = qualifiers(state)
    assert len(seeds) == n and len(set(seeds)) == n
    assert {t[0] for t in named} <= set(seeds)  # every group's winner goes through
    places = [int(t[1:]) for t in seeds]
    assert places == sorted(places) or groups * 2 == n  # swapped only where groups pair whole places
    if n - groups < groups and size > 2:  # a place that does not fit whole: its best by the whole league's standings
        assert sorted(t for t in seeds if t[1:] == "2") == sorted(f"{'ABCDEFGH'[g]}2" for g in
                                                                  range(groups - (n - groups), groups))
    for a, b in knockout_draw(seeds):
        assert a[0] != b[0], (seeds, a, b)  # no two of one group meet in the first round
        if groups * 2 == n:
            assert {a[1:], b[1:]} == {"1", "2"}  # a winner meets another group's runner-up


@pytest.mark.parametrize(("body", "field"), [({"name": "\u200b"}, "name"), ({"name": "\ufeff \u0000"}, "name")])
def test_a_tournament_name_of_invisible_characters_is_refused(client, body, field) -> None:
    r = client.post("/api/tournaments", json=body)
    assert (r.status_code, r.json["error"]["field"]) == (422, field) and "invisible" in r.json["error"]["message"]


def test_a_team_with_an_invisible_character_is_the_same_team(client, tournament) -> None:
    path = f"/api/tournaments/{tournament['id']}/teams"
    r = client.put(path, headers=tournament["auth"], json={"teams": ["Gorriak", "Gorri\u200bak "]})
    assert (r.status_code, r.json["error"]["field"]) == (422, "teams[1]")
    r = client.put(path, headers=tournament["auth"], json={"teams": ["Gorriak", "\u202eUrdinak"]})
    assert r.status_code == 200 and r.json["teams"] == ["Gorriak", "Urdinak"]


def test_each_change_of_the_settings_counts_a_revision_and_enrolling_does_not(client, tournament) -> None:
    base = f"/api/tournaments/{tournament['id']}"
    auth = tournament["auth"]
    assert state_of(client, tournament)["revision"] == 0
    assert client.patch(base, headers=auth, json={"name": "Liga"}).json["revision"] == 1
    teams = ["Gorriak", "Urdinak", "Berdeak", "Horiak"]
    assert client.put(f"{base}/teams", headers=auth, json={"teams": teams, "revision": 1}).json["revision"] == 2
    assert client.put(f"{base}/knockout", headers=auth, json={"teams": teams[:2], "revision": 2}).json["revision"] == 3
    assert client.delete(f"{base}/knockout?revision=3", headers=auth).json["revision"] == 4
    assert enrol(client, tournament, imported(client, teams[:2], [0, 0])).json["revision"] == 4  # not a setting
    assert client.delete(f"{base}?revision=4", headers=auth).status_code == 204


@pytest.mark.parametrize("method, path, body", [
    ("patch", "", {"name": "Otra liga"}),
    ("put", "/teams", {"teams": ["Otros", "Nuevos"]}),
    ("put", "/knockout", {"teams": ["Otros", "Nuevos"]}),
    ("put", "/rules", {"rules": {"kings": 4}}),
    ("delete", "/knockout", None),
    ("delete", "", None),
])
def test_a_change_made_on_an_older_view_is_refused_and_changes_nothing(client, tournament, method, path, body) -> None:
    base = f"/api/tournaments/{tournament['id']}"
    auth = tournament["auth"]
    teams = ["Gorriak", "Urdinak", "Berdeak", "Horiak"]
    client.put(f"{base}/teams", headers=auth, json={"teams": teams})  # what this phone saw: revision 1
    client.put(f"{base}/knockout", headers=auth, json={"teams": teams})  # another phone: revision 2
    before = state_of(client, tournament)
    assert before["revision"] == 2
    call = getattr(client, method)
    if body is None:
        r = call(f"{base}{path}?revision=1", headers=auth)
    else:
        r = call(f"{base}{path}", headers=auth, json={**body, "revision": 1})
    assert r.status_code == 409, r.json
    assert r.json["error"]["code"] == "stale_revision" and r.json["error"]["field"] == "revision"
    assert "follows revision 1, but the tournament is at revision 2" in r.json["error"]["message"]
    assert state_of(client, tournament) == before  # nothing changed
    # sent again on the revision it now knows, it is applied
    if body is None:
        r = call(f"{base}{path}?revision=2", headers=auth)
    else:
        r = call(f"{base}{path}", headers=auth, json={**body, "revision": 2})
    assert r.status_code in (200, 204), r.json


@pytest.mark.parametrize("revision", ["1", -1, 1.0, True, None, [1]])
def test_a_revision_that_is_not_a_whole_number_is_refused_by_name(client, tournament, revision) -> None:
    r = client.patch(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"],
                     json={"name": "Otra", "revision": revision})
    assert r.status_code == 400 and r.json["error"]["field"] == "revision", r.json
    assert json.dumps(revision) in r.json["error"]["message"]
    assert state_of(client, tournament)["name"] == "Liga de invierno"


@pytest.mark.parametrize("query", ["x", "-1", "1.0", "", "\u0661"])
def test_a_revision_query_that_is_not_ascii_digits_is_refused(client, tournament, query) -> None:
    r = client.delete(f"/api/tournaments/{tournament['id']}", headers=tournament["auth"],
                      query_string={"revision": query})
    assert r.status_code == 400 and r.json["error"]["field"] == "revision", r.json
    assert state_of(client, tournament)["name"] == "Liga de invierno"  # still there


def finish(client, table: dict[str, Any], teams: list[str], winners: list[int]) -> None:
    """Replace `table`'s match with one whose games go to `winners` (2 vacas win it)."""
    r = client.post(f"/api/tables/{table['id']}/import?client_id=x&version={table['version']}",
                    headers={"Authorization": f"Bearer {table['token']}", "Content-Type": "application/x-ndjson"},
                    data=match_file(teams, winners, 2))
    assert r.status_code == 200, r.json


# -- a table added since the final stage was drawn never counts in the league ---------------
def test_a_table_added_after_the_draw_is_the_brackets_or_a_friendly_never_the_leagues(client, tournament,
                                                                                      tmp_path) -> None:
    import io
    import zipfile

    base = f"/api/tournaments/{tournament['id']}"
    teams = ["Gorriak", "Urdinak", "Berdeak", "Horiak"]
    assert client.put(f"{base}/teams", headers=tournament["auth"], json={"teams": teams}).status_code == 200
    league = [imported(client, ["Gorriak", "Urdinak"], [0, 0]), imported(client, ["Berdeak", "Horiak"], [0, 1, 0])]
    for table in league:
        assert enrol(client, tournament, table).status_code == 201
    before = state_of(client, tournament)
    r = client.put(f"{base}/knockout", headers=tournament["auth"], json={"teams": ["Gorriak", "Urdinak", "Horiak",
                                                                                   "Berdeak"]})
    assert [g["teams"] for g in r.json["knockout"]["rounds"][0]] == [["Gorriak", "Berdeak"], ["Urdinak", "Horiak"]]
    # a semi-final played out; the final opened before the other semi-final ended; a match of no pairing
    semi1 = imported(client, ["Gorriak", "Berdeak"], [0, 0])
    early_final = imported(client, ["Gorriak", "Urdinak"], [1, 1])
    outside = imported(client, ["Horiak", "Gorriak"], [0, 0])
    for table in (semi1, early_final, outside):
        assert enrol(client, tournament, table).status_code == 201
    state = state_of(client, tournament)
    assert {m["table"]: m["stage"] for m in state["matches"]} == {
        league[0]["id"]: "league", league[1]["id"]: "league", semi1["id"]: "knockout",
        early_final["id"]: "friendly", outside["id"]: "friendly"}
    assert state["standings"] == before["standings"] and state["fixtures"] == before["fixtures"]
    page = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=en").get_data(as_text=True)
    assert page.count('<span class="stage stage-friendly">Friendly</span> · ') == 2  # on each of the two
    assert page.count('<p class="hint friendly-note"><span class="stage stage-friendly">Friendly</span>: a table opened '
                      'after the bracket was made that is not (yet) one of its pairings: it counts in no standings.</p>') == 1
    fr = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=fr").get_data(as_text=True)
    assert '<span class="stage stage-friendly">Amical</span>\u00a0: une table ouverte après' in fr  # French's colon
    # the other semi-final won by Urdinak: the early final is the final now; the standings never moved
    semi2 = imported(client, ["Urdinak", "Horiak"], [0, 0])
    assert enrol(client, tournament, semi2).status_code == 201
    state = state_of(client, tournament)
    stages = {m["table"]: m["stage"] for m in state["matches"]}
    assert (stages[early_final["id"]], stages[outside["id"]], stages[semi2["id"]]) == ("knockout", "friendly",
                                                                                      "knockout")
    assert state["knockout"]["rounds"][1][0]["table"] == early_final["id"] and state["champion"] == "Urdinak"
    assert state["standings"] == before["standings"]
    # the zip keeps the friendly apart from the league's matches (which `mus-scorer standings` ranks)
    data = client.get(f"{base}/export", headers=tournament["auth"]).data
    names = sorted(zipfile.ZipFile(io.BytesIO(data)).namelist())
    assert [n.split("/")[0] for n in names if "/" in n and not n.startswith("excel/")] == ["friendly", "knockout", "knockout", "knockout",
                                                            "matches", "matches"]
    # the bracket taken away: every table counts in the league again, as it says
    r = client.delete(f"{base}/knockout", headers=tournament["auth"])
    assert {m["stage"] for m in r.json["matches"]} == {"league"}


# -- byes: a final stage of any number of teams from 2 to 16 ---------------------------------
@pytest.mark.parametrize(("n", "byes"), [(3, 1), (5, 3), (6, 2), (7, 1), (9, 7), (12, 4), (16, 0)])
def test_a_bracket_short_of_a_power_of_two_gives_the_top_seeds_byes(client, tournament, n, byes) -> None:
    seeds = [f"T{k}" for k in range(1, n + 1)]
    r = client.put(f"/api/tournaments/{tournament['id']}/knockout", headers=tournament["auth"], json={"teams": seeds})
    assert r.status_code == 200, r.json
    first = r.json["knockout"]["rounds"][0]
    size = 1 << (n - 1).bit_length()
    assert len(first) == size // 2
    through = [g["teams"][0] for g in first if g["bye"]]
    assert sorted(through, key=seeds.index) == seeds[:byes]  # the top seeds
    assert all(g["teams"][1] is None and g["winner"] == g["teams"][0] and g["finished"] and g["table"] is None
               for g in first if g["bye"])


def test_a_bracket_of_three_plays_out_its_bye_on_the_page(client, tournament) -> None:
    ko = f"/api/tournaments/{tournament['id']}/knockout"
    r = client.put(ko, headers=tournament["auth"], json={"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    assert r.status_code == 200, r.json
    semis, final = r.json["knockout"]["rounds"]
    assert semis[0] == {"teams": ["Gorriak", None], "table": None, "result": None, "walkover": None, "vacas": None, "finished": True,
                        "winner": "Gorriak", "bye": True, "withdrawn": None, "not_played": False}
    assert semis[1]["teams"] == ["Urdinak", "Berdeak"] and not semis[1]["bye"]
    assert final[0]["teams"] == ["Gorriak", None]  # waiting for the other semi-final
    for lang, said in (("en", "Gorriak go through without playing (a bye)."),
                       ("es", "Pase directo para Gorriak, sin jugar."),
                       ("eu", "Gorriak bikotea jokatu gabe doa aurrera (txanda librea)."),
                       ("fr", "Passage sans jouer pour Gorriak (exemption).")):
        page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang={lang}").get_data(as_text=True)
        assert said in page and page.count('class="match-row fixture is-finished bye"') == 1
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=en").get_data(as_text=True)
    assert page.count("open-fixture") == 1  # the semi-final to play; the bye opens no table
    for teams, winners in ((["Berdeak", "Urdinak"], [0, 0]), (["Gorriak", "Berdeak"], [1, 0, 1])):
        assert enrol(client, tournament, imported(client, teams, winners)).status_code == 201
    state = state_of(client, tournament)
    assert state["knockout"]["rounds"][1][0]["teams"] == ["Gorriak", "Berdeak"]
    assert state["champion"] == "Berdeak" and {m["stage"] for m in state["matches"]} == {"knockout"}


# -- a team not among the league's ----------------------------------------------------------
def test_a_match_of_a_team_not_among_the_leagues_is_marked_and_shown(client, tournament) -> None:
    base = f"/api/tournaments/{tournament['id']}"
    typo = imported(client, ["Gorriaks", "Urdinak"], [0, 0])
    r = enrol(client, tournament, typo)
    assert r.status_code == 201 and r.json["matches"][0]["unknown_teams"] == []  # no teams set: nothing to say
    assert client.put(f"{base}/teams", headers=tournament["auth"],
                      json={"teams": ["Gorriak", "Urdinak", "Berdeak"]}).status_code == 200
    fine = imported(client, ["gorriák", "Berdeak"], [0, 0])  # one team, however spelt
    r = enrol(client, tournament, fine)
    assert r.status_code == 201  # still enrolled: the teams may be put right later
    assert {m["table"]: m["unknown_teams"] for m in r.json["matches"]} == {typo["id"]: ["Gorriaks"], fine["id"]: []}
    for lang, said in (("en", "Gorriaks is not one of the league&#39;s teams"),
                       ("es", "La pareja Gorriaks no está en la liga"),
                       ("eu", "Gorriaks bikotea ez da ligako bikoteetako bat"),
                       ("fr", "L&#39;équipe Gorriaks ne fait pas partie du championnat")):
        page = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang={lang}").get_data(as_text=True)
        assert page.count('class="warning unknown-team" data-team="Gorriaks"') == 1 and said in page
    # a fourth team entered in the league: no word any more
    r = client.put(f"{base}/teams", headers=tournament["auth"],
                   json={"teams": ["Gorriak", "Urdinak", "Berdeak", "Gorriaks"]})
    assert all(m["unknown_teams"] == [] for m in r.json["matches"])
    assert "unknown-team" not in client.get(f"/c/{tournament['id']}?token={tournament['token']}").get_data(as_text=True)


# -- unknown keys ------------------------------------------------------------------------------
@pytest.mark.parametrize(("method", "path", "body", "field", "known"), [
    ("post", "", {"name": "x", "teams": ["A", "B"]}, "teams", "name, rules"),
    ("post", "", {"name": "x", "revision": 0}, "revision", "name, rules"),
    ("put", "/{id}/rules", {"rules": {}, "kings": 4}, "kings", "rules, revision"),
    ("patch", "/{id}", {"name": "x", "nmae": "y"}, "nmae", "name, revision"),
    ("put", "/{id}/teams", {"teams": ["A", "B"], "foo": 1}, "foo", "teams, groups, legs, start, every_days, move_played, revision"),
    ("put", "/{id}/teams", {"team": ["A", "B"]}, "team", "teams, groups, legs, start, every_days, move_played, revision"),
    ("put", "/{id}/knockout", {"teams": ["A", "B", "C", "D"], "third": True}, "third",
     "teams, third_place, revision"),
])
def test_a_key_a_tournament_body_does_not_know_is_refused_by_name(client, tournament, method, path, body, field,
                                                                  known) -> None:
    before = state_of(client, tournament)
    url = "/api/tournaments" + path.format(id=tournament["id"])
    r = getattr(client, method)(url, headers=tournament["auth"], json=body)
    assert (r.status_code, r.json["error"]["code"], r.json["error"]["field"]) == (422, "invalid", field), r.json
    assert r.json["error"]["message"] == f"{field}: unknown key (known: {known})"
    assert state_of(client, tournament) == before  # nothing changed


def test_the_known_keys_with_a_revision_are_taken(client, tournament) -> None:
    base = f"/api/tournaments/{tournament['id']}"
    auth = tournament["auth"]
    assert client.patch(base, headers=auth, json={"name": "Liga", "revision": 0}).status_code == 200
    r = client.put(f"{base}/teams", headers=auth, json={"teams": ["A", "B", "C", "D"], "legs": 2, "start": "2026-01-03",
                                                        "every_days": 7, "revision": 1})
    assert r.status_code == 200, r.json
    r = client.put(f"{base}/knockout", headers=auth, json={"teams": ["A", "B", "C", "D"], "third_place": True,
                                                           "revision": 2})
    assert r.status_code == 200 and r.json["revision"] == 3, r.json


# -- the tie-breaks on the page --------------------------------------------------------------
def test_the_standings_say_which_criterion_split_each_tie(client, tournament) -> None:
    # all four win one match: A took 2 vacas in the match it lost, B 1; C lost fewer vacas than D
    for teams, winners in ((["A", "C"], [0, 0, 0]), (["B", "D"], [0, 0, 0]), (["A", "D"], [0, 1, 0, 1, 1]),
                           (["B", "C"], [0, 1, 1, 1])):
        assert enrol(client, tournament, imported(client, teams, winners, 3)).status_code == 201
    rows = state_of(client, tournament)["standings"]
    assert [(r["team"], r["won"], r["vacas_won_in_lost"], r["vacas_lost"]) for r in rows] == [
        ("A", 1, 2, 3), ("B", 1, 1, 3), ("C", 1, 0, 4), ("D", 1, 0, 5)]
    page = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=en").get_data(as_text=True)
    note = page[page.index('class="hint tie-breaks-title"'):]
    note = note[:note.index("</ul>")]
    assert note.count('<span class="nw">(') == 3  # each tie's values on one line
    note = re.sub(r"<span class=\"nw\">([^<]*)</span>", r"\1", note)
    assert "Ties on matches won:" in note
    assert "A ahead of B: more vacas won in the matches lost (2–1)." in note
    assert "B ahead of C: more vacas won in the matches lost (1–0)." in note
    assert "C ahead of D: fewer vacas lost (4–5)." in note
    es = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=es").get_data(as_text=True)
    assert "A por delante de B: más vacas ganadas en las partidas perdidas <span class=\"nw\">(2–1)</span>." in es


def test_the_standings_name_a_head_to_head_and_a_shared_place(client, tournament) -> None:
    # A, B, C: a circle of 2-1 wins, level on everything
    for teams, winners in ((["A", "B"], [0, 1, 0]), (["B", "C"], [0, 1, 0]), (["C", "A"], [0, 1, 0])):
        assert enrol(client, tournament, imported(client, teams, winners)).status_code == 201
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=en").get_data(as_text=True)
    assert "A and B share the place: level on every criterion." in page
    assert "B and C share the place: level on every criterion." in page
    # another league: A and B level on all but their meeting, which A won
    other = client.post("/api/tournaments", json={"name": "Beste bat"}).json
    other["auth"] = {"Authorization": f"Bearer {other['token']}"}
    for teams, winners in ((["A", "B"], [0, 1, 0]), (["C", "A"], [0, 1, 0]), (["B", "D"], [0, 1, 0]),
                           (["C", "D"], [0, 1, 0])):
        assert enrol(client, other, imported(client, teams, winners)).status_code == 201
    assert [r["team"] for r in state_of(client, other)["standings"]] == ["C", "A", "B", "D"]
    page = client.get(f"/c/{other['id']}?token={other['token']}&lang=fr").get_data(as_text=True)
    assert french_spacing("A devant B : plus de victoires dans les confrontations entre équipes à égalité "
                          '<span class="nw">(1–0)</span>.') in page


def test_an_enrolment_with_a_key_it_does_not_know_is_refused_by_name(client, tournament) -> None:
    table = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    r = client.post(f"/api/tournaments/{tournament['id']}/tables", headers=tournament["auth"],
                    json={"table": table["id"], "token": table["token"], "stage": "knockout"})
    assert r.status_code == 422 and r.json["error"]["field"] == "stage", r.json
    assert "known: table, token" in r.json["error"]["message"]
    assert state_of(client, tournament)["matches"] == []  # not enrolled


def _one_of_met(schema: dict[str, Any], body: dict[str, Any]) -> int:
    """How many of `schema`'s oneOf branches (each a `required` list) `body` meets."""
    return sum(set(branch["required"]) <= set(body) for branch in schema["oneOf"])


def test_the_document_says_teams_or_groups_and_no_empty_name_as_the_server_does(client, tournament) -> None:
    """PUT .../teams takes teams or groups, exactly one (oneOf): both, or neither, is a 422;
    and no team name may be empty (minLength 1) in the teams, the groups or the bracket."""
    doc = client.get("/api/openapi.json").json
    path = "/api/tournaments/{tournament_id}"

    def body_schema(route: str) -> dict[str, Any]:
        return doc["paths"][path + route]["put"]["requestBody"]["content"]["application/json"]["schema"]

    teams, knockout = body_schema("/teams"), body_schema("/knockout")
    for item in (teams["properties"]["teams"]["items"], teams["properties"]["groups"]["items"]["items"],
                 knockout["properties"]["teams"]["items"]):
        assert item["type"] == "string" and item["minLength"] == 1
    url, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    four, groups = ["A", "B", "C", "D"], [["A", "B"], ["C", "D"]]
    for body, field in (({"teams": four}, None), ({"groups": groups}, None), ({"teams": four, "groups": groups},
                                                                               "groups"), ({"legs": 2}, "teams")):
        r = client.put(url + "/teams", headers=auth, json=body)
        assert (r.status_code == 200) == (_one_of_met(teams, body) == 1), (body, r.json)
        if field:
            assert r.status_code == 422 and r.json["error"]["field"] == field, r.json
    before = state_of(client, tournament)
    for route, body, field in (("/teams", {"teams": ["A", ""]}, "teams[1]"),
                               ("/teams", {"groups": [["A", "B"], ["", "D"]]}, "groups[1][0]"),
                               ("/knockout", {"teams": ["", "B"]}, "teams[0]")):
        r = client.put(url + route, headers=auth, json=body)
        assert r.status_code == 422 and r.json["error"]["field"] == field, r.json
    assert state_of(client, tournament) == before


def test_the_document_says_a_team_named_twice_is_refused_as_the_server_does(client, tournament) -> None:
    """The teams, each group and the bracket say a team named twice (case, accents and
    spacing aside) is a 422 on the second, and hold uniqueItems (an exact repeat): the
    server refuses every such list, exact or not, and takes the same names unrepeated."""
    doc = client.get("/api/openapi.json").json
    path = "/api/tournaments/{tournament_id}"

    def body_schema(route: str) -> dict[str, Any]:
        return doc["paths"][path + route]["put"]["requestBody"]["content"]["application/json"]["schema"]

    teams, knockout = body_schema("/teams"), body_schema("/knockout")
    lists = {"teams": teams["properties"]["teams"], "groups": teams["properties"]["groups"],
             "bracket": knockout["properties"]["teams"]}
    for name, schema in lists.items():
        assert "named twice" in schema["description"] and "case, accents" in schema["description"], name
    for schema in (lists["teams"], lists["groups"]["items"], lists["bracket"]):
        assert schema["uniqueItems"] is True
    url, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    before = state_of(client, tournament)
    for route, body, field in (("/teams", {"teams": ["Gorriak", "Txuriak", "Gorriak"]}, "teams[2]"),
                               ("/teams", {"teams": ["Gorriák", "Txuriak", " GORRIAK"]}, "teams[2]"),
                               ("/teams", {"groups": [["A", "B", "A"], ["C", "D"]]}, "groups[0][2]"),
                               ("/teams", {"groups": [["A", "B"], ["C", "á"]]}, "groups[1][1]"),
                               ("/knockout", {"teams": ["A", "B", "A"]}, "teams[2]"),
                               ("/knockout", {"teams": ["Ánder", "ander"]}, "teams[1]")):
        r = client.put(url + route, headers=auth, json=body)
        assert (r.status_code, r.json["error"]["field"]) == (422, field), (body, r.json)
        assert "twice" in r.json["error"]["message"] or "again" in r.json["error"]["message"]
    assert state_of(client, tournament) == before
    for route, body in (("/teams", {"teams": ["Gorriak", "Txuriak", "Urdinak"]}),
                        ("/teams", {"groups": [["A", "B"], ["C", "D"]]}), ("/knockout", {"teams": ["A", "B", "C"]})):
        assert client.put(url + route, headers=auth, json=body).status_code == 200, body


@pytest.mark.parametrize("every", [-3, "x", 0, 61, None, "7", True, 7.5])
def test_a_bad_every_days_is_refused_even_without_a_start(client, tournament, every) -> None:
    """every_days is checked whatever else is sent (a 422 naming it), as the document's
    schema (integer, 1 to 60) says; a good one without start is taken and dates nothing."""
    doc = client.get("/api/openapi.json").json
    schema = (doc["paths"]["/api/tournaments/{tournament_id}/teams"]["put"]["requestBody"]["content"]
              ["application/json"]["schema"]["properties"]["every_days"])
    assert (schema["type"], schema["minimum"], schema["maximum"]) == ("integer", 1, 60)
    assert "without start" in schema["description"]
    path = f"/api/tournaments/{tournament['id']}/teams"
    for extra in ({}, {"start": ""}, {"start": "2026-12-03"}):
        r = client.put(path, headers=tournament["auth"], json={"teams": ["A", "B"], "every_days": every, **extra})
        assert (r.status_code, r.json["error"]["field"]) == (422, "every_days"), (extra, r.json)
        assert json.dumps(every) in r.json["error"]["message"]
    assert state_of(client, tournament)["teams"] == []
    r = client.put(path, headers=tournament["auth"], json={"teams": ["A", "B"], "every_days": 14})
    assert r.status_code == 200 and r.json["schedule"] is None and r.json["round_dates"] is None


def test_a_typed_team_list_refused_says_why_as_a_key_every_language_has(client, tournament) -> None:
    """The refusals of what an organiser types (the teams, the first round's date) carry a
    `reason` and its `params` beside the English message, so that the page says them in
    its reader's language (`why.<reason>`): each one's key is in every language, and its
    words take the params."""
    from web import i18n

    url, auth = f"/api/tournaments/{tournament['id']}/teams", tournament["auth"]
    cases = (({"teams": ["Gorriak", "Txuriak", "Gorriak"]}, "named_twice", {"name": "Gorriak", "same": "Gorriak"}),
             ({"teams": ["Gorriák", "Txuriak", " GORRIAK"]}, "named_again", {"name": "GORRIAK", "same": "Gorriák"}),
             ({"teams": ["Gorriak", "   "]}, "blank_name", {}),
             ({"teams": ["Gorriak", "x" * 41]}, "name_too_long", {"name": "x" * 41, "limit": 40}),
             ({"teams": ["Gorriak"]}, "team_count", {"max": 32}),
             ({"teams": ["A", "B"], "start": "2026-13-01"}, "bad_start", {}),
             ({"teams": ["A", "B"], "every_days": 0}, "bad_every_days", {}))
    for body, reason, params in cases:
        r = client.put(url, headers=auth, json=body)
        err = r.json["error"]
        assert (r.status_code, err["code"], err["reason"]) == (422, "invalid", reason), (body, err)
        assert {k: err["params"][k] for k in params} == params, err
        for lang in i18n.LANGS:
            said = i18n.t(lang, f"why.{reason}", **err["params"])
            assert said != f"why.{reason}" and "{" not in said, (lang, said)
            if "name" in params:
                assert params["name"] in said, (lang, said)
    # a refusal without a reason keeps the shape it had
    r = client.put(url, headers=auth, json={"teams": ["A", "B"], "legs": 3})
    assert r.status_code == 422 and "reason" not in r.json["error"] and "params" not in r.json["error"]


def test_the_groups_and_final_stage_typed_wrong_say_why_in_every_language(client, tournament) -> None:
    """What the organiser types in the groups or the final stage's form, refused, carries a
    `reason` too: the page said 'No se entendió. (groups[1]: expected a list of 2 team names
    or more, got ['C'])', the English message in a Spanish sentence, for a group of one team,
    one group alone, more than 32 teams in the groups, one team in the final stage or 17, and
    a third place with three."""
    from web import i18n

    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    nine = [[f"G{i}a", f"G{i}b"] for i in range(9)]
    big = [[f"G{i}t{j}" for j in range(9)] for i in range(4)]
    cases = (("teams", {"groups": [["A", "B", "C", "D"]]}, "group_count", {"max": 8}),
             ("teams", {"groups": nine}, "group_count", {"max": 8}),
             ("teams", {"groups": [["A", "B"], ["C"]]}, "group_too_small", {"group": "B"}),
             ("teams", {"groups": big}, "groups_team_count", {"count": 36, "max": 32}),
             ("knockout", {"teams": ["Gorriak"]}, "ko_team_count", {"max": 16}),
             ("knockout", {"teams": [f"T{i}" for i in range(17)]}, "ko_team_count", {"max": 16}),
             ("knockout", {"teams": ["A", "B", "C"], "third_place": True}, "third_place_count", {"count": 3}))
    for path, body, reason, params in cases:
        r = client.put(f"{base}/{path}", headers=auth, json=body)
        err = r.json["error"]
        assert (r.status_code, err["code"], err.get("reason")) == (422, "invalid", reason), (body, err)
        assert err["params"] == params, err
        for lang in i18n.LANGS:
            said = i18n.t(lang, f"why.{reason}", **err["params"])
            assert said != f"why.{reason}" and "{" not in said, (lang, said)
            assert all(str(v) in said for v in params.values()), (lang, said)



def test_every_reason_is_documented_and_said_in_every_language(client) -> None:
    """Every reason (the store's and the engine's) is in the OpenAPI enum and has its own
    words in each language (not English standing in), which speak of the same params."""
    import string

    from scorer.engine.errors import KEYS
    from scorer.storage.tables import REASONS, StoreError
    from web import i18n

    doc = client.get("/api/openapi.json").json
    assert set(doc["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["reason"]["enum"]) == REASONS
    assert KEYS <= REASONS
    for reason in REASONS:
        spoken = {}
        for lang in i18n.LANGS:
            text = i18n._TABLES[lang].get(f"why.{reason}")
            assert text, (lang, reason)
            spoken[lang] = {name for _, name, _, _ in string.Formatter().parse(text) if name}
        assert all(names == spoken["en"] for names in spoken.values()), (reason, spoken)
    with pytest.raises(ValueError):
        StoreError(422, "invalid", "x", "teams", "no_such_reason")


def test_a_bracket_seed_not_in_the_league_is_flagged_and_shown(client, tournament) -> None:
    """A seed that is none of the league's teams ("Gorriaks" for "Gorriak"): the draw is
    kept, as a league match of such a team is, but the tournament names it in
    `knockout.unknown_teams` and its page warns of it (for the watchers too)."""
    ko = f"/api/tournaments/{tournament['id']}/knockout"
    teams = ["Gorriak", "Urdinak", "Berdeak", "Horiak"]
    assert client.put(f"/api/tournaments/{tournament['id']}/teams", headers=tournament["auth"],
                      json={"teams": teams}).status_code == 200
    r = client.put(ko, headers=tournament["auth"], json={"teams": ["Gorriak", "Gorriaks"]})
    assert r.status_code == 200, r.json
    assert r.json["knockout"]["unknown_teams"] == ["Gorriaks"]
    # the OpenAPI document names every key of the knockout object, unknown_teams among them
    schema = client.get("/api/openapi.json").json["components"]["schemas"]["Tournament"]["properties"]["knockout"]
    assert set(r.json["knockout"]) == set(schema["properties"])
    assert schema["properties"]["unknown_teams"]["items"] == {"type": "string"}
    assert state_of(client, tournament)["knockout"]["unknown_teams"] == ["Gorriaks"]
    for token in (tournament["token"], tournament["watch_token"]):
        page = client.get(f"/c/{tournament['id']}?token={token}&lang=en").get_data(as_text=True)
        knockout = page[page.index('id="knockout"'):page.index('id="matches"')]
        assert 'class="warning unknown-team ko-unknown-team" data-team="Gorriaks"' in knockout
        assert "Gorriaks is not one of the league&#39;s teams (a name mistyped?)" in knockout
        assert 'data-team="Gorriak"' not in knockout
    # a name spelt otherwise but the same team is no unknown team; put right, no warning
    r = client.put(ko, headers=tournament["auth"], json={"teams": ["gorriak", " URDINAK "]})
    assert r.json["knockout"]["unknown_teams"] == []
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}").get_data(as_text=True)
    assert "ko-unknown-team" not in page


def test_a_bracket_seed_is_checked_against_the_standings_where_no_teams_were_entered(client, tournament) -> None:
    """No teams entered: the league is the teams of its matches; no league at all (a
    bracket alone): no seed is unknown."""
    ko = f"/api/tournaments/{tournament['id']}/knockout"
    r = client.put(ko, headers=tournament["auth"], json={"teams": ["Gorriak", "Horiak"]})
    assert r.status_code == 200 and r.json["knockout"]["unknown_teams"] == []
    assert client.delete(ko, headers=tournament["auth"]).status_code == 200
    assert enrol(client, tournament, imported(client, ["Gorriak", "Horiak"], [0, 0])).status_code == 201
    r = client.put(ko, headers=tournament["auth"], json={"teams": ["horiak", "Gorriaks", "Urdinak"]})
    assert r.status_code == 200 and r.json["knockout"]["unknown_teams"] == ["Gorriaks", "Urdinak"]


# -- long team names: whole at a table, read whole on the tournament page ----------------------
LONG = ["Peña Gorriak de Donostiako Taldea", "x" * 40]  # 33 and 40 characters: a league's longest
assert 29 <= len(LONG[0]) <= 40


def test_a_fixture_of_long_names_opens_its_table_with_the_names_whole_and_counts(client, tournament) -> None:
    """A league takes names of 40 characters; its fixture's table takes them whole (the
    page neither cuts them nor caps the fields below the league's limit), and its match
    counts in the pairing, no team unknown."""
    base = f"/api/tournaments/{tournament['id']}"
    assert client.put(f"{base}/teams", headers=tournament["auth"], json={"teams": LONG}).status_code == 200
    html = client.get(f"/c/{tournament['id']}?token={tournament['token']}").get_data(as_text=True)
    link = re.search(r'class="btn btn-ghost no-print open-fixture" href="([^"]+)"', html).group(1).replace("&amp;", "&")
    page = client.get(link).get_data(as_text=True)
    fields = {k: re.search(rf'<input name="team{k}"[^>]*>', page).group(0) for k in (0, 1)}
    for k, field in fields.items():
        assert f'value="{LONG[k]}"' in field and "maxlength" not in field, field
    table = client.post("/api/tables", json={"teams": LONG, "rules": {"vacas_to_win": 1}})
    assert table.status_code == 201
    assert client.get(f"/api/tables/{table.json['id']}?token={table.json['token']}").json["teams"] == LONG
    r = enrol(client, tournament, table.json)
    assert r.status_code == 201 and r.json["matches"][0]["unknown_teams"] == []
    (game,) = [g for games in r.json["fixtures"] for g in games]
    assert game["table"] == table.json["id"]


def test_a_tables_names_are_as_long_as_a_leagues_spaces_around_aside(client) -> None:
    """The table's limit is the league's (`MAX_NAME`), counted alike: on the name as it
    shows, the spaces around it aside; one character more is refused by name."""
    from scorer.storage.tables import MAX_NAME
    from scorer.storage.tournaments import _team_names

    assert MAX_NAME == 40 and _team_names(["  " + "x" * 40 + "  "]) == ["x" * 40]
    r = client.post("/api/tables", json={"teams": ["  " + "x" * 40 + "  ", "B"]})
    assert r.status_code == 201, r.json
    assert client.get(f"/api/tables/{r.json['id']}?token={r.json['token']}").json["teams"] == ["x" * 40, "B"]
    r = client.post("/api/tables", json={"teams": ["A", "y" * 41]})
    err = r.json["error"]
    assert (r.status_code, err["field"], err["reason"]) == (422, "teams[1]", "name_too_long"), err
    assert err["params"] == {"name": "y" * 41, "limit": 40}


def test_the_new_table_form_cuts_no_name(client) -> None:
    """No name field of the new table's form nor of a table's "edit the names" has a
    maxlength, which cuts a name typed or pasted past it without a word: the server says
    a name too long is (as the league's form has it said). An empty team field shows its
    default as a placeholder."""
    page = client.get("/?lang=fr").get_data(as_text=True)
    form = page[page.index('id="new-table"'):page.index("</form>", page.index('id="new-table"'))]
    assert "maxlength" not in form
    assert re.search(r'<input name="team0"[^>]*placeholder="Rouges"', form)
    t = client.post("/api/tables", json={}).json
    table = client.get(f"/t/{t['id']}?token={t['token']}").get_data(as_text=True)
    rename = table[table.index('id="rename-form"'):table.index("</form>", table.index('id="rename-form"'))]
    assert 'name="team0"' in rename and "maxlength" not in rename


def test_a_tournaments_new_table_offers_the_teams_entered_before_any_match(client, tournament) -> None:
    """The new table's list of names holds the league's teams as entered, before any of
    them played, the final stage's, and the teams of matches played under another name;
    one of each team (case and accents aside), as entered."""
    base = f"/api/tournaments/{tournament['id']}"
    new_table = f"/?tournament={tournament['id']}&ttoken={tournament['token']}"
    assert client.put(f"{base}/teams", headers=tournament["auth"],
                      json={"teams": ["Urdinak", "Gorriak", "Berdeak"]}).status_code == 200

    def offered() -> list[str]:
        html = client.get(new_table).get_data(as_text=True)
        found = re.search(r'<datalist id="known-teams">(.*?)</datalist>', html)
        assert found and html.count('list="known-teams"') == 2, html
        return re.findall(r'<option value="([^"]*)">', found.group(1))

    assert offered() == ["Berdeak", "Gorriak", "Urdinak"]
    assert enrol(client, tournament, imported(client, ["gorriák", "Txuriak"], [0])).status_code == 201
    assert offered() == ["Berdeak", "Gorriak", "Txuriak", "Urdinak"]  # Gorriak as entered; Txuriak played
    assert client.put(f"{base}/knockout", headers=tournament["auth"],
                      json={"teams": ["Gorriak", "Horiak"]}).status_code == 200
    assert "Horiak" in offered()


def test_the_tournament_pages_buttons_and_columns_say_what_they_are(client, tournament) -> None:
    """To a screen reader the buttons repeated on each row name their match ("Open the
    table: Gorriak – Urdinak"), the one-letter columns say their words, and a team's name
    cut short with "…" has its whole name in a title."""
    base = f"/api/tournaments/{tournament['id']}"
    teams = [LONG[0], "Urdinak", "Berdeak"]
    assert client.put(f"{base}/teams", headers=tournament["auth"], json={"teams": teams}).status_code == 200
    played = imported(client, [LONG[0], "Urdinak"], [0, 0])
    assert enrol(client, tournament, played).status_code == 201
    for lang, open_, watch, remove, played_col in (
            ("fr", *map(french_spacing, ("Ouvrir la table : ", "Voir la table : ", "Retirer du tournoi : ")),
             "Parties jouées"),
            ("en", "Open the table: ", "Watch the table: ", "Take out of the tournament: ", "Matches played")):
        html = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang={lang}").get_data(as_text=True)
        opens = re.findall(r'class="btn btn-ghost no-print open-fixture" href="[^"]+" aria-label="([^"]+)"', html)
        assert len(opens) == len(set(opens)) == 2, opens  # the two pairings yet to play, each its own name
        for label in opens:
            a, b = label.removeprefix(open_).split(" – ")
            assert label.startswith(open_) and {a, b} < set(teams) and {a, b} != {LONG[0], "Urdinak"}, label
        assert f'aria-label="{watch}{LONG[0]} – Urdinak"' in html
        assert f'aria-label="{remove}{LONG[0]} – Urdinak"' in html
        assert f'<th scope="col" aria-label="{played_col}"><abbr title="{played_col}">' in html
        assert html.count("<abbr title=") == 4  # played, won, lost, vacas
        assert f'<th scope="row" class="team-col" title="{LONG[0]}">' in html
        assert html.count(f'title="{LONG[0]}"') >= 4  # the standings, the fixture, the match (both sides)


# -- a pair that withdraws half way; the teams saved without redrawing what was played ------

LEAGUE8 = ["Gorriak", "Urdinak", "Berdeak", "Horiak", "Zuriak", "Beltzak", "Moreak", "Arrosak"]


def _half_played(client, tournament) -> dict[str, Any]:
    """The organiser's report: 8 pairs, dated weekly, three rounds played but for Berdeak's
    matches (its tables never came). The tournament as it then stands."""
    base = f"/api/tournaments/{tournament['id']}"
    r = client.put(f"{base}/teams", headers=tournament["auth"], json={"teams": LEAGUE8, "start": "2026-01-05"})
    for games in r.json["fixtures"][:3]:
        for g in games:
            if "Berdeak" not in g["teams"]:
                assert enrol(client, tournament, imported(client, g["teams"], [0, 0])).status_code == 201
    return client.get(base, headers=tournament["auth"]).json


def _rounds_of(state: dict[str, Any]) -> dict[str, tuple[int, str]]:
    return {g["table"]: (k, state["round_dates"][k]) for k, games in enumerate(state["fixtures"])
            for g in games if g["table"]}


def test_saving_the_teams_keeps_each_fixture_played_in_its_round_and_date(client, tournament) -> None:
    """Deleting a pair redrew the whole round robin: the matches played moved to other rounds
    and dates. Now a pair that played nothing goes and every fixture stays where it was; saved
    as it is, nothing moves either."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    before = _half_played(client, tournament)
    again = client.put(f"{base}/teams", headers=auth, json={"teams": LEAGUE8, "start": "2026-01-05"})
    assert again.status_code == 200 and again.json["fixtures"] == before["fixtures"]
    without = [t for t in LEAGUE8 if t != "Berdeak"]
    r = client.put(f"{base}/teams", headers=auth, json={"teams": without, "start": "2026-01-05",
                                                         "revision": again.json["revision"]})
    assert r.status_code == 200, r.json
    assert _rounds_of(r.json) == _rounds_of(before) and len(_rounds_of(r.json)) == 9
    assert [[g["teams"] for g in games] for games in r.json["fixtures"]] == [
        [g["teams"] for g in games if "Berdeak" not in g["teams"]] for games in before["fixtures"]]


def test_a_save_that_would_move_a_played_fixture_asks_for_move_played(client, tournament) -> None:
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    before = _half_played(client, tournament)
    without = [t for t in LEAGUE8 if t != "Moreak"]  # Moreak played three matches
    r = client.put(f"{base}/teams", headers=auth, json={"teams": without, "start": "2026-01-05"})
    err = r.json["error"]
    assert (r.status_code, err["code"], err["field"], err["reason"]) == (409, "fixtures_would_move", "move_played",
                                                                          "fixtures_would_move")
    assert err["message"].startswith("move_played: 3 fixtures played or begun would leave their round or date (")
    assert '"move_played": true' in err["message"] and f"{base}/withdrawals" in err["message"]
    assert err["params"]["gone"] == ["Moreak"] and err["params"]["count"] == 3
    assert all(m["to_round"] is None and "Moreak" in m["teams"] for m in err["params"]["moves"])
    assert client.get(base, headers=auth).json == before  # nothing changed, not even the revision
    r = client.put(f"{base}/teams", headers=auth, json={"teams": LEAGUE8, "start": "2026-02-02"})
    assert r.status_code == 409 and r.json["error"]["params"]["moves"][0]["to_date"] == "2026-02-02"
    r = client.put(f"{base}/teams", headers=auth, json={"teams": without, "move_played": 1})
    assert (r.status_code, r.json["error"]["field"]) == (422, "move_played")
    r = client.put(f"{base}/teams", headers=auth, json={"teams": without, "start": "2026-01-05", "move_played": True})
    assert r.status_code == 200 and r.json["teams"] == without
    assert sum(bool(m["unknown_teams"]) for m in r.json["matches"]) == 3  # its matches stay, flagged


def test_a_pair_withdraws_with_its_results_annulled_then_standing_then_back(client, tournament, tmp_path) -> None:
    import subprocess
    import sys
    from pathlib import Path

    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    before = _half_played(client, tournament)
    watch = {"Authorization": f"Bearer {tournament['watch_token']}"}
    assert client.post(f"{base}/withdrawals", headers=watch, json={"team": "Moreak"}).json["error"]["code"] == "read_only"
    r = client.post(f"{base}/withdrawals", headers=auth, json={"team": "moreak", "revision": before["revision"]})
    assert r.status_code == 200, r.json
    state = r.json
    assert state["withdrawn"] == [{"team": "Moreak", "results": "annulled"}]
    assert state["revision"] == before["revision"] + 1
    assert "Moreak" not in [row["team"] for row in state["standings"]]
    assert sum(row["played"] for row in state["standings"]) == 2 * 6  # the 9 played but its 3
    theirs = [g for games in state["fixtures"] for g in games if "Moreak" in g["teams"]]
    assert [g["annulled"] for g in theirs].count(True) == 3 and [g["not_played"] for g in theirs].count(True) == 4
    assert [m["annulled"] for m in state["matches"]].count(True) == 3
    assert _rounds_of(state) == _rounds_of(before)  # the fixtures stay as drawn
    # the zip: the annulled matches apart, and `mus-scorer standings` ranks it as the page does
    data = client.get(f"{base}/export", headers=auth).data
    names = zipfile_names(data)
    assert len([n for n in names if n.startswith("annulled/")]) == 3
    (tmp_path / "liga.zip").write_bytes(data)
    cmd = [sys.executable, "-m", "scorer", "standings", str(tmp_path / "liga.zip")]
    cwd = Path(__file__).resolve().parent.parent
    proc = subprocess.run([*cmd, "--json"], capture_output=True, text=True, timeout=60, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    ranked = json.loads(proc.stdout)
    assert ranked["standings"] == state["standings"] and ranked["withdrawn"] == state["withdrawn"]

    # its results standing: ranked last, marked, in the CSV and on the command line too
    r = client.post(f"{base}/withdrawals", headers=auth, json={"team": "Moreak", "results": "stand"})
    state = r.json
    assert state["withdrawn"] == [{"team": "Moreak", "results": "stand"}]
    assert state["standings"][-1]["team"] == "Moreak" and state["standings"][-1]["withdrawn"] is True
    assert not any(m["annulled"] for m in state["matches"])
    (tmp_path / "liga.zip").write_bytes(client.get(f"{base}/export", headers=auth).data)
    proc = subprocess.run([*cmd, "--json"], capture_output=True, text=True, timeout=60, cwd=cwd)
    assert json.loads(proc.stdout)["standings"] == state["standings"]
    proc = subprocess.run([*cmd, "--lang", "es"], capture_output=True, text=True, timeout=60, cwd=cwd)
    lines = proc.stdout.splitlines()
    assert "Moreak (retirada)" in lines[7] and "Retirada: Moreak; sus resultados jugados valen, queda última" in lines

    # the page says it in Spanish: marked in the standings, each pairing not played said so
    page = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=es").get_data(as_text=True)
    assert page.count('class="withdrawn"') == 1 and '<span class="withdrawn-mark">retirada</span> Moreak' in page
    assert page.count(">no se juega — retirada<") == 4 and "Retirada: Moreak. Sus resultados jugados valen" in page
    assert "Sin jugar aún: Berdeak" in page  # Moreak is no team waiting to play
    organiser = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=es").get_data(as_text=True)
    assert "Por defecto se anulan sus resultados" in organiser and 'class="btn btn-ghost reinstate"' in organiser
    assert "Retírala («Retirar una pareja») en vez de borrarla aquí" in organiser

    # undone: the league as before
    r = client.delete(f"{base}/withdrawals/MOREAK?revision={state['revision']}", headers=auth)
    assert r.status_code == 200 and r.json["withdrawn"] == [] and r.json["standings"] == before["standings"]
    assert client.delete(f"{base}/withdrawals/Moreak", headers=auth).json["error"]["field"] == "team"


def test_the_league_ends_without_the_matches_a_withdrawn_pair_will_not_play(client, tournament) -> None:
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    for teams in (["Gorriak", "Urdinak"], ["Gorriak", "Berdeak"]):
        assert enrol(client, tournament, imported(client, teams, [0, 0])).status_code == 201
    assert client.get(base, headers=auth).json["champion"] is None  # Urdinak – Berdeak "por jugar" for ever
    r = client.post(f"{base}/withdrawals", headers=auth, json={"team": "Berdeak"})
    assert r.json["champion"] == "Gorriak"
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=es").get_data(as_text=True)
    assert "no se juega — retirada" in page and page.count("open-fixture") == 0
    assert 'class="match-row fixture is-finished annulled"' in page and "anulada — retirada" in page


def test_a_league_whose_every_pairing_a_withdrawal_ends_names_no_withdrawn_champion(client, tournament) -> None:
    """A league left with no ranked team that stayed (a pair of two withdraws before playing;
    the only results left a withdrawn pair's) is over, and has no champion: it answered a
    500, on the API and the tournament's page, or crowned a pair that withdrew."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak"]})
    r = client.post(f"{base}/withdrawals", headers=auth, json={"team": "Urdinak"})
    assert r.status_code == 200, r.json
    assert r.json["champion"] is None and r.json["standings"] == []
    assert client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}").status_code == 200
    # three pairs: Urdinak and Berdeak played each other, then both withdrew with their results standing
    client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    client.delete(f"{base}/withdrawals/Urdinak", headers=auth)
    assert enrol(client, tournament, imported(client, ["Urdinak", "Berdeak"], [0, 0])).status_code == 201
    for team in ("Urdinak", "Berdeak"):
        client.post(f"{base}/withdrawals", headers=auth, json={"team": team, "results": "stand"})
    state = client.get(base, headers=auth).json
    assert [r["team"] for r in state["standings"]] == ["Urdinak", "Berdeak"]
    assert all(r["withdrawn"] for r in state["standings"]) and state["champion"] is None


@pytest.mark.parametrize(("body", "field"), [({"team": "Txuriak"}, "team"), ({"team": 3}, "team"), ({}, "team"),
                                             ({"team": "Gorriak", "results": "forfeit"}, "results"),
                                             ({"team": "Gorriak", "teams": "x"}, "teams")])
def test_a_bad_withdrawal_is_refused_by_name_and_changes_nothing(client, tournament, body, field) -> None:
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak"]})
    r = client.post(f"{base}/withdrawals", headers=auth, json=body)
    assert (r.status_code, r.json["error"]["field"]) == (422, field)
    assert client.get(base, headers=auth).json["withdrawn"] == []
    stale = client.post(f"{base}/withdrawals", headers=auth, json={"team": "Gorriak", "revision": 0})
    assert (stale.status_code, stale.json["error"]["code"]) == (409, "stale_revision")


def test_the_spreadsheets_say_a_withdrawal_as_the_page_does(client, tournament) -> None:
    """The clerk's spreadsheets follow a withdrawal: a result annulled and a pairing that
    will not be played say so in the results' state, and a team withdrawn with its results
    standing is marked in the standings' last column, in the request's language."""
    import csv
    import io
    import zipfile

    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    for teams in (["Gorriak", "Urdinak"], ["Gorriak", "Berdeak"]):
        assert enrol(client, tournament, imported(client, teams, [0, 0])).status_code == 201

    def sheets() -> tuple[list[list[str]], list[list[str]]]:
        z = zipfile.ZipFile(io.BytesIO(client.get(f"{base}/export?lang=es", headers=auth).data))
        read = [list(csv.reader(io.StringIO(z.read(f"excel/{name}.csv").decode("utf-8-sig")), delimiter=";"))
                for name in ("resultados", "clasificacion")]
        return read[0], read[1]

    rows, standings = sheets()
    assert standings[0][-1] == "Retirada" and all(r[-1] == "" for r in standings[1:])
    assert client.post(f"{base}/withdrawals", headers=auth, json={"team": "Berdeak"}).status_code == 200
    rows, standings = sheets()
    at = rows[0].index("Estado")  # a column of the tables' other rules after it (to 2 vacas, the league 3)
    state = {frozenset(r[4:6]): r[at] for r in rows[1:]}
    assert state[frozenset(["Gorriak", "Berdeak"])] == "anulada — retirada"
    assert state[frozenset(["Urdinak", "Berdeak"])] == "no se juega — retirada"
    assert state[frozenset(["Gorriak", "Urdinak"])] == "terminada"
    assert "Berdeak" not in [r[1] for r in standings[1:]]
    version = client.get(base, headers=auth).json["revision"]
    client.delete(f"{base}/withdrawals/Berdeak?revision={version}", headers=auth)
    assert client.post(f"{base}/withdrawals", headers=auth, json={"team": "Berdeak", "results": "stand"}).status_code == 200
    rows, standings = sheets()
    assert standings[-1][1] == "Berdeak" and standings[-1][-1] == "retirada"
    assert all(r[-1] == "" for r in standings[1:-1])
    assert {frozenset(r[4:6]): r[at] for r in rows[1:]}[frozenset(["Gorriak", "Berdeak"])] == "terminada"


# -- the tournament's rules ------------------------------------------------------------------
DEFAULT_RULES = {"kings": 8, "target": 40, "real31": False, "games_per_vaca": 1, "vacas_to_win": 3}


def test_a_tournament_has_the_default_rules_until_the_organiser_sets_its_own(client, tournament) -> None:
    """A club's league had no rules of its own: each table picked its own. The tournament
    has the product's defaults until the organiser sets others (a rule left out takes its
    default); setting them is a change of the settings (a revision), kept in the export's
    tournament.json; the watch token reads them and cannot change them."""
    import io
    import zipfile

    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    assert state_of(client, tournament)["rules"] == DEFAULT_RULES
    r = client.put(f"{base}/rules", headers=auth, json={"rules": {"kings": 4, "vacas_to_win": 2}, "revision": 0})
    assert r.status_code == 200, r.json
    ours = {**DEFAULT_RULES, "kings": 4, "vacas_to_win": 2}
    assert (r.json["rules"], r.json["revision"]) == (ours, 1)
    watch = client.get(f"{base}?token={tournament['watch_token']}").json
    assert watch["rules"] == ours
    r = client.put(f"{base}/rules?token={tournament['watch_token']}", json={"rules": DEFAULT_RULES})
    assert (r.status_code, r.json["error"]["code"]) == (403, "read_only")
    z = zipfile.ZipFile(io.BytesIO(client.get(f"{base}/export", headers=auth).data))
    assert json.loads(z.read("tournament.json"))["rules"] == ours
    # made with its rules at once
    r = client.post("/api/tournaments", json={"name": "Copa", "rules": {"target": 30, "real31": True}})
    assert r.status_code == 201, r.json
    made = client.get(f"/api/tournaments/{r.json['id']}?token={r.json['token']}").json
    assert (made["rules"], made["revision"]) == ({**DEFAULT_RULES, "target": 30, "real31": True}, 0)


@pytest.mark.parametrize(("body", "status", "field"), [
    ({"rules": {"kings": 5}}, 422, "rules.kings"),
    ({"rules": {"target": 40.0}}, 422, "rules.target"),
    ({"rules": {"vacas_to_win": 0}}, 422, "rules.vacas_to_win"),
    ({"rules": {"real31": 1}}, 422, "rules.real31"),
    ({"rules": {"vacas": 3}}, 422, "rules.vacas"),
    ({"rules": [8, 40]}, 422, "rules"),
    ({}, 422, "rules"),
    ({"kings": 4}, 422, "kings"),
    ({"rules": {}, "revision": "0"}, 400, "revision"),
])
def test_bad_rules_are_refused_by_name_and_change_nothing(client, tournament, body, status, field) -> None:
    before = state_of(client, tournament)
    r = client.put(f"/api/tournaments/{tournament['id']}/rules", headers=tournament["auth"], json=body)
    assert (r.status_code, r.json["error"]["field"]) == (status, field), r.json
    assert state_of(client, tournament) == before
    r = client.post("/api/tournaments", json={"name": "Copa", **({"rules": body["rules"]} if "rules" in body else {})})
    if "rules" in body and field.startswith("rules"):  # the same refusal on creation
        assert (r.status_code, r.json["error"]["field"]) == (422, field), r.json



def test_a_table_whose_rules_are_not_the_tournaments_is_flagged_and_still_counts(client, tournament) -> None:
    """A table opened with "vacas para ganar: 1" counted silently in the league. Each match
    now carries its table's rules, and `rules_differ` names each rule that is not the
    tournament's (its result counts all the same: the organiser decides); the answer of
    its enrolment says so, and the page says it in words beside it."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    short = imported(client, ["Gorriak", "Urdinak"], [0], vacas_to_win=1)
    same = imported(client, ["Berdeak", "Horiak"], [1, 1, 1], vacas_to_win=3)
    r = enrol(client, tournament, short)
    assert r.status_code == 201  # not a refusal
    flagged = {m["table"]: m for m in r.json["matches"]}[short["id"]]
    assert flagged["rules"] == {**DEFAULT_RULES, "vacas_to_win": 1}
    assert flagged["rules_differ"] == {"vacas_to_win": {"table": 1, "tournament": 3}}
    r = enrol(client, tournament, same)
    matches = {m["table"]: m for m in r.json["matches"]}
    assert matches[same["id"]]["rules_differ"] is None and matches[short["id"]]["rules_differ"]
    assert {s["team"]: s["won"] for s in r.json["standings"]} == {"Gorriak": 1, "Horiak": 1, "Urdinak": 0,
                                                                  "Berdeak": 0}  # both count
    pages = {lang: client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang={lang}")
             .get_data(as_text=True) for lang in ("es", "eu", "fr", "en")}
    said = {"es": "a 1 vaca (el torneo: 3)", "eu": "baka batera (txapelketa: 3)",
            "fr": "une manche gagnante (le tournoi\u00a0: 3)", "en": "to 1 vaca (the tournament: 3)"}
    for lang, page in pages.items():
        rows = {m.group(1): m.group(2) for m in re.finditer(
            r'<li class="match-row[^"]*" data-table="([^"]+)">(.*?)</li>', page, re.S)}
        assert 'class="warning rules-differ"' in rows[short["id"]] and said[lang] in rows[short["id"]], lang
        assert "rules-differ" not in rows[same["id"]], lang
    # the organiser sets the league's rules after the tables were opened: the flags follow
    r = client.put(f"{base}/rules", headers=auth, json={"rules": {"kings": 4, "vacas_to_win": 1, "real31": True}})
    matches = {m["table"]: m["rules_differ"] for m in r.json["matches"]}
    assert matches[short["id"]] == {"kings": {"table": 8, "tournament": 4},
                                    "real31": {"table": False, "tournament": True}}
    assert matches[same["id"]] == {"kings": {"table": 8, "tournament": 4},
                                   "real31": {"table": False, "tournament": True},
                                   "vacas_to_win": {"table": 3, "tournament": 1}}
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=es").get_data(as_text=True)
    assert "8 reyes (el torneo: 4), sin la real (el torneo: con ella), a 3 vacas (el torneo: 1)" in page


def test_the_spreadsheets_say_the_tournaments_rules_and_each_table_of_other_rules(client, tournament) -> None:
    """The clerk's spreadsheets said nothing of the rules: `excel/` now holds the
    tournament's name and rules in one line, and the results a column saying, in the
    request's language, where a match's table played other rules (only where one did)."""
    import csv
    import io
    import zipfile

    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]

    def read(lang: str, name: str) -> list[list[str]]:
        z = zipfile.ZipFile(io.BytesIO(client.get(f"{base}/export?lang={lang}", headers=auth).data))
        sep = "," if lang == "en" else ";"
        return list(csv.reader(io.StringIO(z.read(f"excel/{name}.csv").decode("utf-8-sig")), delimiter=sep))

    assert client.put(f"{base}/rules", headers=auth, json={"rules": {"target": 30}}).status_code == 200
    assert read("es", "reglas") == [["Torneo", "Reglas"], [
        "Liga de invierno", "8 reyes, a 30 piedras, un juego por vaca, 3 vacas para ganar"]]
    assert client.put(f"{base}/rules", headers=auth, json={"rules": {}}).status_code == 200
    assert read("en", "rules")[0] == ["Tournament", "Rules"]
    same = imported(client, ["Berdeak", "Horiak"], [1, 1, 1], vacas_to_win=3)
    assert enrol(client, tournament, same).status_code == 201
    assert "Reglas distintas de las del torneo" not in read("es", "resultados")[0]  # none differs: no column
    short = imported(client, ["Gorriak", "Urdinak"], [0], vacas_to_win=1)
    assert enrol(client, tournament, short).status_code == 201
    rows = read("es", "resultados")
    assert rows[0][-1] == "Reglas distintas de las del torneo"
    said = {tuple(r[4:6]): r[-1] for r in rows[1:]}
    assert said == {("Berdeak", "Horiak"): "", ("Gorriak", "Urdinak"): "a 1 vaca (el torneo: 3)"}
    rows = read("en", "results")
    assert rows[0][-1] == "Rules other than the tournament's"
    assert {tuple(r[4:6]): r[-1] for r in rows[1:]}[("Gorriak", "Urdinak")] == "to 1 vaca (the tournament: 3)"


def test_a_friendly_is_never_flagged_for_its_rules(client, tournament) -> None:
    """A friendly counts in no standings: its rules are its own."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    assert client.put(f"{base}/knockout", headers=auth, json={"teams": ["A", "B"]}).status_code == 200
    friendly = imported(client, ["C", "D"], [0], vacas_to_win=1)
    final = imported(client, ["A", "B"], [0], vacas_to_win=1)
    r = enrol(client, tournament, friendly)
    r = enrol(client, tournament, final)
    stages = {m["table"]: (m["stage"], m["rules_differ"]) for m in r.json["matches"]}
    assert stages == {friendly["id"]: ("friendly", None),
                      final["id"]: ("knockout", {"vacas_to_win": {"table": 1, "tournament": 3}})}


def test_a_fixture_opens_its_table_with_the_tournaments_rules(client, tournament) -> None:
    """"Open the table" on a fixture (and "New table in this tournament") opened the new-table
    form with the product's defaults, whatever the league played; it now has the
    tournament's rules chosen, and says they are the tournament's. A plain new table keeps
    the defaults."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak"]})
    client.put(f"{base}/rules", headers=auth, json={"rules": {"kings": 4, "target": 30, "real31": True,
                                                              "games_per_vaca": 2, "vacas_to_win": 7}})
    html = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=en").get_data(as_text=True)
    link = re.search(r'class="btn btn-ghost no-print open-fixture" href="([^"]+)"', html).group(1).replace("&amp;", "&")
    new = re.search(r'id="new-tournament-table" href="([^"]+)"', html).group(1).replace("&amp;", "&")
    for url in (link, new):
        page = client.get(url).get_data(as_text=True)
        assert "The tournament&#39;s rules, as its organiser set them" in page
        checked = re.findall(r'name="(kings|target)" value="(\d+)" checked', page)
        assert checked == [("kings", "4"), ("target", "30")]
        assert re.search(r'name="real31" checked', page)
        assert re.search(r'name="games_per_vaca"><option>1</option><option selected>2</option>', page)
        assert "<option>5</option><option selected>7</option></select>" in page  # past the form's 5, offered
    plain = client.get("/?lang=en").get_data(as_text=True)
    assert re.findall(r'name="(kings|target)" value="(\d+)" checked', plain) == [("kings", "8"), ("target", "40")]
    assert 'name="real31">' in plain and "<option selected>3</option><option>4</option><option>5</option></select>" \
        in plain and "tournament-rules" not in plain


def test_the_tournament_page_says_its_rules_in_a_line_and_the_organiser_sets_them(client, tournament) -> None:
    """The page never said what the league plays: a short line says its rules, to the
    watchers too, in the page's language; the organiser's form shows them chosen."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    watch = f"/c/{tournament['id']}?token={tournament['watch_token']}"
    said = {"es": "Reglas: 8 reyes, a 40 piedras, un juego por vaca, 3 vacas para ganar",
            "en": "Rules: 8 kings, 40 stones, one game a vaca, 3 vacas to win"}
    for lang, line in said.items():
        page = client.get(f"{watch}&lang={lang}").get_data(as_text=True)
        assert f'<p class="hint rules-line" id="rules-line">{line}</p>' in page, lang
        assert 'id="set-rules"' not in page  # the watchers read them only
    client.put(f"{base}/rules", headers=auth, json={"rules": {"kings": 4, "target": 30, "real31": True,
                                                              "games_per_vaca": 2, "vacas_to_win": 1}})
    said = {"es": "Reglas: 4 reyes, a 30 piedras, 2 juegos por vaca, una vaca para ganar, con la real",
            "eu": "Arauak: 4 errege, 30 harri, 2 joko bakako, baka bat irabazteko, errealarekin",
            "fr": "Règles\u00a0: 4 rois, 30 pierres, 2 jeux par manche, une manche pour gagner, avec la royale",
            "en": "Rules: 4 kings, 30 stones, 2 games a vaca, one vaca to win, real 31"}
    for lang, line in said.items():
        page = client.get(f"{watch}&lang={lang}").get_data(as_text=True)
        assert f'id="rules-line">{line}</p>' in page, (lang, re.search(r'id="rules-line">([^<]*)<', page))
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=en").get_data(as_text=True)
    form = page[page.index('<form id="set-rules"'):]
    form = form[:form.index("</form>")]
    assert re.findall(r'name="(kings|target)" value="(\d+)" checked', form) == [("kings", "4"), ("target", "30")]
    assert 'name="real31" checked' in form and "<option selected>2</option>" in form
    assert "<option selected>1</option><option>2</option>" in form  # one vaca to win


def test_a_withdrawn_pair_deleted_from_the_teams_stays_withdrawn(client, tournament) -> None:
    """Groups A/B/C and D/E/F, E–F played, F withdrawn with its results annulled: saving the
    teams without F kept no withdrawal, so E–F counted again and F came back ranked. The
    withdrawal now stays (undone only by undoing it), and nobody is told to withdraw F."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    groups = [["A", "B", "C"], ["D", "E", "F"]]
    assert client.put(f"{base}/teams", headers=auth, json={"groups": groups}).status_code == 200
    assert enrol(client, tournament, imported(client, ["E", "F"], [1, 1])).status_code == 201
    withdrawn = client.post(f"{base}/withdrawals", headers=auth, json={"team": "F"}).json
    assert withdrawn["withdrawn"] == [{"team": "F", "results": "annulled"}]
    assert "F" not in [row["team"] for row in withdrawn["standings"]]
    without = {"groups": [["A", "B", "C"], ["D", "E"]]}
    r = client.put(f"{base}/teams", headers=auth, json=without)
    err = r.json["error"]
    assert (r.status_code, err["code"], err["params"]["gone"]) == (409, "fixtures_would_move", [])
    assert "withdraw instead" not in err["message"] and '"F" withdrew already' in err["message"]
    assert err["message"].startswith("move_played: 1 fixture played or begun would leave its round or date (")
    r = client.put(f"{base}/teams", headers=auth, json={**without, "move_played": True})
    assert r.status_code == 200, r.json
    state = r.json
    assert state["withdrawn"] == [{"team": "F", "results": "annulled"}]
    assert [m["annulled"] for m in state["matches"]] == [True]
    assert "F" not in [row["team"] for row in state["standings"]]
    assert state["standings"] == withdrawn["standings"]  # E's win over F still annulled
    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=en").get_data(as_text=True)
    assert 'class="btn btn-ghost reinstate" type="button" data-team="F"' in page  # to undo, as before
    # its results standing instead: ranked last, as it chose; and the withdrawal can still be undone
    r = client.post(f"{base}/withdrawals", headers=auth, json={"team": "F", "results": "stand"})
    assert r.status_code == 422 and r.json["error"]["field"] == "team"  # no team of the league now
    r = client.delete(f"{base}/withdrawals/F", headers=auth)
    assert r.status_code == 200 and r.json["withdrawn"] == [] and not r.json["matches"][0]["annulled"]


def test_the_messages_naming_teams_quote_them_as_every_message_quotes_a_value(client, tournament) -> None:
    """The 409 fixtures_would_move and the 422 of a team no withdrawal knows listed the names
    bare ("Gorriak – Urdinak", "(Gorriak, Urdinak)"): a name with a comma or a dash read as two."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    _half_played(client, tournament)
    r = client.put(f"{base}/teams", headers=auth, json={"teams": [t for t in LEAGUE8 if t != "Moreak"],
                                                         "start": "2026-01-05"})
    message = r.json["error"]["message"]
    assert '"Moreak" – "' in message or '" – "Moreak", round' in message
    assert 'to take "Moreak" out of a league under way' in message
    r = client.post(f"{base}/withdrawals", headers=auth, json={"team": "Txuriak"})
    assert r.json["error"]["message"] == ("team: expected one of the league's teams (" + ", ".join(
        json.dumps(t) for t in LEAGUE8) + '), got "Txuriak"')


def test_the_pages_return_leg_heading_stands_where_each_return_leg_starts(client, tournament) -> None:
    """Home and away in groups of 4 and 6: group A's return leg starts at round 4, group
    B's at round 6, but the page put one "Segunda vuelta" at half the rounds (round 6),
    group A's return matches under the first leg. The heading now follows the draw."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    groups = [["A1", "A2", "A3", "A4"], ["B1", "B2", "B3", "B4", "B5", "B6"]]
    r = client.put(f"{base}/teams", headers=auth, json={"groups": groups, "legs": 2})
    assert r.status_code == 200 and len(r.json["fixtures"]) == 10

    def headings(body: dict) -> list[tuple[str, str]]:
        assert client.put(f"{base}/teams", headers=auth, json=body).status_code == 200
        page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=es").get_data(as_text=True)
        found = re.findall(r'<p class="eyebrow leg-title">([^<]*)</p>\s*<h3 class="round-title">Jornada (\d+)', page)
        return [(n, said) for said, n in found]

    assert headings({"groups": groups, "legs": 2}) == [("4", "Segunda vuelta · Grupo A"),
                                                       ("6", "Segunda vuelta · Grupo B")]
    assert headings({"groups": [g[:4] for g in groups], "legs": 2}) == [("4", "Segunda vuelta")]  # one start
    assert headings({"teams": groups[1], "legs": 2}) == [("6", "Segunda vuelta")]
    assert headings({"teams": groups[1], "legs": 1}) == []


# -- results entered without hands: a match played on paper, a walkover -----------------------
def test_a_walkover_and_a_result_on_paper_are_entered_shown_exported_and_taken_out(client, tournament, tmp_path) -> None:
    import csv
    import io
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    watch = {"Authorization": f"Bearer {tournament['watch_token']}"}
    client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    assert enrol(client, tournament, imported(client, ["Gorriak", "Urdinak"], [0, 1, 0, 0], 3)).status_code == 201
    before = state_of(client, tournament)
    body = {"teams": ["urdinak", "Berdeak"], "walkover": "BERDEAK", "revision": before["revision"]}
    assert client.post(f"{base}/results", headers=watch, json=body).json["error"]["code"] == "read_only"
    assert client.post(f"{base}/results", json=body).json["error"]["code"] == "missing_token"
    assert state_of(client, tournament) == before
    r = client.post(f"{base}/results", headers=auth, json=body)
    assert r.status_code == 201, r.json
    walkover = r.json["matches"][-1]
    assert (walkover["table"], walkover["teams"], walkover["vacas"], walkover["walkover"], walkover["winner"]) == (
        None, ["Urdinak", "Berdeak"], [3, 0], "Berdeak", 0)
    assert r.json["revision"] == before["revision"] + 1 and "watch_token" not in walkover
    stale = client.post(f"{base}/results", headers=auth,
                        json={"teams": ["Berdeak", "Gorriak"], "vacas": [2, 3], "revision": before["revision"]})
    assert (stale.status_code, stale.json["error"]["code"], stale.json["error"]["field"]) == (409, "stale_revision",
                                                                                              "revision")
    r = client.post(f"{base}/results", headers=auth, json={"teams": ["Berdeak", "Gorriak"], "vacas": [2, 3],
                                                            "stones": [101, 120]})
    assert r.status_code == 201, r.json
    state = r.json
    assert [r["team"] for r in state["standings"]] == ["Gorriak", "Urdinak", "Berdeak"]
    assert [(r["won"], r["lost"]) for r in state["standings"]] == [(2, 0), (1, 1), (0, 2)]
    assert state["champion"] == "Gorriak"  # every pairing finished, two of them without hands
    assert sorted(bool(g["result"]) for games in state["fixtures"] for g in games) == [False, True, True]

    # the page: marked as entered by hand or as a walkover, no table to watch; the organiser may take it out
    page = client.get(f"/c/{tournament['id']}?token={tournament['watch_token']}&lang=es").get_data(as_text=True)
    assert page.count('class="walkover-note">no presentada: Berdeak<') == 2  # in the fixtures and the matches
    assert page.count('class="entered-note">introducido a mano<') == 2
    assert page.count("watch-table") == 0 and "remove-result" not in page
    organiser = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=es").get_data(as_text=True)
    assert organiser.count('class="btn btn-ghost remove-result') == 2 and "Anotar un resultado: en papel, o no presentada" in organiser

    # the zip: one match file (the table's); tournament.json and the results sheet say the rest
    data = client.get(f"{base}/export?lang=es", headers=auth).data
    z = zipfile.ZipFile(io.BytesIO(data))
    assert [n for n in z.namelist() if n.endswith(".jsonl")] == ["matches/01-gorriak-urdinak.jsonl"]
    saved = json.loads(z.read("tournament.json"))
    assert [(m["result"] is not None, m["walkover"]) for m in saved["matches"]] == [(False, None), (True, "Berdeak"),
                                                                                    (True, None)]
    rows = list(csv.reader(io.StringIO(z.read("excel/resultados.csv").decode("utf-8-sig")), delimiter=";"))
    at, table = rows[0].index("Estado"), rows[0].index("Mesa")
    said = {frozenset(r[4:6]): (r[at], r[table]) for r in rows[1:]}
    assert said[frozenset(["Urdinak", "Berdeak"])] == ("no presentada: Berdeak", "")
    assert said[frozenset(["Berdeak", "Gorriak"])] == ("introducido a mano", "")
    assert said[frozenset(["Gorriak", "Urdinak"])] == ("terminada", "1")
    # `mus-scorer standings` of the zip ranks it as the tournament does, the results entered included
    (tmp_path / "liga.zip").write_bytes(data)
    proc = subprocess.run([sys.executable, "-m", "scorer", "standings", str(tmp_path / "liga.zip"), "--json"],
                          capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parent.parent)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["standings"] == state["standings"]

    # taken out (to be put right): the revision guards it, a result not there is a 404 naming it
    gone = state["matches"][1]["result"]
    r = client.delete(f"{base}/results/{gone}?revision={state['revision'] - 1}", headers=auth)
    assert (r.status_code, r.json["error"]["code"]) == (409, "stale_revision")
    assert client.delete(f"{base}/results/{gone}", headers=watch).json["error"]["code"] == "read_only"
    r = client.delete(f"{base}/results/{gone}?revision={state['revision']}", headers=auth)
    assert r.status_code == 200 and [m["result"] for m in r.json["matches"]] == [None, state["matches"][2]["result"]]
    assert r.json["champion"] is None  # Urdinak – Berdeak to play again
    r = client.delete(f"{base}/results/{gone}", headers=auth)
    assert (r.status_code, r.json["error"]["field"]) == (404, "result")


@pytest.mark.parametrize(("body", "field", "words"), [
    ({"teams": ["Gorriak", "gorriak"], "vacas": [3, 1]}, "teams[1]", '"gorriak" is "Gorriak" again'),
    ({"teams": ["Gorriak", "Txuriak"], "vacas": [3, 1]}, "teams[1]", "one of the league's teams"),
    ({"teams": ["Gorriak", "Urdinak"], "vacas": [3, "1"]}, "vacas", "the vacas each team won"),
    ({"teams": ["Gorriak", "Urdinak"], "vacas": [1, 1]}, "vacas", "the vacas each team won"),
    ({"teams": ["Gorriak", "Urdinak"], "vacas": [3, 1], "winner": "Urdinak"}, "winner",
     '"Urdinak" is not the winner: the vacas 3–1 make "Gorriak" the winner'),
    ({"teams": ["Gorriak", "Urdinak"], "walkover": "Berdeak"}, "walkover", "that did not turn up"),
    ({"teams": ["Gorriak", "Urdinak"], "walkover": "Urdinak", "stones": [0, 0]}, "stones", "leave stones out"),
    ({"teams": ["Gorriak", "Urdinak"], "vacas": [3, 1], "table": "x"}, "table", "table"),
])
def test_a_bad_result_is_refused_in_the_one_error_shape_naming_its_field(client, tournament, body, field,
                                                                         words) -> None:
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    before = state_of(client, tournament)
    r = client.post(f"{base}/results", headers=auth, json=body)
    err = r.json["error"]
    assert (r.status_code, err["code"], err["field"]) == (422, "invalid", field)
    assert err["message"].startswith(f"{field}: ") and words in err["message"]
    assert state_of(client, tournament) == before  # nothing recorded, not even the revision


def test_a_result_corrected_in_place_keeps_its_id_its_place_and_its_pairing(client, tournament) -> None:
    """PUT .../results/{result_id} puts a result right where it stands: deleting it and
    entering it again put it last, where a table of the same pairing added meanwhile took
    its pairing."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    watch = {"Authorization": f"Bearer {tournament['watch_token']}"}
    client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    r = client.post(f"{base}/results", headers=auth, json={"teams": ["Gorriak", "Urdinak"], "vacas": [3, 1]})
    paper = r.json["matches"][0]["result"]
    assert enrol(client, tournament, imported(client, ["Gorriak", "Urdinak"], [1, 1, 1], 3)).status_code == 201
    r = client.post(f"{base}/results", headers=auth, json={"teams": ["Urdinak", "Berdeak"], "walkover": "Berdeak"})
    before = r.json
    order = [(m["table"], m["result"]) for m in before["matches"]]
    body = {"teams": ["Gorriak", "Urdinak"], "vacas": [2, 3], "stones": [88, 97], "revision": before["revision"]}
    assert client.put(f"{base}/results/{paper}", headers=watch, json=body).json["error"]["code"] == "read_only"
    assert client.put(f"{base}/results/{paper}", json=body).json["error"]["code"] == "missing_token"
    refusals = [
        ({**body, "revision": before["revision"] - 1}, paper, (409, "stale_revision", "revision")),
        (body, "nosuchresult", (404, "not_found", "result")),
        ({**body, "vacas": [3, 3]}, paper, (422, "invalid", "vacas")),
        ({**body, "teams": ["Gorriak", "gorriak"]}, paper, (422, "invalid", "teams[1]")),
        ({**body, "walkover": "Berdeak", "vacas": None}, paper, (422, "invalid", None)),
    ]
    for wrong, rid, want in refusals:
        r = client.put(f"{base}/results/{rid}", headers=auth, json={k: v for k, v in wrong.items() if v is not None})
        err = r.json["error"]
        assert (r.status_code, err["code"]) == want[:2], err
        if want[2]:
            assert err["field"] == want[2], err
        if want[0] == 422:
            assert err["message"].startswith(f"{err['field']}: ") and err.get("reason"), err
        assert state_of(client, tournament) == before  # nothing changed, not even the revision
    r = client.put(f"{base}/results/{paper}", headers=auth, json=body)
    assert r.status_code == 200, r.json
    state = r.json
    assert state["revision"] == before["revision"] + 1
    assert [(m["table"], m["result"]) for m in state["matches"]] == order  # its id and its place kept
    m = state["matches"][0]
    assert (m["vacas"], m["stones"], m["winner"]) == ([2, 3], [88, 97], 1)
    g = next(g for games in state["fixtures"] for g in games if set(g["teams"]) == {"Gorriak", "Urdinak"})
    assert (g["result"], g["table"], g["winner"]) == (paper, None, "Urdinak")  # the pairing still its own
    assert state["matches"][1]["off_fixtures"] is True  # the table after it: a friendly still
    was = {x["team"]: x for x in before["standings"]}
    now = {x["team"]: x for x in state["standings"]}
    assert (now["Urdinak"]["won"], now["Gorriak"]["won"]) == (was["Urdinak"]["won"] + 1, was["Gorriak"]["won"] - 1)
    # a walkover put right into a result on paper, and back; a 422 says its reason as POST's does
    walkover = state["matches"][2]["result"]
    r = client.put(f"{base}/results/{walkover}", headers=auth, json={"teams": ["Urdinak", "Berdeak"],
                                                                     "walkover": "Urdinak", "vacas": [3, 0]})
    assert (r.json["error"]["field"], r.json["error"]["reason"]) == ("vacas", "walkover_score")
    r = client.put(f"{base}/results/{walkover}", headers=auth, json={"teams": ["Urdinak", "Berdeak"], "vacas": [1, 3]})
    assert r.status_code == 200 and r.json["matches"][2]["walkover"] is None and r.json["matches"][2]["result"] == walkover


def test_openapi_documents_the_results_entered_without_hands(client) -> None:
    doc = client.get("/api/openapi.json").json
    post = doc["paths"]["/api/tournaments/{tournament_id}/results"]["post"]
    schema = post["requestBody"]["content"]["application/json"]["schema"]
    assert set(schema["properties"]) == {"teams", "vacas", "stones", "winner", "walkover", "revision"}
    assert {"201", "409", "422"} <= set(post["responses"])
    delete = doc["paths"]["/api/tournaments/{tournament_id}/results/{result_id}"]["delete"]
    assert "revision" in {p["name"] for p in delete["parameters"]} and "404" in delete["responses"]
    put = doc["paths"]["/api/tournaments/{tournament_id}/results/{result_id}"]["put"]
    assert put["requestBody"] == post["requestBody"] and {"200", "404", "409", "422"} <= set(put["responses"])
    match = doc["components"]["schemas"]["Tournament"]["properties"]["matches"]["items"]["properties"]
    assert {"result", "walkover"} <= set(match) and "null" in match["table"]["type"]


@pytest.mark.parametrize(("lang", "missing", "wrong"), [
    ("es", "Este enlace no tiene llave del torneo.", "La llave de este enlace no abre este torneo."),
    ("en", "This link has no key for the tournament.", "This link's key does not open this tournament."),
    ("eu", "Esteka honek ez du txapelketaren gakorik.", "Esteka honen gakoak ez du txapelketa hau irekitzen."),
    ("fr", "Ce lien n'a pas de clé pour le tournoi.", "La clé de ce lien n'ouvre pas ce tournoi."),
])
def test_a_tournament_link_without_its_key_says_tournament_not_table(client, tournament, lang, missing, wrong) -> None:
    """A tournament's page opened without its key, or with a table's, says it is the
    tournament's key that is missing (not a table's), and whom to ask."""
    import html

    table = imported(client, ["Gorriak", "Urdinak"], [0, 0])
    path = f"/c/{tournament['id']}?lang={lang}"
    r = client.get(path)
    text = html.unescape(r.get_data(as_text=True))
    assert r.status_code == 401 and missing in text
    r = client.get(path + f"&token={table['token']}")
    assert r.status_code == 403 and wrong in html.unescape(r.get_data(as_text=True))


def test_a_seed_that_withdraws_during_the_final_stage_gives_its_pairings_by_walkover(client, tournament) -> None:
    """A seed withdrawn after the bracket was drawn: its semi-final, not played, goes to its
    opponent by walkover (the page, tournament.json and the results sheet say "no
    presentada", the vacas to win to 0), with nothing left to open or enter; the final
    waits for the other semi-final; undone, the semi-final waits to be played again. The
    league's standings are as a withdrawal leaves them."""
    import csv
    import io
    import zipfile

    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    teams = ["Gorriak", "Urdinak", "Berdeak", "Horiak"]
    client.put(f"{base}/teams", headers=auth, json={"teams": teams})
    for table in (imported(client, ["Gorriak", "Horiak"], [0, 0]), imported(client, ["Urdinak", "Berdeak"], [0, 0])):
        assert enrol(client, tournament, table).status_code == 201
    client.put(f"{base}/knockout", headers=auth, json={"teams": teams})
    before = state_of(client, tournament)
    r = client.post(f"{base}/withdrawals", headers=auth,
                    json={"team": "horiak", "results": "stand", "revision": before["revision"]})
    assert r.status_code == 200, r.json
    state = r.json
    semi = state["knockout"]["rounds"][0][0]
    assert (semi["teams"], semi["walkover"], semi["vacas"], semi["winner"], semi["withdrawn"]) == (
        ["Gorriak", "Horiak"], "Horiak", [3, 0], "Gorriak", "Horiak")
    assert (semi["table"], semi["result"], semi["finished"]) == (None, None, True)
    assert state["knockout"]["rounds"][1][0]["teams"] == ["Gorriak", None] and state["champion"] is None
    assert [m for m in state["matches"] if m["stage"] != "league"] == []  # no match of its own: a pairing's walkover
    assert [(r["team"], r["played"]) for r in state["standings"]] == [
        (r["team"], r["played"]) for r in before["standings"] if r["team"] != "Horiak"] + [("Horiak", 1)]
    assert state["standings"][-1]["withdrawn"] is True  # ranked last, as a withdrawal with its results standing is

    page = client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang=es").get_data(as_text=True)
    ko = page[page.index('id="knockout"'):page.index('id="matches"')]
    assert ko.count('class="walkover-note">no presentada: Horiak<') == 1 and 'data-withdrawn="Horiak"' in ko
    row = ko[ko.index('data-withdrawn="Horiak"'):]
    row = row[:row.index("</li>")]
    assert ">3–0<" in row and "open-fixture" not in row and "enter-fixture-result" not in row
    assert ko.count("enter-fixture-result") == 1  # Urdinak – Berdeak, still to play
    data = client.get(f"{base}/export?lang=es", headers=auth).data
    saved = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("tournament.json"))
    assert saved["knockout"]["rounds"][0][0]["walkover"] == "Horiak"
    rows = list(csv.DictReader(io.StringIO(zipfile.ZipFile(io.BytesIO(data)).read(
        "excel/resultados.csv").decode("utf-8-sig")), delimiter=";"))
    walkover = next(r for r in rows if r["Pareja A"] == "Gorriak" and r["Pareja B"] == "Horiak"
                    and r["Fase"] != "Liga")
    assert (walkover["Estado"], walkover["Ganadora"], walkover["Mesa"]) == ("no presentada: Horiak", "Gorriak", "")
    assert (walkover["Vacas A"], walkover["Vacas B"]) == ("3", "0")

    # undone: the walkover was never stored, and the semi-final waits to be played
    r = client.delete(f"{base}/withdrawals/Horiak?revision={state['revision']}", headers=auth)
    assert r.status_code == 200, r.json
    semi = r.json["knockout"]["rounds"][0][0]
    assert (semi["walkover"], semi["finished"], semi["winner"], semi["withdrawn"]) == (None, False, None, None)
    assert r.json["standings"] == before["standings"]


@pytest.mark.parametrize(("body", "field", "reason", "params"), [
    ({"teams": ["Gorriak"], "vacas": [3, 1]}, "teams", "result_teams", None),
    ({"teams": ["Gorriak", " "], "vacas": [3, 1]}, "teams[1]", "blank_name", None),
    ({"teams": ["Gorriak", "gorriak"], "vacas": [3, 1]}, "teams[1]", "named_again", {"name": "gorriak",
                                                                                     "same": "Gorriak"}),
    ({"teams": ["Txuriak", "Gorriak"], "vacas": [3, 1]}, "teams[0]", "not_league_team", {"name": "Txuriak"}),
    ({"teams": ["Gorriak", "Urdinak"], "vacas": [2, 1]}, "vacas", "result_vacas", {"vacas": 3}),
    ({"teams": ["Gorriak", "Urdinak"], "vacas": [3, None]}, "vacas", "result_vacas", {"vacas": 3}),
    ({"teams": ["Gorriak", "Urdinak"], "vacas": [3, 1], "stones": [-1, 0]}, "stones", "result_stones",
     {"max": 9999}),
    ({"teams": ["Gorriak", "Urdinak"], "vacas": [3, 1], "winner": "Berdeak"}, "winner", "winner_team", None),
    ({"teams": ["Gorriak", "Urdinak"], "vacas": [3, 1], "winner": "urdinak"}, "winner", "not_the_winner",
     {"name": "Urdinak", "team": "Gorriak"}),
    ({"teams": ["Gorriak", "Urdinak"], "walkover": "Berdeak"}, "walkover", "walkover_team", None),
    ({"teams": ["Gorriak", "Urdinak"], "walkover": "Urdinak", "vacas": [3, 0]}, "vacas", "walkover_score",
     {"vacas": 3}),
])
def test_a_result_refused_says_why_as_a_key_every_language_has(client, tournament, body, field, reason,
                                                                params) -> None:
    """The result form said "No se entendió. (vacas: expected the vacas each team won, ...)",
    the server's English in a Spanish sentence: each refusal of a result entered without hands
    now carries its `reason` (and `params`), said in each language, the English message as it was."""
    from web import i18n

    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    err = client.post(f"{base}/results", headers=auth, json=body).json["error"]
    assert (err["code"], err["field"], err.get("reason"), err.get("params")) == ("invalid", field, reason,
                                                                                  params or {})
    assert err["message"].startswith(f"{field}: ")
    said = {lang: i18n.t(lang, f"why.{reason}", **(params or {})) for lang in i18n.LANGS}
    assert len(set(said.values())) == len(i18n.LANGS) and not any("{" in s for s in said.values()), said
    assert all(str(v) in s for v in (params or {}).values() for s in said.values()), said


def test_past_the_results_limit_a_result_is_refused_and_said_in_every_language(client, tournament,
                                                                                monkeypatch) -> None:
    """1000 results entered without hands at most (a league of 32 home and away plays 992):
    the next is a 409 `too_many_results`, nothing recorded; taken out, one fits again. The
    limit made 2 here, to test it cheaply."""
    from scorer.storage import tournaments
    from web import i18n

    monkeypatch.setattr(tournaments, "MAX_RESULTS", 2)
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    body = {"teams": ["Gorriak", "Urdinak"], "walkover": "Urdinak"}
    first = client.post(f"{base}/results", headers=auth, json=body).json["matches"][0]["result"]
    assert client.post(f"{base}/results", headers=auth, json=body).status_code == 201
    before = state_of(client, tournament)
    r = client.post(f"{base}/results", headers=auth, json=body)
    assert (r.status_code, r.json["error"]["code"]) == (409, "too_many_results")
    assert "1000" not in r.json["error"]["message"] and "2 results" in r.json["error"]["message"]
    assert state_of(client, tournament) == before  # nothing recorded, not even the revision
    assert client.delete(f"{base}/results/{first}", headers=auth).status_code == 200
    assert client.post(f"{base}/results", headers=auth, json=body).status_code == 201
    for lang in i18n.LANGS:
        assert "err.too_many_results" in i18n._TABLES[lang], lang


def test_a_seed_of_a_knockout_only_cup_withdraws_from_the_api_and_the_page(client, tournament, tmp_path) -> None:
    """A cup played as a knockout only (no league teams, its seeds typed when drawing it):
    before, a withdrawal was a 422 `team` and the page had no withdrawal form. Now a seed
    withdraws (by team_key, spelt as the seeds are), its semi-final goes by walkover on the
    page, in tournament.json and the results sheet; the standings stay empty and `mus-scorer
    standings` of the zip says what it said before (no league matches to rank); undone, the
    semi-final waits again. A name that is no seed is still a 422 naming `team`."""
    import csv
    import html
    import io
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    from web import i18n

    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    seeds = ["Gorriak", "Urdinak", "Berdeak", "Horiak"]
    assert client.post(f"{base}/withdrawals", headers=auth, json={"team": "Horiak"}).json["error"]["field"] == "team"
    organiser = f"/c/{tournament['id']}?token={tournament['token']}&lang=es"
    assert 'id="withdrawals"' not in client.get(organiser).get_data(as_text=True)  # nothing to withdraw yet
    assert client.put(f"{base}/knockout", headers=auth, json={"teams": seeds}).status_code == 200
    assert enrol(client, tournament, imported(client, ["Urdinak", "Berdeak"], [0, 0])).status_code == 201
    page = client.get(organiser).get_data(as_text=True)
    form = page[page.index('id="withdrawals"'):]
    form = form[:form.index("</details>")]
    assert "data-cup" in form and 'name="results"' not in form  # no league: no choice of results
    assert re.findall(r"<option>([^<]*)</option>", form) == seeds
    assert "Para una pareja que deja el torneo" in form
    cmd = [sys.executable, "-m", "scorer", "standings", str(tmp_path / "copa.zip")]
    cwd = Path(__file__).resolve().parent.parent
    (tmp_path / "copa.zip").write_bytes(client.get(f"{base}/export", headers=auth).data)
    today = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=cwd)

    before = state_of(client, tournament)
    for name in ("Moreak", "gorriak ", None):  # neither a league team nor a seed ("gorriak " is one, by team_key)
        r = client.post(f"{base}/withdrawals", headers=auth, json={"team": name, "revision": before["revision"]})
        if name == "gorriak ":
            assert r.status_code == 200 and r.json["withdrawn"] == [{"team": "Gorriak", "results": "annulled"}]
            r = client.delete(f"{base}/withdrawals/Gorriak", headers=auth)
            assert r.status_code == 200 and r.json["withdrawn"] == []
            before = r.json
            continue
        assert r.status_code == 422 and r.json["error"]["field"] == "team", r.json
        assert "final stage's seeds" in r.json["error"]["message"]
    r = client.post(f"{base}/withdrawals", headers=auth, json={"team": "horiak", "revision": before["revision"]})
    assert r.status_code == 200, r.json
    state = r.json
    assert state["withdrawn"] == [{"team": "Horiak", "results": "annulled"}]
    (semi, other), (final,) = state["knockout"]["rounds"]
    assert (semi["teams"], semi["walkover"], semi["vacas"], semi["winner"], semi["withdrawn"], semi["table"]) == (
        ["Gorriak", "Horiak"], "Horiak", [3, 0], "Gorriak", "Horiak", None)
    assert other["winner"] == "Urdinak" and final["teams"] == ["Gorriak", "Urdinak"]
    assert state["standings"] == before["standings"] == [] and state["champion"] is None

    page = client.get(organiser).get_data(as_text=True)
    ko = page[page.index('id="knockout"'):page.index('id="matches"')]
    assert ko.count('class="walkover-note">no presentada: Horiak<') == 1
    assert "Retirada: Horiak. Sus eliminatorias por jugar las ganan sus rivales por no presentada." in page
    form = page[page.index('id="withdrawals"'):]
    form = form[:form.index("</details>")]
    assert re.findall(r"<option>([^<]*)</option>", form) == ["Gorriak", "Urdinak", "Berdeak"]
    assert 'class="btn btn-ghost reinstate" type="button" data-team="Horiak"' in form
    assert "pierde sus eliminatorias por no presentada" in form
    for lang in ("eu", "fr", "en"):  # the cup's words in every language
        text = html.unescape(client.get(f"/c/{tournament['id']}?token={tournament['token']}&lang={lang}").get_data(
            as_text=True))
        assert i18n.t(lang, "tour.withdrawn_cup_note", team="Horiak") in text

    data = client.get(f"{base}/export?lang=es", headers=auth).data
    z = zipfile.ZipFile(io.BytesIO(data))
    saved = json.loads(z.read("tournament.json"))
    assert saved["withdrawn"] == state["withdrawn"] and saved["knockout"]["rounds"][0][0]["walkover"] == "Horiak"
    rows = list(csv.DictReader(io.StringIO(z.read("excel/resultados.csv").decode("utf-8-sig")), delimiter=";"))
    walkover = next(r for r in rows if (r["Pareja A"], r["Pareja B"]) == ("Gorriak", "Horiak"))
    assert (walkover["Estado"], walkover["Ganadora"], walkover["Vacas A"], walkover["Vacas B"]) == (
        "no presentada: Horiak", "Gorriak", "3", "0")
    assert len(z.read("excel/clasificacion.csv").decode("utf-8-sig").splitlines()) == 1  # its heading alone
    (tmp_path / "copa.zip").write_bytes(data)
    after = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=cwd)
    # no league match to rank, with the withdrawal as without it
    assert (after.returncode, after.stdout, after.stderr) == (today.returncode, today.stdout, today.stderr)

    r = client.delete(f"{base}/withdrawals/HORIAK?revision={state['revision']}", headers=auth)
    assert r.status_code == 200 and r.json["withdrawn"] == [], r.json
    assert r.json["knockout"] == before["knockout"]
    assert client.delete(f"{base}/withdrawals/Horiak", headers=auth).json["error"]["field"] == "team"


def test_a_seed_of_a_league_played_without_entered_teams_withdraws_with_the_choice_of_its_results(
        client, tournament) -> None:
    """A league whose teams were never entered (its standings ranked from its tables), then a
    final stage drawn from them: a seed's withdrawal annuls its league results unless the
    organiser says they stand. The page's form took such a tournament for a cup played as a
    knockout only (no choice of results, sent "annulled", its words saying only that its
    pairings go by walkover), so the team and its matches silently left the standings. Now
    the form asks, as a league's does, and the page says what became of its results."""
    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    for teams in (["Gorriak", "Urdinak"], ["Berdeak", "Horiak"], ["Gorriak", "Berdeak"]):
        assert enrol(client, tournament, imported(client, teams, [0, 0])).status_code == 201
    assert [r["team"] for r in state_of(client, tournament)["standings"]][:1] == ["Gorriak"]
    seeds = ["Gorriak", "Berdeak", "Urdinak", "Horiak"]
    assert client.put(f"{base}/knockout", headers=auth, json={"teams": seeds}).status_code == 200
    organiser = f"/c/{tournament['id']}?token={tournament['token']}&lang=es"
    page = client.get(organiser).get_data(as_text=True)
    form = page[page.index('id="withdrawals"'):]
    form = form[:form.index("</details>")]
    assert "data-cup" not in form and 'name="results"' in form  # its league results: the organiser's choice
    r = client.post(f"{base}/withdrawals", headers=auth, json={"team": "Urdinak", "results": "stand"})
    assert r.status_code == 200 and r.json["standings"][-1]["team"] == "Urdinak"
    page = client.get(organiser).get_data(as_text=True)
    from web import i18n
    assert i18n.t("es", "tour.withdrawn_stand_note", team="Urdinak") in page
    assert i18n.t("es", "tour.withdrawn_cup_note", team="Urdinak") not in page


@pytest.mark.parametrize("lang", ["es", "eu", "fr", "en"])
def test_a_leagues_withdrawal_help_says_the_final_stage_goes_by_walkover_where_one_is_drawn(client, tournament,
                                                                                             lang) -> None:
    """A league whose final stage is drawn, a guest seed among its seeds: the withdrawal
    form's help spoke only of the league (its results annulled or standing), though a seed
    withdrawn loses its final-stage pairings not played by walkover. It says so too, in
    each language, where a bracket is drawn, and not before."""
    import html

    from web import i18n

    base, auth = f"/api/tournaments/{tournament['id']}", tournament["auth"]
    client.put(f"{base}/teams", headers=auth, json={"teams": ["Gorriak", "Urdinak", "Berdeak"]})
    organiser = f"/c/{tournament['id']}?token={tournament['token']}&lang={lang}"

    def help_text() -> str:
        page = client.get(organiser).get_data(as_text=True)
        form = page[page.index('id="withdraw-team"'):]
        return html.unescape(form[form.index('<p class="hint">'):form.index("</p>")])

    ko = i18n.t(lang, "tour.withdraw_help_ko")
    assert i18n.t(lang, "tour.withdraw_help") in help_text() and ko not in help_text()  # no bracket yet
    seeds = ["Gorriak", "Urdinak", "Berdeak", "Gonbidatuak"]  # a guest seed, none of the league's teams
    assert client.put(f"{base}/knockout", headers=auth, json={"teams": seeds}).status_code == 200
    said = help_text()
    assert i18n.t(lang, "tour.withdraw_help") in said and ko in said, said
    page = client.get(organiser).get_data(as_text=True)
    form = page[page.index('id="withdrawals"'):]
    form = form[:form.index("</details>")]
    assert "data-knockout" in form and "Gonbidatuak" in re.findall(r"<option>([^<]*)</option>", form)
    assert len({i18n.t(x, "tour.withdraw_help_ko") for x in i18n.LANGS}) == len(i18n.LANGS)
    assert all(i18n.t(x, "tour.withdraw_confirm_ko") != "tour.withdraw_confirm_ko" for x in i18n.LANGS)
