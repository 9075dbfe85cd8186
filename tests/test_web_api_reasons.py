"""The engine's refusals carry a reason: a word said at a table that the rules refuse, a
card shown that cannot be, a match file's hand that breaks the rules. Each answers with
its stable `reason` and `params` beside the English message (unchanged), the seats it
names with their players' names, so that a page says it in its reader's language
(`why.<reason>` in every language, its params filled).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from scorer import engine
from web import create_app, i18n

pytestmark = pytest.mark.webapi

PLAYERS = ["Ane", "Bixente", "Iker", "Maite"]
DEAL = [[f"{r}{s}" for r in (1, 4, 5, 6)] for s in "oceb"]  # one suit a seat: no pares, no juego
KINGS = [["12o", "12c", "12e", "12b"], ["1o", "1c", "4e", "5b"], ["4o", "5o", "6o", "7o"], ["4c", "5c", "6c", "7c"]]


def paso(seat: int) -> dict[str, Any]:
    return {"seat": seat, "act": "paso"}


def act(seat: int, what: str, **more: Any) -> dict[str, Any]:
    return {"seat": seat, "act": what, **more}


def declare(claim: str, *holds: bool) -> list[dict[str, Any]]:
    """The four declarations of `claim`, from esku (seat 0)."""
    return [{"seat": s, "act": "declare", claim: h} for s, h in enumerate(holds)]


ALL_PASS = [paso(s) for s in range(4)] * 2  # grande and chica
TO_SHOWDOWN = [*ALL_PASS, *declare("pares", False, False, False, False),
               *declare("juego", False, False, False, False), *[paso(s) for s in range(4)]]  # punto passed
ORDAGO_TAKEN = [act(0, "ordago"), act(1, "quiero")]


@pytest.fixture()
def client(tmp_path):
    return create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True}).test_client()


def new_table(client) -> dict[str, Any]:
    r = client.post("/api/tables", json={"teams": ["Txuriak", "Beltzak"], "players": PLAYERS, "esku": 0})
    assert r.status_code == 201, r.json
    return {**r.json, "auth": {"Authorization": f"Bearer {r.json['token']}"}}


CLIENT_IDS = (f"c{n}" for n in itertools.count())


def post(client, t: dict[str, Any], path: str, body: dict[str, Any] | None = None):
    """A write at the table's version now, with a fresh client_id."""
    version = client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json["version"]
    return client.post(f"/api/tables/{t['id']}/{path}", headers=t["auth"],
                       json={"client_id": next(CLIENT_IDS), "version": version, **(body or {})})


def said_in_every_language(reason: str, params: dict[str, Any]) -> None:
    """`why.<reason>` is each language's own, and its words take these params whole."""
    for lang in i18n.LANGS:
        assert f"why.{reason}" in i18n._TABLES[lang], (lang, reason)
        said = i18n.t(lang, f"why.{reason}", **params)  # a placeholder the params lack: KeyError
        assert said != f"why.{reason}" and "{" not in said, (lang, said)


def refusal(r, status: int, code: str, reason: str, params: dict[str, Any]) -> dict[str, Any]:
    """The error of `r`: its reason and (all of) `params`, said in every language."""
    assert r.status_code == status, (r.status_code, r.json)
    err = r.json["error"]
    assert (err["code"], err.get("reason")) == (code, reason), err
    assert err["params"] == params, err
    said_in_every_language(reason, err["params"])
    return err


def name(seat: int) -> str:
    return PLAYERS[seat]


# (what was said before, the refused action, reason, params without the names, the English message)
ACTIONS = [
    ([], paso(1), "out_of_turn", {"seat": 1, "speaker": 0}, "seat: seat 1 is out of turn: seat 0 speaks"),
    (ALL_PASS, act(2, "declare", pares=True), "out_of_turn", {"seat": 2, "speaker": 0},
     "seat: seat 2 is out of turn: seat 0 declares"),
    ([], act(0, "mas", n=2), "no_bet_to_raise", {"lance": "grande"},
     'act: "mas" in grande: no bet has been made to raise: open with "envido"'),
    ([], act(0, "quiero"), "no_bet_to_answer", {"lance": "grande", "act": "quiero"},
     'act: "quiero" in grande: there is no bet to answer'),
    ([], act(0, "declare", pares=True), "declare_in_betting", {"lance": "grande"},
     'act: "declare" during the betting of grande'),
    ([act(0, "envido", n=2)], act(1, "envido", n=3), "bet_on_table", {"lance": "grande"},
     'act: "envido" in grande: a bet is on the table; raise it with "mas"'),
    ([act(0, "ordago")], act(1, "mas", n=2), "ordago_answer", {"lance": "grande"},
     'act: "mas" in grande: an ordago is answered "quiero" or "no_quiero"'),
    ([act(0, "envido", n=2), act(1, "no_quiero")], act(3, "quiero"), "refusal_binds",
     {"seat": 3, "refuser": 1, "lance": "grande"}, None),
    ([act(0, "envido", n=2), paso(1)], act(1, "quiero"), "out_of_lance", {"seat": 1, "lance": "grande"},
     "seat: seat 1 passed facing a bet (for its part) and is out of grande"),
    (ALL_PASS, paso(0), "must_declare", {"lance": "pares"}, 'act: "paso": each seat now declares whether it has pares'),
    ([*ALL_PASS, *declare("pares", True, True, False, False)], act(2, "envido", n=2), "not_in_lance",
     {"seat": 2, "lance": "pares"},
     "seat: seat 2 takes no part in pares: it declared no pares and may not bet for its partner (seed 002 art. 19)"),
    (TO_SHOWDOWN, paso(0), "betting_over", {}, 'act: "paso": the betting is over; no more actions'),
    (ORDAGO_TAKEN, paso(2), "hand_over", {}, 'act: "paso": the hand is over; no more actions'),
]


