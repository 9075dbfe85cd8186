"""`mus-scorer replay` through a subprocess, on the sample match and on broken files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "match.jsonl"


def replay(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scorer", "replay", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=60)


def sample_hands() -> int:
    return sum(1 for line in SAMPLE.read_text().splitlines()[1:] if line.strip())


def test_replay_text() -> None:
    proc = replay(str(SAMPLE))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "Txuriak (Ane, Iker) – Beltzak (Bixente, Maite)"
    hands = [line for line in lines if line.startswith("Hand ")]
    assert len(hands) == sample_hands()
    assert hands[0].startswith("Hand 1, esku Ane: ")
    assert sum("game to" in line for line in hands) == 5
    assert "Beltzak win the match" in hands[-1]
    assert "Hand 6, esku Bixente: 33–38; Beltzak adentro (38)" in hands  # 38 of 40, game not won
    assert lines[-1] == "Winner: Beltzak, vacas 2–3"


def test_replay_json() -> None:
    proc = replay(str(SAMPLE), "--json")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == sample_hands()
    assert [r["hand"] for r in rows] == list(range(1, len(rows) + 1))
    assert rows[-1]["state"]["winner"] == 1 and rows[-1]["state"]["vacas"] == [2, 3]
    assert all(r["settlement"]["format"] == "mus-settlement/1" for r in rows)
    assert "explain" not in rows[0]


def test_replay_json_explain() -> None:
    proc = replay(str(SAMPLE), "--json", "--explain", "--lang", "fr")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows[0]["explain"][0].startswith("Cartes\u00a0: Ane ")  # a no-break space before the colon
    assert rows[-1]["explain"][-1].startswith("Jeu pour Beltzak")


@pytest.mark.parametrize(("lang", "words"), [("en", ("Grande", "Winner")), ("es", ("Grande", "Ganadores")),
                                             ("eu", ("Handia", "Irabazleak")), ("fr", ("Grand", "Vainqueurs"))])
def test_replay_explain(lang: str, words: tuple[str, str]) -> None:
    proc = replay(str(SAMPLE), "--explain", "--lang", lang)
    assert proc.returncode == 0, proc.stderr
    indented = [line for line in proc.stdout.splitlines() if line.startswith("    ")]
    assert any(line.strip().startswith(words[0]) for line in indented)
    assert proc.stdout.splitlines()[-1].startswith(words[1])


def test_replay_stdin_and_a_bad_line(tmp_path: Path) -> None:
    lines = SAMPLE.read_text().splitlines()[:4]
    bad = json.loads(lines[3])
    bad["hands"][0][0] = "9e"
    text = "\n".join([*lines[:3], json.dumps(bad), *lines[4:]]) + "\n"
    proc = replay("-", stdin=text)
    assert proc.returncode == 1
    # standard input named as such, as where it is not JSON Lines at all ('standard input is ...')
    assert proc.stderr.startswith('mus-scorer replay: standard input: line 4: hands[0][0]: "9e"'), proc.stderr
    assert proc.stdout.count("Hand ") == 2  # the hands before the bad line were shown
    proc = replay("-", "--json", stdin=text)
    assert proc.returncode == 1
    last = json.loads(proc.stdout.splitlines()[-1])
    assert last["format"] == "mus-error/1" and last["line"] == 4
    assert last["error"].startswith('hands[0][0]: "9e"')


def test_replay_without_header() -> None:
    proc = replay("-", stdin='{"esku": 0, "hands": []}\n')
    assert proc.returncode == 1
    assert "line 1" in proc.stderr


def test_replay_missing_file() -> None:
    proc = replay("/nonexistent/match.jsonl")
    assert proc.returncode == 2 and "/nonexistent/match.jsonl" in proc.stderr


def test_names_cannot_drive_the_terminal() -> None:
    # a team named with escape sequences (retitle the window, turn the text red) is
    # printed with its control characters escaped, in replay's text and in standings
    evil = "\x1b]0;pwned\x07\x1b[31mRED\u202e"
    header = {"format": "mus-match/1", "teams": [evil, "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"]}
    hand = {"hands": [["12o", "12c", "12e", "12b"], ["1o", "1c", "1e", "1b"], ["11o", "11c", "11e", "11b"],
                      ["4o", "4c", "4e", "4b"]], "esku": 0,
            "bets": {"grande": [{"seat": 0, "act": "ordago"}, {"seat": 1, "act": "quiero"}]}}
    text = json.dumps(header) + "\n" + json.dumps(hand) + "\n"
    for cmd in ("replay", "standings"):
        r = subprocess.run([sys.executable, "-m", "scorer", cmd, "-"], input=text, capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        assert "\x1b" not in r.stdout and "\x07" not in r.stdout and "\u202e" not in r.stdout
        assert "\\x1b]0;pwned\\x07\\x1b[31mRED\\u202e" in r.stdout  # still there, as escapes
    r = replay("--json", "-", stdin=text)
    assert json.loads(r.stdout.splitlines()[0])["settlement"]["winner"] == 0  # JSON is left to JSON's escapes


HAND = ROOT / "examples" / "hand.json"
SAYS_HAND = ("examples/hand.json is a mus-hand/1 document; replay reads mus-match/1 JSON Lines (one object per "
             "line); use `mus-scorer settle examples/hand.json` for a hand")


def test_a_hand_document_is_said_to_be_one_naming_the_file() -> None:
    """examples/hand.json (a pretty-printed mus-hand/1 document, not JSON Lines): said as
    such, naming the file and what reads it, not "line 1: not JSON"."""
    proc = replay("examples/hand.json")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == f"mus-scorer replay: {SAYS_HAND}\n", proc.stderr
    proc = replay("examples/hand.json", "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == {"format": "mus-error/1", "line": 1, "error": SAYS_HAND}
    proc = replay("-", stdin=HAND.read_text() * 2)
    assert proc.stderr == ("mus-scorer replay: standard input is 2 mus-hand/1 documents, one after another; replay "
                           "reads mus-match/1 JSON Lines (one object per line); use `mus-scorer settle` for hands\n")


@pytest.mark.parametrize(("text", "says"), [
    # a match whose header was pretty-printed
    ('{\n  "format": "mus-match/1",\n  "teams": ["A", "B"]\n}\n', "m.json is a mus-match/1 match written over "
     "several lines; replay reads mus-match/1 JSON Lines (one object per line): write its header and each hand "
     "on a line of its own"),
    ("[\n  1,\n  2\n]\n", "m.json is a JSON array written over several lines; replay reads mus-match/1 JSON Lines"),
    ('\n{\n  "format": "mus-hand/1",\n  "esku": 0,\n', "m.json: line 2 opens a JSON value written over several "
     "lines, and it is not JSON (Expecting property name enclosed in double quotes at line 5 column 1)"),
])
def test_json_over_several_lines_is_said_as_such(tmp_path: Path, text: str, says: str) -> None:
    (tmp_path / "m.json").write_text(text)
    proc = subprocess.run([sys.executable, "-m", "scorer", "replay", "m.json"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 1 and proc.stderr.startswith(f"mus-scorer replay: {says}"), proc.stderr


def test_a_bad_line_names_the_file(tmp_path: Path) -> None:
    lines = SAMPLE.read_text().splitlines()
    path = tmp_path / "cut.jsonl"
    path.write_text("\n".join([*lines[:2], lines[2][:-1], *lines[3:]]) + "\n")  # line 3 cut short
    proc = replay(str(path))
    assert proc.returncode == 1 and proc.stderr.startswith(f"mus-scorer replay: {path}: line 3: not JSON"), proc.stderr


def test_replay_json_writes_no_declaration_null() -> None:
    """A line's declaration `null` is read as the cards hold (engine README ruling 15), but a
    row's `record` says it in the contract's words: no null in `declared`."""
    header = {"format": "mus-match/1", "teams": ["A", "B"], "players": ["Ane", "Bixente", "Iker", "Maite"]}
    hands = [["12o", "12c", "12e", "12b"], ["1o", "1c", "1e", "1b"], ["11o", "11c", "11e", "11b"],
             ["4o", "4c", "4e", "4b"]]
    lines = [header, {"hands": hands, "declared": {"pares": [True, None, True, None], "juego": None}},
             {"hands": hands, "esku": 0, "declared": None}]
    proc = replay("--json", "-", stdin="".join(json.dumps(x) + "\n" for x in lines))
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows[0]["record"]["declared"] == {"pares": [True, True, True, True]}
    assert "declared" not in rows[1]["record"] and rows[1]["record"]["esku"] == 0
    assert all(None not in said for row in rows for said in row["record"].get("declared", {}).values())


@pytest.mark.parametrize(("line", "said"), [
    ('{"format": "mus-match/1", "teams": ["Txuriak', "Unterminated string starting at column 37"),
    ('{"format": "mus-match/1", "teams": ["Tx\x01"]}', "Invalid control character at column 40"),
    ('{"format": "mus-match/1",}', "Expecting property name enclosed in double quotes at column 26"),
])
def test_a_line_that_is_not_json_says_where_in_plain_words(line: str, said: str) -> None:
    """json's own messages that end in "at" were followed by another: "Unterminated string
    starting at at column 37"."""
    proc = replay("-", stdin=line + "\n")
    assert proc.returncode == 1
    assert proc.stderr == f"mus-scorer replay: standard input: line 1: not JSON: {said}\n"
    assert " at at " not in proc.stderr


