"""`mus-scorer standings` through a subprocess, on match files the engine plays at test time.

Every game is won by an órdago at grande accepted at once (the winners hold four reyes
and four caballos, kings 8), so with one game a vaca each game is a vaca, worth 40
stones to its winner and none to the loser.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from scorer.engine.match import Match
from scorer.engine.rules import Rules

ROOT = Path(__file__).resolve().parent.parent

KINGS = ["12o", "12c", "12e", "12b"]
ASES = ["1o", "1c", "1e", "1b"]
HORSES = ["11o", "11c", "11e", "11b"]
FOURS = ["4o", "4c", "4e", "4b"]


def standings(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scorer", "standings", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=60)


def ordago(team: int, esku: int) -> dict[str, Any]:
    """A hand whose game `team` wins by an órdago at grande, accepted."""
    hands = [KINGS, ASES, HORSES, FOURS] if team == 0 else [ASES, KINGS, FOURS, HORSES]
    return {"hands": [list(h) for h in hands], "esku": esku,
            "bets": {"grande": [{"seat": esku, "act": "ordago"}, {"seat": (esku + 1) % 4, "act": "quiero"}]}}


def match_file(path: Path, teams: Sequence[str], games: Sequence[int]) -> Path:
    """A mus-match/1 file of a match to 2 vacas (one game a vaca) whose games went to `games` (0/1)."""
    match = Match(Rules(vacas_to_win=2), teams=teams)
    for team in games:
        match.play(ordago(team, match.state()["esku"]))
    path.write_text("\n".join(match.to_lines()) + "\n", encoding="utf-8")
    return path


def club(tmp: Path) -> list[Path]:
    """Three finished matches between A, B and C, and D – A not finished (D leads 1-0).

    A beat B 2-0 and lost 1-2 to C; C beat A 2-1 and lost 1-2 to B; B beat C 2-1 and lost 0-2 to A.
    Each won one match. Vacas won in the match lost: A 1, C 1, B 0, so B is last of the three;
    vacas lost: A 0 + 2 = 2, C 2 + 1 = 3, so A is first. D played no finished match: fourth.
    """
    return [
        match_file(tmp / "ab.jsonl", ("A", "B"), [0, 0]),
        match_file(tmp / "bc.jsonl", ("B", "C"), [0, 1, 0]),
        match_file(tmp / "ca.jsonl", ("C", "A"), [0, 1, 0]),
        match_file(tmp / "da.jsonl", ("D", "A"), [0]),
    ]


def table(stdout: str) -> dict[str, list[str]]:
    """The table's rows by team: the cells after the team name, with the rank (or '') in front."""
    rows = {}
    for line in stdout.splitlines()[1:]:
        cells = line.split()
        if len(cells) < 9 or not cells[-1].isdigit():
            continue
        if cells[0].isdigit() and len(cells) == 10:
            rows[cells[1]] = [cells[0], *cells[2:]]
        else:
            rows[cells[0]] = ["", *cells[1:]]
    return rows


def test_standings_rank_the_club(tmp_path: Path) -> None:
    files = club(tmp_path)
    proc = standings(*map(str, files))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["Rank", "Team", "Played", "Won", "Lost", "Vacas", "won", "In", "lost", "Vacas", "lost",
                                "Stones", "H2H"]
    rows = table(proc.stdout)
    assert list(rows) == ["A", "C", "B", "D"]
    # rank, played, won, lost, vacas won, won in the match lost, vacas lost, stones (40 a vaca won), head-to-head
    assert rows["A"] == ["1", "2", "1", "1", "3", "1", "2", "120", "0"]
    assert rows["C"] == ["2", "2", "1", "1", "3", "1", "3", "120", "0"]
    assert rows["B"] == ["3", "2", "1", "1", "2", "0", "3", "80", "0"]
    assert rows["D"] == ["4", "0", "0", "0", "0", "0", "0", "0", "0"]  # the unfinished match counts for nothing
    # the columns line up: every number ends where its heading ends
    width = len(lines[0])
    assert all(len(line) == width for line in lines[1:5])
    assert lines[-1] == f"1 match not finished: D – A ({files[3]})"


