"""The table API with Flask's test client: every route, every kind of bad input.

Each refusal also checks that nothing changed (the state, its version, the rows).
"""

from __future__ import annotations

import io
import json
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from scorer import engine
from web import create_app

pytestmark = pytest.mark.webapi  # `-k web` selects the backend's tests too

DECK = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]
DEAL = [DECK[0:4], DECK[10:14], DECK[20:24], DECK[30:34]]  # one suit per seat: 16 distinct cards


@pytest.fixture()
def app(tmp_path):
    return create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True})


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture()
def table(client) -> dict[str, Any]:
    r = client.post("/api/tables", json={"teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"],
                                         "rules": {"kings": 8, "target": 40}, "esku": 0})
    assert r.status_code == 201, r.json
    t = r.json
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    return t


def state(client, t) -> dict[str, Any]:
    r = client.get(f"/api/tables/{t['id']}", headers=t["auth"])
    assert r.status_code == 200
    return r.json


def snapshot(app, client, t) -> tuple[str, dict[str, int]]:
    """Everything a refused request must leave as it was."""
    store = app.extensions["mus_store"]
    return json.dumps(state(client, t), sort_keys=True), store.counts(t["id"])


def assert_error(r, status: int, code: str | None = None, field: str | None = "?") -> dict[str, Any]:
    assert r.status_code == status, (r.status_code, r.data[:300])
    assert r.mimetype == "application/json"
    err = r.json["error"]
    assert set(err) - {"reason", "params"} == {"status", "code", "message", "field"}
    assert ("reason" in err) == ("params" in err), err
    assert err["status"] == status and err["message"]
    if code is not None:
        assert err["code"] == code, err
    if field != "?":
        assert err["field"] == field, err
    return err


_n = iter(range(10**6))


def cid() -> str:
    return f"c{next(_n)}"


def act(client, t, version: int, action: dict[str, Any], client_id: str | None = None):
    return client.post(f"/api/tables/{t['id']}/actions", headers=t["auth"],
                       json={"client_id": client_id or cid(), "version": version, "action": action})


def step(client, t) -> dict[str, Any]:
    """Apply the first legal action."""
    s = state(client, t)
    r = act(client, t, s["version"], s["current"]["legal"][0])
    assert r.status_code == 200, r.json
    return r.json


def to_showdown(client, t) -> dict[str, Any]:
    s = state(client, t)
    for _ in range(80):
        if s["current"]["phase"] in ("showdown", "over"):
            return s
        s = step(client, t)
    raise AssertionError("no showdown after 80 actions")


def showdown(client, t, hands=None, **extra):
    s = state(client, t)
    return client.post(f"/api/tables/{t['id']}/showdown", headers=t["auth"],
                       json={"client_id": cid(), "version": s["version"], "hands": hands or DEAL, **extra})


# -- creating tables ---------------------------------------------------------------
def test_create_table_answers_tokens_and_links(client, table) -> None:
    assert set(table) >= {"id", "token", "watch_token", "join_url", "watch_url", "version"}
    assert table["token"] != table["watch_token"] and len(table["token"]) >= 40
    assert table["join_url"].endswith(f"/t/{table['id']}?token={table['token']}")
    assert table["watch_url"].endswith(f"/w/{table['id']}?token={table['watch_token']}")
    s = state(client, table)
    assert s["id"] == table["id"] and s["version"] == table["version"]
    assert s["teams"] == ["Txuriak", "Beltzak"] and s["players"] == ["Ane", "Bixente", "Iker", "Maite"]
    assert s["rules"]["kings"] == 8 and s["rules"]["target"] == 40
    for key in ("score", "games", "vacas", "winner", "adentro", "esku", "hands", "current", "last_settlement"):
        assert key in s
    cur = s["current"]
    assert cur["phase"] == "grande" and cur["to_speak"] == 0 and cur["log"] == [] and cur["mus_rounds"] == 0
    assert cur["phases"] == []
    assert cur["legal"] and all(a["seat"] == 0 for a in cur["legal"])
    assert s["hands"] == [] and s["last_settlement"] is None


def test_a_memory_database_serves_what_it_stored() -> None:
    """DATABASE=":memory:" (nothing kept): a table created is read back (it was a 201,
    then a 500 "no such table", each reader thread opening an empty database of its own)."""
    app = create_app({"DATABASE": ":memory:", "TESTING": True})
    client = app.test_client()
    r = client.post("/api/tables", json={"teams": ["A", "B"]})
    assert r.status_code == 201, r.json
    auth = {"Authorization": f"Bearer {r.json['token']}"}
    got = client.get(f"/api/tables/{r.json['id']}", headers=auth)
    assert got.status_code == 200 and got.json["teams"] == ["A", "B"]
    answers: list[int] = []
    reader = threading.Thread(target=lambda: answers.append(
        app.test_client().get(f"/api/tables/{r.json['id']}", headers=auth).status_code))
    reader.start()
    reader.join()
    assert answers == [200]
    assert app.extensions["mus_teacher"].root.name == "decks"  # decks in a folder of their own, as before
    app.extensions["mus_store"].db.close()


def test_create_with_defaults(client) -> None:
    r = client.post("/api/tables", json={})
    assert r.status_code == 201
    t = {**r.json, "auth": {"Authorization": f"Bearer {r.json['token']}"}}
    s = state(client, t)
    assert len(s["teams"]) == 2 and len(s["players"]) == 4 and s["esku"] == 0


def test_tokens_are_unguessable_and_distinct(client) -> None:
    seen = set()
    for _ in range(5):
        r = client.post("/api/tables", json={}).json
        seen |= {r["token"], r["watch_token"]}
    assert len(seen) == 10


@pytest.mark.parametrize(
    "body, field",
    [
        ({"teams": ["only one"]}, "teams"),
        ({"teams": ["A", ""]}, "teams[1]"),
        ({"teams": ["A", 3]}, "teams[1]"),
        ({"players": ["a", "b", "c"]}, "players"),
        ({"players": ["a", "b", "c", "x" * 41]}, "players[3]"),
        ({"esku": 4}, "esku"),
        ({"esku": "0"}, "esku"),
        ({"esku": True}, "esku"),
        ({"rules": "fast"}, "rules"),
        ({"rules": {"kings": 5}}, None),
        ({"rules": {"colour": "red"}}, "rules.colour"),
    ],
)
def test_create_refuses_bad_tables(app, client, body, field) -> None:
    before = app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0]
    r = client.post("/api/tables", json=body)
    err = assert_error(r, 422)
    if field is not None:
        assert err["field"] == field
    else:
        assert err["field"] and "rules" in err["field"] or "kings" in (err["field"] or "")
    after = app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0]
    assert after == before


@pytest.mark.parametrize("data", [b"", b"{", b"[1, 2]", b"\xff\xfe", b"null", b'"text"'])
def test_create_refuses_bad_json(client, data) -> None:
    assert_error(client.post("/api/tables", data=data, content_type="application/json"), 400, "bad_json")


@pytest.mark.parametrize(("data", "said"), [
    (b'{"teams": ["A", "\\ud800"]}', "teams[1]: a lone surrogate \\ud800"),
    (b'{"esku": ' + b"1" * 5000 + b"}", "more than 4300 digits"),
    (b'{"a": ' + b"[" * 2000 + b"]" * 2000 + b"}", "nested more than 64 deep"),
    (b'{"a": ' + b"[" * 64 + b"]" * 64 + b"}", "nested more than 64 deep"),
    ('{"teams": ["A", "B"]}'.encode("utf-16"), "not UTF-8"),
    # a key twice: json.loads kept the last and dropped the first without a word
    (b'{"teams": ["A", "B"], "teams": ["C", "D"]}', 'the key "teams" is given twice in one object'),
    (b'{"version": 1, "action": {"seat": 0, "act": "paso", "seat": 1}}', 'the key "seat" is given twice'),
])
def test_json_no_parser_should_take_is_a_400_that_says_why(app, client, table, data, said) -> None:
    before = snapshot(app, client, table)
    for path in ("/api/tables", f"/api/tables/{table['id']}/actions", "/api/tournaments"):
        r = client.post(path, data=data, content_type="application/json", headers=table["auth"])
        assert said in assert_error(r, 400, "bad_json")["message"]
    r = client.post(f"/api/tables/{table['id']}/import?client_id=i&version=1", headers=table["auth"],
                    data=b'{"format": "mus-match/1", "teams": ["A", "B"]}\n' + data.replace(b"\n", b" ") + b"\n",
                    content_type="application/x-ndjson")
    assert r.status_code in (400, 422) and r.json["error"]["code"] in ("invalid", "bad_file")
    assert snapshot(app, client, table) == before
    # a body nested as deep as a hand record ever is, is read
    r = client.post("/api/tables", json={"teams": ["A", "B"], "rules": {"kings": 8}, "x": [[[[1]]]]})
    assert r.status_code in (201, 422) and r.json.get("error", {}).get("code") != "bad_json"


def test_an_error_quotes_the_value_as_the_body_wrote_it(app, client, table) -> None:
    """The body is JSON: `true`, `null` and `"0"` are quoted so, not as Python writes them
    (`True`, `None`, `'0'`)."""
    before = snapshot(app, client, table)
    v = state(client, table)["version"]
    for action, says in (({"seat": 0, "act": "envido", "n": True}, "n: true is not a whole number of stones"),
                         ({"seat": None, "act": "paso"}, "seat: null is not a seat 0..3"),
                         ({"seat": "0", "act": "paso"}, 'seat: "0" is not a seat 0..3')):
        err = assert_error(act(client, table, v, action), 422)
        assert err["message"].startswith(says), err
    err = assert_error(client.post("/api/tables", json={"esku": True}), 422, "invalid", "esku")
    assert err["message"] == "esku: expected a seat 0..3, got true"
    assert snapshot(app, client, table) == before


def test_a_huge_value_is_quoted_short_in_its_error(app, client, table) -> None:
    r = client.post("/api/tables", json={"esku": "x" * 200_000})
    err = assert_error(r, 422, field="esku")
    assert len(r.data) < 1000 and err["message"].startswith('esku: expected a seat 0..3, got "xxx')
    assert "characters in all)" in err["message"]
    s = state(client, table)
    r = act(client, table, s["version"], {"seat": 0, "act": "y" * 100_000})
    assert len(r.data) < 1000 and assert_error(r, 422)["field"]


def test_a_json_body_past_its_limit_is_refused_unread(app, client, table) -> None:
    # no write needs more than JSON_MAX_BYTES (256 KB): a 24 MB array of zeros cost 1.8 GB
    # and 14 s to read and check before; now it is refused before it is read
    tables = len(app.extensions["mus_store"].db.reader().execute("SELECT id FROM tables").fetchall())
    body = '{"x": [' + ",".join(["0"] * 200_000) + "]}"
    assert len(body) > 256 * 1024
    err = assert_error(client.post("/api/tables", data=body, content_type="application/json"), 413)
    assert err["message"] == f"the request body is larger than the limit of {256 * 1024} bytes"
    assert len(app.extensions["mus_store"].db.reader().execute("SELECT id FROM tables").fetchall()) == tables
    s = state(client, table)
    assert assert_error(act(client, table, s["version"], {"seat": 0, "act": "paso", "x": "y" * 300_000}), 413)
    assert state(client, table) == s  # nothing changed
    # a photo still has its own, larger limit (MAX_CONTENT_LENGTH), and a match file its own
    big = "\n".join(['{"format": "mus-match/1"}'] + ["{}"] * 100) + " " * (300 * 1024)
    r = client.post("/api/tables/import?client_id=big1", data=big, content_type="application/jsonl")
    assert r.status_code != 413, r.json


@pytest.mark.parametrize("name", ["\u200b", "\u0000", "\ufeff \u202e", " \u200d "])
def test_a_name_of_invisible_characters_is_refused(app, client, name) -> None:
    err = assert_error(client.post("/api/tables", json={"teams": ["A", name]}), 422, "invalid", "teams[1]")
    assert "invisible" in err["message"]


def test_names_lose_their_invisible_characters_and_keep_an_emoji(client) -> None:
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467"  # one emoji, joined
    r = client.post("/api/tables", json={"teams": ["Gorri\u200bak", f"Familia {family}"],
                                         "players": ["\ufeffAne", "B", "C", "D\u202e"]})
    assert r.status_code == 201, r.json
    t = {**r.json, "auth": {"Authorization": f"Bearer {r.json['token']}"}}
    s = state(client, t)
    assert s["teams"] == ["Gorriak", f"Familia {family}"] and s["players"] == ["Ane", "B", "C", "D"]


