"""The engine as a library: what docs/CONTRACTS.md names is importable, errors survive a
process pool, `evaluate` refuses what is no hand, reprs read like code, cards sort."""

from __future__ import annotations

import copy
import json
import pickle
import re
from pathlib import Path

import pytest

import scorer.engine as engine
from scorer.engine import (
    DECK,
    Card,
    IllegalError,
    LiveHand,
    MalformedError,
    Match,
    MusError,
    Rules,
    evaluate,
    parse_hand,
    settle,
)

ROOT = Path(__file__).parents[1]
EXAMPLE = json.loads((ROOT / "examples" / "hand.json").read_text())


def test_every_call_the_contracts_engine_section_names_is_importable_from_the_package():
    text = (ROOT / "docs" / "CONTRACTS.md").read_text(encoding="utf-8")
    section = text.split("## Engine (`scorer.engine`)", 1)[1].split("\n## ", 1)[0]
    assert "Everything below is importable from `scorer.engine` directly" in section
    names = {m.split(".")[0] for m in re.findall(r"`([A-Za-z_][\w.]*)\(", section)} - {"str"}
    assert {"settle", "LiveHand", "dispute_text", "grammar"} <= names
    missing = sorted(n for n in names if not hasattr(engine, n) or n not in engine.__all__)
    assert missing == []


def test_every_key_of_a_match_state_is_in_the_contracts():
    """`Match.state()` gave `stones` (the standings' tie-break) that the contract's list
    of its keys left out."""
    text = (ROOT / "docs" / "CONTRACTS.md").read_text(encoding="utf-8")
    bullet = text.split("- `.state() -> dict`:", 1)[1].split("\n- ", 1)[0]
    listed = set(re.findall(r'"(\w+)":', bullet))
    match = Match()
    match.play({k: v for k, v in EXAMPLE.items() if k != "score"})
    assert set(match.state()) == listed
    assert "over the whole match" in " ".join(bullet.split('"stones"', 1)[1].split())


def test_a_seat_out_of_range_is_said_alike_everywhere():
    """A match's header said "not a seat 0..3", a hand and an action "not a seat (0 to 3)":
    one wording now, the one the rest of the code (the web API's refusals) uses."""
    header = {"format": "mus-match/1", "teams": ["A", "B"], "players": ["a", "b", "c", "d"], "esku": 4}
    refusals = []
    for call in (lambda: Match(esku=4), lambda: Match.from_lines([json.dumps(header)]),
                 lambda: parse_hand({**EXAMPLE, "esku": 4}), lambda: LiveHand.start(None, 4, (0, 0)),
                 lambda: LiveHand.start(None, 0, (0, 0)).check({"seat": 4, "act": "paso"})):
        with pytest.raises(MalformedError) as err:
            call()
        refusals.append(str(getattr(err.value, "original", err.value)))
    assert refusals == ["esku: 4 is not a seat 0..3"] * 4 + ["seat: 4 is not a seat 0..3"]


def test_a_refusal_pickles_and_copies_whole():
    """A `MusError` raised in a worker process comes back as itself (a pool pickles it)."""
    with pytest.raises(MusError) as caught:
        Match.from_lines(['{"format": "mus-match/1"}', json.dumps({**EXAMPLE, "score": [0, 0], "esku": 7})])
    err = caught.value
    for again in (pickle.loads(pickle.dumps(err)), copy.copy(err), copy.deepcopy(err)):
        assert type(again) is type(err) is MalformedError
        assert (again.field, again.reason, again.value, again.key, again.params, str(again)) == \
            (err.field, err.reason, err.value, err.key, err.params, str(err))
        assert again.line == 2 and str(again.original) == "esku: 7 is not a seat 0..3"
    with pytest.raises(IllegalError) as caught:
        settle({**EXAMPLE, "hands": [["1o", "1o", "1c", "1e"], None, None, None]})
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is IllegalError and again.key == "card_twice" and again.params == {"card": "1o"}


def test_evaluate_takes_cards_or_their_names():
    assert evaluate(["12o", "3c", "1e", "5b"]) == evaluate([Card.parse(t) for t in ("12o", "3c", "1e", "5b")])
    assert evaluate(iter(DECK[:4])) == evaluate(DECK[:4])


