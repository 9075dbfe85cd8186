"""Properties (hypothesis): however a hand is fed it settles the same; garbage is always a MusError."""

from __future__ import annotations

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.engine import DECK, LiveHand, MusError, Rules, parse_hand, settle

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

deals = st.permutations(DECK).map(lambda cards: [[str(c) for c in cards[i : i + 4]] for i in range(0, 16, 4)])
rules = st.builds(Rules, kings=st.sampled_from([8, 4]), target=st.sampled_from([40, 30]), real31=st.booleans())


@st.composite
def played_hands(draw):
    """A random deal played by random legal actions (declarations true or, sometimes, false)."""
    table = draw(rules)
    esku = draw(st.integers(0, 3))
    score = (draw(st.integers(0, table.target - 1)), draw(st.integers(0, table.target - 1)))
    hand = LiveHand.start(table, esku, score)
    hands = draw(deals)
    hidden = draw(st.sets(st.integers(0, 3), max_size=2))
    while hand.phase not in ("showdown", "over"):
        hand = hand.apply(draw(st.sampled_from(hand.legal())))
    shown = [None if seat in hidden else cards for seat, cards in enumerate(hands)]
    return hand, shown


@SETTINGS
@given(played_hands())
def test_live_and_record_settle_the_same_way(played):
    hand, hands = played
    record = hand.to_record(hands)
    try:
        expected = settle(record)
    except MusError as err:  # a hidden seat's unknown combination, or an ordago without cards
        assert err.field == "hands" or err.field.startswith("declared.")
        return
    replayed = LiveHand.replay(hand.state.rules, hand.state.esku, hand.state.start, list(hand.log))
    assert replayed == hand
    assert settle(replayed.to_record(hands)) == expected
    assert settle(parse_hand(record).to_json()) == expected
    dejes = [e for e in expected["events"] if e["why"].startswith("deje")]
    assert expected["events"][: len(dejes)] == dejes == hand.events
    assert hand.score == (tuple(dejes[-1]["score"]) if dejes else hand.state.start)


@SETTINGS
@given(played_hands())
def test_a_record_survives_a_json_round_trip(played):
    hand, hands = played
    record = hand.to_record([cards for cards in hands])
    text = json.dumps(record)
    try:
        settled = settle(record)
    except MusError:
        return
    assert settle(json.loads(text)) == settled
    assert json.loads(json.dumps(settled)) == settled


@SETTINGS
@given(played_hands())
def test_stones_never_go_down_within_a_hand(played):
    hand, hands = played
    try:
        settled = settle(hand.to_record(hands))
    except MusError:
        return
    before = list(hand.state.start)
    for event in settled["events"]:
        assert event["stones"] > 0
        after = event["score"]
        assert after[event["team"]] == before[event["team"]] + event["stones"]
        assert after[1 - event["team"]] == before[1 - event["team"]]
        before = after
    assert settled["score"] == before
    target = hand.state.rules.target
    assert settled["game_over"] == (max(settled["score"]) >= target)
    if settled["game_over"]:
        assert settled["score"][settled["winner"]] >= target
        assert settled["events"][-1]["team"] == settled["winner"]


@SETTINGS
@given(played_hands(), st.data())
def test_undo_is_the_log_less_its_last_action(played, data):
    hand, _ = played
    if not hand.log:
        return
    cut = data.draw(st.integers(1, len(hand.log)))
    shorter = LiveHand.replay(hand.state.rules, hand.state.esku, hand.state.start, list(hand.log[:cut]))
    assert shorter.undo() == LiveHand.replay(hand.state.rules, hand.state.esku, hand.state.start,
                                             list(hand.log[: cut - 1]))
    for action in shorter.undo().legal():
        shorter.undo().check(action)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 50) | st.sampled_from(["12o", "8o", "paso", "envido", "pares", ""]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["seat", "act", "n", "pares", "juego", "grande", "hands", "x"]), inner, max_size=4),
    max_leaves=12,
)


@SETTINGS
@given(json_values)
def test_garbage_raises_mus_error_only(garbage):
    try:
        settle(garbage)
    except MusError:
        pass