def test_tied_teams_share_a_rank(tmp_path: Path) -> None:
    # A circle of 2-0 wins: A, B and C each won one, lost one without a vaca, lost 2 vacas, scored
    # 80 stones and beat one of the others: tied on everything, they share rank 2 behind D, who won
    # 2-0 and lost no vaca. F, with no finished match, lost no vaca either: ahead of E, who lost 0-2.
    files = [
        match_file(tmp_path / "1.jsonl", ("A", "B"), [0, 0]),
        match_file(tmp_path / "2.jsonl", ("B", "C"), [0, 0]),
        match_file(tmp_path / "3.jsonl", ("C", "A"), [0, 0]),
        match_file(tmp_path / "4.jsonl", ("D", "E"), [0, 0]),
        match_file(tmp_path / "5.jsonl", ("E", "F"), []),  # not started
        match_file(tmp_path / "6.jsonl", ("B", "F"), [1]),  # F leads 1-0
    ]
    proc = standings(*map(str, files))
    assert proc.returncode == 0, proc.stderr
    rows = table(proc.stdout)
    assert list(rows) == ["D", "A", "B", "C", "F", "E"]
    assert [rows[t][0] for t in rows] == ["1", "2", "", "", "5", "6"]  # a shared rank is shown once
    assert rows["D"][1:] == ["1", "1", "0", "2", "0", "0", "80", "0"]
    # tied on everything, each beat one of the other two: one head-to-head win each
    assert rows["A"][1:] == rows["B"][1:] == rows["C"][1:] == ["2", "1", "1", "2", "0", "2", "80", "1"]
    assert rows["E"][1:] == ["1", "0", "1", "0", "0", "2", "0", "0"]
    assert rows["F"][1:] == ["0", "0", "0", "0", "0", "0", "0", "0"]
    assert proc.stdout.splitlines()[-1] == f"2 matches not finished: E – F ({files[4]}), B – F ({files[5]})"


def test_standings_json(tmp_path: Path) -> None:
    files = club(tmp_path)
    proc = standings(*map(str, files), "--json")
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 1
    data = json.loads(proc.stdout)
    assert set(data) == {"standings", "matches"}
    assert [(r["rank"], r["team"]) for r in data["standings"]] == [(1, "A"), (2, "C"), (3, "B"), (4, "D")]
    a = data["standings"][0]
    assert set(a) == {"rank", "team", "played", "won", "lost", "vacas_won", "vacas_lost", "vacas_won_in_lost",
                      "stones", "head_to_head"}
    assert (a["vacas_won_in_lost"], a["vacas_lost"], a["stones"]) == (1, 2, 120)
    assert data["matches"] == [
        {"file": str(files[0]), "teams": ["A", "B"], "vacas": [2, 0], "stones": [80, 0], "winner": 0},
        {"file": str(files[1]), "teams": ["B", "C"], "vacas": [2, 1], "stones": [80, 40], "winner": 0},
        {"file": str(files[2]), "teams": ["C", "A"], "vacas": [2, 1], "stones": [80, 40], "winner": 0},
        {"file": str(files[3]), "teams": ["D", "A"], "vacas": [1, 0], "stones": [40, 0], "winner": None},
    ]


def test_standings_lang(tmp_path: Path) -> None:
    proc = standings(*map(str, club(tmp_path)), "--lang", "es")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split()[:3] == ["Puesto", "Pareja", "Jugadas"]
    assert proc.stdout.splitlines()[-1].startswith("1 partida sin terminar: D – A (")


def test_standings_name_the_team_column_as_the_tournament_page_does() -> None:
    """The command's Spanish standings headed their teams "Equipo" where the tournament's
    page (and Mus) says "Pareja": each language's heading is the page's."""
    from scorer.commands.standings import _WORDS
    from web import i18n

    for lang, words in _WORDS.items():
        assert words["team"] == i18n.t(lang, "tour.col.team"), lang


