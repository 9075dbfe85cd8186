"""Time `Recognizer.scan` on a 4000x3000 table photo made with `datasets.render`.

    python bench/bench_vision.py [--runs 7] [--noise 4] [--model-dir DIR] [--image PHOTO]

Prints the median and best milliseconds per photo (decode included) and the median of
each stage: decode, coarse, fine, classify, layout. `--noise` adds sensor-like noise
before the JPEG is written, so that the file weighs what a phone's does (a rendered
table is smooth and compresses to a few hundred KB; a phone's 12 MP JPEG is 3-5 MB,
and entropy decoding grows with the file).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STAGES = ("decode", "coarse", "fine", "classify", "layout")


def table_jpeg(seed: int, noise: float, size: tuple[int, int] = (4000, 3000)) -> tuple[bytes, list[list[str]]]:
    """A rendered showdown photo as JPEG bytes (quality 92), and its hands."""
    import numpy as np

    from datasets.render import render_scene

    rng = np.random.default_rng(seed)
    scene = render_scene(rng, kind="table", size=size)
    img = scene.image
    if noise > 0:
        from PIL import Image

        arr = np.asarray(img, np.float32) + rng.normal(0, noise, (size[1], size[0], 1)).astype(np.float32)
        img = Image.fromarray(arr.clip(0, 255).astype(np.uint8))
    out = io.BytesIO()
    img.save(out, "JPEG", quality=92)
    return out.getvalue(), scene.hands


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--noise", type=float, default=0.0, help="std of added noise, 0..255 scale")
    p.add_argument("--model-dir", type=Path)
    p.add_argument("--image", type=Path, help="time this photo instead of a rendered one")
    p.add_argument("--save", type=Path, help="write the rendered JPEG here")
    a = p.parse_args(argv)

    from scorer.vision import Recognizer

    if a.image:
        data, truth = a.image.read_bytes(), None
    else:
        data, truth = table_jpeg(a.seed, a.noise)
        if a.save:
            a.save.write_bytes(data)
    rec = Recognizer(a.model_dir)
    rec.scan(data)  # warm-up: first-run allocations
    totals, stages = [], {k: [] for k in STAGES}
    result = {}
    for _ in range(a.runs):
        timings: dict[str, float] = {}
        start = time.perf_counter()
        result = rec.scan(data, timings=timings)
        totals.append(time.perf_counter() - start)
        for k in STAGES:
            stages[k].append(timings.get(k, 0.0))
    ms = [t * 1000 for t in totals]
    print(f"photo: {result['size'][0]}x{result['size'][1]} JPEG, {len(data) / 1e6:.2f} MB; "
          f"model: {rec.models.model_dir}; {a.runs} runs")
    print(f"per photo: median {statistics.median(ms):.0f} ms, best {min(ms):.0f} ms")
    print("stages (median ms): " + ", ".join(f"{k} {statistics.median(stages[k]) * 1000:.0f}" for k in STAGES))
    found = [c["card"] for c in result["cards"]]
    print(f"cards found: {len(found)}; warnings: {[w['code'] for w in result['warnings']]}")
    if truth:
        want = {c for hand in truth for c in hand}
        print(f"of the 16 dealt: {len(want & set(found))} read; hands right: "
              f"{sum(sorted(h or []) == sorted(t) for h, t in zip(result['hands'] or [[]] * 4, truth, strict=True))}/4")
    return 0


if __name__ == "__main__":
    sys.exit(main())
