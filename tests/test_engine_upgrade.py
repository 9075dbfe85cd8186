"""Hands stored under the old reading of `no_quiero` (it counted for its speaker alone) are
read as they meant: such a refusal, said while the partner was still to answer, is `paso`."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from scorer.engine import IllegalError, LiveHand, Rules, settle
from scorer.engine.upgrade import log_refusals, record_defined, record_refusals

EXAMPLE = json.loads((Path(__file__).resolve().parents[1] / "examples" / "hand.json").read_text())


def _old_record() -> dict:
    """The example hand with team 1's grande answered the old way: seat 1 refuses for
    itself, seat 3 accepts for the team."""
    record = copy.deepcopy(EXAMPLE)
    record["bets"]["grande"] = [{"seat": 0, "act": "envido", "n": 2}, {"seat": 1, "act": "no_quiero"},
                                {"seat": 3, "act": "quiero"}]
    return record


def test_an_old_refusal_the_partner_overturned_is_read_as_for_my_part():
    old = _old_record()
    with pytest.raises(IllegalError, match="art. 10"):
        settle(old)
    new = record_refusals(old)
    assert [a["act"] for a in new["bets"]["grande"]] == ["envido", "paso", "quiero"]
    assert old["bets"]["grande"][1]["act"] == "no_quiero"  # the input is left as it was
    grande = settle(new)["lances"]["grande"]
    assert grande["status"] == "accepted" and grande["stake"] == 2


def test_both_partners_refusing_settles_as_before():
    """HAND-RECORD's example (seats 1 and 3 both refuse the pares bet) says the same in
    today's words: the first one's refusal for its part, the second's for the team."""
    new = record_refusals(EXAMPLE)
    assert [a["act"] for a in new["bets"]["pares"]] == ["envido", "paso", "no_quiero"]
    assert settle(new) == settle(EXAMPLE)


def test_a_record_without_such_a_refusal_is_returned_untouched():
    record = copy.deepcopy(EXAMPLE)
    record["bets"]["pares"] = [{"seat": 0, "act": "envido"}, {"seat": 1, "act": "no_quiero"}]
    assert record_refusals(record) is record
    assert record_refusals({"esku": 0}) == {"esku": 0}


def test_an_old_live_log_replays_and_an_unanswered_refusal_waits_for_the_partner():
    rules = Rules()
    old = [{"seat": 0, "act": "envido", "n": 2}, {"seat": 1, "act": "no_quiero"}, {"seat": 3, "act": "mas", "n": 2}]
    with pytest.raises(IllegalError):
        LiveHand.replay(rules, 0, (0, 0), old)
    new = log_refusals(rules, 0, (0, 0), old)
    assert [a["act"] for a in new] == ["envido", "paso", "mas"]
    assert LiveHand.replay(rules, 0, (0, 0), new).to_speak == 0  # the raise comes back to team 0
    # a hand stored while seat 3 was still to answer: it still is
    waiting = log_refusals(rules, 0, (0, 0), old[:2])
    assert waiting[1]["act"] == "paso" and LiveHand.replay(rules, 0, (0, 0), waiting).to_speak == 3


def test_a_refusal_with_no_partner_left_to_answer_stays_the_teams():
    rules = Rules()
    log = [{"seat": 0, "act": "envido", "n": 2}, {"seat": 1, "act": "paso"}, {"seat": 3, "act": "no_quiero"}]
    assert log_refusals(rules, 0, (0, 0), log) == log
    # seat 3 answers first when seat 2 bets; its partner seat 1 then still could
    log = [{"seat": 0, "act": "paso"}, {"seat": 1, "act": "paso"}, {"seat": 2, "act": "envido", "n": 2},
           {"seat": 3, "act": "no_quiero"}, {"seat": 1, "act": "no_quiero"}]
    assert [a["act"] for a in log_refusals(rules, 0, (0, 0), log)] == ["paso", "paso", "envido", "paso", "no_quiero"]


def test_a_record_the_engine_took_before_it_kept_to_the_contract_is_said_in_its_words():
    """Stored imports could leave out `hands`, raise with a bare `mas` (2) and declare
    `null` (what the seat's cards hold): `record_defined` says them so, the same settlement
    as the engine gave them then (each read here as it was)."""
    no_hands = {k: v for k, v in EXAMPLE.items() if k != "hands"}
    assert record_defined(no_hands)["hands"] == [None] * 4
    assert settle(record_defined(no_hands)) == settle({**EXAMPLE, "hands": [None] * 4})
    assert record_defined({**EXAMPLE, "hands": None})["hands"] == [None] * 4
    bare = copy.deepcopy(EXAMPLE)
    bare["bets"]["grande"][2] = {"seat": 2, "act": "mas"}
    assert record_defined(bare)["bets"]["grande"][2] == {"seat": 2, "act": "mas", "n": 2}
    assert settle(record_defined(bare))["lances"]["grande"]["stake"] == 4
    nulls = {**EXAMPLE, "declared": {"pares": [None, True, None, True], "juego": [False, None, False, None]}}
    assert record_defined(nulls)["declared"] == EXAMPLE["declared"]
    assert settle(record_defined(nulls)) == settle(nulls) == settle(EXAMPLE)
    assert record_defined(EXAMPLE) is EXAMPLE
    assert record_defined("x") == "x"


def test_a_whole_list_null_or_a_declared_null_is_said_in_the_contracts_words():
    """HAND-RECORD.md defines no null in `declared`: neither a seat's, nor a whole list's,
    nor `declared` itself. The engine reads a list null (and `declared` null) as what the
    cards hold; `record_defined` leaves such a list out, and `declared` when nothing is
    left, with the same settlement (ruling 15)."""
    list_null = {**EXAMPLE, "declared": {"pares": EXAMPLE["declared"]["pares"], "juego": None}}
    assert record_defined(list_null)["declared"] == {"pares": EXAMPLE["declared"]["pares"]}
    assert settle(record_defined(list_null)) == settle(list_null)
    both_null = {**EXAMPLE, "declared": {"pares": None, "juego": None}}
    assert "declared" not in record_defined(both_null)
    declared_null = {**EXAMPLE, "declared": None}
    defined = record_defined(declared_null)
    assert "declared" not in defined
    assert settle(defined) == settle(declared_null)
    assert defined == {k: v for k, v in EXAMPLE.items() if k != "declared"}
    # a list null and a seat null in one record: both said so
    mixed = {**EXAMPLE, "declared": {"pares": [None, True, None, True], "juego": None}}
    assert record_defined(mixed)["declared"] == {"pares": EXAMPLE["declared"]["pares"]}
    # a record the engine refuses otherwise (a list null where a seat's cards are not shown) keeps it
    unknown = {**EXAMPLE, "hands": [None, *EXAMPLE["hands"][1:]], "declared": {"pares": None}}
    assert record_defined(unknown) is unknown