def test_a_lone_surrogate_escape_is_refused_naming_the_line_and_field() -> None:
    """JSON reads "\\ud800" as a string no UTF-8 text can hold: a team or player so named
    was printed (a UnicodeEncodeError traceback, text and --json --explain alike) where it
    should be refused as the line's error."""
    header, *hands = SAMPLE.read_text(encoding="utf-8").splitlines()
    text = "\n".join([header.replace("Txuriak", "\\ud800"), *hands[:2]]) + "\n"
    proc = replay("-", stdin=text)
    assert proc.returncode == 1 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr == "mus-scorer replay: standard input: line 1: teams[0]: a lone surrogate escape, which is not text\n"
    proc = replay("-", "--json", "--explain", stdin=text)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert json.loads(proc.stdout) == {"format": "mus-error/1", "line": 1,
                                       "error": "teams[0]: a lone surrogate escape, which is not text"}
    proc = replay("-", stdin="\n".join([header, hands[0][:-1] + ', "bets\\udc80": {}}']) + "\n")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr == ('mus-scorer replay: standard input: line 2: "bets\\udc80": a lone surrogate escape, '
                           "which is not text\n")


@pytest.mark.parametrize(("line", "what"), [("null", "null"), ("[]", "an array"), ("7", "a number"),
                                            ('"mus-match/1"', "a string")])