# -- tokens --------------------------------------------------------------------------
def test_without_a_token_nothing_is_read_or_written(app, client, table) -> None:
    before = snapshot(app, client, table)
    tid = table["id"]
    assert_error(client.get(f"/api/tables/{tid}"), 401, "missing_token", "token")
    assert_error(client.get(f"/api/tables/{tid}/export"), 401, "missing_token")
    assert_error(client.get(f"/api/tables/{tid}/events"), 401, "missing_token")
    body = {"client_id": "x", "version": 1, "action": {"seat": 0, "act": "paso"}}
    for route in ("actions", "undo", "mus", "showdown"):
        assert_error(client.post(f"/api/tables/{tid}/{route}", json=body), 401, "missing_token")
    assert snapshot(app, client, table) == before


def test_wrong_and_watch_tokens(app, client, table) -> None:
    tid = table["id"]
    before = snapshot(app, client, table)
    bad = {"Authorization": "Bearer " + "x" * 43}
    assert_error(client.get(f"/api/tables/{tid}", headers=bad), 403, "bad_token")
    assert_error(client.get(f"/api/tables/{tid}", headers={"Authorization": "Basic abc"}), 401, "bad_token")
    other = client.post("/api/tables", json={}).json
    assert_error(client.get(f"/api/tables/{tid}?token={other['token']}"), 403, "bad_token")
    # the watch token reads, as header or query ...
    watch = {"Authorization": f"Bearer {table['watch_token']}"}
    assert client.get(f"/api/tables/{tid}", headers=watch).status_code == 200
    assert client.get(f"/api/tables/{tid}?token={table['watch_token']}").status_code == 200
    assert client.get(f"/api/tables/{tid}/export", headers=watch).status_code == 200
    # ... and never writes
    body = {"client_id": "w", "version": 1, "action": {"seat": 0, "act": "paso"}, "hands": DEAL}
    for route in ("actions", "undo", "mus", "showdown"):
        assert_error(client.post(f"/api/tables/{tid}/{route}", headers=watch, json=body), 403, "read_only")
    assert_error(client.post(f"/api/tables/{tid}/photos", headers=watch, data=b"x"), 403, "read_only")
    assert_error(client.post(f"/api/tables/{tid}/import?client_id=i&version=1", headers=watch, data=b"x"), 403,
                 "read_only")
    assert snapshot(app, client, table) == before


def test_token_in_query_writes(client, table) -> None:
    r = client.post(f"/api/tables/{table['id']}/mus?token={table['token']}", json={"client_id": "q", "version": 1})
    assert r.status_code == 200 and r.json["current"]["mus_rounds"] == 1


# -- actions, versions, idempotency ----------------------------------------------------------
def test_action_applies_and_bumps_version(client, table) -> None:
    s = state(client, table)
    a = s["current"]["legal"][0]
    r = act(client, table, s["version"], a)
    assert r.status_code == 200
    assert r.json["version"] == s["version"] + 1
    assert r.json["current"]["log"] == [a]
    assert state(client, table) == r.json


def test_retry_with_same_client_id_applies_once(app, client, table) -> None:
    s = state(client, table)
    a = s["current"]["legal"][0]
    r1 = act(client, table, s["version"], a, client_id="same")
    r2 = act(client, table, s["version"], a, client_id="same")
    assert r1.status_code == r2.status_code == 200
    assert r2.headers.get("Idempotent-Replayed") == "true"
    assert r1.json == r2.json
    assert len(r2.json["current"]["log"]) == 1 and r2.json["version"] == s["version"] + 1


def test_a_client_id_sent_again_with_another_request_is_409(app, client, table) -> None:
    s = state(client, table)
    legal = s["current"]["legal"]
    assert act(client, table, s["version"], legal[0], client_id="once").status_code == 200
    before = snapshot(app, client, table)
    after = state(client, table)
    other = next(a for a in after["current"]["legal"] if a != legal[0])
    err = assert_error(act(client, table, after["version"], other, client_id="once"), 409, "client_id_reused",
                       "client_id")
    assert '"once"' in err["message"] and "another request (action, other content)" in err["message"]
    r = client.post(f"/api/tables/{table['id']}/mus", headers=table["auth"],
                    json={"client_id": "once", "version": after["version"]})
    assert "another request (action)" in assert_error(r, 409, "client_id_reused", "client_id")["message"]
    assert snapshot(app, client, table) == before
    # the same request again is still a retry
    r = act(client, table, s["version"], legal[0], client_id="once")
    assert r.status_code == 200 and r.headers.get("Idempotent-Replayed") == "true"


def test_stale_version_is_409_and_changes_nothing(app, client, table) -> None:
    step(client, table)
    before = snapshot(app, client, table)
    s = state(client, table)
    for v in (s["version"] - 1, s["version"] + 1, 0):
        assert_error(act(client, table, v, s["current"]["legal"][0]), 409, "stale_version", "version")
    assert_error(client.post(f"/api/tables/{table['id']}/undo", headers=table["auth"],
                             json={"client_id": cid(), "version": s["version"] - 1}), 409, "stale_version")
    assert snapshot(app, client, table) == before


def test_a_negative_version_is_malformed_not_stale(app, client, table) -> None:
    """`"version": -1` was a 409 stale_version ("version -1 is not the table's version 2"),
    as if another phone had moved on; no table has a negative version: it is a 400 invalid
    naming `version`, as a version that is not a whole number is. 0 is still only stale."""
    step(client, table)
    before = snapshot(app, client, table)
    s = state(client, table)
    url, legal = f"/api/tables/{table['id']}", s["current"]["legal"][0]
    for v in (-1, -s["version"], -10**30):
        err = assert_error(act(client, table, v, legal), 400, "invalid", "version")
        assert err["message"] == f"version: expected the table's version, a whole number, got {v!r}"
        for route in ("/undo", "/mus"):
            assert_error(client.post(url + route, headers=table["auth"], json={"client_id": cid(), "version": v}),
                         400, "invalid", "version")
    assert_error(client.post(f"{url}/import?client_id=neg&version=-1", headers=table["auth"], data=b""),
                 400, "invalid", "version")
    assert_error(act(client, table, 0, legal), 409, "stale_version", "version")
    assert snapshot(app, client, table) == before


@pytest.mark.parametrize(
    "body, status, field",
    [
        ({"version": 1, "action": {"seat": 0, "act": "paso"}}, 400, "client_id"),
        ({"client_id": "a", "action": {"seat": 0, "act": "paso"}}, 400, "version"),
        ({"client_id": "a", "version": 1}, 400, "action"),
        ({"client_id": 7, "version": 1, "action": {"seat": 0, "act": "paso"}}, 400, "client_id"),
        ({"client_id": "", "version": 1, "action": {"seat": 0, "act": "paso"}}, 400, "client_id"),
        ({"client_id": "x" * 101, "version": 1, "action": {"seat": 0, "act": "paso"}}, 400, "client_id"),
        ({"client_id": "a", "version": "1", "action": {"seat": 0, "act": "paso"}}, 400, "version"),
        ({"client_id": "a", "version": 1, "action": "paso"}, 422, "action"),
        ({"client_id": "a", "version": 1, "action": {"seat": 0, "act": "jump"}}, 422, None),
        ({"client_id": "a", "version": 1, "action": {"seat": 2, "act": "paso"}}, 422, None),
        ({"client_id": "a", "version": 1, "action": {"act": "paso"}}, 422, None),
        ({"client_id": "a", "version": 1, "action": {"seat": 0, "act": "quiero"}}, 422, None),
    ],
)
def test_bad_actions_change_nothing(app, client, table, body, status, field) -> None:
    before = snapshot(app, client, table)
    r = client.post(f"/api/tables/{table['id']}/actions", headers=table["auth"], json=body)
    err = assert_error(r, status)
    if field:
        assert err["field"] == field
    if status == 422:
        assert err["code"] in ("illegal", "invalid") and err["field"]  # the engine's field
    assert snapshot(app, client, table) == before
    # the refused client_id was not spent: it can still be used
    ok = act(client, table, 1, state(client, table)["current"]["legal"][0], client_id="a")
    assert ok.status_code == 200


@pytest.mark.parametrize("data", [b"", b"{nope", b"[]", b"3"])
def test_bad_json_on_writes(app, client, table, data) -> None:
    before = snapshot(app, client, table)
    for route in ("actions", "undo", "mus", "showdown"):
        assert_error(client.post(f"/api/tables/{table['id']}/{route}", headers=table["auth"], data=data,
                                 content_type="application/json"), 400, "bad_json")
    assert snapshot(app, client, table) == before


def test_eight_threads_racing_one_version_one_wins(app, table) -> None:
    client0 = app.test_client()
    s = state(client0, table)
    a = s["current"]["legal"][0]
    results: list[int] = []
    barrier = threading.Barrier(8)

    def phone(i: int) -> None:
        c = app.test_client()
        barrier.wait()
        r = act(c, table, s["version"], a, client_id=f"race{i}")
        results.append(r.status_code)

    threads = [threading.Thread(target=phone, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(10)
    assert sorted(results) == [200] + [409] * 7
    after = state(client0, table)
    assert after["version"] == s["version"] + 1 and len(after["current"]["log"]) == 1


# -- undo and mus ----------------------------------------------------------------------
def test_undo_takes_back_the_last_action(client, table) -> None:
    step(client, table)
    s = step(client, table)
    assert len(s["current"]["log"]) == 2
    r = client.post(f"/api/tables/{table['id']}/undo", headers=table["auth"],
                    json={"client_id": cid(), "version": s["version"]})
    assert r.status_code == 200
    assert len(r.json["current"]["log"]) == 1 and r.json["version"] == s["version"] + 1


def test_undo_with_nothing_to_undo(app, client, table) -> None:
    before = snapshot(app, client, table)
    r = client.post(f"/api/tables/{table['id']}/undo", headers=table["auth"], json={"client_id": cid(), "version": 1})
    assert_error(r, 422, "nothing_to_undo")
    assert snapshot(app, client, table) == before


def test_mus_rounds_then_no_mus_once_lances_start(app, client, table) -> None:
    tid = table["id"]
    r = client.post(f"/api/tables/{tid}/mus", headers=table["auth"], json={"client_id": cid(), "version": 1})
    r = client.post(f"/api/tables/{tid}/mus", headers=table["auth"], json={"client_id": cid(), "version": 2})
    assert r.json["current"]["mus_rounds"] == 2
    r = client.post(f"/api/tables/{tid}/undo", headers=table["auth"], json={"client_id": cid(), "version": 3})
    assert r.json["current"]["mus_rounds"] == 1
    step(client, table)
    before = snapshot(app, client, table)
    v = state(client, table)["version"]
    assert_error(client.post(f"/api/tables/{tid}/mus", headers=table["auth"], json={"client_id": cid(), "version": v}),
                 422, "illegal", "mus")
    assert snapshot(app, client, table) == before


# -- showdown -----------------------------------------------------------------------
def test_showdown_settles_and_starts_the_next_hand(client, table) -> None:
    s = to_showdown(client, table)
    assert s["current"]["legal"] == []
    r = showdown(client, table)
    assert r.status_code == 200, r.json
    n = r.json
    assert len(n["hands"]) == 1
    h = n["hands"][0]
    assert h["n"] == 1 and h["record"]["hands"] == DEAL and h["photo_id"] is None
    assert h["settlement"]["format"] == "mus-settlement/1"
    assert n["last_settlement"] == h["settlement"]
    assert n["score"] == h["settlement"]["score"] or n["games"] != [0, 0]
    assert n["current"]["phase"] == "grande" and n["current"]["log"] == []
    assert n["esku"] == 1 and n["current"]["to_speak"] == 1


def test_showdown_refused_before_the_end_of_the_lances(app, client, table) -> None:
    before = snapshot(app, client, table)
    err = assert_error(showdown(client, table), 422, "illegal")
    assert err["field"] == "phase"
    assert snapshot(app, client, table) == before


@pytest.mark.parametrize(
    "hands",
    [
        [DECK[0:4], DECK[0:4], DECK[20:24], DECK[30:34]],  # the same cards twice
        [DECK[0:4], DECK[10:14], DECK[20:24], ["8o", "9c", "1e", "2e"]],  # not Mus cards
        [DECK[0:5], DECK[10:14], DECK[20:24], DECK[30:34]],  # five cards
        "cards",
        [DECK[0:4], DECK[10:14], DECK[20:24]],
    ],
)
def test_bad_showdown_cards_change_nothing(app, client, table, hands) -> None:
    to_showdown(client, table)
    before = snapshot(app, client, table)
    err = assert_error(showdown(client, table, hands=hands), 422)
    assert err["field"]
    assert snapshot(app, client, table) == before


def test_showdown_photo_must_belong_to_the_table(app, client, table) -> None:
    to_showdown(client, table)
    before = snapshot(app, client, table)
    assert_error(showdown(client, table, photo_id="nope"), 422, "invalid", "photo_id")
    assert snapshot(app, client, table) == before


def test_undo_between_hands_takes_back_the_showdown(client, table) -> None:
    s = to_showdown(client, table)
    log = s["current"]["log"]
    n = showdown(client, table).json
    r = client.post(f"/api/tables/{table['id']}/undo", headers=table["auth"],
                    json={"client_id": cid(), "version": n["version"]})
    assert r.status_code == 200
    assert r.json["hands"] == [] and r.json["current"]["log"] == log and r.json["esku"] == 0


def on_a_database_file(tmp_path) -> tuple[Any, dict[str, Any], Any]:
    """A client of an app on a database file, a new table made through it (with `auth`),
    and a function that starts another app on that file and gives its client."""
    def another_app() -> Any:
        return create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True}).test_client()

    c1 = another_app()
    t = c1.post("/api/tables", json={}).json
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    return c1, t, another_app


