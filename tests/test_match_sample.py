"""The sample match `examples/match.jsonl`: valid, complete, and as its generator makes it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from scorer.engine import Match, replay_match

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "match.jsonl"


def test_sample_match_replays_to_a_winner() -> None:
    rows = replay_match(SAMPLE.read_text().splitlines())
    assert len(rows) >= 20
    final = rows[-1]["state"]
    assert final["winner"] == 1 and final["vacas"] == [2, 3]
    games = [r for r in rows if r["settlement"]["game_over"]]
    assert len(games) == 5
    assert any(r["settlement"]["ordago"] for r in games)
    assert any(not r["settlement"]["ordago"] for r in games)


def test_sample_match_carries_the_score_and_the_esku() -> None:
    rows = replay_match(SAMPLE.read_text().splitlines())
    lines = SAMPLE.read_text().splitlines()
    for prev, row in zip(rows, rows[1:], strict=False):
        if prev["settlement"]["game_over"]:
            assert row["record"]["score"] == [0, 0]
        else:
            assert row["record"]["score"] == prev["settlement"]["score"]
        named = '"esku"' in lines[row["line"] - 1]
        if not named:
            assert row["record"]["esku"] == (prev["record"]["esku"] + 1) % 4
        else:  # the sample names an esku only in a game's first hand (mus corrido)
            assert prev["settlement"]["game_over"]
    for row in rows:
        target = 40
        s = row["settlement"]
        if s["game_over"]:
            assert s["score"][s["winner"]] >= target


def test_sample_match_is_what_the_generator_makes() -> None:
    spec = importlib.util.spec_from_file_location("make_match", ROOT / "examples" / "make_match.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.play_match(7) == SAMPLE.read_text().splitlines()


def test_sample_match_round_trips() -> None:
    match = Match.from_lines(SAMPLE.read_text().splitlines())
    again = Match.from_lines(match.to_lines())
    assert again.state() == match.state()
    assert again.header() == match.header()
