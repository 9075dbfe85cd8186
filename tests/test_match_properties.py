"""Properties of a match over random deals (all passing): score, games, vacas, esku."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.engine import DECK as CARDS
from scorer.engine import Match, Rules

DECK = [str(card) for card in CARDS]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), target=st.sampled_from([30, 40]), per_vaca=st.integers(1, 3),
       to_win=st.integers(1, 3), esku=st.integers(0, 3))
def test_a_match_of_random_deals(seed: int, target: int, per_vaca: int, to_win: int, esku: int) -> None:
    rng = random.Random(seed)
    m = Match(Rules(target=target, games_per_vaca=per_vaca, vacas_to_win=to_win), esku=esku)
    stones = [0, 0]
    games_won = [0, 0]
    for _ in range(400):
        if m.over:
            break
        before = m.state()
        dealt = rng.sample(DECK, 16)
        s = m.play({"hands": [dealt[i:i + 4] for i in range(0, 16, 4)]})
        after = m.state()
        assert m.history[-1]["record"]["esku"] == before["esku"]
        assert after["esku"] == (before["esku"] + 1) % 4
        assert after["hands"] == before["hands"] + 1
        for t in (0, 1):
            stones[t] += s["score"][t] - before["score"][t]
        assert after["stones"] == stones
        if s["game_over"]:
            games_won[s["winner"]] += 1
            assert s["score"][s["winner"]] >= target
            assert after["score"] == [0, 0] and after["game_scores"] == []
        else:
            assert max(s["score"]) < target
            assert after["score"] == s["score"] == after["game_scores"][-1]
        assert after["adentro"] == [x >= target - 5 for x in after["score"]]
        # games inside the vaca, vacas from the games
        assert all(g < per_vaca for g in after["games"])
        assert sum(after["vacas"]) * per_vaca + sum(after["games"]) <= sum(games_won)
        assert (after["winner"] is not None) == (max(after["vacas"]) == to_win)
    assert m.over, "a match ends"
    final = m.state()
    assert final["vacas"][final["winner"]] == to_win
    assert sum(final["vacas"]) <= 2 * to_win - 1