def test_state_survives_a_new_app_on_the_same_database(tmp_path) -> None:
    c1, t, another_app = on_a_database_file(tmp_path)
    to_showdown(c1, t)
    showdown(c1, t)
    step(c1, t)
    s1 = state(c1, t)
    c2 = another_app()
    assert state(c2, t) == s1


# -- export and import ---------------------------------------------------------------
def test_export_then_import_gives_the_same_match(client, table) -> None:
    to_showdown(client, table)
    showdown(client, table)
    to_showdown(client, table)
    showdown(client, table, hands=[DEAL[1], DEAL[2], DEAL[3], DEAL[0]])
    r = client.get(f"/api/tables/{table['id']}/export", headers=table["auth"])
    assert r.status_code == 200 and r.mimetype == "application/jsonl"
    lines = [json.loads(line) for line in r.data.decode().splitlines()]
    assert lines[0]["format"] == "mus-match/1" and lines[0]["teams"] == ["Txuriak", "Beltzak"]
    assert len(lines) == 3 and all("score" not in line for line in lines[1:])
    r2 = client.post("/api/tables/import", data=r.data, content_type="application/jsonl")
    assert r2.status_code == 201, r2.json
    t2 = {**r2.json, "auth": {"Authorization": f"Bearer {r2.json['token']}"}}
    assert t2["id"] != table["id"] and t2["hands"] == 2
    a, b = state(client, table), state(client, t2)
    for key in ("teams", "players", "rules", "score", "games", "vacas", "winner", "esku"):
        assert a[key] == b[key], key
    assert [h["settlement"] for h in a["hands"]] == [h["settlement"] for h in b["hands"]]
    # and as a multipart upload
    r3 = client.post("/api/tables/import", data={"file": (__import__("io").BytesIO(r.data), "m.jsonl")},
                     content_type="multipart/form-data")
    assert r3.status_code == 201


@pytest.mark.parametrize("space", ["\u2028", "\u2029", "\x85"])
def test_a_name_holding_a_line_separator_is_exported_and_imported_back(client, space) -> None:
    """JSON takes U+2028, U+2029 and U+0085 unescaped in a string, and the export writes a
    name as typed: the import split its lines at them too (str.splitlines), and refused the
    table's own file, 'line 1: not JSON: Unterminated string'. CRLF and CR line ends still read."""
    r = client.post("/api/tables", json={"teams": [f"Txuri{space}ak", "Beltzak"],
                                         "players": ["Ane", f"Bix{space}ente", "Iker", "Maite"]})
    assert r.status_code == 201, r.json
    t = {**r.json, "auth": {"Authorization": f"Bearer {r.json['token']}"}}
    to_showdown(client, t)
    showdown(client, t)
    data = client.get(f"/api/tables/{t['id']}/export", headers=t["auth"]).data
    assert space.encode() in data  # written as typed, not escaped
    for body in (data, data.replace(b"\n", b"\r\n"), data.replace(b"\n", b"\r")):
        r2 = client.post("/api/tables/import", data=body, content_type="application/jsonl")
        assert r2.status_code == 201, r2.json
        t2 = {**r2.json, "auth": {"Authorization": f"Bearer {r2.json['token']}"}}
        a, b = state(client, t), state(client, t2)
        assert b["teams"] == [f"Txuri{space}ak", "Beltzak"] and b["players"][1] == f"Bix{space}ente"
        assert [h["settlement"] for h in a["hands"]] == [h["settlement"] for h in b["hands"]]
    r3 = client.post("/api/tables/import", data='{"format": "mus-match/1"}\n\u2028\nnot json\n'.encode(),
                     content_type="application/jsonl")
    assert "line 3" in assert_error(r3, 422, "invalid", "line 3")["message"]  # numbered as the file's lines


def test_import_into_a_table_replaces_its_match(app, client, table) -> None:
    to_showdown(client, table)
    showdown(client, table)
    text = client.get(f"/api/tables/{table['id']}/export", headers=table["auth"]).data
    other = client.post("/api/tables", json={"teams": ["Gorriak", "Urdinak"]}).json
    other["auth"] = {"Authorization": f"Bearer {other['token']}"}
    url = f"/api/tables/{other['id']}/import"
    before = snapshot(app, client, other)
    assert_error(client.post(f"{url}?client_id=i1&version=5", headers=other["auth"], data=text), 409, "stale_version")
    assert_error(client.post(f"{url}?version=1", headers=other["auth"], data=text), 400, None, "client_id")
    assert_error(client.post(f"{url}?client_id=i1", headers=other["auth"], data=text), 400, None, "version")
    assert snapshot(app, client, other) == before
    # the file is another pairing's ("Txuriak" – "Beltzak", the table "Gorriak" – "Urdinak"): refused,
    # naming both, unless the import says it means to make the table that match
    err = assert_error(client.post(f"{url}?client_id=i1&version=1", headers=other["auth"], data=text), 409,
                       "teams_differ", "teams")
    assert (err["reason"], err["params"]) == ("teams_differ", {"file": "Txuriak – Beltzak", "table": "Gorriak – Urdinak"})
    assert snapshot(app, client, other) == before
    assert_error(client.post(f"{url}?client_id=i1&version=1&rename=yes", headers=other["auth"], data=text), 400,
                 "invalid", "rename")
    r = client.post(f"{url}?client_id=i1&version=1&rename=1", headers=other["auth"], data=text)
    assert r.status_code == 200, r.json
    assert len(r.json["hands"]) == 1 and r.json["teams"] == ["Txuriak", "Beltzak"] and r.json["version"] == 2
    again = client.post(f"{url}?client_id=i1&version=1&rename=1", headers=other["auth"], data=text)
    assert again.status_code == 200 and again.json["version"] == 2
    # a table opened without names ("Team 0" – "Team 1") has no pairing to keep: it takes the file's
    unnamed = client.post("/api/tables", json={}).json
    r = client.post(f"/api/tables/{unnamed['id']}/import?client_id=i2&version=1",
                    headers={"Authorization": f"Bearer {unnamed['token']}"}, data=text)
    assert r.status_code == 200 and r.json["teams"] == ["Txuriak", "Beltzak"], r.json


def test_import_into_a_table_takes_a_file_of_its_own_teams_spelt_or_sided_otherwise(client, table) -> None:
    """The history's "Import hands" replaces the table's match by the file's: the same two
    teams, whatever their case, accents or sides, go in without asking (the file's spelling)."""
    to_showdown(client, table)
    showdown(client, table)
    text = client.get(f"/api/tables/{table['id']}/export", headers=table["auth"]).data.decode()
    header, rest = text.split("\n", 1)
    mine = json.loads(header)["teams"]
    other = client.post("/api/tables", json={"teams": [mine[1].upper(), mine[0]]}).json
    url = f"/api/tables/{other['id']}/import?client_id=i&version={other['version']}"
    r = client.post(url, headers={"Authorization": f"Bearer {other['token']}"}, data=text.encode())
    assert r.status_code == 200 and r.json["teams"] == mine and len(r.json["hands"]) == 1, r.json


@pytest.mark.parametrize(
    "text, line",
    [
        ("", 1),
        ('{"format": "mus-match/1"}\nnot json\n', 2),
        ('{"format": "mus-hand/1"}\n', 1),
        ('[1]\n', 1),
        ('{"format": "mus-match/1", "teams": ["A"]}\n', 1),
        ('{"format": "mus-match/1", "rules": {"kings": 5}}\n', 1),
        ('{"format": "mus-match/1"}\n\n{"hands": [["1o", "1o", "2o", "3o"], null, null, null]}\n', 3),
    ],
)
def test_import_errors_name_the_line(app, client, text, line) -> None:
    count = app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0]
    err = assert_error(client.post("/api/tables/import", data=text.encode(), content_type="application/jsonl"), 422)
    assert f"line {line}" in err["message"], err
    assert app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0] == count


def test_import_refuses_non_utf8(client) -> None:
    assert_error(client.post("/api/tables/import", data=b"\xff\xfe\x00", content_type="application/jsonl"), 400,
                 "bad_file")


# -- the error shape everywhere -----------------------------------------------------------
def test_unknown_routes_and_methods_are_json_errors(client, table) -> None:
    assert_error(client.get("/api/nothing-here"), 404, "not_found", None)
    assert_error(client.get(f"/api/tables/nope?token={table['token']}"), 404, "not_found")
    r = client.delete(f"/api/tables/{table['id']}", headers=table["auth"])
    assert_error(r, 405, "method_not_allowed")
    assert "GET" in r.headers["Allow"]
    assert_error(client.get("/api/tables"), 405, "method_not_allowed")
    assert_error(client.get(f"/api/tables/{table['id']}/photos/nope", headers=table["auth"]), 404, "not_found")


def test_too_large_body_is_413(tmp_path) -> None:
    app = create_app({"DATABASE": str(tmp_path / "m.db"), "TESTING": True, "MAX_CONTENT_LENGTH": 1000})
    c = app.test_client()
    err = assert_error(c.post("/api/tables", data=b"{" + b" " * 2000 + b"}", content_type="application/json"), 413,
                       "too_large")
    assert "1000" in err["message"]
    assert app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0] == 0


def test_unexpected_errors_are_json_500(app, client, table, monkeypatch) -> None:
    store = app.extensions["mus_store"]

    def boom(*_a: Any, **_k: Any) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store, "mus", boom)
    r = client.post(f"/api/tables/{table['id']}/mus", headers=table["auth"], json={"client_id": "m", "version": 1})
    err = assert_error(r, 500, "internal_error")
    assert "fire" not in err["message"]


def test_pages_keep_html(client) -> None:
    r = client.get("/")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert client.get("/no-such-page").mimetype == "text/html"


# -- how fast one client creates ------------------------------------------------------
def _tables(app) -> list[str]:
    return [r[0] for r in app.extensions["mus_store"].db.reader().execute("SELECT id FROM tables ORDER BY id")]


