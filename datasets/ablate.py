"""What each step of the runtime's reading adds: the same showdowns read with steps off.

    python -m datasets.ablate --models models --n 60 --seed 9100

Each row turns off one step of `scorer.vision.pipeline` (all the others on) and scores
the showdowns as `datasets.evaluate` does; the first row has every step on.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from datasets import evaluate as E
from datasets.evaluate import ROOT, evaluate
from datasets.render import DECKS
from scorer.vision import layout as L
from scorer.vision import pipeline as P


@contextmanager
def _patched(pairs: list[tuple[Any, str, Any]]):
    old = [(obj, name, getattr(obj, name)) for obj, name, _ in pairs]
    try:
        for obj, name, value in pairs:
            setattr(obj, name, value)
        yield
    finally:
        for obj, name, value in old:
            setattr(obj, name, value)


def _first(x: Any, *args: Any, **kwargs: Any) -> Any:
    """Its first argument, unchanged: a step that takes cards (or probabilities) and
    returns them, turned off."""
    return x


def _unread_as_is(models: Any, image: Any, full: Any, found: list, unread: list, corners: Any) -> tuple[list, list]:
    return found, unread


STEPS: list[tuple[str, Callable[[], list[tuple[Any, str, Any]]]]] = [
    ("all steps on", lambda: []),
    ("no rank reader (the classifier alone)", lambda: [(P, "combine", _first)]),
    ("no court suit reader", lambda: [(P, "combine_suits", _first)]),
    ("no second reading through shifted crops", lambda: [(P, "TTA_BELOW", 0.0)]),
    ("no neighbour's corner as a card of its own", lambda: [(L, "ORPHAN_CONF", 2.0)]),
    ("no reading of unread card boxes", lambda: [(P, "read_unread", _unread_as_is)]),
    ("no next name for a duplicate", lambda: [(P, "unique_names", _first)]),
    ("no cap of 16 cards", lambda: [(P, "at_most_a_deal", _first)]),
]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m datasets.ablate", description=__doc__.split("\n")[0])
    p.add_argument("--models", default=str(ROOT / "models"))
    p.add_argument("--n", type=int, default=60)
    p.add_argument("--seed", type=int, default=9100)
    p.add_argument("--decks", default=",".join(DECKS))
    args = p.parse_args(argv)
    decks = tuple(args.decks.split(","))
    print(f"{args.n} showdowns, seed {args.seed}, decks {', '.join(decks)}, models {args.models}\n")
    drawn: dict[tuple, Any] = {}
    real_draw = E.readable_showdown

    def draw_once(*key: Any, **options: Any) -> Any:  # each showdown rendered once for all rows
        k = (*key, *sorted(options.items()))
        if k not in drawn:
            drawn[k] = real_draw(*key, **options)
        return drawn[k]

    E.readable_showdown = draw_once
    try:
        print("| reading | showdowns fully right | cards read | per-card F1 |")
        print("|---|---|---|---|")
        for title, pairs in STEPS:
            with _patched(pairs()):
                r = evaluate(Path(args.models), args.n, args.seed, decks, (1600, 1200), truth_classifier=False,
                             progress=False)
            print(f"| {title} | {r['showdowns_fully_right']:.1%} | {r['cards_read_right']:.1%} | {r['micro']['f1']:.3f} |",
                  flush=True)
    finally:
        E.readable_showdown = real_draw
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