@pytest.mark.parametrize(("before", "action", "reason", "params", "message"), ACTIONS,
                         ids=[f"{c[2]}-{i}" for i, c in enumerate(ACTIONS)])
def test_a_word_the_rules_refuse_says_why_as_a_key(client, before, action, reason, params, message) -> None:
    t = new_table(client)
    for a in before:
        assert post(client, t, "actions", {"action": a}).status_code == 200
    version = client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json["version"]
    named = {**params, **{f"{k}_name": name(v) for k, v in params.items() if k in engine.errors.SEAT_PARAMS}}
    err = refusal(post(client, t, "actions", {"action": action}), 422, "illegal", reason, named)
    if message is not None:  # the English stays as it was, for every other reader
        assert err["message"] == message, err
    assert client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json["version"] == version


def test_the_refusal_binding_the_team_names_both_partners(client) -> None:
    t = new_table(client)
    for a in (act(0, "envido", n=2), act(1, "no_quiero")):
        post(client, t, "actions", {"action": a})
    err = post(client, t, "actions", {"action": act(3, "quiero")}).json["error"]
    assert (err["params"]["seat_name"], err["params"]["refuser_name"]) == ("Maite", "Bixente")
    said = i18n.t("es", "why.refusal_binds", **err["params"])
    assert "Maite" in said and "Bixente" in said and "«no quiero»" in said, said


def test_a_mus_after_the_first_word_or_a_showdown_too_soon_says_why(client) -> None:
    t = new_table(client)
    refusal(post(client, t, "showdown", {"hands": DEAL}), 422, "illegal", "no_showdown_yet", {})
    post(client, t, "actions", {"action": paso(0)})
    err = refusal(post(client, t, "mus"), 422, "illegal", "lances_started", {})
    assert err["message"] == "mus: the lances have started; no more mus this hand"


def _with(hands: list[list[str]], seat: int, i: int, card: str) -> list[list[str]]:
    out = [list(h) for h in hands]
    out[seat][i] = card
    return out


SHOWDOWNS = [
    (_with(DEAL, 1, 0, "1o"), "illegal", "card_twice", {"card": "1o"}, "hands[1][0]"),
    ([["7", "7", "7", "7"], ["7", "10", "10", "10"], DEAL[2], DEAL[3]], "illegal", "fifth_of_rank",
     {"card": "7", "rank": 7}, "hands[1][0]"),
    (_with(DEAL, 2, 3, "8o"), "invalid", "not_a_card", {"text": "8o"}, "hands[2][3]"),
    (_with(DEAL, 2, 3, None), "invalid", "not_a_card", {"text": "null"}, "hands[2][3]"),  # as JSON writes it
    (_with(DEAL, 2, 3, ["1o"]), "invalid", "not_a_card", {"text": '["1o"]'}, "hands[2][3]"),
    ([DEAL[0], DEAL[1][:3], DEAL[2], DEAL[3]], "illegal", "hand_of_four",
     {"seat": 1, "count": 3, "seat_name": "Bixente"}, "hands[1]"),
]


@pytest.mark.parametrize(("hands", "code", "reason", "params", "field"), SHOWDOWNS, ids=[c[2] for c in SHOWDOWNS])
def test_cards_that_cannot_be_say_why_as_a_key(client, hands, code, reason, params, field) -> None:
    t = new_table(client)
    for a in TO_SHOWDOWN:
        post(client, t, "actions", {"action": a})
    err = refusal(post(client, t, "showdown", {"hands": hands}), 422, code, reason, params)
    assert err["field"] == field, err


def test_an_ordago_taken_without_the_cards_says_they_are_needed(client) -> None:
    t = new_table(client)
    for a in ORDAGO_TAKEN:
        post(client, t, "actions", {"action": a})
    err = refusal(post(client, t, "showdown", {"hands": [None] * 4}), 422, "invalid", "cards_needed",
                  {"lance": "grande"})
    assert err["message"] == "hands: the cards are needed to decide the ordago accepted in grande"