class Clock:
    """A clock the test moves (`SlidingWindow`'s, in seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _limited_app(tmp_path, limit: Any = 3, window: Any = 600) -> Any:
    from web.limits import SlidingWindow

    app = create_app({"DATABASE": str(tmp_path / "rate.db"), "TESTING": True, "CREATE_MAX_PER_ADDRESS": limit,
                      "CREATE_WINDOW_SECONDS": window})
    clock = Clock()
    app.extensions["mus_creations"] = SlidingWindow(clock)
    return app, clock


def test_creating_tables_is_limited_per_address_with_429_and_retry_after(tmp_path) -> None:
    app, clock = _limited_app(tmp_path, limit=3)
    client = app.test_client()
    made = []
    for _ in range(2):  # at 1000 s and 1010 s
        made.append(client.post("/api/tables", json={}).json)
        clock.now += 10
    r = client.post("/api/tables/import", data=b'{"format": "mus-match/1"}\n', content_type="application/jsonl")
    assert r.status_code == 201, r.json  # an import creates a table too: the third of three
    made.append(r.json)
    before = _tables(app)
    clock.now = 1100.0
    for r in (client.post("/api/tables", json={"teams": ["A", "B"]}),
              client.post("/api/tables/import", data=b'{"format": "mus-match/1"}\n', content_type="application/jsonl"),
              client.post("/api/tables", data=b"{", content_type="application/json")):  # refused before it is read
        err = assert_error(r, 429, "too_many_creations", None)
        assert "3 tables or tournaments" in err["message"] and "600 seconds" in err["message"]
        assert r.headers["Retry-After"] == "500"  # the first creation leaves the window in 500 s
        assert r.headers["Cache-Control"] == "no-store"
    assert _tables(app) == before  # nothing written, nothing lost
    for t in made:  # the tables made before still read and write
        auth = {"Authorization": f"Bearer {t['token']}"}
        assert client.get(f"/api/tables/{t['id']}", headers=auth).status_code == 200
        assert client.post(f"/api/tables/{t['id']}/mus", headers=auth,
                           json={"client_id": "m", "version": t["version"]}).status_code == 200
    # another address has its own budget
    other = client.post("/api/tables", json={}, environ_base={"REMOTE_ADDR": "192.168.1.23"})
    assert other.status_code == 201
    # the window slides: once the first creation is 600 s old, one more may be made
    clock.now = 1000.0 + 599.5
    assert client.post("/api/tables", json={}).status_code == 429
    assert client.post("/api/tables", json={}).headers["Retry-After"] == "1"
    clock.now = 1000.0 + 600
    assert client.post("/api/tables", json={}).status_code == 201
    r = client.post("/api/tables", json={})
    assert r.status_code == 429 and r.headers["Retry-After"] == "10"  # the second leaves at 1610 s


def test_a_refused_creation_does_not_spend_the_budget(tmp_path) -> None:
    app, _ = _limited_app(tmp_path, limit=2)
    client = app.test_client()
    for _ in range(5):  # bad bodies, bad files, bodies past their limit: nothing created, nothing counted
        assert_error(client.post("/api/tables", json={"esku": 9}), 422)
        assert_error(client.post("/api/tables", data=b"[", content_type="application/json"), 400, "bad_json")
        assert_error(client.post("/api/tables/import", data=b"nope\n", content_type="application/jsonl"), 422)
        assert_error(client.post("/api/tournaments", json={"name": ""}), 422)
    assert _tables(app) == []
    assert client.post("/api/tables", json={}).status_code == 201
    assert client.post("/api/tournaments", json={"name": "Liga"}).status_code == 201
    assert_error(client.post("/api/tables", json={}), 429, "too_many_creations")


@pytest.mark.parametrize("off", [0, None])
def test_a_creation_limit_of_0_or_none_is_no_limit(tmp_path, off) -> None:
    app, _ = _limited_app(tmp_path, limit=off)
    client = app.test_client()
    assert all(client.post("/api/tables", json={}).status_code == 201 for _ in range(40))
    assert len(_tables(app)) == 40


def test_the_default_creation_limit_is_30_in_10_minutes(app, client) -> None:
    from web import DEFAULTS

    assert (DEFAULTS["CREATE_MAX_PER_ADDRESS"], DEFAULTS["CREATE_WINDOW_SECONDS"]) == (30, 600.0)
    assert all(client.post("/api/tables", json={}).status_code == 201 for _ in range(25))
    assert all(client.post("/api/tournaments", json={"name": f"L{k}"}).status_code == 201 for k in range(5))
    r = client.post("/api/tables", json={})
    assert_error(r, 429, "too_many_creations")
    assert 590 <= int(r.headers["Retry-After"]) <= 600
    assert len(_tables(app)) == 25


def test_racing_creations_from_one_address_stop_at_the_limit(tmp_path) -> None:
    app, _ = _limited_app(tmp_path, limit=5)
    codes: list[int] = []
    start = threading.Barrier(12)

    def create() -> None:
        c = app.test_client()
        start.wait()
        codes.append(c.post("/api/tables", json={}).status_code)

    threads = [threading.Thread(target=create) for _ in range(12)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(15)
    assert sorted(codes) == [201] * 5 + [429] * 7
    assert len(_tables(app)) == 5


def test_an_ipv6_client_counts_by_its_64() -> None:
    from web.limits import client_key

    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key("::ffff:192.168.1.7") == client_key("192.168.1.7") == "192.168.1.7"
    assert client_key("192.168.1.7") != client_key("192.168.1.8")
    assert client_key(None) == client_key("") == ""
    # on the local network the phones of a club share a /64: each counts as itself
    assert client_key("fe80::1%eth0") == "fe80::1" != client_key("fe80::2")
    assert client_key("fd12:3456:789a:1::5") == "fd12:3456:789a:1::5" != client_key("fd12:3456:789a:1::6")


def test_phones_on_one_ipv6_lan_each_have_their_budget_and_one_internet_64_shares_one(tmp_path) -> None:
    app, _ = _limited_app(tmp_path, limit=1)
    client = app.test_client()

    def create(addr: str) -> int:
        return client.post("/api/tables", json={}, environ_base={"REMOTE_ADDR": addr}).status_code

    assert [create(a) for a in ("fd00:c1ab::11", "fd00:c1ab::12", "fe80::a%wlan0", "fe80::b%wlan0")] == [201] * 4
    assert create("fd00:c1ab::11") == 429  # each its own budget, spent
    assert [create("2a02:9000:1:2::5"), create("2a02:9000:1:2::6")] == [201, 429]  # one home's /64


def test_addresses_seen_once_are_forgotten() -> None:
    from web.limits import SlidingWindow

    clock = Clock()
    log = SlidingWindow(clock)
    for k in range(100):
        assert log.take(f"10.0.{k}.1", 2, 60)[0]
    assert len(log) == 100
    clock.now += 61
    assert log.take("10.9.9.9", 2, 60)[0]
    assert len(log) == 1


# -- OpenAPI --------------------------------------------------------------------------
def test_openapi_covers_every_api_route(app, client) -> None:
    doc = client.get("/api/openapi.json").json
    assert doc["openapi"].startswith("3.1")
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)  # <path:team> is {team}
        assert path in doc["paths"], path
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            op = doc["paths"][path].get(method.lower())
            assert op is not None, (method, path)
            assert op["responses"], (method, path)


def test_openapi_lists_the_429_of_the_creating_routes(client) -> None:
    doc = client.get("/api/openapi.json").json
    for path in ("/api/tables", "/api/tables/import", "/api/tournaments"):
        assert doc["paths"][path]["post"]["responses"]["429"] == {"$ref": "#/components/responses/E429"}
    assert "Retry-After" in doc["components"]["responses"]["E429"]["headers"]


def _documented(doc: dict[str, Any], path: str, method: str, r) -> dict[str, Any]:
    """The document's response for `r` (its status listed, not left to `default`), its
    headers each sent as their schema says; the response object."""
    listed = doc["paths"][path][method]["responses"]
    assert str(r.status_code) in listed, (path, method, r.status_code, sorted(listed))
    resp = listed[str(r.status_code)]
    for name, header in resp.get("headers", {}).items():
        value = r.headers.get(name)
        if value is not None:
            schema = header["schema"]
            assert value in schema.get("enum", [value]), (name, value)
            assert re.search(schema.get("pattern", ""), value), (name, value)  # as JSON Schema matches
    return resp


def test_openapi_documents_the_etag_the_304_and_a_replayed_write(client, table) -> None:
    doc = client.get("/api/openapi.json").json
    path = "/api/tables/{table_id}"
    url = f"/api/tables/{table['id']}"
    first = client.get(url, headers=table["auth"])
    assert "ETag" in _documented(doc, path, "get", first)["headers"]
    assert {p["name"] for p in doc["paths"][path]["get"]["parameters"] if p["in"] == "header"} == {"If-None-Match"}
    again = client.get(url, headers={**table["auth"], "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and not again.data
    assert "ETag" in _documented(doc, path, "get", again)["headers"] and "content" not in _documented(
        doc, path, "get", again)
    body = {"client_id": cid(), "version": table["version"]}
    client.post(url + "/mus", headers=table["auth"], json=body)
    replayed = client.post(url + "/mus", headers=table["auth"], json=body)
    assert replayed.headers.get("Idempotent-Replayed") == "true"
    assert "Idempotent-Replayed" in _documented(doc, path + "/mus", "post", replayed)["headers"]
    for route in ("", "/actions", "/undo", "/mus", "/esku", "/showdown", "/import"):
        op = doc["paths"][path + route]["patch" if route == "" else "post"]
        assert "Idempotent-Replayed" in op["responses"]["200"]["headers"], route


def _integers(doc: dict[str, Any], schema: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every integer a request schema holds (its type integer, or an enum of integers), by path."""
    if not isinstance(schema, dict):
        return
    if "$ref" in schema:
        yield from _integers(doc, doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]], path)
        return
    types = schema.get("type")
    if types == "integer" or (isinstance(types, list) and "integer" in types) or (
            schema.get("enum") and all(type(v) is int for v in schema["enum"])):
        yield path, schema
    for part in schema.get("allOf", []):
        yield from _integers(doc, part, path)
    for key, sub in schema.get("properties", {}).items():
        yield from _integers(doc, sub, f"{path}.{key}")
    yield from _integers(doc, schema.get("items"), f"{path}[]")


def test_openapi_says_a_body_integer_is_refused_written_as_a_float(client, table) -> None:
    """JSON Schema's integer admits 8.0; the server refuses it (a whole number written with a
    fraction or an exponent): the document says so on every integer of a JSON body."""
    doc = client.get("/api/openapi.json").json
    assert "8.0" in doc["info"]["description"]
    seen = set()
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            for where, schema in _integers(doc, body["schema"]):
                seen.add(where)
                assert "8.0" in schema.get("description", ""), (method, path, where)
    assert {".version", ".revision", ".seat", ".action.seat", ".action.n", ".esku", ".rules.kings", ".legs",
            ".every_days"} <= seen
    url = f"/api/tables/{table['id']}"
    v = table["version"]
    assert_error(client.post(url + "/mus", headers=table["auth"], json={"client_id": cid(), "version": float(v)}),
                 400, "invalid", "version")
    assert_error(client.post(url + "/esku", headers=table["auth"], json={"client_id": cid(), "version": v,
                                                                         "seat": 1.0}), 422, "invalid", "seat")
    c = client.post("/api/tournaments", json={"name": "Liga"}).json
    r = client.patch(f"/api/tournaments/{c['id']}", headers={"Authorization": f"Bearer {c['token']}"},
                     json={"name": "Liga 2", "revision": 0.0})
    assert_error(r, 400, "invalid", "revision")
    assert state(client, table)["version"] == v


def test_contracts_describe_every_field_the_document_gives_the_decks(client) -> None:
    """docs/CONTRACTS.md's Decks paragraph names every field of the document's Decks and
    Deck schemas, every state of a deck and every form field of POST /api/decks."""
    from pathlib import Path

    from web.decks import STATES

    text = (Path(__file__).resolve().parents[1] / "docs" / "CONTRACTS.md").read_text(encoding="utf-8")
    decks = re.search(r"^- Decks \(.*?(?=^- )", text, re.S | re.M).group(0)
    doc = client.get("/api/openapi.json").json
    schemas = doc["components"]["schemas"]
    form = doc["paths"]["/api/decks"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    names = {*schemas["Decks"]["properties"], *schemas["Deck"]["properties"], *STATES, *form["properties"]}
    assert {"refine", "refine_available", "refine_why", "refine_hours", "refined", "refine_error", "refining"} <= names
    missing = sorted(n for n in names if not re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", decks))
    assert not missing, missing


def test_the_document_lists_every_503_code_the_server_sends(tmp_path, monkeypatch) -> None:
    """E503's description names every code a 503 can carry: each one web/ and scorer/
    send (ApiError(503, code), error_response(503, code), a storage refusal's 503, code),
    the decks' teaching_unavailable and refining_unavailable among them, as they answer."""
    from pathlib import Path

    import web.decks

    root = Path(__file__).resolve().parents[1]
    sent = {m for folder in ("web", "scorer") for path in (root / folder).rglob("*.py")
            for m in re.findall(r"\b503,\s*\"(\w+)\"", path.read_text(encoding="utf-8"))}
    assert {"too_many_streams", "recognizer_unavailable", "database_busy", "teaching_unavailable",
            "refining_unavailable"} <= sent
    key = "k" * 24
    client = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "ADMIN_KEY": key}).test_client()
    doc = client.get("/api/openapi.json").json
    said = doc["components"]["responses"]["E503"]["description"]
    missing = sorted(code for code in sent if not re.search(rf"\b{code}\b", said))
    assert not missing, missing
    assert "503" in doc["paths"]["/api/decks"]["post"]["responses"]
    auth = {"Authorization": f"Bearer {key}"}
    monkeypatch.setattr(web.decks, "unavailable", lambda: "no datasets/ here")
    assert_error(client.post("/api/decks", headers=auth, data={}, content_type="multipart/form-data"), 503,
                 "teaching_unavailable", None)
    monkeypatch.setattr(web.decks, "unavailable", lambda: None)
    monkeypatch.setattr(web.decks, "refine_unavailable", lambda: "no torch here")
    assert_error(client.post("/api/decks", headers=auth, data={"refine": "1"}, content_type="multipart/form-data"),
                 503, "refining_unavailable", "refine")


def test_openapi_references_resolve(client) -> None:
    doc = client.get("/api/openapi.json").json

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if ref:
                target: Any = doc
                for part in ref.removeprefix("#/").split("/"):
                    target = target[part]
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(doc)


# -- dejes, órdago, the end of the match -------------------------------------------------
def test_deje_shows_at_once_in_current_score(client, table) -> None:
    s = state(client, table)
    v = s["version"]
    for a in ({"seat": 0, "act": "envido", "n": 2}, {"seat": 1, "act": "no_quiero"}, {"seat": 3, "act": "no_quiero"}):
        r = act(client, table, v, a)
        assert r.status_code == 200, r.json
        v = r.json["version"]
    cur = r.json["current"]
    assert cur["score"] == [1, 0] and r.json["score"] == [0, 0]  # paid now; the match score moves at showdown
    assert cur["events"][0]["why"].startswith("deje") and cur["phase"] == "chica"