EXAMPLE = {
    "esku": 0, "score": [12, 37],
    "hands": [["12o", "3c", "1e", "5b"], ["7o", "7c", "7e", "10b"], ["2o", "4c", "6e", "11b"], ["1o", "1c", "5e", "6o"]],
    "declared": {"pares": [True, True, False, True], "juego": [False, True, False, False]},
    "bets": {"grande": [{"seat": 0, "act": "paso"}, {"seat": 1, "act": "envido", "n": 2},
                        {"seat": 2, "act": "mas", "n": 3}, {"seat": 3, "act": "quiero"}],
             "pares": [{"seat": 0, "act": "envido"}, {"seat": 1, "act": "no_quiero"}, {"seat": 3, "act": "no_quiero"}]},
}


def _paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from _paths(value, (*prefix, i))


PATHS = [p for p in _paths(EXAMPLE) if p]


@SETTINGS
@given(st.sampled_from(PATHS), json_values)
def test_a_damaged_record_is_settled_or_refused_with_a_mus_error(path, value):
    record = copy.deepcopy(EXAMPLE)
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    try:
        settle(record)
    except MusError as err:
        assert str(err).startswith(f"{err.field}: ") or not err.field


@SETTINGS
@given(played_hands(), json_values)
def test_live_hand_refuses_garbage_actions_with_mus_error(played, garbage):
    hand, _ = played
    try:
        hand.check(garbage)
    except MusError:
        pass


@SETTINGS
@given(json_values, json_values, json_values, json_values)
def test_live_hand_entry_points_refuse_garbage_with_mus_error(rules_obj, esku, score, log):
    try:
        hand = LiveHand.replay(rules_obj, esku, score, log)
        hand.to_record(rules_obj)
    except MusError:
        pass


ORDER = [1, 2, 3, 4, 5, 6, 7, 10, 11, 12]
JUEGO_RANK = [31, 32, 40, 37, 36, 35, 34, 33]


def _reference(cards, kings):
    """A direct reading of RULES.md, for comparison with the tables."""
    ranks = [{3: 12, 2: 1}.get(c.rank, c.rank) if kings == 8 else c.rank for c in cards]
    high = sorted((ORDER.index(r) for r in ranks), reverse=True)
    counts = sorted(((ranks.count(r), ORDER.index(r)) for r in set(ranks)), reverse=True)
    if counts[0][0] == 4:
        pares = (3, counts[0][1], counts[0][1])
    elif counts[0][0] == 3:
        pares = (2, counts[0][1], 0)
    elif counts[0][0] == 2 and counts[1][0] == 2:
        pares = (3, counts[0][1], counts[1][1])
    elif counts[0][0] == 2:
        pares = (1, counts[0][1], 0)
    else:
        pares = (0, 0, 0)
    points = sum(10 if r >= 10 else r for r in ranks)
    juego = 8 - JUEGO_RANK.index(points) if points >= 31 else 0
    return {"grande": high, "chica": [-o for o in sorted(high)], "pares": pares, "juego": juego, "punto": points}


@SETTINGS
@given(st.permutations(DECK), st.sampled_from([8, 4]))
def test_tables_agree_with_a_direct_reading_of_the_rules(cards, kings):
    from scorer.engine import evaluate

    a, b = cards[:4], cards[4:8]
    va, vb = evaluate(a, kings), evaluate(b, kings)
    ra, rb = _reference(a, kings), _reference(b, kings)
    for lance in ("grande", "chica", "pares", "juego"):
        assert (va.strength(lance) > vb.strength(lance)) == (ra[lance] > rb[lance]), lance
        assert (va.strength(lance) == vb.strength(lance)) == (ra[lance] == rb[lance]), lance
    assert va.pares_kind == ra["pares"][0] and va.points == ra["punto"]


@SETTINGS
@given(played_hands(), st.sets(st.integers(0, 3)))
def test_rank_only_cards_settle_like_suited_ones(played, stripped):
    hand, hands = played
    ranks_only = [None if cards is None else [c.rstrip("oceb") if seat in stripped else c for c in cards]
                  for seat, cards in enumerate(hands)]
    try:
        expected = settle(hand.to_record(hands))
    except MusError:
        return
    assert settle(hand.to_record(ranks_only)) == expected
