"""How well `datasets.enroll` outlines the cards of its photos, against the renderer's truth.

    python bench/bench_enroll.py [--photos 8] [--seed 9600] [--size 3200x2400] [--deck fournier-1878]

Renders `--photos` enrolment photos (`render_scene(kind="layout")`, ten cards each, the
renderer's tables, perspective, light and blur) and outlines their cards as
`datasets.enroll` does. Each outline is matched to the true card under it and scored by
its corners' distance to the true corners, in hundredths of the card's height: the mean
and the worst corner, their median and 90th percentile over the cards, and how many cards
have a corner off by more than 3% (about what it takes to clip an index). Prints the
seconds per photo as well.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def score(found: list[np.ndarray], truth: list[dict]) -> list[tuple[str, float, float]]:
    """(card, mean corner error, worst corner error) per true card, in card heights;
    a card no outline covers scores (card, inf, inf)."""
    from datasets.enroll import order_corners

    out = []
    centres = np.array([q.mean(0) for q in found]) if found else np.zeros((0, 2))
    for t in truth:
        tq = order_corners(np.array(t["quad"], float))
        height = float(np.linalg.norm(tq[3] - tq[0]) + np.linalg.norm(tq[2] - tq[1])) / 2
        if not len(centres):
            out.append((t["card"], float("inf"), float("inf")))
            continue
        k = int(np.argmin(np.linalg.norm(centres - tq.mean(0), axis=1)))
        if np.linalg.norm(centres[k] - tq.mean(0)) > 0.3 * height:
            out.append((t["card"], float("inf"), float("inf")))
            continue
        d = np.linalg.norm(order_corners(found[k]) - tq, axis=1) / height
        out.append((t["card"], float(d.mean()), float(d.max())))
    return out


def main() -> int:
    from datasets.enroll import find_cards
    from datasets.render import DECK_ORDER, render_scene
    from scorer.vision.model import Models

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--photos", type=int, default=8)
    p.add_argument("--seed", type=int, default=9600)
    p.add_argument("--size", default="3200x2400")
    p.add_argument("--deck", default="fournier-1878")
    p.add_argument("--models", default=None)
    p.add_argument("--show", type=int, default=0, help="list this many of the worst cards")
    args = p.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    models = Models(args.models)
    rows, secs = [], []
    for k in range(args.photos):
        first = (10 * k) % len(DECK_ORDER)
        scene = render_scene(np.random.default_rng([args.seed, k]), kind="layout", size=size,
                             hands=[list(DECK_ORDER[first:first + 10])], deck=args.deck)
        t0 = time.perf_counter()
        found = find_cards(models, scene.image)
        secs.append(time.perf_counter() - t0)
        rows += [(k, *r) for r in score(found, scene.cards)]
    mean = np.array([r[2] for r in rows])
    worst = np.array([r[3] for r in rows])
    missed = int(np.isinf(worst).sum())
    ok = worst[np.isfinite(worst)]
    pct = lambda a, q: 100 * float(np.percentile(a, q)) if len(a) else float("nan")  # noqa: E731
    print(f"{args.deck}, {args.photos} photos {args.size}, seed {args.seed}: {len(rows)} cards, {missed} not outlined")
    print(f"corner error, % of card height: mean corner median {pct(mean[np.isfinite(mean)], 50):.2f}, "
          f"p90 {pct(mean[np.isfinite(mean)], 90):.2f}; worst corner median {pct(ok, 50):.2f}, "
          f"p90 {pct(ok, 90):.2f}, max {pct(ok, 100):.2f}")
    print(f"cards with a corner off by more than 3%: {int((worst > 0.03).sum())} of {len(rows)}")
    print(f"seconds per photo: median {statistics.median(secs):.2f}, worst {max(secs):.2f}")
    for k, card, m, w in sorted(rows, key=lambda r: -r[3])[: args.show]:
        print(f"  photo {k} {card}: mean {100 * m:.2f}%, worst {100 * w:.2f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
