"""An independent, plain reading of RULES.md settles random played hands the way `settle` does."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.engine import DECK, Card, LiveHand, Rules, evaluate, settle

ORDER = [1, 2, 3, 4, 5, 6, 7, 10, 11, 12]
JUEGO = [31, 32, 40, 37, 36, 35, 34, 33]


def strength(cards, lance, kings):
    """Comparable key of a hand in a lance, higher wins (independent of the engine's tables)."""
    ranks = [({3: 12, 2: 1}.get(c.rank, c.rank) if kings == 8 else c.rank) for c in cards]
    idx = sorted((ORDER.index(r) for r in ranks), reverse=True)
    points = sum(10 if r >= 10 else r for r in ranks)
    if lance == "grande":
        return idx
    if lance == "chica":
        return [-i for i in sorted(idx)]
    if lance == "pares":
        counts = sorted(((idx.count(i), i) for i in set(idx)), reverse=True)
        if counts[0][0] == 4:
            return (3, counts[0][1], counts[0][1])
        if counts[0][0] == 3:
            return (2, counts[0][1], 0)
        if counts[0][0] == 2:
            return (3, counts[0][1], counts[1][1]) if counts[1][0] == 2 else (1, counts[0][1], 0)
        return (0, 0, 0)
    if lance == "juego":
        return (8 - JUEGO.index(points)) if points >= 31 else 0
    return points


def bonus(cards, lance, kings):
    key = strength(cards, lance, kings)
    if lance == "pares":
        return key[0]
    return 0 if not key else 3 if strength(cards, "punto", kings) == 31 else 2


def outcome(actions):
    """(status, stake or deje, betting team, ordago, the seats that refused) of one lance's
    complete list of actions: a seat that refuses a bet is out of the lance."""
    stake = agreed = 0
    team, ordago, out = None, False, set()
    for a in actions:
        if a["act"] in ("no_quiero", "paso") and team is not None:
            out.add(a["seat"])
        elif a["act"] == "envido":
            stake, agreed, team = a["n"], 1, a["seat"] % 2
        elif a["act"] == "mas":
            stake, agreed, team = stake + a["n"], stake, a["seat"] % 2
        elif a["act"] == "ordago":
            agreed, team, ordago = (1 if team is None else stake), a["seat"] % 2, True
    last = actions[-1]["act"] if actions else "paso"
    if team is None:
        return "paso", 0, None, False, out
    return ("accepted", stake, team, ordago, out) if last == "quiero" else ("refused", agreed, team, ordago, out)


def oracle(record):
    """Final score and winner by a direct reading of RULES.md (true declarations, all cards shown)."""
    rules = Rules.from_json(record["rules"])
    kings, target = rules.kings, rules.target
    hands = [[Card.parse(c) for c in h] for h in record["hands"]]
    order = [(record["esku"] + k) % 4 for k in range(4)]
    score, winner = list(record["score"]), None
    bets = record.get("bets", {})

    def pay(team, stones):
        nonlocal winner
        if winner is None and stones:
            score[team] += stones
            if score[team] >= target:
                winner = team

    def best(lance, seats):
        top = max(strength(hands[s], lance, kings) for s in seats)
        return next(s for s in seats if strength(hands[s], lance, kings) == top)

    def team_bonus(lance, team, out=()):
        return sum(bonus(hands[s], lance, kings) for s in order
                   if s % 2 == team and s not in out and strength(hands[s], lance, kings))

    holders = {lance: [s for s in order if bonus(hands[s], lance, kings)] for lance in ("pares", "juego")}
    played = []
    for lance in ("grande", "chica", "pares", "juego"):
        if lance in holders:
            teams = {s % 2 for s in holders[lance]}
            if lance == "juego" and not teams:
                lance = "punto"
            elif len(teams) < 2:
                played.append((lance, ("uncontested" if teams else "none", 0, teams.pop() if teams else None, False,
                                       set())))
                continue
        played.append((lance, outcome(bets.get(lance, []))))
    for lance, (status, stake, team, ordago, out) in played:  # dejes, as they happen
        if status == "refused":
            pay(team, stake)
        if winner is not None:
            return score, winner
        if status == "accepted" and ordago:
            w = best(lance, [s for s in holders.get(lance, order) if s not in out]) % 2
            pay(w, target - score[w])
            return score, winner
    for lance, (status, stake, team, _, out) in played:  # the count
        seats = [s for s in holders.get(lance, order) if s not in out or status != "accepted"]
        if status == "none" or (status == "refused" and lance in ("grande", "chica")):
            continue
        if status in ("refused", "uncontested"):
            pay(team, 1 if lance == "punto" else team_bonus(lance, team, out))
            continue
        w = best(lance, seats) % 2
        extra = team_bonus(lance, w, out) if lance in ("pares", "juego") else 1 if lance == "punto" else 0
        pay(w, (stake + extra) if status == "accepted" else (extra or 1))
    return score, winner


@st.composite
def truthful_hands(draw):
    """A random deal, played by random legal bets after true declarations."""
    rules = draw(st.builds(Rules, kings=st.sampled_from([8, 4]), target=st.sampled_from([40, 30])))
    cards = draw(st.permutations(DECK))
    hands = [[str(c) for c in cards[i : i + 4]] for i in range(0, 16, 4)]
    values = [evaluate([Card.parse(c) for c in h], rules.kings) for h in hands]
    hand = LiveHand.start(rules, draw(st.integers(0, 3)),
                          (draw(st.integers(0, rules.target - 1)), draw(st.integers(0, rules.target - 1))))
    while hand.phase not in ("showdown", "over"):
        seat = hand.to_speak
        if hand.phase == "pares_declare":
            hand = hand.apply({"seat": seat, "act": "declare", "pares": values[seat].pares_kind > 0})
        elif hand.phase == "juego_declare":
            hand = hand.apply({"seat": seat, "act": "declare", "juego": values[seat].juego > 0})
        else:
            hand = hand.apply(draw(st.sampled_from(_weighted(hand.legal()))))
    return hand.to_record(hands)


def _weighted(legal):
    """Passing and answering more often than raising, an ordago now and then: every lance gets played."""
    calm = [a for a in legal if a["act"] in ("paso", "quiero", "no_quiero")]
    return calm * 4 + [a for a in legal if a["act"] not in ("paso", "quiero", "no_quiero", "ordago")] * 2 + [
        a for a in legal if a["act"] == "ordago"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(truthful_hands())
def test_settle_agrees_with_a_plain_reading_of_the_rules(record):
    settled = settle(record)
    score, winner = oracle(record)
    assert (settled["score"], settled["winner"]) == (score, winner)
    assert settled["disputes"] == []