def test_accepted_ordago_ends_the_match(app, client) -> None:
    r = client.post("/api/tables", json={"rules": {"target": 30, "games_per_vaca": 1, "vacas_to_win": 1}, "esku": 2})
    t = {**r.json, "auth": {"Authorization": f"Bearer {r.json['token']}"}}
    s = state(client, t)
    assert s["current"]["to_speak"] == 2
    r = act(client, t, s["version"], {"seat": 2, "act": "ordago"})
    r = act(client, t, r.json["version"], {"seat": 3, "act": "quiero"})
    cur = r.json["current"]
    assert cur["phase"] == "over" and cur["ordago"] == "grande" and cur["legal"] == []
    r = showdown(client, t)
    assert r.status_code == 200, r.json
    n = r.json
    assert n["winner"] in (0, 1) and n["current"] is None
    assert n["last_settlement"]["ordago"] is True and n["last_settlement"]["game_over"] is True
    before = snapshot(app, client, t)
    assert_error(act(client, t, n["version"], {"seat": 3, "act": "paso"}), 409, "match_over")
    assert_error(client.post(f"/api/tables/{t['id']}/mus", headers=t["auth"],
                             json={"client_id": cid(), "version": n["version"]}), 409, "match_over")
    assert_error(showdown(client, t), 409, "match_over")
    assert snapshot(app, client, t) == before
    # the showdown that ended it can still be taken back
    r = client.post(f"/api/tables/{t['id']}/undo", headers=t["auth"], json={"client_id": cid(), "version": n["version"]})
    assert r.status_code == 200 and r.json["winner"] is None and r.json["current"]["phase"] == "over"


def test_showdown_without_hands(app, client, table) -> None:
    s = to_showdown(client, table)
    before = snapshot(app, client, table)
    r = client.post(f"/api/tables/{table['id']}/showdown", headers=table["auth"],
                    json={"client_id": cid(), "version": s["version"]})
    assert_error(r, 400, "invalid", "hands")
    assert snapshot(app, client, table) == before


def test_bad_import_into_a_table_changes_nothing(app, client, table) -> None:
    step(client, table)
    before = snapshot(app, client, table)
    v = state(client, table)["version"]
    for text in (b"", b'{"format": "mus-match/1"}\n{"hands": 3}\n', b"\xff"):
        r = client.post(f"/api/tables/{table['id']}/import?client_id=bad&version={v}", headers=table["auth"], data=text)
        assert r.status_code in (400, 422), r.json
    assert_error(client.post(f"/api/tables/{table['id']}/import?client_id=bad&version=x", headers=table["auth"],
                             data=b""), 400, "invalid", "version")
    assert snapshot(app, client, table) == before


@pytest.mark.parametrize("client_id", ["", "x" * 101])
def test_an_import_checks_its_client_id_before_it_reads_the_file(app, client, table, monkeypatch, client_id) -> None:
    """An empty or overlong client_id is a 400 invalid on client_id, as version's bad value
    is, before the file is read or parsed: a bad file, an oversize one or a good one alike."""
    from scorer import engine

    parsed = []
    real = engine.Match.from_lines
    monkeypatch.setattr(engine.Match, "from_lines", lambda lines: parsed.append(1) or real(lines))
    step(client, table)
    before = snapshot(app, client, table)
    v = state(client, table)["version"]
    url = f"/api/tables/{table['id']}/import?client_id={client_id}&version={v}"
    good = client.get(f"/api/tables/{table['id']}/export", headers=table["auth"]).data
    big = b'{"format": "mus-match/1"}\n' + b" " * (app.config["IMPORT_MAX_BYTES"] + 1)
    for data in (b"\xff", b'{"format": "mus-match/1"}\n{"hands": 3}\n', big, good):
        err = assert_error(client.post(url, headers=table["auth"], data=data, content_type="application/jsonl"),
                           400, "invalid", "client_id")
        assert json.dumps(client_id) in err["message"]
    assert parsed == [] and snapshot(app, client, table) == before
    ok = client.post(f"/api/tables/{table['id']}/import?client_id=ok&version={v}", headers=table["auth"], data=good,
                     content_type="application/jsonl")
    assert ok.status_code == 200 and parsed == [1], ok.json


def test_default_body_limit_is_25_mb(app, client, table) -> None:
    assert app.config["MAX_CONTENT_LENGTH"] == 25 * 1024 * 1024
    before = snapshot(app, client, table)
    big = b"\xff\xd8\xff" + b"\x00" * (25 * 1024 * 1024)
    assert_error(client.post(f"/api/tables/{table['id']}/photos", headers=table["auth"], data=big,
                             content_type="image/jpeg"), 413, "too_large")
    assert snapshot(app, client, table) == before


@pytest.mark.parametrize("hand", ['{"hands": "x"}', '{"bets": [1, 2]}', '{"hands": [[1, 2, 3, 4], null, null, null]}',
                                  '{"esku": "north"}', '{"declared": 7}', '{"rules": {"kings": 4}}'])
def test_odd_import_lines_are_422_not_500(app, client, hand) -> None:
    text = '{"format": "mus-match/1"}\n' + hand + "\n"
    err = assert_error(client.post("/api/tables/import", data=text.encode(), content_type="application/jsonl"), 422)
    assert err["message"]


ODD_ACTIONS = [
    {"seat": "0", "act": "paso"}, {"seat": 0.0, "act": "paso"}, {"seat": None, "act": "paso"}, {"seat": 7, "act": "paso"},
    {"seat": -1, "act": "paso"}, {"seat": True, "act": "paso"}, {"seat": 0, "act": 3}, {"seat": 0, "act": None},
    {"seat": 0, "act": "envido", "n": "big"}, {"seat": 0, "act": "envido", "n": -2}, {"seat": 0, "act": "envido", "n": 0},
    {"seat": 0, "act": "envido", "n": 10**30}, {"seat": 0, "act": "envido", "n": 2.5}, {"seat": 0, "act": "mas", "n": 2},
    {"seat": 0, "act": "declare", "pares": True}, {"seat": 0, "act": "paso", "extra": 1}, {}, {"seat": [0], "act": "paso"},
]


@pytest.mark.parametrize("action", ODD_ACTIONS)
def test_odd_actions_are_4xx_and_change_nothing(app, client, table, action) -> None:
    before = snapshot(app, client, table)
    r = act(client, table, 1, action)
    if r.status_code == 200:  # the engine may accept harmless extras; then it was a legal action
        assert r.json["current"]["log"][0]["seat"] == 0
        return
    assert 400 <= r.status_code < 500, (r.status_code, r.json)
    assert_error(r, r.status_code)
    assert snapshot(app, client, table) == before


@pytest.mark.parametrize("hands", [
    [[1, 2, 3, 4]] * 4, [None, None, None, None], [["1o"] * 4] * 4, [[]] * 4, [["12o", "3c", "1e", None]] * 4,
    [DEAL[0], DEAL[1], DEAL[2], "1o 2o 3o 4o"], {"0": DEAL[0]}, [DEAL[0], DEAL[1], DEAL[2], DEAL[3], DEAL[0]],
    [["1x", "2o", "3o", "4o"], DEAL[1], DEAL[2], DEAL[3]],
])
def test_odd_showdowns_are_4xx_and_change_nothing(app, client, table, hands) -> None:
    to_showdown(client, table)
    before = snapshot(app, client, table)
    r = showdown(client, table, hands=hands)
    if r.status_code == 200:  # e.g. cards not shown: the engine settles what it can
        assert len(r.json["hands"]) == 1
        return
    assert 400 <= r.status_code < 500, (r.status_code, r.json)
    assert_error(r, r.status_code)
    assert snapshot(app, client, table) == before


def test_each_logged_action_names_its_lance(client, table) -> None:
    """`current.phases[i]` is the lance `current.log[i]` was said in, to the showdown."""
    seen = []
    s = state(client, table)
    for _ in range(80):
        cur = s["current"]
        if cur["phase"] in ("showdown", "over"):
            break
        seen.append(cur["phase"])
        s = step(client, table)
        assert len(s["current"]["phases"]) == len(s["current"]["log"])
    assert s["current"]["phases"] == seen
    assert s["current"]["phases"][:4] == ["grande"] * 4  # four paso in grande first
    assert {"grande", "chica"} <= set(seen) and seen == sorted(seen, key=["grande", "chica", "pares_declare", "pares",
                                                                           "juego_declare", "juego", "punto"].index)
    r = client.post(f"/api/tables/{table['id']}/undo", headers=table["auth"],
                    json={"client_id": cid(), "version": s["version"]})
    assert r.status_code == 200 and r.json["current"]["phases"] == seen[:-1]


def test_an_import_past_its_limit_is_refused_as_a_file_too(tmp_path) -> None:
    # IMPORT_MAX_BYTES holds for a multipart upload as for a raw body
    app = create_app({"DATABASE": str(tmp_path / "i.db"), "TESTING": True, "IMPORT_MAX_BYTES": 10_000})
    c = app.test_client()
    big = b'{"format": "mus-match/1"}\n' + b" " * 20_000
    raw = c.post("/api/tables/import?client_id=r1", data=big, content_type="application/jsonl")
    form = c.post("/api/tables/import?client_id=r2", data={"file": (io.BytesIO(big), "m.jsonl")},
                  content_type="multipart/form-data")
    for r in (raw, form):
        assert assert_error(r, 413)["message"] == "the request body is larger than the limit of 10000 bytes"


# -- choosing the esku (mus corrido) ---------------------------------------------------
def esku(client, t, seat, version=None, client_id=None):
    v = state(client, t)["version"] if version is None else version
    return client.post(f"/api/tables/{t['id']}/esku", headers=t["auth"],
                       json={"client_id": client_id or cid(), "version": v, "seat": seat})


def undo(client, t):
    return client.post(f"/api/tables/{t['id']}/undo", headers=t["auth"],
                       json={"client_id": cid(), "version": state(client, t)["version"]})


def test_the_player_who_cut_is_esku_and_the_turn_goes_on_from_there(client, table) -> None:
    """Mus corrido: the first hand's esku is the seat chosen; its record carries it, the
    next hand's esku is the seat after it, and the export keeps it."""
    r = esku(client, table, 2, version=1)
    assert r.status_code == 200, r.json
    s = r.json
    assert s["version"] == 2 and s["esku"] == 2
    assert s["current"]["esku"] == 2 and s["current"]["to_speak"] == 2 and s["current"]["esku_chosen"] is True
    assert {a["seat"] for a in s["current"]["legal"]} == {2}
    to_showdown(client, table)
    n = showdown(client, table).json
    assert n["hands"][0]["record"]["esku"] == 2
    assert n["esku"] == 3 and n["current"]["esku"] == 3 and n["current"]["to_speak"] == 3
    assert n["current"]["esku_chosen"] is False
    lines = client.get(f"/api/tables/{table['id']}/export", headers=table["auth"]).data.decode().splitlines()
    assert json.loads(lines[1])["esku"] == 2


def test_the_esku_is_chosen_only_before_anything_is_said(app, client, table) -> None:
    step(client, table)
    before = snapshot(app, client, table)
    err = assert_error(esku(client, table, 1), 409, "hand_started", "seat")
    assert "undo" in err["message"]
    assert snapshot(app, client, table) == before
    undo(client, table)
    client.post(f"/api/tables/{table['id']}/mus", headers=table["auth"],
                json={"client_id": cid(), "version": state(client, table)["version"]})
    before = snapshot(app, client, table)
    err = assert_error(esku(client, table, 1), 409, "hand_started", "seat")
    assert "mus" in err["message"]
    assert snapshot(app, client, table) == before


@pytest.mark.parametrize("seat", [4, -1, "1", True, None, 1.0])
def test_a_bad_seat_for_esku_changes_nothing(app, client, table, seat) -> None:
    before = snapshot(app, client, table)
    assert_error(esku(client, table, seat), 422, "invalid", "seat")
    assert snapshot(app, client, table) == before


def test_esku_needs_its_seat_and_the_players_token(app, client, table) -> None:
    before = snapshot(app, client, table)
    r = client.post(f"/api/tables/{table['id']}/esku", headers=table["auth"], json={"client_id": cid(), "version": 1})
    assert_error(r, 400, "invalid", "seat")
    r = client.post(f"/api/tables/{table['id']}/esku?token={table['watch_token']}",
                    json={"client_id": cid(), "version": 1, "seat": 1})
    assert r.status_code == 403
    assert_error(esku(client, table, 1, version=7), 409, "stale_version", "version")
    assert snapshot(app, client, table) == before