def test_bad_files_are_all_named_and_nothing_is_ranked(tmp_path: Path) -> None:
    good = match_file(tmp_path / "good.jsonl", ("A", "B"), [0, 0])
    lines = match_file(tmp_path / "x.jsonl", ("A", "C"), [0, 1, 0]).read_text().splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*lines[:2], lines[2][:-1], *lines[3:]]) + "\n")  # line 3 cut short
    over = tmp_path / "over.jsonl"
    over.write_text("\n".join([*lines, json.dumps(ordago(0, 0))]) + "\n")  # a hand after the match was won
    for extra in ((), ("--json",)):
        proc = standings(str(good), str(broken), str(over), *extra)
        assert proc.returncode == 1
        assert proc.stdout == ""
        errors = proc.stderr.splitlines()
        assert len(errors) == 2
        assert errors[0].startswith(f"mus-scorer standings: {broken}: line 3: not JSON")
        assert errors[1].startswith(f"mus-scorer standings: {over}: line 5: the match is over")


def test_same_team_twice_names_the_file(tmp_path: Path) -> None:
    same = match_file(tmp_path / "same.jsonl", ("A", "A"), [0])
    proc = standings(str(same))
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"mus-scorer standings: {same}: teams: ")


def test_missing_file(tmp_path: Path) -> None:
    good = match_file(tmp_path / "good.jsonl", ("A", "B"), [0, 0])
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"esku": 0, "hands": []}\n')  # no header
    missing = tmp_path / "missing.jsonl"
    proc = standings(str(good), str(missing), str(broken))
    assert proc.returncode == 2
    assert proc.stdout == ""
    errors = proc.stderr.splitlines()
    assert len(errors) == 2
    assert errors[0].startswith(f"mus-scorer standings: {missing}: ") and "No such file" in errors[0]
    assert errors[1].startswith(f"mus-scorer standings: {broken}: line 1")


def test_stdin(tmp_path: Path) -> None:
    text = match_file(tmp_path / "ab.jsonl", ("A", "B"), [1, 0, 1]).read_text()
    proc = standings("-", "--json", stdin=text)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [(r["team"], r["won"], r["vacas_won_in_lost"]) for r in data["standings"]] == [("B", 1, 0), ("A", 0, 1)]
    assert data["matches"][0]["file"] == "-"
    lines = text.splitlines()
    proc = standings("-", stdin="\n".join([lines[0], lines[1][:-1], *lines[2:]]) + "\n")  # line 2 cut short
    assert proc.returncode == 1 and proc.stderr.startswith("mus-scorer standings: standard input: line 2: not JSON"), \
        proc.stderr


