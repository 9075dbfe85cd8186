"""A `mus-match/1` header's misspelt key ("team") or rule outside `rules` ("target") is
refused, as a hand record's unknown key is (engine README ruling 15), naming it and the
known keys, not read as the default it leaves: in the engine, `mus-scorer replay` and
`standings` and the web app's import. A key far from every known one ("event", another
app's note) is still left aside, as the web import has kept it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.engine.errors import MalformedError, MusError
from scorer.engine.match import Match, replay_match

ROOT = Path(__file__).resolve().parent.parent
HEADER = {"format": "mus-match/1", "rules": {"kings": 8, "target": 40, "games_per_vaca": 1, "vacas_to_win": 3},
          "teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"], "esku": 0}
HAND = {"hands": [["12o", "12c", "12e", "12b"], ["1o", "1c", "1e", "1b"], ["11o", "11c", "11e", "11b"],
                  ["4o", "4c", "4e", "4b"]]}
KNOWN = "(format, rules, teams, players, esku)"


def misspelt(old: str, new: str) -> dict:
    return {new if k == old else k: v for k, v in HEADER.items()}


@pytest.mark.parametrize(("old", "new"), [("teams", "team"), ("teams", "Teams"), ("teams", "tems"),
                                          ("players", "player"), ("players", "plyers"), ("esku", "Esku"),
                                          ("esku", "esk"), ("rules", "rule"), ("rules", "Rules"), ("rules", "ruls")])
def test_a_misspelt_header_key_is_refused_naming_it_and_the_known_ones(old: str, new: str) -> None:
    with pytest.raises(MalformedError) as info:
        Match.from_header(misspelt(old, new))
    assert str(info.value) == f'{new}: "{new}" is not a key of mus-match/1 {KNOWN}'
    assert info.value.field == new
    with pytest.raises(MalformedError, match=f"^line 1: {new}: "):
        replay_match([json.dumps(misspelt(old, new)), json.dumps(HAND)])


@pytest.mark.parametrize("rule", ["target", "kings", "real31", "games_per_vaca", "vacas_to_win", "Target"])
def test_a_rule_outside_rules_is_refused(rule: str) -> None:
    with pytest.raises(MalformedError) as info:
        replay_match([json.dumps({**HEADER, rule: 30})])
    assert str(info.value) == f'line 1: {rule}: "{rule}" is not a key of mus-match/1 {KNOWN}: a rule goes in "rules"'


@pytest.mark.parametrize("note", ["event", "date", "venue", "notes", "tournament", "round", "id"])
def test_another_apps_note_in_the_header_is_left_aside(note: str) -> None:
    m = Match.from_lines([json.dumps({**HEADER, note: "Txapelketa 2026"}), json.dumps(HAND)])
    assert m.teams == ("Txuriak", "Beltzak") and m.hands == 1


def test_a_misspelt_rule_in_the_header_is_refused() -> None:
    with pytest.raises(MusError, match=r'^line 1: rules.targte: "targte" is not a rule \(known: kings, target'):
        replay_match([json.dumps({**HEADER, "rules": {"targte": 30}})])


def test_the_header_keys_all_optional_but_format_still_read() -> None:
    m = Match.from_header({"format": "mus-match/1"})
    assert m.teams == ("Team 0", "Team 1") and m.players == ("P0", "P1", "P2", "P3")
    assert Match.from_header(HEADER).header() == {**HEADER, "rules": {**HEADER["rules"], "real31": False}}


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scorer", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def test_replay_and_standings_refuse_a_misspelt_header_key(tmp_path: Path) -> None:
    typo = tmp_path / "typo.jsonl"
    typo.write_text(json.dumps(misspelt("teams", "team")) + "\n" + json.dumps(HAND) + "\n")
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(HEADER) + "\n" + json.dumps(HAND) + "\n")
    proc = cli("replay", str(typo))
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == f'mus-scorer replay: {typo}: line 1: team: "team" is not a key of mus-match/1 {KNOWN}\n'
    proc = cli("standings", str(good), str(typo))
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == f'mus-scorer standings: {typo}: line 1: team: "team" is not a key of mus-match/1 {KNOWN}\n'


@pytest.mark.webapi
def test_the_web_import_refuses_a_misspelt_header_key(tmp_path: Path) -> None:
    pytest.importorskip("flask")
    from web import create_app

    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True})
    client = app.test_client()
    for header, field in ((misspelt("teams", "team"), "team"), ({**HEADER, "target": 30}, "target"),
                          ({**HEADER, "rules": {"targte": 30}}, "rules.targte")):
        text = json.dumps(header) + "\n" + json.dumps(HAND) + "\n"
        r = client.post("/api/tables/import", data=text.encode(), content_type="application/jsonl")
        assert r.status_code == 422, r.json
        assert r.json["error"]["code"] == "invalid"
        assert r.json["error"]["message"].startswith(f"line 1: {field}: ")
        if field == "team":
            assert r.json["error"]["message"] == f'line 1: team: "team" is not a key of mus-match/1 {KNOWN}'
    assert app.extensions["mus_store"].db.reader().execute("SELECT count(*) FROM tables").fetchone()[0] == 0
    r = client.post("/api/tables/import", data=(json.dumps(HEADER) + "\n").encode(), content_type="application/jsonl")
    assert r.status_code == 201, r.json
