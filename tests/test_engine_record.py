"""Hand records: validation, errors naming the field, JSON round trip, the engine's imports."""

from __future__ import annotations

import ast
import copy
import json
import sys
from pathlib import Path

import pytest

from scorer.engine import IllegalError, MalformedError, MusError, Rules, parse_hand, settle

ROOT = Path(__file__).parents[1]
EXAMPLE = json.loads((ROOT / "examples" / "hand.json").read_text())


def with_(path: str, value):
    """The example with the value at `path` (dots and [i]) replaced; `...` deletes it."""
    record = copy.deepcopy(EXAMPLE)
    keys = [int(k) if k.isdigit() else k for k in path.replace("[", ".").replace("]", "").split(".")]
    target = record
    for key in keys[:-1]:
        target = target[key]
    if value is ...:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return record


def test_error_classes():
    assert issubclass(MalformedError, MusError) and issubclass(IllegalError, MusError)
    assert issubclass(MusError, ValueError)


def test_error_message_names_the_field_and_quotes_the_value():
    with pytest.raises(MalformedError) as err:
        settle(with_("hands[2][1]", "8o"))
    assert err.value.field == "hands[2][1]" and err.value.value == "8o"
    assert str(err.value) == 'hands[2][1]: "8o" is not a card of the Mus deck (no 8s or 9s)'


@pytest.mark.parametrize("path,value,says", [
    ("esku", None, "esku: null is not a seat 0..3"),
    ("rules", {"real31": None}, "rules.real31: null is not true or false"),
    ("bets.grande", [{"seat": 0, "act": "envido", "n": True}],
     "bets.grande[0].n: true is not a whole number of stones from 2 to 1000"),
    ("bets.grande", [{"seat": False, "act": "paso"}], "bets.grande[0].seat: false is not a seat 0..3"),
    ("declared.pares", [True, None, "yes", False], 'declared.pares[2]: "yes" is not true, false or null'),
    ("hands[0][0]", {"a": 1}, 'hands[0][0]: {"a": 1} is not a card (a card is a string such as "12o")'),
    ("hands[0]", {"12o": None}, 'hands[0]: {"12o": null} is not a list of four cards'),
    ("score", [float("nan"), 0], "score[0]: NaN is not a number of stones"),
])
def test_a_refusal_quotes_the_value_as_the_json_record_wrote_it(path, value, says):
    """A record is JSON: its `null`, `true` and strings are quoted so (`said`), not as
    Python writes them (`None`, `True`, `'yes'`, `{'a': 1}`, `nan`)."""
    with pytest.raises(MusError) as err:
        settle(with_(path, value))
    assert str(err.value) == says


def test_said_writes_a_value_as_json_and_shows_what_would_not_show():
    from scorer.engine import Card
    from scorer.engine.errors import TOO_LONG, said

    assert [said(v) for v in (None, True, False, "12o", {"a": [1, None]}, 1.5, float("inf"))] == [
        "null", "true", "false", '"12o"', '{"a": [1, null]}', "1.5", "Infinity"]
    assert said("Ane\u2028\u202e\x85\udc80\U000e0001 Mañ") == '"Ane\\u2028\\u202e\\u0085\\udc80\\udb40\\udc01 Mañ"'
    assert said("a\n\"b\"") == '"a\\n\\"b\\""'  # JSON's own escapes
    assert said(Card.parse("12o")) == "Card.parse('12o')" and said({1, 2}) == "{1, 2}"  # no JSON spelling: repr
    assert said(10 ** 5000) == TOO_LONG
    assert said("x" * 100, 10) == '"xxxxxxxx…' and said("x" * 100) == json.dumps("x" * 100)


