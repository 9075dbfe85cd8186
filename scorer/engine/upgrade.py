"""Records and live logs written before a `no_quiero` bound the whole team, read as they meant.

Until the forty-third session a `no_quiero` facing a bet counted for the player who said it
alone: while the partner was still to answer, the partner could accept, raise or refuse
too. Now (RULES.md "Betting inside a lance", seed 004 art. 10) a `no_quiero` is the team's
refusal and a `paso` facing a bet is "for my part". Such an old refusal, said while the
partner still had to answer, is therefore a `paso` in today's words: rewritten so, every
stored hand settles and replays exactly as it did.
"""

from __future__ import annotations

from typing import Any

from .betting import LiveHand
from .rules import Rules


def _partner(seat: Any) -> Any:
    return (seat + 2) % 4 if isinstance(seat, int) and not isinstance(seat, bool) else None


def record_refusals(record: dict[str, Any]) -> dict[str, Any]:
    """`record` (a `mus-hand/1`) with each `no_quiero` that the partner answered after it, in
    the same lance, said as `paso`; the same object when there is none."""
    bets = record.get("bets")
    if not isinstance(bets, dict):
        return record
    changed = False
    new_bets: dict[str, Any] = {}
    for lance, actions in bets.items():
        if not isinstance(actions, list):
            new_bets[lance] = actions
            continue
        out = []
        for i, action in enumerate(actions):
            nxt = actions[i + 1] if i + 1 < len(actions) else None
            if (isinstance(action, dict) and action.get("act") == "no_quiero" and isinstance(nxt, dict)
                    and _partner(action.get("seat")) is not None and nxt.get("seat") == _partner(action.get("seat"))):
                action = {**action, "act": "paso"}
                changed = True
            out.append(action)
        new_bets[lance] = out
    return {**record, "bets": new_bets} if changed else record


def log_refusals(rules: Rules | dict[str, Any] | None, esku: int, score: tuple[int, int] | list[int],
                 log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The live `log` of a hand (esku `esku`, `score` before it) with each `no_quiero` said
    while the refuser's partner was still to answer after them said as `paso`. Raises the
    engine's errors where the log does not replay."""
    hand = LiveHand.start(rules, esku, tuple(score))
    out = []
    for action in log:
        lance = hand.state.lance
        if (isinstance(action, dict) and action.get("act") == "no_quiero" and lance is not None
                and lance.bettor is not None and len(lance.queue) > 1 and lance.queue[0] == action.get("seat")
                and lance.queue[1] == _partner(action.get("seat"))):
            action = {**action, "act": "paso"}
        hand = hand.apply(action)
        out.append(action)
    return out
