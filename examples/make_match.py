"""Regenerate `examples/match.jsonl`: a complete sample match played by random players.

    python examples/make_match.py [SEED] > examples/match.jsonl

Cards are dealt at random; declarations are truthful; bets are entered through
`LiveHand` (so every line is legal) with a cautious random strategy. The first hand of
every game after the first is played "mus corrido" and names its esku.
"""

from __future__ import annotations

import json
import random
import sys

from scorer.engine import DECK as CARDS
from scorer.engine import Card, LiveHand, Match, Rules, evaluate

DECK = [str(card) for card in CARDS]


def choose(hand: LiveHand, cards: list[list[str]], rules: Rules, rng: random.Random) -> dict:
    """One action: truthful declarations, mostly passing, sometimes betting."""
    legal = hand.legal()
    seat = hand.to_speak
    if hand.phase.endswith("_declare"):
        claim = hand.phase.removesuffix("_declare")
        value = evaluate([Card.parse(c) for c in cards[seat]], rules.kings, rules.real31)
        has = bool(value.pares_kind if claim == "pares" else value.juego)
        return next(a for a in legal if a[claim] == has)
    acts = {a["act"]: a for a in legal}
    if "quiero" in acts:  # facing a bet
        r = rng.random()
        if r < 0.02 and "ordago" in acts:
            return acts["ordago"]
        if r < 0.12 and "mas" in acts:
            return {**acts["mas"], "n": rng.choice((2, 2, 3, 5))}
        return acts["quiero"] if r < 0.55 else acts.get("paso", acts["no_quiero"])  # for my part if the partner answers
    r = rng.random()
    if r < 0.01 and "ordago" in acts:
        return acts["ordago"]
    if r < 0.30 and "envido" in acts:
        return {**acts["envido"], "n": rng.choice((2, 2, 2, 3, 5))}
    return acts["paso"]


def play_match(seed: int) -> list[str]:
    """The match's JSON Lines."""
    rng = random.Random(seed)
    rules = Rules(target=40, games_per_vaca=1, vacas_to_win=3)
    match = Match(rules, teams=("Txuriak", "Beltzak"), players=("Ane", "Bixente", "Iker", "Maite"), esku=0)
    lines = [json.dumps(match.header(), ensure_ascii=False)]
    while not match.over:
        state = match.state()
        new_game = state["hands"] > 0 and state["score"] == [0, 0]
        esku = rng.randrange(4) if new_game else state["esku"]
        dealt = rng.sample(DECK, 16)
        cards = [dealt[i:i + 4] for i in range(0, 16, 4)]
        hand = LiveHand.start(rules, esku, tuple(state["score"]))
        while hand.phase not in ("showdown", "over"):
            hand = hand.apply(choose(hand, cards, rules, rng))
        record = hand.to_record(cards)
        line = {k: v for k, v in record.items() if k not in ("score", "rules", "format")}
        if not new_game:
            del line["esku"]  # the match turns the esku
        match.play(line)
        lines.append(json.dumps(line, ensure_ascii=False, separators=(", ", ": ")))
    return lines


if __name__ == "__main__":
    print("\n".join(play_match(int(sys.argv[1]) if len(sys.argv) > 1 else 7)))