@pytest.mark.parametrize("path,value,cls,field", [
    ("hands[0][0]", "13o", MalformedError, "hands[0][0]"),
    ("hands[1][3]", "12o", IllegalError, "hands[1][3]"),  # the same card twice
    ("hands[1]", ["7o", "7c", "7e", "10b", "4o"], IllegalError, "hands[1]"),  # five cards
    ("hands[1]", "7o 7c 7e 10b", MalformedError, "hands[1]"),
    ("hands", [["12o"]], MalformedError, "hands"),
    ("esku", 4, MalformedError, "esku"),
    ("esku", ..., MalformedError, "esku"),
    ("score", [12], MalformedError, "score"),
    ("score[1]", -1, MalformedError, "score[1]"),
    ("score[1]", 40, IllegalError, "score[1]"),
    ("format", "mus-hand/2", MalformedError, "format"),
    ("rules.kings", 6, MalformedError, "rules.kings"),
    ("rules.target", 35, MalformedError, "rules.target"),
    ("rules.real31", "yes", MalformedError, "rules.real31"),
    ("rules.colour", 1, MalformedError, "rules.colour"),
    ("declared.pares", [True], MalformedError, "declared.pares"),
    ("declared.pares[1]", "yes", MalformedError, "declared.pares[1]"),
    ("declared.envido", [True] * 4, MalformedError, "declared.envido"),
    ("bets.grande[3].act", "iduki", MalformedError, "bets.grande[3].act"),
    ("bets.grande[1].seat", 3, IllegalError, "bets.grande[1].seat"),  # out of turn
    ("bets.grande", [{"seat": 0, "act": "paso"}, {"seat": 1, "act": "envido"}, {"seat": 2, "act": "quiero"},
                     {"seat": 3, "act": "paso"}], IllegalError, "bets.grande[3]"),  # the lance is over
    ("bets.grande[1].act", "mas", IllegalError, "bets.grande[1].act"),  # raise with no bet
    ("bets.grande[1].n", 0, MalformedError, "bets.grande[1].n"),
    ("bets.grande", "paso", MalformedError, "bets.grande"),
    ("bets.mus", [], MalformedError, "bets.mus"),
    ("bets.juego", [{"seat": 0, "act": "paso"}], IllegalError, "bets.juego"),  # only team 1 has juego
    ("bets.punto", [{"seat": 0, "act": "paso"}], IllegalError, "bets.punto"),
    ("bets.pares", [{"seat": 0, "act": "envido"}], IllegalError, "bets.pares"),  # unfinished
    ("bets.pares[1].seat", 2, IllegalError, "bets.pares[1].seat"),  # seat 2 holds no pares
    ("extra", 1, MalformedError, "extra"),
])
def test_invalid_records_are_refused_naming_the_field(path, value, cls, field):
    with pytest.raises(cls) as err:
        settle(with_(path, value))
    assert err.value.field == field
    assert str(err.value).startswith(f"{field}: ")


def test_a_fifth_card_of_a_rank_with_a_rank_only_card():
    record = with_("hands", [["12", "12o", "12c", "12e"], ["12b", "7c", "7e", "10b"], ["2o", "4c", "6e", "11b"],
                             ["1o", "1c", "5e", "6o"]])
    with pytest.raises(IllegalError, match="fifth card of rank 12") as err:
        settle(record)
    assert err.value.field == "hands[1][0]"


def test_a_fifth_card_of_a_rank_among_rank_only_cards():
    record = with_("hands", [["12", "12", "12", "12"], ["12o", "7c", "7e", "10b"], ["2o", "4c", "6e", "11b"],
                             ["1o", "1c", "5e", "6o"]])
    with pytest.raises(IllegalError, match="fifth card of rank 12") as err:
        settle(record)
    assert err.value.field == "hands[1][0]"


@pytest.mark.parametrize("bad", [None, [], "hand", 3, {"hands": 1}])
def test_garbage_is_a_mus_error(bad):
    with pytest.raises(MusError):
        settle(bad)


def test_defaults_format_rules_score_declared_bets():
    record = {"esku": 2, "hands": EXAMPLE["hands"]}
    parsed = parse_hand(record)
    assert parsed.rules == Rules() and parsed.score == (0, 0)
    assert settle(record)["format"] == "mus-settlement/1"


def test_parse_hand_to_json_round_trips():
    parsed = parse_hand(EXAMPLE)
    again = parse_hand(json.loads(json.dumps(parsed.to_json())))
    assert again == parsed
    assert settle(parsed.to_json()) == settle(EXAMPLE)


def test_rules_json():
    assert Rules.from_json(None) == Rules()
    assert Rules.from_json({"kings": 4, "target": 30}).to_json() == {
        "kings": 4, "target": 30, "real31": False, "games_per_vaca": 1, "vacas_to_win": 3}
    assert Rules.from_json(Rules(real31=True).to_json()) == Rules(real31=True)
    with pytest.raises(MalformedError):
        Rules.from_json([])


def test_the_example_file_is_the_hand_record_example():
    assert EXAMPLE["score"] == [12, 37] and EXAMPLE["bets"]["pares"][0] == {"seat": 0, "act": "envido"}


def test_the_engine_imports_only_the_standard_library():
    stdlib = set(sys.stdlib_module_names)
    for path in (ROOT / "scorer" / "engine").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    continue
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in stdlib or top == "__future__", f"{path.name} imports {name}"


@pytest.mark.parametrize("key,value", [("games_per_vaca", 4), ("games_per_vaca", 0), ("vacas_to_win", 0),
                                       ("vacas_to_win", "3"), ("kings", True), ("target", 40.0)])
def test_rules_are_checked(key, value):
    with pytest.raises(MalformedError) as err:
        Rules.from_json({key: value})
    assert err.value.field == f"rules.{key}"


def test_rules_match_settings():
    assert Rules(games_per_vaca=3, vacas_to_win=2).to_json()["games_per_vaca"] == 3