def test_a_retried_esku_is_applied_once(client, table) -> None:
    r1 = esku(client, table, 3, version=1, client_id="cut-1")
    r2 = esku(client, table, 3, version=1, client_id="cut-1")
    assert r2.status_code == 200 and r2.headers.get("Idempotent-Replayed") == "true"
    assert r2.json["version"] == r1.json["version"] == 2 and r2.json["esku"] == 3
    assert_error(esku(client, table, 1, version=2, client_id="cut-1"), 409, "client_id_reused", "client_id")


def test_undo_takes_back_each_choice_of_esku_in_turn(client, table) -> None:
    esku(client, table, 2)
    esku(client, table, 3)
    s = esku(client, table, 3).json  # the esku already: nothing to take back
    assert s["esku"] == 3
    client.post(f"/api/tables/{table['id']}/mus", headers=table["auth"],
                json={"client_id": cid(), "version": s["version"]})
    assert undo(client, table).json["current"]["mus_rounds"] == 0  # the mus round first
    assert undo(client, table).json["esku"] == 2
    s = undo(client, table).json
    assert s["esku"] == 0 and s["current"]["to_speak"] == 0 and s["current"]["esku_chosen"] is False
    assert_error(undo(client, table), 422, "nothing_to_undo")


def test_undoing_a_showdown_brings_the_hand_back_with_its_chosen_esku(client, table) -> None:
    esku(client, table, 1)
    log = to_showdown(client, table)["current"]["log"]
    showdown(client, table)
    s = undo(client, table).json
    assert s["hands"] == [] and s["current"]["log"] == log
    assert s["esku"] == 1 and s["current"]["esku"] == 1 and s["current"]["esku_chosen"] is True
    for _ in log:
        s = undo(client, table).json
    assert s["current"]["log"] == [] and s["esku"] == 1
    s = undo(client, table).json
    assert s["esku"] == 0 and s["current"]["esku_chosen"] is False


def test_a_chosen_esku_survives_a_new_app_on_the_same_database(tmp_path) -> None:
    c1, t, another_app = on_a_database_file(tmp_path)
    esku(c1, t, 3)
    step(c1, t)
    s1 = state(c1, t)
    c2 = another_app()
    assert state(c2, t) == s1 and s1["current"]["esku"] == 3
    assert undo(c2, t).json["current"]["to_speak"] == 3
    assert undo(c2, t).json["esku"] == 0


def test_no_esku_once_the_match_is_over(app, client) -> None:
    t = client.post("/api/tables", json={"rules": {"vacas_to_win": 1}}).json
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    s = state(client, t)
    act(client, t, s["version"], {"seat": 0, "act": "ordago"})
    act(client, t, s["version"] + 1, {"seat": 1, "act": "quiero"})
    assert showdown(client, t).status_code == 200
    assert state(client, t)["winner"] is not None
    before = snapshot(app, client, t)
    assert_error(esku(client, t, 2), 409, "match_over")
    assert snapshot(app, client, t) == before


# -- renaming a table's teams and players ------------------------------------------------
def rename(client, t, version=None, client_id=None, **body):
    v = state(client, t)["version"] if version is None else version
    return client.patch(f"/api/tables/{t['id']}", headers=t["auth"],
                        json={"client_id": client_id or cid(), "version": v, **body})


def test_a_typo_in_a_name_is_fixed_and_every_page_says_the_new_one(client, table) -> None:
    to_showdown(client, table)
    hands = showdown(client, table).json["hands"]
    r = rename(client, table, teams=["Txuriak", "Beltzak Taldea"], players=["Ane", "Bixente", "Iñaki", "Maite"])
    assert r.status_code == 200, r.json
    s = r.json
    assert s["teams"] == ["Txuriak", "Beltzak Taldea"] and s["players"][2] == "Iñaki"
    assert s["hands"] == hands and s["version"] == state(client, table)["version"]
    s = rename(client, table, players=["Ane", "Bixente", "Iñaki", "Maite Z"]).json  # one of the two alone
    assert s["teams"] == ["Txuriak", "Beltzak Taldea"] and s["players"][3] == "Maite Z"
    lines = client.get(f"/api/tables/{table['id']}/export", headers=table["auth"]).data.decode().splitlines()
    head = json.loads(lines[0])
    assert head["teams"] == ["Txuriak", "Beltzak Taldea"] and head["players"] == ["Ane", "Bixente", "Iñaki", "Maite Z"]
    for page in ("history", "sheet"):
        html = client.get(f"/t/{table['id']}/{page}?token={table['token']}").get_data(as_text=True)
        assert "Beltzak Taldea" in html, page
    html = client.get(f"/t/{table['id']}/history?token={table['token']}").get_data(as_text=True)
    assert "Iñaki" in html


def test_renamed_names_outlast_an_undo_and_a_new_app(tmp_path) -> None:
    c1, t, another_app = on_a_database_file(tmp_path)
    to_showdown(c1, t)
    showdown(c1, t)
    rename(c1, t, teams=["Gorriak", "Urdinak"])
    s = undo(c1, t).json  # undo is for the play: the showdown comes back, the names stay
    assert s["hands"] == [] and s["teams"] == ["Gorriak", "Urdinak"]
    c2 = another_app()
    assert state(c2, t) == s


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"teams": ["Gorriak", " gorriák "]}, "teams"),
        ({"teams": ["A", ""]}, "teams[1]"),
        ({"teams": ["A"]}, "teams"),
        ({"players": ["a", "b", "c", "x" * 41]}, "players[3]"),
        ({"players": ["a", "b", "c", "\u200b"]}, "players[3]"),
        ({"players": "abcd"}, "players"),
        ({}, "teams"),
    ],
)
def test_a_bad_rename_changes_nothing(app, client, table, body, field) -> None:
    before = snapshot(app, client, table)
    assert_error(rename(client, table, **body), 422, "invalid", field)
    assert snapshot(app, client, table) == before


def test_a_rename_is_the_players_versioned_retryable_write(app, client, table) -> None:
    before = snapshot(app, client, table)
    r = client.patch(f"/api/tables/{table['id']}?token={table['watch_token']}",
                     json={"client_id": cid(), "version": 1, "teams": ["X", "Y"]})
    assert r.status_code == 403
    assert_error(rename(client, table, version=5, teams=["X", "Y"]), 409, "stale_version", "version")
    assert snapshot(app, client, table) == before
    r1 = rename(client, table, version=1, client_id="fix", teams=["X", "Y"])
    r2 = rename(client, table, version=1, client_id="fix", teams=["X", "Y"])
    assert r2.status_code == 200 and r2.headers.get("Idempotent-Replayed") == "true"
    assert r1.json["version"] == r2.json["version"] == 2 and r2.json["teams"] == ["X", "Y"]
    assert_error(rename(client, table, version=2, client_id="fix", teams=["X", "Z"]), 409, "client_id_reused")


@pytest.mark.parametrize("teams", [["Gorriak", "gorriak"], [" Gorriák ", "GORRIAK"], ["Gorri  ak", "gorri ak"]])
def test_two_teams_of_one_name_are_refused_at_creation(app, client, teams) -> None:
    count = app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0]
    err = assert_error(client.post("/api/tables", json={"teams": teams}), 422, "invalid", "teams")
    assert "differ" in err["message"]
    assert (err["reason"], err["params"]) == ("named_again", {"name": teams[1].strip(), "same": teams[0].strip()})
    assert app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0] == count



@pytest.mark.parametrize(("players", "first", "second"), [
    (["Ane", "Ane", "Jon", "Peio"], 0, 1),
    (["Ane", "Jon", " ÁNE ", "Peio"], 0, 2),
    (["Ane", "Jon", "Mi  ren", "mi ren"], 2, 3),
])
def test_two_players_of_one_name_are_refused_at_creation_and_rename(app, client, table, players, first, second) -> None:
    """"Habla Ane" must say which Ane: two players of one name (compared as the teams are:
    case, accents and spacing aside) are a 422 on the second seat, naming the name and both
    seats; nothing is created or renamed. A new table imported takes a file as it is."""
    count = app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0]
    err = assert_error(client.post("/api/tables", json={"players": players}), 422, "invalid", f"players[{second}]")
    name, same = players[second].strip(), players[first].strip()
    assert err["message"].startswith(f'players[{second}]: "{name}" is the name of players[{first}] too ("{same}"'), err
    assert (err["reason"], err["params"]) == ("player_twice", {"name": name, "same": same, "first": first + 1,
                                                               "second": second + 1})
    assert app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0] == count
    before = snapshot(app, client, table)
    said = assert_error(client.patch(f"/api/tables/{table['id']}", headers=table["auth"],
                                     json={"client_id": "r", "version": table["version"], "players": players}),
                        422, "invalid", f"players[{second}]")
    assert said["message"] == err["message"]
    assert snapshot(app, client, table) == before
    text = json.dumps({"format": "mus-match/1", "players": players}).encode() + b"\n"
    imported = client.post("/api/tables/import", data=text)
    assert imported.status_code == 201
    # that table renames its teams as it is, but its players only once told apart
    t = imported.json
    auth = {"Authorization": f"Bearer {t['token']}"}
    url = f"/api/tables/{t['id']}"
    r = client.patch(url, headers=auth, json={"client_id": "t", "version": t["version"], "teams": ["Gorri", "Urdin"]})
    assert r.status_code == 200 and r.json["players"] == [p.strip() for p in players], r.json
    assert_error(client.patch(url, headers=auth, json={"client_id": "p", "version": r.json["version"],
                                                       "players": players}), 422, "invalid", f"players[{second}]")
    apart = [*players]
    apart[second] = "Other"
    r = client.patch(url, headers=auth, json={"client_id": "q", "version": r.json["version"], "players": apart})
    assert r.status_code == 200 and r.json["players"][second] == "Other"


def test_players_of_names_that_differ_are_taken() -> None:
    from scorer.storage.tables import check_header

    header = check_header({"players": ["Ane", "Anne", "Ane B", "Iñaki"]}, strict=True)
    assert header["players"] == ["Ane", "Anne", "Ane B", "Iñaki"]


@pytest.mark.parametrize("teams", [["Gorriak", "gorriak"], [" Gorriák ", "GORRIAK"]])
def test_an_import_into_a_table_of_two_teams_of_one_name_is_refused_as_a_rename(app, client, table, teams) -> None:
    """The table may be a tournament's, whose standings could not tell the teams apart: the
    error a rename gives; a new table imported still takes the file as it is."""
    text = json.dumps({"format": "mus-match/1", "teams": teams}).encode() + b"\n"
    before = snapshot(app, client, table)
    url = f"/api/tables/{table['id']}/import?client_id=one&version={table['version']}"
    err = assert_error(client.post(url, headers=table["auth"], data=text), 422, "invalid", "teams")
    said = assert_error(client.patch(f"/api/tables/{table['id']}", headers=table["auth"],
                                     json={"client_id": "r", "version": table["version"], "teams": teams}),
                        422, "invalid", "teams")
    assert err["message"] == said["message"] and "differ" in err["message"]
    assert snapshot(app, client, table) == before
    assert client.post("/api/tables/import", data=text).status_code == 201


# -- unknown keys ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"target": 30, "player": ["A", "B", "C", "D"]}, "target"),
        ({"teams": ["A", "B"], "player": ["A", "B", "C", "D"]}, "player"),
        ({"Teams": ["A", "B"]}, "Teams"),
        ({"rules": {"target": 30}, "vacas": 3}, "vacas"),
        ({"rules": {"targets": 30}}, "rules.targets"),
    ],
)
def test_a_new_table_with_an_unknown_key_is_refused_naming_it(app, client, body, field) -> None:
    count = app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0]
    err = assert_error(client.post("/api/tables", json=body), 422, "invalid", field)
    assert err["message"].startswith(f"{field}: unknown")
    if "." not in field:  # a rule's name is refused as before: "rules.targets: unknown rule"
        assert all(k in err["message"] for k in ("teams", "players", "rules", "esku")), err["message"]
    assert app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0] == count


def test_the_new_writes_refuse_an_unknown_key(app, client, table) -> None:
    before = snapshot(app, client, table)
    r = client.post(f"/api/tables/{table['id']}/esku", headers=table["auth"],
                    json={"client_id": cid(), "version": 1, "seat": 2, "player": 1})
    err = assert_error(r, 422, "invalid", "player")
    assert "seat" in err["message"]
    err = assert_error(rename(client, table, teams=["X", "Y"], player=["a", "b", "c", "d"]), 422, "invalid", "player")
    assert "players" in err["message"] and "teams" in err["message"]
    assert snapshot(app, client, table) == before


def _schema_keys(doc: dict[str, Any], schema: dict[str, Any]) -> tuple[set[str], bool]:
    """The keys a request schema names (through `$ref` and `allOf`) and whether it is
    closed: `additionalProperties` or `unevaluatedProperties` false (JSON Schema 2020-12)."""
    if "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    keys = set(schema.get("properties", {}))
    for part in schema.get("allOf", []):
        keys |= _schema_keys(doc, part)[0]
    return keys, schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False