def test_one_team_however_spelt(tmp_path: Path) -> None:
    # "A" beat "b" 2-0; then "a " lost to "B" 0-2: one row each, won 1 and lost 1
    files = [match_file(tmp_path / "1.jsonl", ("A", "b"), [0, 0]), match_file(tmp_path / "2.jsonl", ("a ", "B"), [1, 1])]
    proc = standings(*map(str, files), "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["standings"]
    assert [(r["team"], r["played"], r["won"], r["lost"]) for r in rows] == [("A", 2, 1, 1), ("b", 2, 1, 1)]


def test_a_tournaments_zip_ranks_its_league_matches(tmp_path: Path) -> None:
    import zipfile

    files = club(tmp_path)
    league = tmp_path / "league.zip"
    with zipfile.ZipFile(league, "w") as z:
        for f in files:
            z.write(f, f"matches/{f.name}")
        # a final between B and D: not a league match, not ranked
        z.write(match_file(tmp_path / "final.jsonl", ("B", "D"), [0, 0]), "knockout/01-b-d.jsonl")
        z.writestr("standings.csv", "rank,team\n")
    together = standings(str(league), "--json")
    assert together.returncode == 0, together.stderr
    alone = json.loads(standings(*map(str, files), "--json").stdout)
    data = json.loads(together.stdout)
    assert data["standings"] == alone["standings"]
    assert [m["file"] for m in data["matches"]] == [f"{league}:matches/{f.name}" for f in sorted(files)]


def test_a_bad_zip_is_named(tmp_path: Path) -> None:
    import zipfile

    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    r = standings(str(broken))
    assert r.returncode == 2 and "broken.zip" in r.stderr and r.stdout == ""
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("standings.csv", "rank,team\n")
    r = standings(str(empty))
    assert r.returncode == 1 and "no matches/*.jsonl" in r.stderr
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as z:
        z.write(match_file(tmp_path / "ab.jsonl", ("A", "B"), [0, 0]), "matches/01-a-b.jsonl")
        z.writestr("matches/02-x-y.jsonl", '{"format": "mus-match/1"}\n{"hands": 3}\n')
    r = standings(str(bad))
    assert r.returncode == 1 and f"{bad}:matches/02-x-y.jsonl" in r.stderr and r.stdout == ""
    latin1 = tmp_path / "latin1.zip"
    with zipfile.ZipFile(latin1, "w") as z:
        z.write(match_file(tmp_path / "ab.jsonl", ("A", "B"), [0, 0]), "matches/01-a-b.jsonl")
        z.writestr("matches/02-x-y.jsonl", '{"format": "mus-match/1", "teams": ["Mar\u00eda"]}\n'.encode("latin-1"))
    r = standings(str(latin1))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"mus-scorer standings: {latin1}:matches/02-x-y.jsonl: not UTF-8 text (byte 0xed at offset 40)\n"


@pytest.mark.parametrize("saved", ['{"teams": ["a", "b", "c", "d"], "groups": [{"name": "A", "teams": ["A", "B"]}, '
                                   '{"name": "B", "teams": ["c", "D"]}]}', "not json", '["A"]',
                                   '{"groups": [{"name": "A", "teams": "A,B"}]}',
                                   '{"teams": ["a", "b", "c", "d"], "groups": [{"name": "\\ud800", "teams": ["A", "B"]}, '
                                   '{"name": "B", "teams": ["c", "D"]}]}'])
def test_a_zip_in_groups_ranks_each_group_and_a_bad_tournament_json_is_passed_over(tmp_path: Path, saved) -> None:
    import zipfile

    files = club(tmp_path)
    league = tmp_path / "league.zip"
    with zipfile.ZipFile(league, "w") as z:
        for f in files:
            z.write(f, f"matches/{f.name}")
        z.writestr("tournament.json", saved)
    proc = standings(str(league), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    if saved.startswith('{"teams"') and "\\ud800" not in saved:  # a lone surrogate: no text, passed over
        # A beat B (A-B is group A's one match); C-D in group B is not played: only D-A, across groups
        assert [(g["name"], [(r["team"], r["won"]) for r in g["standings"]]) for g in data["groups"]] == [
            ("A", [("A", 1), ("B", 0)]), ("B", [])]
        assert {r["team"] for r in data["standings"]} == {"a", "b", "c", "d"}  # spelt as the league entered them
        text = standings(str(league), "--lang", "fr").stdout.splitlines()
        assert text[0] == "Groupe A" and "Groupe B" in text and "Toutes les parties" in text
    else:
        assert "groups" not in data and {r["team"] for r in data["standings"]} == {"A", "B", "C", "D"}


def test_a_hand_document_is_said_to_be_one_naming_the_file(tmp_path: Path) -> None:
    """examples/hand.json given to standings: said to be a mus-hand/1 document (settle reads
    it), naming the file, beside the other files' errors; nothing ranked."""
    good = match_file(tmp_path / "good.jsonl", ("A", "B"), [0, 0])
    proc = standings(str(good), "examples/hand.json")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == ("mus-scorer standings: examples/hand.json is a mus-hand/1 document; standings reads "
                           "mus-match/1 JSON Lines (one object per line); use `mus-scorer settle examples/hand.json` "
                           "for a hand\n"), proc.stderr


def test_the_french_footer_keeps_its_colon_with_its_word(tmp_path: Path) -> None:
    """French sets a no-break space before ':' (as the web app's French does), so the footer
    naming the unfinished matches never wraps before its colon."""
    out = standings(*map(str, club(tmp_path)), "--lang", "fr").stdout
    assert "partie non terminée\u00a0: " in out, out
    assert " : " not in out


def test_a_lone_surrogate_escape_in_a_match_file_is_named_not_a_traceback(tmp_path: Path) -> None:
    """JSON reads "\\ud800" as a string no UTF-8 text can hold: a team named so was printed
    (a UnicodeEncodeError traceback) where it should be refused, naming the line and field."""
    good = match_file(tmp_path / "good.jsonl", ("A", "B"), [0, 0])
    header, *hands = good.read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([header.replace('"A"', '"A\\ud800"'), *hands]) + "\n", encoding="utf-8")
    for args in ([str(bad)], [str(bad), "--json"]):
        proc = standings(*args)
        assert proc.returncode == 1 and proc.stdout == "" and "Traceback" not in proc.stderr
        assert proc.stderr == f"mus-scorer standings: {bad}: line 1: teams[0]: a lone surrogate escape, which is not text\n"
    key = tmp_path / "key.jsonl"
    key.write_text("\n".join([header, hands[0].replace('"esku"', '"esku\\udfff"', 1)]) + "\n", encoding="utf-8")
    proc = standings(str(key))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr == f'mus-scorer standings: {key}: line 2: "esku\\udfff": a lone surrogate escape, which is not text\n'


def test_a_file_name_that_is_not_utf8_is_said_not_a_traceback(tmp_path: Path) -> None:
    """A file name byte that is not UTF-8 reaches Python as a lone surrogate ("\\udcff"):
    printed to an output that is strictly UTF-8 (a UTF-8 locale other than C.UTF-8) it was a
    UnicodeEncodeError traceback, in the unfinished matches' footer, --json's "file" and
    the advice to settle a hand's file. Said with U+FFFD in its place."""
    import os

    good = match_file(tmp_path / "good.jsonl", ("A", "B"), [0])  # not finished: named in the footer
    odd = os.fsencode(tmp_path) + b"/m\xff.jsonl"
    os.rename(good, odd)
    hand = os.fsencode(tmp_path) + b"/h\xff.json"
    with open(hand, "wb") as f:
        f.write((ROOT / "examples" / "hand.json").read_bytes())
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}  # strict, as under LANG=en_US.UTF-8

    def run(*args: bytes) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable.encode(), b"-m", b"scorer", *args], capture_output=True,
                              text=True, cwd=ROOT, timeout=60, env=env)

    shown = f"{tmp_path}/m\ufffd.jsonl"
    proc = run(b"standings", odd)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.splitlines()[-1] == f"1 match not finished: A – B ({shown})"
    proc = run(b"standings", b"--json", odd)
    assert proc.returncode == 0 and json.loads(proc.stdout)["matches"][0]["file"] == shown, proc.stderr
    proc = run(b"replay", b"--json", hand)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert json.loads(proc.stdout)["error"].startswith(f"{tmp_path}/h\ufffd.json is a mus-hand/1 document")