# -- a match file ---------------------------------------------------------------
HEADER = {"format": "mus-match/1", "teams": ["Gorriak", "Urdinak"], "players": ["Jon", "Koldo", "Leire", "Miren"]}
ONE_GAME = {**HEADER, "rules": {"games_per_vaca": 1, "vacas_to_win": 1}}
ORDAGO_HAND = {"hands": KINGS, "bets": {"grande": [act(0, "ordago"), act(1, "quiero")]}}

FILES = [
    ([HEADER, {"hands": _with(DEAL, 1, 0, "1o")}], "card_twice", {"card": "1o"}, "line 2: hands[1][0]"),
    ([HEADER, {"hands": DEAL, "bets": {"grande": [paso(1)]}}], "out_of_turn",
     {"seat": 1, "speaker": 0, "seat_name": "Koldo", "speaker_name": "Jon"}, "line 2: bets.grande[0].seat"),
    ([HEADER, {"hands": DEAL, "bets": {"grande": [act(0, "envido", n=2)]}}], "betting_unfinished",
     {"lance": "grande", "speaker": 1, "speaker_name": "Koldo"}, "line 2: bets.grande"),
    ([HEADER, {"hands": DEAL, "bets": {"grande": [paso(0), paso(1), paso(2), paso(3), paso(0)]}}], "lance_over",
     {"lance": "grande"}, "line 2: bets.grande[4]"),
    ([HEADER, {"hands": DEAL, "bets": {"pares": [paso(0)]}}], "lance_not_bet", {"lance": "pares"},
     "line 2: bets.pares"),
    ([HEADER, {"hands": [None] * 4}], "claim_unknown", {"seat": 0, "lance": "pares", "seat_name": "Jon"},
     "line 2: declared.pares[0]"),
    ([HEADER, {"hands": DEAL, "score": [5, 0]}], "score_differs", {"given": [5, 0], "score": [0, 0]},
     "line 2: score"),
    ([HEADER, {"hands": DEAL, "score": [True, 0]}], "score_differs", {"given": "[true, 0]", "score": [0, 0]},
     "line 2: score"),
    ([HEADER, {"hands": DEAL, "score": "5-0"}], "score_differs", {"given": '"5-0"', "score": [0, 0]},
     "line 2: score"),
    ([ONE_GAME, ORDAGO_HAND, {"hands": DEAL}], "match_won", {"team": "Gorriak"}, "line 3"),
    ([HEADER, {**ORDAGO_HAND, "hands": [None] * 4}], "cards_needed", {"lance": "grande"}, "line 2: hands"),
    ([{**HEADER, "players": ["Jon", "Koldo", "  ", "Miren"]}], "blank_name", {}, "line 1"),
]


@pytest.mark.parametrize(("lines", "reason", "params", "field"), FILES, ids=[c[1] for c in FILES])
def test_a_match_file_that_breaks_the_rules_says_why_as_a_key(client, lines, reason, params, field) -> None:
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    r = client.post("/api/tables/import", data=text.encode(), content_type="application/jsonl")
    err = refusal(r, 422, "invalid", reason, params)
    assert err["field"] == field, err
    if reason != "blank_name":  # the engine's English, as `replay` says it
        with pytest.raises(engine.MusError) as exc:
            engine.Match.from_lines(text.splitlines())
        assert err["message"] == str(exc.value)
    # into a table as well, its players' names those of the file
    t = new_table(client)
    r = client.post(f"/api/tables/{t['id']}/import?client_id=i&version=1", headers=t["auth"], data=text.encode(),
                    content_type="application/jsonl")
    refusal(r, 422, "invalid", reason, params)


def test_a_match_files_shape_keeps_its_english_alone(client) -> None:
    """A file's shape refused (an unknown key, a wrong type) says what to whoever wrote the
    tool that made it: no reason, the page saying the line in its language."""
    text = json.dumps(HEADER) + "\n" + json.dumps({"hands": DEAL, "bet": {}}) + "\n"
    err = client.post("/api/tables/import", data=text.encode(), content_type="application/jsonl").json["error"]
    assert err["field"] == "line 2: bet" and "reason" not in err and "params" not in err, err


def test_every_engine_key_is_a_reason_and_keeps_through_a_line_and_a_path() -> None:
    from scorer.storage.tables import REASONS

    assert engine.errors.KEYS <= REASONS
    with pytest.raises(ValueError):
        engine.IllegalError("act", "x", key="no_such_key")
    err = engine.IllegalError("seat", "why", 1, key="out_of_turn", params={"seat": 1, "speaker": 0})
    moved = err.under("log[3]")
    assert (type(moved), moved.field, str(moved), moved.key, moved.params) == (
        engine.IllegalError, "log[3].seat", "log[3].seat: why", "out_of_turn", {"seat": 1, "speaker": 0})