@pytest.mark.parametrize(("method", "route", "body"), [
    ("patch", "", {"teams": ["X", "Y"]}),
    ("post", "/esku", {"seat": 2}),
    ("post", "/mus", {}),
    ("post", "/actions", {"action": {"seat": 0, "act": "paso"}}),
])
def test_the_document_closes_a_write_body_where_the_server_refuses_another_key(app, client, table, method, route,
                                                                              body) -> None:
    """The served OpenAPI document says which write bodies take no other key: an extra key
    is refused (422 invalid naming it) where, and only where, the body's schema is closed."""
    doc = client.get("/api/openapi.json").json
    assert doc["openapi"].startswith("3.1") and doc["jsonSchemaDialect"].endswith("/oas/3.1/dialect/base")
    op = doc["paths"]["/api/tables/{table_id}" + route][method]
    keys, closed = _schema_keys(doc, op["requestBody"]["content"]["application/json"]["schema"])
    assert {"client_id", "version", *body} <= keys
    before = snapshot(app, client, table)
    r = getattr(client, method)(f"/api/tables/{table['id']}{route}", headers=table["auth"],
                                json={"client_id": cid(), "version": table["version"], **body, "zz_extra": 1})
    if closed:
        assert_error(r, 422, "invalid", "zz_extra")
        assert snapshot(app, client, table) == before
    else:
        assert r.status_code == 200, r.json
    assert closed == (route in ("", "/esku"))


def test_the_document_refuses_an_empty_name_and_a_rename_of_nothing_as_the_server_does(app, client, table) -> None:
    """A table's team and player names are 1 to 40 characters (minLength 1, as the server
    refuses an empty one), and a renaming names teams, players or both (anyOf)."""
    doc = client.get("/api/openapi.json").json
    schemas = doc["components"]["schemas"]
    renaming = schemas["RenameWrite"]["allOf"][1]
    for owner in (schemas["NewTable"], renaming):
        for key in ("teams", "players"):
            item = owner["properties"][key]["items"]
            assert (item["type"], item["minLength"], item["maxLength"]) == ("string", 1, 40), key
    before = snapshot(app, client, table)
    assert_error(client.post("/api/tables", json={"teams": ["A", ""]}), 422, "invalid", "teams[1]")
    assert_error(client.post("/api/tables", json={"players": ["", "B", "C", "D"]}), 422, "invalid", "players[0]")
    assert_error(rename(client, table, players=["A", "B", "", "D"]), 422, "invalid", "players[2]")
    for body in ({}, {"teams": ["X", "Y"]}, {"players": ["P", "Q", "R", "S"]}):
        met = sum(set(branch["required"]) <= set(body) for branch in renaming["anyOf"])
        r = rename(client, table, **body)
        assert (r.status_code == 200) == (met > 0), (body, r.json)
        if not met:
            assert_error(r, 422, "invalid")
            assert snapshot(app, client, table) == before


def test_a_match_file_keeps_its_header_as_it_was_taken(client) -> None:
    """An import's header is read as before: keys this app does not know are left aside."""
    text = (json.dumps({"format": "mus-match/1", "teams": ["A", "B"], "players": ["P", "Q", "R", "S"], "esku": 0,
                        "rules": {"kings": 8}, "event": "Txapelketa 2026"}) + "\n").encode()
    r = client.post("/api/tables/import", data=text, content_type="application/jsonl")
    assert r.status_code == 201, r.json


# -- a hand's rules (HAND-RECORD.md "A hand") ---------------------------------------
HAND_RULES = {"kings": 4, "target": 30, "real31": True}
MATCH_RULES = {**HAND_RULES, "games_per_vaca": 2, "vacas_to_win": 2}
# seat 0 a pair of reyes, seat 1 medias of 7s and a 31, seat 3 a pair of ases; the grande
# envido refused (seat 1 "paso" for its part, seat 3 for the team), the pares passed
# (HAND-RECORD.md's example, its declarations said)
IMPORTED = {"format": "mus-hand/1", "esku": 0,
            "hands": [["12o", "12c", "1e", "5b"], ["7o", "7c", "7e", "10b"], ["2o", "4c", "6e", "11b"],
                      ["1o", "1c", "5e", "6o"]],
            "declared": {"pares": [True, True, False, True], "juego": [False, True, False, False]},
            "bets": {"grande": [{"seat": 0, "act": "envido", "n": 3}, {"seat": 1, "act": "paso"},
                                {"seat": 3, "act": "no_quiero"}],
                     "chica": [{"seat": s, "act": "paso"} for s in range(4)],
                     "pares": [{"seat": 0, "act": "paso"}, {"seat": 1, "act": "paso"}, {"seat": 3, "act": "paso"}]}}


def import_match(client, *hands: dict[str, Any], rules: dict[str, Any] | None = None) -> dict[str, Any]:
    head = {"format": "mus-match/1", "rules": rules or MATCH_RULES, "teams": ["A", "B"],
            "players": ["P0", "P1", "P2", "P3"], "esku": 0}
    text = "".join(json.dumps(line) + "\n" for line in (head, *hands))
    r = client.post("/api/tables/import", data=text.encode(), content_type="application/jsonl")
    assert r.status_code == 201, r.json
    return {**r.json, "auth": {"Authorization": f"Bearer {r.json['token']}"}}


def test_a_hands_record_carries_only_the_hands_rules(client) -> None:
    """Played here or imported, a hand's record carries kings, target and real31: the
    match's length is the table's (its header, `rules`), not the hand's."""
    t = import_match(client, IMPORTED)
    to_showdown(client, t)
    assert showdown(client, t).status_code == 200
    s = state(client, t)
    assert s["rules"] == MATCH_RULES
    assert [h["record"]["rules"] for h in s["hands"]] == [HAND_RULES, HAND_RULES]
    assert all(list(h["record"])[:2] == ["format", "rules"] for h in s["hands"])
    # the export's hand lines carry no rules (the header has them), and import as they were
    lines = client.get(f"/api/tables/{t['id']}/export", headers=t["auth"]).data.decode().splitlines()
    assert json.loads(lines[0])["rules"] == MATCH_RULES and all("rules" not in json.loads(x) for x in lines[1:])


def stored_as_before(tmp_path, **record: Any) -> tuple[dict[str, Any], Any]:
    """A table on a database file whose one hand played is stored with `record`'s keys as an
    older version stored them; the table, and a function that starts another app on the file."""
    c1, t, another_app = on_a_database_file(tmp_path)
    to_showdown(c1, t)
    showdown(c1, t)
    with c1.application.extensions["mus_store"].db.write() as conn:
        row = conn.execute("SELECT record FROM hands WHERE table_id = ?", (t["id"],)).fetchone()
        conn.execute("UPDATE hands SET record = ? WHERE table_id = ?",
                     (json.dumps({**json.loads(row["record"]), **record}), t["id"]))
    return t, another_app


def test_a_hand_stored_with_all_the_tables_rules_is_answered_with_the_hands(tmp_path) -> None:
    """A hand stored before (its record with games_per_vaca and vacas_to_win) answers by the contract."""
    t, another_app = stored_as_before(tmp_path, rules={"kings": 8, "target": 40, "real31": False,
                                                       "games_per_vaca": 1, "vacas_to_win": 3})
    record = state(another_app(), t)["hands"][0]["record"]
    assert record["rules"] == {"kings": 8, "target": 40, "real31": False}



def test_undoing_an_imported_hand_brings_back_what_it_recorded(client) -> None:
    """An imported hand has no live log: undone, its words come back from its record,
    in the order they are said (each declaration in its place, the lances passed by all
    where the record has none), and settled again it is the hand it was."""
    t = import_match(client, IMPORTED)
    before = state(client, t)["hands"][0]
    r = undo(client, t)
    assert r.status_code == 200, r.json
    cur = r.json["current"]
    assert r.json["hands"] == [] and cur["phase"] == "showdown" and cur["esku"] == 0
    bets, said = IMPORTED["bets"], IMPORTED["declared"]
    assert cur["log"] == [*bets["grande"], *bets["chica"],
                          *({"seat": s, "act": "declare", "pares": said["pares"][s]} for s in range(4)),
                          *bets["pares"],
                          *({"seat": s, "act": "declare", "juego": said["juego"][s]} for s in range(4))]
    assert cur["phases"] == ["grande"] * 3 + ["chica"] * 4 + ["pares_declare"] * 4 + ["pares"] * 3 + ["juego_declare"] * 4
    assert cur["score"] == [1, 0]  # the grande's deje, paid again
    assert cur["shown"] == {"hands": IMPORTED["hands"], "photo_id": None}  # and its cards, for the showdown
    assert showdown(client, t, IMPORTED["hands"]).status_code == 200
    again = state(client, t)["hands"][0]
    assert again["record"] == before["record"] and again["settlement"] == before["settlement"]


def test_an_imported_hand_whose_esku_is_null_takes_the_turns_esku(client, tmp_path) -> None:
    """`"esku": null` in a match file's hand line is the turn's esku, as a line without it:
    stored, answered and exported with that seat (a valid mus-hand/1), and undone with its
    words and its deje (it came back with none, and said esku chosen)."""
    t = import_match(client, {**IMPORTED, "esku": None})  # the header's esku: 0
    s = state(client, t)
    assert s["hands"][0]["record"]["esku"] == 0
    engine.settle(s["hands"][0]["record"])  # the engine's own reader takes what is answered
    lines = client.get(f"/api/tables/{t['id']}/export", headers=t["auth"]).data.decode().splitlines()
    assert json.loads(lines[1])["esku"] == 0
    r = undo(client, t)
    assert r.status_code == 200, r.json
    cur = r.json["current"]
    assert cur["esku"] == 0 and not cur["esku_chosen"] and cur["phase"] == "showdown"
    assert cur["log"][:3] == IMPORTED["bets"]["grande"]
    assert cur["score"] == [1, 0]  # the grande's deje, paid again


def test_a_null_esku_stored_by_an_older_import_is_read_as_the_turns(tmp_path) -> None:
    t, another_app = stored_as_before(tmp_path, esku=None)
    c2 = another_app()
    assert state(c2, t)["hands"][0]["record"]["esku"] == 0
    r = undo(c2, t)
    assert r.status_code == 200 and r.json["current"]["log"] and not r.json["current"]["esku_chosen"], r.json


def test_undoing_an_imported_hand_that_records_only_cards(client) -> None:
    """A record without declarations (they matched the cards) nor bets (all passed): every
    seat holds a pair of ases (the 2s are ases with 8 kings), nobody juego."""
    quiet = {"hands": DEAL}
    t = import_match(client, quiet, quiet, rules={"kings": 8})
    before = state(client, t)["hands"]
    r = undo(client, t)
    assert r.status_code == 200, r.json
    cur = r.json["current"]
    assert len(r.json["hands"]) == 1 and cur["phase"] == "showdown" and cur["esku"] == 1
    assert [a["act"] for a in cur["log"]] == ["paso"] * 8 + ["declare"] * 4 + ["paso"] * 4 + ["declare"] * 4 + ["paso"] * 4
    assert [a.get("pares", a.get("juego")) for a in cur["log"] if a["act"] == "declare"] == [True] * 4 + [False] * 4
    assert [a["seat"] for a in cur["log"][:4]] == [1, 2, 3, 0]
    r = undo(client, t)  # then its last word, as for any hand
    assert r.json["current"]["phase"] == "punto" and len(r.json["current"]["log"]) == 23
    for a in cur["log"][-1:]:
        assert act(client, t, r.json["version"], a).status_code == 200
    assert showdown(client, t, DEAL).status_code == 200
    again = state(client, t)["hands"]  # now with the words said: the same hand, the same count
    assert again[0] == before[0] and again[1]["settlement"] == before[1]["settlement"]
    assert {k: v for k, v in again[1]["record"].items() if k not in ("declared", "bets")} == before[1]["record"]


def test_undoing_an_imported_hand_keeps_a_partners_echo_of_the_refusal(client) -> None:
    """HAND-RECORD.md's own example: the grande envido refused by seat 1, and seat 3's
    no_quiero after it (an echo of the team's refusal): undone, both are said again, in
    the grande, and the hand settles again as it was recorded."""
    echoed = {**IMPORTED, "bets": {**IMPORTED["bets"], "grande": [
        {"seat": 0, "act": "envido", "n": 3}, {"seat": 1, "act": "no_quiero"}, {"seat": 3, "act": "no_quiero"}]}}
    t = import_match(client, echoed)
    before = state(client, t)["hands"][0]
    cur = undo(client, t).json["current"]
    assert cur["log"][:4] == [*echoed["bets"]["grande"], {"seat": 0, "act": "paso"}]
    assert cur["phase"] == "showdown" and cur["score"] == [1, 0]
    assert showdown(client, t, IMPORTED["hands"]).status_code == 200
    again = state(client, t)["hands"][0]
    assert again["record"] == before["record"] and again["settlement"] == before["settlement"]


