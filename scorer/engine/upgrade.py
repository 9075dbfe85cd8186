"""Records and live logs written before the engine's rules or words changed, read as they meant.

Until the forty-third session a `no_quiero` facing a bet counted for the player who said it
alone: while the partner was still to answer, the partner could accept, raise or refuse
too. Now (RULES.md "Betting inside a lance", seed 004 art. 10) a `no_quiero` is the team's
refusal and a `paso` facing a bet is "for my part". Such an old refusal, said while the
partner still had to answer, is therefore a `paso` in today's words: rewritten so, every
stored hand settles and replays exactly as it did.

Until the engine refused what HAND-RECORD.md does not define, a record could leave out
`hands`, raise with a `mas` without `n` (taken as 2) or leave a declaration `null` (a
seat's, a whole list or `declared` itself: what the cards hold); the web import stored such
a record as it came. `record_defined` says it in the contract's words, with the same
settlement.
"""

from __future__ import annotations

from typing import Any

from .betting import LiveHand
from .errors import MusError
from .record import parse_hand, written_declared
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


def _bare_mas(action: Any) -> bool:
    return isinstance(action, dict) and action.get("act") == "mas" and "n" not in action


def _declared_null(declared: Any) -> bool:
    """Whether `declared` holds a null HAND-RECORD.md does not define: itself, a whole
    list, or a seat's in a list."""
    return declared is None or isinstance(declared, dict) and any(
        said is None or isinstance(said, list) and None in said for said in declared.values())


def record_defined(record: Any) -> Any:
    """`record` (a `mus-hand/1` dict, with a hand's rules) in what HAND-RECORD.md defines,
    meaning what the engine took it to mean when it accepted more: `hands` missing or
    `null` is four seats not shown, a `mas` without `n` raises by 2, and a seat's `null` in
    `declared` is what its cards hold (`written_declared`: a list where that cannot be told
    is of a lance the hand never reached, and is left out); a whole list `null` is left out
    (what the cards hold, as a missing list), and `declared` itself when it is `null` or
    nothing is left of it. The same object when there is nothing to change; a record the
    engine refuses otherwise keeps its `declared`."""
    if not isinstance(record, dict):
        return record
    out = record
    if out.get("hands") is None:
        out = {**out, "hands": [None] * 4}
    bets = out.get("bets")
    if isinstance(bets, dict) and any(isinstance(acts, list) and any(map(_bare_mas, acts)) for acts in bets.values()):
        out = {**out, "bets": {lance: [{**a, "n": 2} if _bare_mas(a) else a for a in acts]
                               if isinstance(acts, list) else acts for lance, acts in bets.items()}}
    if "declared" in out and _declared_null(out["declared"]):
        try:
            parsed = parse_hand(out)
        except MusError:
            return out
        written = written_declared(parsed.declared, parsed.values)
        out = {**out, "declared": written} if written else {k: v for k, v in out.items() if k != "declared"}
    return out