@pytest.mark.parametrize("cards,cls,field,quoted", [
    (["1o", "2o", "3o"], IllegalError, "cards", "3 cards"),
    (["1o", "2o", "3o", "4o", "5o"], IllegalError, "cards", "5 cards"),
    (["1o", "2o", "8o", "4o"], MalformedError, "cards[2]", '"8o"'),
    (["1o", "2o", 12, "4o"], MalformedError, "cards[2]", "12"),
    (["1o", "2o", "1o", "4o"], IllegalError, "cards[2]", '"1o" is already at cards[0]: the same card twice'),
    ("12o 3c 1e 5b", MalformedError, "cards", '"12o 3c 1e 5b"'),
    (None, MalformedError, "cards", "null"),
])
def test_evaluate_refuses_what_is_not_four_cards(cards, cls, field, quoted):
    with pytest.raises(cls) as err:
        evaluate(cards)
    assert err.value.field == field and quoted in str(err.value)


def test_evaluate_refuses_an_unknown_deck_mode():
    with pytest.raises(MalformedError, match=r"^kings: 6 is not one of \[4, 8\]"):
        evaluate(DECK[:4], kings=6)
    with pytest.raises(MalformedError, match=r'^real31: "yes" is not true or false'):
        evaluate(DECK[:4], real31="yes")  # type: ignore[arg-type]
    assert evaluate(["1", "1", "1", "1"]).pares_kind == 3  # rank-only cards may repeat


def _played() -> LiveHand:
    hand = LiveHand.start(Rules(kings=4, target=30), 1, (4, 9))
    for action in ({"seat": 1, "act": "envido", "n": 2}, {"seat": 2, "act": "mas", "n": 3},
                   {"seat": 3, "act": "paso"}, {"seat": 1, "act": "quiero"}):
        hand = hand.apply(action)
    return hand


def test_a_live_hand_repr_is_its_replay():
    hand = _played()
    text = repr(hand)
    assert text.startswith("LiveHand.replay(Rules(kings=4, target=30, real31=False, games_per_vaca=1, "
                           "vacas_to_win=3), 1, (4, 9), [{'seat': 1, 'act': 'envido', 'n': 2}, ")
    assert eval(text) == hand
    assert eval(repr(LiveHand.start(Rules(), 0, (0, 0)))) == LiveHand.start(Rules(), 0, (0, 0))


def test_a_live_hand_is_hashable_as_the_immutable_value_it_is():
    hand = _played()
    again = LiveHand.replay(Rules(kings=4, target=30), 1, (4, 9), list(hand.log))
    assert hash(again) == hash(hand) and {hand: "seen"}[again] == "seen"
    assert len({hand, again, hand.undo(), hand.undo().undo().apply(hand.log[-2])}) == 2
    assert hash(LiveHand.start(Rules(), 0, (0, 0))) != hash(LiveHand.start(Rules(), 1, (0, 0)))


def test_a_hand_record_repr_is_its_parse():
    record = parse_hand(EXAMPLE)
    assert repr(record).startswith("parse_hand({'format': 'mus-hand/1', 'rules': {'kings': 8, ")
    assert eval(repr(record)) == record


@pytest.mark.parametrize("declared", [
    {"pares": [True, None, False, True]},  # seat 1's pares not recorded: as the cards hold (ruling 15)
    {"pares": [True, True, False, True], "juego": [None, None, None, None]},
])
def test_a_hand_record_repr_keeps_a_declaration_not_recorded(declared):
    """`to_json` writes a null declaration as the cards hold, so a repr made of it parsed
    to a record that settles alike but is not equal to this one."""
    record = parse_hand({**EXAMPLE, "declared": declared, "bets": {}})
    again = eval(repr(record))
    assert again == record and again.declared == record.declared
    assert settle(again) == settle(record)


def test_a_match_repr_says_where_it_stands():
    match = Match(teams=("Txuriak", "Beltzak"))
    assert repr(match) == ("<Match 'Txuriak' v 'Beltzak': 0 hands, score [0, 0], games [0, 0], vacas [0, 0], "
                           "esku 0>")
    match.play({k: v for k, v in EXAMPLE.items() if k != "score"})
    assert repr(match) == ("<Match 'Txuriak' v 'Beltzak': 1 hand, score [7, 4], games [0, 0], vacas [0, 0], "
                           "esku 1>")


def test_cards_sort_by_rank_then_suit():
    hand = [Card.parse(t) for t in ("12o", "3c", "1e", "5b", "3o", "3")]
    assert [str(c) for c in sorted(hand)] == ["1e", "3", "3o", "3c", "5b", "12o"]
    assert sorted(DECK)[:4] == [Card(1, "o"), Card(1, "c"), Card(1, "e"), Card(1, "b")]
    assert Card.parse("12o") > Card.parse("1b") and Card.parse("5b") >= Card.parse("5b")
    assert max(DECK) == Card(12, "b") and min(DECK) == Card(1, "o")
    with pytest.raises(TypeError):
        _ = Card.parse("1o") < "2o"  # type: ignore[operator]