@pytest.mark.parametrize(("champion", "said"), [("Gorriak", "; champion: Gorriak)"), (None, "tournament.json)")])
def test_a_cups_zip_says_it_ranks_no_league(tmp_path: Path, champion: str | None, said: str) -> None:
    """A cup played as a knockout only has no league matches: its zip is not ranked, and
    the command says it is a cup's (and its champion) where it said only that no match
    file was in it."""
    import zipfile

    cup = tmp_path / "copa.zip"
    knockout = {"teams": ["Gorriak", "Urdinak"], "rounds": [], "champion": champion}
    with zipfile.ZipFile(cup, "w") as z:
        z.writestr("standings.csv", "rank,team\n")
        z.writestr("tournament.json", json.dumps({"matches": [{"stage": "knockout", "result": None}],
                                                  "knockout": knockout, "champion": champion}))
    r = standings(str(cup))
    assert r.returncode == 1 and r.stdout == ""
    assert "no matches/*.jsonl in it (a cup played as a knockout only: no league to rank;" in r.stderr
    assert r.stderr.rstrip().endswith(said)
    league = tmp_path / "liga.zip"  # a league's zip without match files still says where they go
    with zipfile.ZipFile(league, "w") as z:
        z.writestr("tournament.json", json.dumps({"matches": [{"stage": "league", "result": None}],
                                                  "knockout": knockout, "champion": champion}))
    assert "a tournament's zip holds its league's matches there" in standings(str(league)).stderr


