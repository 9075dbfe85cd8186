"""Lines per second of `mus-scorer settle` on generated JSON Lines, start-up included.

    python bench/bench_cli.py [N ...]      (default: 20000 100000)

Each size is run twice: one process (`--jobs 1`) and the default (`--jobs 0`: one
worker per CPU, up to 8, from 20,000 lines on). Wall-clock lines per second, and lines
per CPU second of the command (user + system, workers included: the figure that holds
on a machine shared with other work). Each hand is a fresh random deal with a random esku, score and a few bets in grande
and chica (the other lances all-pass or uncontested), written to a temporary file and
settled by `python -m scorer settle FILE` in a subprocess.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RANKS = ("1", "2", "3", "4", "5", "6", "7", "10", "11", "12")
DECK = [r + s for s in "oceb" for r in RANKS]


def _bets(esku: int, rng: random.Random) -> list[dict] | None:
    """A short legal betting round (or None: all pass)."""
    s = [(esku + i) % 4 for i in range(4)]
    pattern = rng.randrange(6)
    if pattern == 0:
        return None
    if pattern == 1:
        return [{"seat": s[0], "act": "envido", "n": rng.choice((2, 3, 5))}, {"seat": s[1], "act": "quiero"}]
    if pattern == 2:
        return [{"seat": s[0], "act": "paso"}, {"seat": s[1], "act": "envido", "n": 2},
                {"seat": s[2], "act": "no_quiero"}, {"seat": s[0], "act": "no_quiero"}]
    if pattern == 3:
        return [{"seat": s[0], "act": "envido", "n": 2}, {"seat": s[1], "act": "mas", "n": 2},
                {"seat": s[2], "act": "quiero"}]
    if pattern == 4:
        return [{"seat": s[0], "act": "envido", "n": 2}, {"seat": s[1], "act": "mas", "n": 3},
                {"seat": s[2], "act": "no_quiero"}, {"seat": s[0], "act": "no_quiero"}]
    return [{"seat": k, "act": "paso"} for k in s]


def hand(rng: random.Random) -> dict:
    """One random, valid mus-hand/1."""
    cards = rng.sample(DECK, 16)
    esku = rng.randrange(4)
    record: dict = {
        "esku": esku,
        "score": [rng.randrange(36), rng.randrange(36)],
        "hands": [cards[i:i + 4] for i in range(0, 16, 4)],
        "bets": {},
    }
    for lance in ("grande", "chica"):
        bets = _bets(esku, rng)
        if bets:
            record["bets"][lance] = bets
    return record


def write_lines(path: Path, n: int, seed: int = 1) -> None:
    """n generated hands, one per line."""
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(n):
            f.write(json.dumps(hand(rng), separators=(",", ":")) + "\n")


def bench(n: int, jobs: int) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds, output lines, exit status) of settling n generated lines."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "hands.jsonl"
        dst = Path(tmp) / "out.jsonl"
        write_lines(src, n)
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        with open(dst, "wb") as out:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            cmd = [sys.executable, "-m", "scorer", "settle", "--jobs", str(jobs), str(src)]
            rc = subprocess.run(cmd, stdout=out, env=env, cwd=ROOT).returncode
            seconds = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        with open(dst, "rb") as f:
            lines = sum(1 for _ in f)
        return seconds, cpu, lines, rc


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [20_000, 100_000]
    status = 0
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{cpus} CPUs, load average {os.getloadavg()[0]:.1f}")
    for n in sizes:
        for jobs, label in ((1, "1 process"), (0, "default  ")):
            seconds, cpu, lines, rc = bench(n, jobs)
            print(f"settle {n:>7} lines, {label}: {seconds:6.2f} s  {n / seconds:>9,.0f} lines/s"
                  f"  ({n / cpu:>7,.0f} lines per CPU second; exit {rc}, {lines} lines out)")
            if rc != 0 or lines != n:
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
