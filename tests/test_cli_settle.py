"""`mus-scorer settle` through a subprocess: formats, bad lines, exit codes, stdin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.engine import settle as settle_in_process
from scorer.engine.explain import french_spacing

ROOT = Path(__file__).resolve().parent.parent

# The worked example of HAND-RECORD.md (pretty-printed in examples/hand.json); the engine's
# own tests hold its settlement to the contract's, so the command must print exactly that.
HAND_FILE = ROOT / "examples" / "hand.json"
HAND = json.loads(HAND_FILE.read_text())
EXPECTED = settle_in_process(HAND)
SIMPLE = {"esku": 1, "hands": [["12o", "12c", "12e", "12b"], ["1o", "1c", "1e", "1b"],
                               ["11o", "11c", "11e", "11b"], ["4o", "4c", "4e", "4b"]]}


def settle(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scorer", "settle", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=60)


def out_lines(proc: subprocess.CompletedProcess[str]) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_one_hand_on_stdin_gives_the_contract_settlement() -> None:
    proc = settle(stdin=json.dumps(HAND))
    assert proc.returncode == 0, proc.stderr
    assert out_lines(proc) == [EXPECTED]


def test_output_is_compact_json_one_line() -> None:
    proc = settle("-", stdin=json.dumps(HAND) + "\n")
    assert proc.returncode == 0
    assert proc.stdout.count("\n") == 1
    assert proc.stdout == json.dumps(EXPECTED, separators=(",", ":"), ensure_ascii=False) + "\n"
    assert proc.stdout.startswith('{"format":"mus-settlement/1","score":[19,41]')


def test_pretty_printed_hand_from_a_file() -> None:
    assert HAND_FILE.read_text().count("\n") > 5
    proc = settle(str(HAND_FILE))
    assert proc.returncode == 0, proc.stderr
    assert out_lines(proc) == [EXPECTED]
    assert EXPECTED["score"] == [19, 41] and len(EXPECTED["events"]) == 5


def test_pretty_printed_hands_one_after_another(tmp_path: Path) -> None:
    path = tmp_path / "hands.json"
    path.write_text("{\n" + json.dumps(HAND, indent=2)[1:] + "\n\n" + json.dumps(SIMPLE, indent=4) + "\n")
    proc = settle(str(path))
    assert proc.returncode == 0, proc.stderr
    rows = out_lines(proc)
    assert rows[0] == EXPECTED
    assert rows[1]["score"] == [11, 1]


def test_pretty_printed_hand_with_a_syntax_error() -> None:
    text = json.dumps(HAND, indent=2).replace('"esku": 0,', '"esku": 0')
    proc = settle(stdin=text)
    assert proc.returncode == 1
    (err,) = out_lines(proc)
    assert err["format"] == "mus-error/1" and err["line"] == 1
    assert "invalid JSON" in err["error"] and "at line 9 column 3" in err["error"]


def test_json_lines_with_bad_lines_settle_the_others() -> None:
    bad_card = {**SIMPLE, "hands": [["8o", "12c", "12e", "12b"], *SIMPLE["hands"][1:]]}
    out_of_turn = {**SIMPLE, "bets": {"grande": [{"seat": 3, "act": "paso"}]}}
    lines = [
        json.dumps(SIMPLE),            # 1
        json.dumps(bad_card),          # 2
        "",                            # 3 blank: skipped, still counted
        '{"esku": 0, "hands": [',      # 4 truncated
        json.dumps(HAND),              # 5
        "[1, 2, 3]",                   # 6
        json.dumps(out_of_turn),       # 7
        json.dumps(SIMPLE),            # 8
    ]
    proc = settle(stdin="\n".join(lines) + "\n")
    assert proc.returncode == 1
    rows = out_lines(proc)
    assert len(rows) == 7
    formats = [r["format"] for r in rows]
    assert formats == ["mus-settlement/1", "mus-error/1", "mus-error/1", "mus-settlement/1", "mus-error/1",
                       "mus-error/1", "mus-settlement/1"]
    errors = {r["line"]: r["error"] for r in rows if r["format"] == "mus-error/1"}
    assert set(errors) == {2, 4, 6, 7}
    assert errors[2].startswith('hands[0][0]: "8o"') and "8s or 9s" in errors[2]
    assert errors[4].startswith("invalid JSON")
    assert "JSON object" in errors[6]
    assert errors[7].startswith("bets.grande[0]")
    assert rows[3] == EXPECTED


def test_json_no_reader_takes_is_an_error_line_not_a_crash() -> None:
    lines = [json.dumps(SIMPLE), '{"esku": ' + "1" * 5000 + "}", '{"a": ' + "[" * 5000 + "]" * 5000 + "}",
             json.dumps(SIMPLE)]
    proc = settle(stdin="\n".join(lines) + "\n")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    rows = out_lines(proc)
    assert [r["format"] for r in rows] == ["mus-settlement/1", "mus-error/1", "mus-error/1", "mus-settlement/1"]
    assert rows[1]["error"] == "invalid JSON: a number of more than 4300 digits"
    assert rows[2]["error"] == "invalid JSON: arrays or objects nested too deep"
    pretty = json.dumps(SIMPLE, indent=1) + "\n" + '{"esku":\n ' + "1" * 5000 + "}\n" + json.dumps(SIMPLE, indent=1)
    rows = out_lines(settle(stdin=pretty))
    assert [r["format"] for r in rows] == ["mus-settlement/1", "mus-error/1", "mus-settlement/1"]


def test_all_lines_bad_still_one_error_each() -> None:
    proc = settle(stdin="nope\n{}\n")
    assert proc.returncode == 1
    rows = out_lines(proc)
    assert [r["line"] for r in rows] == [1, 2]
    assert rows[1]["error"].startswith('esku: "esku" is missing')


def test_an_error_quotes_the_value_as_the_file_wrote_it() -> None:
    """The file is JSON: `null`, `true` and `"yes"` are quoted so, not as Python writes
    them (`None`, `True`, `'yes'`)."""
    bets = {"grande": [{"seat": 1, "act": "envido", "n": True}]}
    lines = ['{"esku": null, "hands": null}', json.dumps({**SIMPLE, "bets": bets}),
             json.dumps({**SIMPLE, "rules": {"real31": "yes"}})]
    proc = settle(stdin="\n".join(lines) + "\n")
    assert proc.returncode == 1
    assert [r["error"] for r in out_lines(proc)] == [
        "esku: null is not a seat 0..3", "bets.grande[0].n: true is not a whole number of stones from 2 to 1000",
        'rules.real31: "yes" is not true or false']


def test_empty_input() -> None:
    proc = settle(stdin="\n  \n")
    assert proc.returncode == 0 and proc.stdout == ""


@pytest.mark.parametrize("command", ["settle", "replay", "standings"])
@pytest.mark.parametrize("data, says", [
    ("{}".encode("utf-16"), "UTF-16 text, not UTF-8: save it as UTF-8"),
    (b'{"esku": 0, "name": "Mar\xeda"}', "not UTF-8 text (byte 0xed at offset 24)"),
])
def test_a_file_not_in_utf8_is_named_as_such(tmp_path: Path, command: str, data: bytes, says: str) -> None:
    path = tmp_path / "hands.jsonl"
    path.write_bytes(data)
    proc = subprocess.run([sys.executable, "-m", "scorer", command, str(path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"mus-scorer {command}: {path}: {says}\n"


def test_missing_file() -> None:
    proc = settle("/nonexistent/hands.jsonl")
    assert proc.returncode == 2
    assert "/nonexistent/hands.jsonl" in proc.stderr


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "Grande: envido, 3 more, quiero: seat 0 wins with R-R-5-1, +5 → 18–37 (3 amarrakos 3)"),
        ("es", "Grande: envido, 3 más, quiero: gana asiento 0 con R-R-5-1, +5 → 18–37 (3 amarracos y 3)"),
        ("eu", "Handia: enbido, 3 gehiago, iduki: 0. jokalaria irabazle, E-E-5-1, +5 → 18–37 (3 hamarreko eta 3)"),
        ("fr", french_spacing("Grand : envido, 3 de plus, tenu : joueur 0 gagne avec R-R-5-1, +5 → 18–37 "
                              "(3 hamarrekos et 3 pierres)")),
    ],
)
def test_explain(lang: str, expected: str) -> None:
    proc = settle("--explain", "--lang", lang, stdin=json.dumps(HAND))
    assert proc.returncode == 0, proc.stderr
    assert expected in proc.stdout.splitlines()


def test_explain_several_hands_are_headed_by_their_line() -> None:
    proc = settle("--explain", stdin=json.dumps(SIMPLE) + "\n" + json.dumps(HAND) + "\n")
    assert proc.returncode == 0
    text = proc.stdout.splitlines()
    assert text[0] == "# line 1" and "# line 2" in text


def test_explain_says_when_the_cards_were_not_shown() -> None:
    """Cards not shown: the count from the cards is skipped (engine README ruling 11), and
    the explanation says so instead of printing only the line's header; what was settled at
    the table (a deje) is still told."""
    hidden = {"esku": 0, "hands": [None] * 4, "declared": {"pares": [False] * 4, "juego": [False] * 4}}
    proc = settle("--explain", stdin=json.dumps(hidden))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["# line 1", "Cards not shown: nothing was counted from them"]
    dejes = hidden | {"bets": {"grande": [{"seat": 0, "act": "envido"}, {"seat": 1, "act": "no_quiero"}]}}
    proc = settle("--explain", "--lang", "es", stdin=json.dumps(dejes))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "# line 1",
        "Grande: envido, no quiero: deje para asiento 0 y asiento 2, +1 → 1–0",
        "Cartas no enseñadas: no se ha contado nada de ellas",
    ]
    partly = SIMPLE | {"hands": [SIMPLE["hands"][0], None, SIMPLE["hands"][2], None],
                       "declared": {"pares": [True] * 4, "juego": [True, False, True, False]}}
    proc = settle("--explain", stdin=json.dumps(partly))
    assert proc.returncode == 0, proc.stderr
    assert "Cards not shown: seat 1, seat 3: what needs them was not counted" in proc.stdout.splitlines()


def test_bad_options_are_usage_errors() -> None:
    proc = settle("--lang", "de", stdin=json.dumps(HAND))
    assert proc.returncode == 2
    proc = settle("--jobs", "-1", stdin=json.dumps(HAND))
    assert proc.returncode == 2 and "whole number" in proc.stderr


def test_parallel_workers_keep_the_order_and_the_line_numbers() -> None:
    good = json.dumps(SIMPLE)
    lines = [good if i % 97 else '{"esku": 0}' for i in range(1, 1201)]
    text = "\n".join(lines) + "\n"
    serial = settle("--jobs", "1", stdin=text)
    parallel = settle("--jobs", "2", stdin=text)
    assert serial.returncode == parallel.returncode == 1
    assert parallel.stdout == serial.stdout
    rows = out_lines(parallel)
    assert len(rows) == 1200
    assert [r["line"] for r in rows if r["format"] == "mus-error/1"] == list(range(97, 1201, 97))


def test_a_truncated_first_line_does_not_lose_the_others() -> None:
    text = '{"esku": 0, "hands": [\n' + json.dumps(SIMPLE) + "\n" + json.dumps(HAND) + "\n"
    proc = settle(stdin=text)
    assert proc.returncode == 1
    rows = out_lines(proc)
    assert [r["format"] for r in rows] == ["mus-error/1", "mus-settlement/1", "mus-settlement/1"]
    assert rows[0]["line"] == 1 and rows[2] == EXPECTED


def test_a_broken_pretty_hand_then_a_good_one() -> None:
    broken = json.dumps(HAND, indent=2).replace('"esku": 0,', '"esku": 0')
    proc = settle(stdin=broken + "\n" + json.dumps(HAND, indent=2) + "\n")
    assert proc.returncode == 1
    rows = out_lines(proc)
    assert [r["format"] for r in rows] == ["mus-error/1", "mus-settlement/1"]
    assert rows[1] == EXPECTED


def test_a_line_that_is_not_an_object_is_named_by_its_json_type() -> None:
    """A line that is JSON but no object was said in Python's words: 'not NoneType',
    'not list', 'not float' (for NaN)."""
    proc = settle("-", stdin="null\n[1]\n5\n\"x\"\ntrue\nNaN\n")
    assert proc.returncode == 1
    assert [row["error"] for row in out_lines(proc)] == [
        f"a hand is a JSON object, not {what}" for what in
        ("null", "an array", "a number", "a string", "true or false", "a number")]


def test_a_key_given_twice_is_refused_not_read_as_the_last() -> None:
    """json.loads keeps the last of a key given twice: `{"bets": A, "bets": B}` was settled
    on B alone, A dropped without a word. Refused as the line's error, in JSON Lines and in
    documents written over several lines alike; the other lines still settle."""
    hand = json.loads((ROOT / "examples" / "hand.json").read_text(encoding="utf-8"))
    twice = json.dumps(hand)[:-1] + ', "esku": 1}'
    proc = settle("-", stdin=f"{json.dumps(hand)}\n{twice}\n")
    assert proc.returncode == 1
    rows = out_lines(proc)
    assert rows[0]["format"] == "mus-settlement/1"
    assert rows[1] == {"format": "mus-error/1", "line": 2,
                       "error": 'invalid JSON: the key "esku" is given twice in one object'}
    nested = json.dumps(hand, indent=1).replace('"act": "paso"', '"act": "paso", "act": "envido"', 1)
    proc = settle("-", stdin=nested + "\n" + json.dumps(hand, indent=1) + "\n")
    assert proc.returncode == 1
    rows = out_lines(proc)
    assert rows[0]["error"] == 'invalid JSON: the key "act" is given twice in one object'
    assert rows[-1]["format"] == "mus-settlement/1"
