"""How fast the tables' photos are read while the server teaches a deck (`web.decks`).

    python bench/bench_teach.py [--runs 9] [--every 3] [--scenes 400] [--deck naipes-libres] [--refine HOURS]

Reads a 4000x3000 table photo through the app's `/api/scan` (the shipped models) `--runs`
times with the server idle, then starts teaching a deck (four layout photos of `--deck`,
rendered here; the job runs `datasets.enroll` and `datasets.heads --scenes N` at `nice`
10) and reads the same photo every `--every` seconds until the job ends (a showdown every
3 s is some 40 tables at once). With `--refine`, the deck is refined as well (torch, the
train extra; HOURS per reader). Prints the median and worst milliseconds per photo, idle,
while teaching and while refining, and the job's minutes.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    from bench.bench_vision import table_jpeg
    from datasets.render import layout_photos
    from web import create_app
    from web.decks import RUNNING, SUITS

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=9)
    p.add_argument("--every", type=float, default=3.0, help="seconds between photos while teaching")
    p.add_argument("--scenes", type=int, default=400)
    p.add_argument("--deck", default="naipes-libres")
    p.add_argument("--refine", type=float, default=0.0, help="refine the deck too, HOURS per reader (0: not)")
    args = p.parse_args()
    photo, _ = table_jpeg(11, 4.0)
    tmp = tempfile.mkdtemp(prefix="mus-bench-teach-")
    app = create_app({"DATABASE": str(Path(tmp) / "mus.db"), "ADMIN_KEY": "b" * 20,
                      "TEACH_ARGS": ["--scenes", str(args.scenes)], "TEACH_REFINE_HOURS": args.refine or None})
    c = app.test_client()
    auth = {"Authorization": "Bearer " + "b" * 20}

    def scan() -> float:
        t0 = time.perf_counter()
        r = c.post("/api/scan", data=photo, content_type="image/jpeg")
        assert r.status_code == 200, r.get_json()
        return (time.perf_counter() - t0) * 1000

    scan()  # models loaded
    idle = [scan() for _ in range(args.runs)]
    files = {}
    for suit, im in zip(SUITS, layout_photos(21, args.deck, (3200, 2400)), strict=True):
        buf = io.BytesIO()
        im.save(buf, "JPEG", quality=92)
        files[suit] = (io.BytesIO(buf.getvalue()), f"{suit}.jpg")
    form = {**files, "name": "bench", **({"refine": "1"} if args.refine else {})}
    r = c.post("/api/decks", headers=auth, data=form, content_type="multipart/form-data")
    assert r.status_code == 202, r.get_json()
    deck = r.get_json()["id"]
    busy: dict[str, list[float]] = {"teaching": [], "refining": []}
    while True:
        info = c.get(f"/api/decks/{deck}", headers=auth).get_json()
        if info["state"] not in RUNNING:
            break
        t0 = time.time()
        busy["refining" if info["state"] == "refining" else "teaching"].append(scan())
        time.sleep(max(0.0, args.every - (time.time() - t0)))
    print(f"idle:     median {statistics.median(idle):.0f} ms, worst {max(idle):.0f} ms ({len(idle)} photos)")
    for state, ms in busy.items():
        if ms:
            print(f"{state + ':':9} median {statistics.median(ms):.0f} ms, worst {max(ms):.0f} ms ({len(ms)} photos)")
    print(f"job: {info['state']} in {info['minutes']} min (check: {info['check']}, {info['verdict']}"
          f"{', refined' if info.get('refined') else ''}{', not refined: ' + info['refine_error'] if info.get('refine_error') else ''})"
          if info["state"] == "ready" else f"job: {info['state']}: {info['error']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