def test_a_header_or_hand_that_is_not_an_object_is_named_by_its_json_type(line: str, what: str) -> None:
    """Said 'not NoneType', 'not list', 'not int', 'not str' (Python's words) before."""
    proc = replay("-", stdin=line + "\n")
    assert proc.returncode == 1
    assert proc.stderr == f"mus-scorer replay: standard input: line 1: the header is a JSON object, not {what}\n"
    header = SAMPLE.read_text(encoding="utf-8").splitlines()[0]
    proc = replay("-", "--json", stdin=f"{header}\n{line}\n")
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == {"format": "mus-error/1", "line": 2, "error": f"a hand is a JSON object, not {what}"}


def test_a_key_given_twice_is_refused_naming_it() -> None:
    """A header's esku given twice was read as the last (3), and the replay stopped at line
    2, 'seat 0 is out of turn': the line that was wrong was not the one named."""
    header, *hands = SAMPLE.read_text(encoding="utf-8").splitlines()
    proc = replay("-", stdin="\n".join([header[:-1] + ', "esku": 3}', *hands]) + "\n")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == ('mus-scorer replay: standard input: line 1: not JSON: the key "esku" is given twice '
                           "in one object\n")


def test_lines_ended_by_a_lone_cr_are_read_as_lines() -> None:
    """A file whose lines end in a lone CR (as old Macs wrote them, and as the web import
    reads them) was one line to replay: 'line 1: not JSON: Extra data at column 213'."""
    text = SAMPLE.read_text(encoding="utf-8")
    by_lf = replay("-", "--json", stdin=text)
    assert by_lf.returncode == 0
    for ends in ("\r", "\r\n"):
        proc = subprocess.run([sys.executable, "-m", "scorer", "replay", "--json", "-"],
                              input=text.replace("\n", ends).encode("utf-8"), capture_output=True, cwd=ROOT, timeout=60)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.decode("utf-8") == by_lf.stdout  # the same rows, numbered by the same lines
