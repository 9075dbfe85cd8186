"""Engine benchmark: settlements per second through the Python API, and lance evaluation.

Run: `python bench/bench_engine.py [--deals N] [--seed S]`. Prints figures, one per line.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import timeit
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorer.engine import DECK, LiveHand, Rules, settle  # noqa: E402
from scorer.engine.evaluate import CODE, table  # noqa: E402


def deal(rng: random.Random) -> list[list[str]]:
    """Four random hands of four cards, as strings."""
    cards = rng.sample(DECK, 16)
    return [[str(c) for c in cards[i : i + 4]] for i in range(0, 16, 4)]


def all_pass_records(n: int, rng: random.Random) -> list[dict]:
    """Records of random deals where everyone passes (declarations from the cards)."""
    return [{"esku": rng.randrange(4), "score": [rng.randrange(30), rng.randrange(30)], "hands": deal(rng)}
            for _ in range(n)]


def betting_records(n: int, rng: random.Random) -> list[dict]:
    """Records of random deals played by random legal actions (true declarations)."""
    records = []
    for _ in range(n):
        hands = deal(rng)
        hand = LiveHand.start(Rules(), rng.randrange(4), (rng.randrange(30), rng.randrange(30)))
        values = [settle_value(h) for h in hands]
        while hand.phase not in ("showdown", "over"):
            if hand.phase.endswith("_declare"):
                claim = hand.phase.removesuffix("_declare")
                seat = hand.to_speak
                hand = hand.apply({"seat": seat, "act": "declare", claim: values[seat][claim]})
            else:
                hand = hand.apply(rng.choice(hand.legal()))
        records.append(hand.to_record(hands))
    return records


def settle_value(hand: list[str]) -> dict[str, bool]:
    from scorer.engine import Card, evaluate

    value = evaluate([Card.parse(c) for c in hand])
    return {"pares": value.pares_kind > 0, "juego": value.juego > 0}


def rate(records: list[dict]) -> tuple[float, float]:
    """Settlements per second of CPU time and of wall time over `records` (best of three runs).

    CPU time (`process_time`) is the figure to read on a busy machine: other processes
    do not count against the engine there.
    """
    cpu = wall = float("inf")
    for _ in range(3):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        for record in records:
            settle(record)
        cpu = min(cpu, time.process_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start_wall)
    return len(records) / cpu, len(records) / wall


def evaluate_all(kings: int) -> float:
    """Seconds to evaluate every lance of all 91,390 four-card hands (tables built beforehand)."""
    tab = table(kings, False)
    codes = [CODE[c.rank] for c in DECK]
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        count = 0
        for a, b, c, d in combinations(codes, 4):
            tab[a + b + c + d]
            count += 1
        best = min(best, time.process_time() - start)
    assert count == 91_390
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    table.cache_clear()
    for kings in (8, 4):
        table(kings, False)
    print(f"tables: 715 multisets x 2 deck modes built in {1000 * (time.perf_counter() - start):.1f} ms")
    for kings in (8, 4):
        print(f"evaluate every lance, all 91,390 hands, {kings} kings: {1000 * evaluate_all(kings):.1f} ms")
    for name, records in (("all-pass random deals", all_pass_records(args.deals, rng)),
                          ("random deals with random legal bets", betting_records(args.deals // 4, rng))):
        cpu, wall = rate(records)
        print(f"settle, {name}: {cpu:,.0f} settlements/s of CPU time ({wall:,.0f}/s wall; {len(records):,} deals)")
    calibration = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000
    print(f"calibration: sum(range(1000)) takes {calibration * 1e6:.1f} us on this machine")


if __name__ == "__main__":
    main()