def test_a_cups_champion_from_its_zip_cannot_rewrite_the_terminal(tmp_path: Path) -> None:
    """The champion named in a cup's tournament.json is a name from a file: said with its
    control characters escaped (`shown`), as every other name from a file is, not written
    raw to the terminal (an ESC sequence that retitles or recolours it)."""
    import zipfile

    cup = tmp_path / "copa.zip"
    champion = "Gorriak\x1b]0;pwned\x07\x1b[2J"
    with zipfile.ZipFile(cup, "w") as z:
        z.writestr("tournament.json", json.dumps({"matches": [], "champion": champion,
                                                  "knockout": {"teams": ["Gorriak", "Urdinak"], "rounds": []}}))
    r = standings(str(cup))
    assert r.returncode == 1 and "a cup played as a knockout only" in r.stderr
    assert "\x1b" not in r.stderr and "\x07" not in r.stderr
    assert "champion: Gorriak\\x1b]0;pwned\\x07\\x1b[2J" in r.stderr


def test_a_result_entered_whose_name_is_no_text_is_refused_by_name_not_a_traceback(tmp_path: Path) -> None:
    """A tournament's zip whose tournament.json lists a result entered without hands with a
    team name no text can hold (a lone surrogate, "\\ud800", which JSON reads): said by its
    place and exit status 1, where the table printed with it ended in a UnicodeEncodeError
    traceback."""
    import zipfile

    liga = tmp_path / "liga.zip"
    entered = {"stage": "league", "result": "r1", "table": None, "teams": ["Gorriak\ud800", "Urdinak"],
               "vacas": [3, 1], "stones": [0, 0], "winner": 0}
    with zipfile.ZipFile(liga, "w") as z:
        z.writestr("tournament.json", json.dumps({"teams": [], "matches": [entered]}))
    r = standings(str(liga))
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout == "" and "tournament.json" in r.stderr and "teams[0]" in r.stderr


@pytest.mark.parametrize("winner", [0, "Gorriak"])
def test_a_result_entered_whose_winner_won_fewer_vacas_is_refused_by_name(tmp_path: Path, winner) -> None:
    """A tournament.json edited by hand whose result entered without hands names as winner
    the team with fewer vacas: the app never writes one, and the tournament would not rank
    it so; said by its place and exit status 1, where the command ranked the winner it named."""
    import zipfile

    liga = tmp_path / "liga.zip"
    entered = {"stage": "league", "result": "r1", "table": None, "teams": ["Gorriak", "Urdinak"],
               "vacas": [1, 3], "stones": [0, 0], "winner": winner}
    with zipfile.ZipFile(liga, "w") as z:
        z.writestr("tournament.json", json.dumps({"teams": [], "matches": [entered]}))
    r = standings(str(liga))
    assert (r.returncode, r.stdout) == (1, ""), r.stdout
    assert r.stderr == (f"mus-scorer standings: {liga}:tournament.json: winner: {json.dumps(winner)} won 1 vacas "
                        "to 3: the winner is the team with more vacas\n")
    entered["winner"] = 1 if winner == 0 else "Urdinak"  # the right one: ranked
    with zipfile.ZipFile(liga, "w") as z:
        z.writestr("tournament.json", json.dumps({"teams": [], "matches": [entered]}))
    r = standings(str(liga), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["standings"][0]["team"] == "Urdinak", r.stderr