def test_importing_the_engine_loads_no_third_party_module():
    import subprocess

    code = ("import sys; before = set(sys.modules); import scorer.engine; "
            "extra = {m.split('.')[0] for m in set(sys.modules) - before}; "
            "print(sorted(m for m in extra if m not in sys.stdlib_module_names and m != 'scorer'))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_records_bets_name_only_bets() -> None:
    # HAND-RECORD.md: a lance's bets are paso, envido, mas, ordago, quiero, no_quiero;
    # declarations have their own key, so 'declare' is no action there, and the message
    # does not offer it
    from scorer.engine.errors import MalformedError
    from scorer.engine.settle import settle

    hand = {"hands": [["12o", "12c", "12e", "12b"], ["1o", "1c", "1e", "1b"], ["11o", "11c", "11e", "11b"],
                      ["4o", "4c", "4e", "4b"]], "esku": 0}
    for act in ("declare", "envite"):
        with pytest.raises(MalformedError) as err:
            settle({**hand, "bets": {"grande": [{"seat": 0, "act": act, "pares": True}]}})
        assert str(err.value) == (f'bets.grande[0].act: "{act}" is not an action '
                                  "(paso, envido, mas, ordago, quiero, no_quiero)")


# -- only what HAND-RECORD.md defines, in and out --------------------------------------------
NOT_SHOWN_DECLARED = {"pares": [True, True, True, False], "juego": [False, True, False, False]}


@pytest.mark.parametrize("declared", [NOT_SHOWN_DECLARED, ...])
def test_a_record_without_hands_is_refused_naming_hands(declared):
    """`hands` has no default (HAND-RECORD.md: "A seat whose cards were not shown is null"):
    left out, the record is refused on `hands`, with or without its declarations (it was
    settled to [0, 0] with every best null, or refused on `declared.pares[0]`)."""
    record = with_("declared", declared)
    del record["hands"]
    with pytest.raises(MalformedError) as err:
        settle(record)
    assert err.value.field == "hands"
    assert str(err.value) == "hands: missing; a seat whose cards were not shown is null"
    with pytest.raises(MalformedError, match=r"^hands: null is not a list of four hands"):
        settle(with_("hands", None))
    shown_none = settle(with_("hands", [None] * 4))  # four nulls: what a missing `hands` was taken for
    assert shown_none["score"] == [13, 37] and shown_none["lances"]["grande"]["best"] is None


@pytest.mark.parametrize("key,value", [("games_per_vaca", 2), ("vacas_to_win", 3), ("games_per_vaca", 1)])
def test_a_hands_rules_hold_no_match_length(key, value):
    """`games_per_vaca` and `vacas_to_win` belong in a mus-match/1 header's rules: in a
    hand's `rules` they are refused, naming the key, even at their default."""
    with pytest.raises(MalformedError) as err:
        settle(with_("rules", {"kings": 8, key: value}))
    assert err.value.field == f"rules.{key}" and err.value.value == value
    assert str(err.value) == (f'rules.{key}: "{key}": {value} belongs in the mus-match/1 header\'s rules, '
                              "not a hand's (kings, target, real31)")


def test_a_hand_record_writes_only_a_hands_rules():
    assert parse_hand(EXAMPLE).to_json()["rules"] == {"kings": 8, "target": 40, "real31": False}
    record = parse_hand(with_("rules", {"kings": 4, "real31": True})).to_json()
    assert record["rules"] == {"kings": 4, "target": 40, "real31": True}
    assert settle(record) == settle(with_("rules", {"kings": 4, "real31": True}))


def test_a_declaration_null_is_read_and_written_as_the_cards_hold():
    """A seat's `null` in `declared` (HAND-RECORD.md does not define it) is still read, as
    what its cards hold (web imports stored such records as they came, and exported them:
    ruling 15), but never written: `to_json` says what the cards hold, the same settlement."""
    record = with_("declared.pares", [True, None, False, None])
    parsed = parse_hand(record)
    assert parsed.declared["pares"] == (True, None, False, None)
    written = parsed.to_json()
    assert written["declared"] == {"pares": [True, True, False, True], "juego": [False, True, False, False]}
    assert settle(written) == settle(record) == settle(EXAMPLE)


def test_a_declaration_null_of_a_lance_never_reached_is_left_out():
    """A grande envido refused ends the game (target 40, at 39): the declarations are never
    reached, and a null for a seat not shown cannot be told, so the list is left out."""
    record = {"esku": 0, "score": [39, 0], "hands": [None] * 4,
              "declared": {"pares": [None, True, None, False], "juego": [True, False, True, False]},
              "bets": {"grande": [{"seat": 0, "act": "envido"}, {"seat": 1, "act": "no_quiero"}]}}
    written = parse_hand(record).to_json()
    assert written["declared"] == {"juego": [True, False, True, False]}
    assert settle(written) == settle(record)
    assert settle(written)["game_over"] is True
