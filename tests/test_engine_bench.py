"""The engine benchmark runs (tiny sizes) and prints its figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_bench_engine_runs_and_prints_its_figures():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_engine.py"), "--deals", "40"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    assert "evaluate every lance, all 91,390 hands, 8 kings" in out
    assert "settle, all-pass random deals" in out
    assert "settle, random deals with random legal bets" in out
