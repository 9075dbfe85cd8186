"""What refusing a crafted photo costs: milliseconds and peak memory of `open_photo`.

    python bench/bench_limits.py [--runs 5] [--pillow]

Each file is small on the wire and dear to parse or decode (tests/test_vision_limits.py
checks that each is refused before Pillow opens it). Printed per file: its size, the
median milliseconds of its refusal over `--runs` runs, and the peak of memory that
Python allocated during one more (tracemalloc, timed apart). `--pillow` also times what Pillow alone
takes to open and decode the same bytes, that is what the refusal saves (a minute or more
for the scan bomb on a 2-core machine).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from PIL import Image  # noqa: E402
from vision_helpers import jpeg_with_scans, jpeg_with_segments, png_with_chunks, webp_with_chunks  # noqa: E402

from scorer.vision import ImageError, open_photo  # noqa: E402


def crafted() -> list[tuple[str, bytes]]:
    """The files measured, named."""
    return [
        ("JPEG of 5,000 empty scans, 2000x1500", jpeg_with_scans(5000, (2000, 1500))),
        ("JPEG of 200,000 empty APP12 segments", jpeg_with_segments(200_000)),
        ("JPEG of 200,000 segments between scans", jpeg_with_segments(200_000, "between scans")),
        ("PNG of 100,000 empty chunks", png_with_chunks(100_000)),
        ("PNG of 2,000,000 empty chunks", png_with_chunks(2_000_000)),
        ("WebP of 100,000 empty chunks", webp_with_chunks(100_000)),
    ]


def refusal(data: bytes) -> tuple[float, str]:
    """Seconds and the message of one refusal of `data`."""
    start = time.perf_counter()
    try:
        open_photo(data)
    except ImageError as exc:
        return time.perf_counter() - start, str(exc)
    raise SystemExit("not refused: the check has gone")


def peak(data: bytes) -> int:
    """Peak bytes that Python allocated during one refusal of `data` (timed apart: tracing
    slows Python several times over)."""
    tracemalloc.start()
    try:
        refusal(data)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def pillow_alone(data: bytes) -> float:
    """Seconds for Pillow to open and decode `data` with no check before it."""
    start = time.perf_counter()
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()
    except Exception:  # noqa: BLE001 - a flood may end in an error after the parse
        pass
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pillow", action="store_true", help="also time Pillow alone on each file")
    args = ap.parse_args()
    print(f"{'file':42} {'bytes':>11} {'refused ms':>11} {'peak KB':>8}" + ("  Pillow alone s" if args.pillow else ""))
    for name, data in crafted():
        times = [refusal(data)[0] for _ in range(args.runs)]
        message = refusal(data)[1]
        line = f"{name:42} {len(data):>11,} {statistics.median(times) * 1000:>11.2f} {peak(data) / 1024:>8.0f}"
        if args.pillow:
            line += f"  {pillow_alone(data):>15.2f}"
        print(line)
        print(f"{'':42}   {message}")


if __name__ == "__main__":
    main()