# -- the database failing: the disk full, the file locked, the file damaged --------------
def _disk_full_error(tmp_path) -> Exception:
    """A real SQLITE_FULL ("database or disk is full"), as a full disk gives one."""
    import sqlite3

    conn = sqlite3.connect(tmp_path / "full.db")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("PRAGMA max_page_count = 2")
    try:
        conn.execute("INSERT INTO t VALUES (randomblob(100000))")
    except sqlite3.OperationalError as exc:
        assert exc.sqlite_errorcode == sqlite3.SQLITE_FULL
        return exc
    finally:
        conn.close()
    raise AssertionError("no SQLITE_FULL")


def _reopened(tmp_path, t) -> dict[str, Any]:
    """The table as a server started afresh on the file reads it."""
    again = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True})
    try:
        return state(again.test_client(), t)
    finally:
        again.extensions["mus_store"].db.close()


def test_a_full_disk_at_commit_is_a_507_and_loses_nothing(app, client, table, tmp_path) -> None:
    """The disk fills as a write commits: a 507 `storage_full` in the one error shape (it
    was a bare 500 "internal server error", and the writer left inside the failed
    transaction), nothing of the write kept, all recorded before kept; sent again once
    there is room, it is applied once."""
    from web import i18n

    db = app.extensions["mus_store"].db
    step(client, table)
    before = state(client, table)
    full = _disk_full_error(tmp_path)

    class FullAtCommit:
        def __init__(self, conn) -> None:
            self.conn = conn

        def execute(self, sql: str, *args: Any) -> Any:
            if sql == "COMMIT":
                raise full
            return self.conn.execute(sql, *args)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.conn, name)

    real = db._writer
    db._writer = FullAtCommit(real)
    r = act(client, table, before["version"], before["current"]["legal"][0], client_id="full-1")
    err = assert_error(r, 507, "storage_full", None)
    assert err["message"] == "the server's disk is full: nothing was recorded; free space and send again"
    assert r.headers["Cache-Control"] == "no-store"
    db._writer = real
    assert not real.in_transaction
    assert state(client, table) == before
    assert _reopened(tmp_path, table) == before  # nothing recorded before is lost, nothing half-written
    ok = act(client, table, before["version"], before["current"]["legal"][0], client_id="full-1")
    assert ok.status_code == 200 and ok.json["version"] == before["version"] + 1
    assert _reopened(tmp_path, table)["version"] == before["version"] + 1
    for lang in i18n.LANGS:
        assert i18n.t(lang, "err.storage_full") not in ("err.storage_full", i18n.t(lang, "err.generic"))


def test_a_disk_full_midway_through_writes_keeps_every_table_made_before(app, client, tmp_path) -> None:
    """The database can grow no more (a real SQLITE_FULL, at the page that does not fit):
    507s, and every table created before is there when the file is opened again."""
    db = app.extensions["mus_store"].db
    made: list[dict[str, Any]] = []
    conn = db.locked_conn()
    conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0] + 2}")
    for n in range(500):
        r = client.post("/api/tables", json={"teams": [f"Team {n}", "Other"]})
        if r.status_code != 201:
            break
        made.append({**r.json, "auth": {"Authorization": f"Bearer {r.json['token']}"}})
    assert_error(r, 507, "storage_full", None)
    assert made and not conn.in_transaction
    conn.execute("PRAGMA max_page_count = 1073741823")  # the disk freed
    assert client.post("/api/tables", json={"teams": ["After", "Freed"]}).status_code == 201
    db.close()
    again = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True})
    c = again.test_client()
    assert [state(c, t)["teams"][0] for t in made] == [f"Team {n}" for n in range(len(made))]
    again.extensions["mus_store"].db.close()


def test_a_database_locked_by_another_process_is_a_503_with_retry_after(app, client, table, tmp_path) -> None:
    """Another process holds the write lock past the busy timeout (30 s; 0.05 s here): a
    503 `database_busy` with Retry-After (it was a bare 500), nothing recorded; sent again
    with its client_id once the lock is gone, applied once."""
    import sqlite3

    db = app.extensions["mus_store"].db
    db.locked_conn().execute("PRAGMA busy_timeout = 50")
    before = state(client, table)
    other = sqlite3.connect(tmp_path / "mus.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        r = act(client, table, before["version"], before["current"]["legal"][0], client_id="busy-1")
        err = assert_error(r, 503, "database_busy", None)
        assert "nothing was recorded" in err["message"] and r.headers["Retry-After"] == "5"
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert state(client, table) == before
    ok = act(client, table, before["version"], before["current"]["legal"][0], client_id="busy-1")
    assert ok.status_code == 200
    again = act(client, table, before["version"], before["current"]["legal"][0], client_id="busy-1")
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert _reopened(tmp_path, table)["version"] == before["version"] + 1


def test_a_database_damaged_past_its_first_pages_is_a_500_database_corrupt(tmp_path) -> None:
    """A file damaged in its second half opens, and fails the queries that reach the
    damage: a 500 `database_corrupt` that says so (it was "internal server error")."""
    from web import i18n

    path = tmp_path / "mus.db"
    app = create_app({"DATABASE": str(path), "TESTING": True, "CREATE_MAX_PER_ADDRESS": 0})
    client = app.test_client()
    tables = [client.post("/api/tables", json={"teams": [f"T{n}", "U"]}).json for n in range(60)]
    db = app.extensions["mus_store"].db
    db.locked_conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    damage_second_half(path)
    app = create_app({"DATABASE": str(path), "TESTING": True, "CREATE_MAX_PER_ADDRESS": 0})
    client = app.test_client()
    last = tables[-1]
    r = client.get(f"/api/tables/{last['id']}", headers={"Authorization": f"Bearer {last['token']}"})
    err = assert_error(r, 500, "database_corrupt", None)
    assert "damaged" in err["message"] and "backup" in err["message"]
    r = client.post("/api/tables", json={"teams": ["X", "Y"]})
    assert "nothing was recorded" in assert_error(r, 500, "database_corrupt", None)["message"]
    for lang in i18n.LANGS:
        for key in ("err.database_busy", "err.database_corrupt"):
            assert i18n.t(lang, key) not in (key, i18n.t(lang, "err.generic"))
    app.extensions["mus_store"].db.close()


def damage_second_half(path) -> None:
    """Noise over the second half of the file (its first pages, the header and the schema,
    kept): it opens, and fails the queries that reach past them."""
    import random

    data = path.read_bytes()
    half = len(data) // 2
    path.write_bytes(data[:half] + random.Random(3).randbytes(len(data) - half))


# -- records in the contract's words (HAND-RECORD.md defines no missing `hands`, bare `mas`, null declaration)
NO_HANDS = {k: v for k, v in IMPORTED.items() if k != "hands"}
BARE_MAS = {**IMPORTED, "bets": {**IMPORTED["bets"], "grande": [
    {"seat": 0, "act": "envido", "n": 3}, {"seat": 1, "act": "mas"}, {"seat": 2, "act": "quiero"}]}}
NULL_SAID = {**IMPORTED, "declared": {"pares": [True, None, False, None], "juego": [False, True, None, False]}}


@pytest.mark.parametrize("old,meant", [
    (NO_HANDS, {**IMPORTED, "hands": [None] * 4}),
    ({**IMPORTED, "hands": None}, {**IMPORTED, "hands": [None] * 4}),
    (BARE_MAS, {**BARE_MAS, "bets": {**BARE_MAS["bets"], "grande": [
        {"seat": 0, "act": "envido", "n": 3}, {"seat": 1, "act": "mas", "n": 2}, {"seat": 2, "act": "quiero"}]}}),
    (NULL_SAID, IMPORTED),
], ids=["no_hands", "hands_null", "bare_mas", "null_declared"])
def test_a_hand_imported_before_as_it_came_loads_in_the_contracts_words(tmp_path, old, meant) -> None:
    """The import stored a hand line as it came, and the engine took a missing `hands`, a
    `mas` without `n` and a declaration null then: such a stored hand loads, is answered and
    exported in the contract's words with what the engine took it to mean (the same
    settlement), and the export imports again."""
    c1, t, another_app = on_a_database_file(tmp_path)
    to_showdown(c1, t)
    showdown(c1, t)
    with c1.application.extensions["mus_store"].db.write() as conn:
        conn.execute("UPDATE hands SET record = ? WHERE table_id = ?",
                     (json.dumps({**old, "rules": engine.Rules().to_json(), "score": [0, 0]}), t["id"]))
    c2 = another_app()
    s = state(c2, t)
    expected = {**meant, "rules": {"kings": 8, "target": 40, "real31": False}, "score": [0, 0]}
    assert s["hands"][0]["record"] == expected
    assert s["score"] == engine.settle(expected)["score"]
    lines = c2.get(f"/api/tables/{t['id']}/export", headers=t["auth"]).data.decode()
    assert json.loads(lines.splitlines()[1]) == {k: v for k, v in expected.items() if k not in ("rules", "score")}
    r = c2.post("/api/tables/import", data=lines.encode(), content_type="application/jsonl")
    assert r.status_code == 201, r.json


@pytest.mark.parametrize("line,field,says", [
    (NO_HANDS, "line 2: hands", "line 2: hands: missing; a seat whose cards were not shown is null"),
    (BARE_MAS, "line 2: bets.grande[1].n", 'line 2: bets.grande[1].n: missing in {"seat": 1, "act": "mas"}'),
    ({**IMPORTED, "rules": {"games_per_vaca": 1}}, "line 2: rules.games_per_vaca",
     "line 2: rules.games_per_vaca: 1 differs from the match rules (2); games_per_vaca belongs in the mus-match/1"),
    ({**IMPORTED, "rules": {"target": 30.0}}, "line 2: rules.target", "line 2: rules.target: 30.0 is not one of"),
    ({**IMPORTED, "rules": {"vacas_to_win": True}}, "line 2: rules.vacas_to_win",
     "line 2: rules.vacas_to_win: true is not a whole number"),
    ({**IMPORTED, "rules": {"real31": None}}, "line 2: rules.real31", "line 2: rules.real31: null is not true or false"),
    ({**IMPORTED, "score": None}, "line 2: score", "line 2: score: null differs from the match score [0, 0]"),
])
def test_an_import_refuses_what_the_contract_does_not_define(client, line, field, says) -> None:
    head = {"format": "mus-match/1", "rules": MATCH_RULES, "teams": ["A", "B"], "players": ["P0", "P1", "P2", "P3"]}
    text = "".join(json.dumps(x) + "\n" for x in (head, line))
    r = client.post("/api/tables/import", data=text.encode(), content_type="application/jsonl")
    err = assert_error(r, 422, "invalid", field)
    assert err["message"].startswith(says)


def test_an_import_stores_a_declaration_null_as_the_cards_hold(client) -> None:
    """A declaration null is still read (ruling 15: exports of hands imported before can
    carry it), but stored, answered and exported as what the seat's cards hold; a line with
    the header's own match length is read, the length left to the header."""
    t = import_match(client, NULL_SAID, {**IMPORTED, "rules": MATCH_RULES})
    s = state(client, t)
    assert [h["record"]["declared"] for h in s["hands"]] == [IMPORTED["declared"]] * 2
    assert [h["record"]["rules"] for h in s["hands"]] == [HAND_RULES] * 2
    lines = client.get(f"/api/tables/{t['id']}/export", headers=t["auth"]).data.decode().splitlines()
    assert [json.loads(x)["declared"] for x in lines[1:]] == [IMPORTED["declared"]] * 2


def test_an_import_stores_a_whole_list_null_or_declared_null_in_the_contracts_words(client) -> None:
    """A whole declaration list null, and `declared` null, are read as the cards hold (ruling
    15), but neither is stored nor exported: the list is left out, and `declared` with it
    when nothing is left."""
    list_null = {**IMPORTED, "declared": {"pares": IMPORTED["declared"]["pares"], "juego": None}}
    declared_null = {**IMPORTED, "declared": None}
    t = import_match(client, list_null, declared_null)
    s = state(client, t)
    assert s["hands"][0]["record"]["declared"] == {"pares": IMPORTED["declared"]["pares"]}
    assert "declared" not in s["hands"][1]["record"]
    text = client.get(f"/api/tables/{t['id']}/export", headers=t["auth"]).data.decode()
    assert "null" not in "".join(text.splitlines()[1:])
    lines = [json.loads(x) for x in text.splitlines()[1:]]
    assert lines[0]["declared"] == {"pares": IMPORTED["declared"]["pares"]}
    assert "declared" not in lines[1]
