"""Hand records (`mus-hand/1`): parsing, validation, and the replay of what was said."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .betting import LANCES, Action, HandState
from .cards import Hand, parse_hands
from .errors import IllegalError, MalformedError, MusError, said
from .evaluate import HandValue, hand_values
from .rules import Rules, check_esku, check_score

FORMAT = "mus-hand/1"
_KEY_ORDER = ("format", "rules", "esku", "score", "hands", "declared", "bets")
_KEYS = frozenset(_KEY_ORDER)


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A validated hand record; `state` is what was said, replayed up to the showdown."""

    rules: Rules
    esku: int
    score: tuple[int, int]
    hands: tuple[Hand | None, ...]
    declared: dict[str, tuple[bool | None, ...]]
    bets: dict[str, tuple[Action, ...]]  # as checked (an envido names its n)
    values: tuple[HandValue | None, ...] = field(compare=False, repr=False)
    state: HandState = field(compare=False, repr=False)

    def __repr__(self) -> str:
        """Reads like code: the `parse_hand` of this record's JSON, its declarations as
        parsed (a `null` kept: `to_json` writes it as the cards hold, or leaves its list
        out, which parses to a record that settles alike but is not equal)."""
        out = self.to_json()
        out.pop("declared", None)
        bets = out.pop("bets", None)
        if self.declared:
            out["declared"] = {claim: list(said) for claim, said in self.declared.items()}
        if bets is not None:
            out["bets"] = bets
        return f"parse_hand({out!r})"

    def to_json(self) -> dict[str, Any]:
        """The record as a `mus-hand/1` dict."""
        out: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.rules.hand_json(),
            "esku": self.esku,
            "score": list(self.score),
            "hands": [None if h is None else [str(c) for c in h] for h in self.hands],
        }
        declared = written_declared(self.declared, self.values)
        if declared:
            out["declared"] = declared
        if self.bets:
            out["bets"] = {k: [a.to_json() for a in v] for k, v in self.bets.items()}
        return out


def parse_hand(obj: Any) -> HandRecord:
    """Validate a `mus-hand/1` dict and replay its betting; `MusError` names the bad field."""
    if not isinstance(obj, dict):
        raise MalformedError("", f"{said(obj, 60)} is not a hand record (a JSON object)", obj)
    if not _KEYS.issuperset(obj):
        key = next(k for k in obj if k not in _KEYS)
        raise MalformedError(str(key), f"{said(key)} is not a key of {FORMAT} ({', '.join(_KEY_ORDER)})", key)
    fmt = obj.get("format", FORMAT)
    if fmt != FORMAT:
        raise MalformedError("format", f"{said(fmt)} is not {said(FORMAT)}", fmt)
    rules = _hand_rules(obj.get("rules"))
    if "esku" not in obj:
        raise MalformedError("esku", '"esku" is missing: the seat that speaks first', None)
    esku = check_esku(obj["esku"])
    score = check_score(obj.get("score", (0, 0)), rules)
    if obj.get("hands") is None:
        raise MalformedError("hands", "missing; a seat whose cards were not shown is null" if "hands" not in obj
                             else "null is not a list of four hands; a seat whose cards were not shown is null", None)
    hands = parse_hands(obj["hands"])
    values = hand_values(hands, rules.kings, rules.real31)
    declared = _parse_declared(obj.get("declared"))
    state = HandState.begin(rules, esku, score)
    bets = _replay(state, declared, _parse_bets(obj.get("bets")), values)
    return HandRecord(rules, esku, score, hands, declared, bets, values, state)


MATCH_RULES = ("games_per_vaca", "vacas_to_win")  # the match's length: a mus-match/1 header's rules only


def _hand_rules(obj: Any) -> Rules:
    """A hand's `rules`: `kings`, `target`, `real31` (HAND-RECORD.md "A hand")."""
    if isinstance(obj, dict):
        for key in MATCH_RULES:
            if key in obj:
                raise MalformedError(f"rules.{key}", f"{said(key)}: {said(obj[key], 40)} belongs in the mus-match/1 "
                                     "header's rules, not a hand's (kings, target, real31)", obj[key])
    return Rules.from_json(obj)


def written_declared(declared: dict[str, tuple[bool | None, ...]] | dict[str, list[bool | None]],
                     values: tuple[HandValue | None, ...]) -> dict[str, list[bool]]:
    """`declared` as a record writes it (HAND-RECORD.md defines no null): a seat's null (no
    declaration recorded) is what its cards hold, as the engine reads it; a list with a null
    for a seat whose cards are not shown is left out (a record the engine settles has none
    in a lance it reached: its lance was not reached, so leaving it out changes nothing)."""
    out = {}
    for claim, holds in declared.items():
        if None not in holds:
            out[claim] = list(holds)
        elif all(h is not None or values[s] is not None for s, h in enumerate(holds)):
            out[claim] = [h if h is not None else _holds(claim, values[s]) for s, h in enumerate(holds)]
    return out


def _holds(claim: str, value: HandValue | None) -> bool:
    assert value is not None
    return bool(value.pares_kind if claim == "pares" else value.juego)


def _parse_declared(obj: Any) -> dict[str, tuple[bool | None, ...]]:
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise MalformedError("declared", f'{said(obj, 60)} is not an object with "pares" and "juego"', obj)
    out = {}
    for key, claims in obj.items():
        if key not in ("pares", "juego"):
            raise MalformedError(f"declared.{key}", f'{said(key)} is not "pares" or "juego"', key)
        if claims is None:
            continue
        if not isinstance(claims, list) or len(claims) != 4:
            raise MalformedError(f"declared.{key}", f"{said(claims, 60)} is not four true/false (one per seat)", claims)
        for s, claim in enumerate(claims):
            if claim is not None and type(claim) is not bool:
                raise MalformedError(f"declared.{key}[{s}]", f"{said(claim)} is not true, false or null", claim)
        out[key] = tuple(claims)
    return out


def _parse_bets(obj: Any) -> dict[str, list[Any]]:
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise MalformedError("bets", f"{said(obj, 60)} is not an object of lances", obj)
    out = {}
    for lance, actions in obj.items():
        if lance not in LANCES:
            raise MalformedError(f"bets.{lance}", f"{said(lance)} is not a lance ({', '.join(LANCES)})", lance)
        if not isinstance(actions, list):
            raise MalformedError(f"bets.{lance}", f"{said(actions, 60)} is not a list of actions", actions)
        if actions:
            out[lance] = actions
    return out


def _declarations(claim: str, declared: dict, values: tuple[HandValue | None, ...]) -> tuple[bool, ...]:
    """What each seat declared: as recorded, else what its cards hold."""
    said = declared.get(claim)
    if said is None and None not in values:  # the usual case: no declarations recorded, all cards shown
        if claim == "pares":
            return tuple([v.pares_kind > 0 for v in values if v is not None])
        return tuple([v.juego > 0 for v in values if v is not None])
    said = said or (None, None, None, None)
    out = []
    for seat in range(4):
        holds = said[seat]
        if holds is None:
            value = values[seat]
            if value is None:
                raise MalformedError(
                    f"declared.{claim}[{seat}]",
                    f"seat {seat}'s {claim} is unknown: no declaration recorded and no cards shown", None,
                    key="claim_unknown", params={"seat": seat, "lance": claim},
                )
            holds = _holds(claim, value)
        out.append(holds)
    return tuple(out)


def _replay(
    state: HandState, declared: dict, bets: dict[str, list[Any]], values: tuple[HandValue | None, ...]
) -> dict[str, tuple[Action, ...]]:
    """Advance `state` by the record's declarations and bets, lance by lance; the bets checked."""
    checked: dict[str, tuple[Action, ...]] = {}
    while state.phase not in ("showdown", "over"):
        phase = state.phase
        if phase.endswith("_declare"):
            state.advance_declaring(_declarations(phase.removesuffix("_declare"), declared, values))
            continue
        actions = bets.get(phase)
        if actions is None:
            state.advance_passing()
            checked[phase] = ()
            continue
        lance: list[Action] = []
        state.refusal = None  # a refusal in an earlier lance is echoed in its own list only
        for i, action in enumerate(actions):
            try:
                lance.append(Action.parse(action, declare=False))
                if state.phase != phase:  # the lance is over: only an echo of the team's refusal may follow
                    if not state.is_echo(lance[-1]):
                        raise state.overturn_error(lance[-1]) or IllegalError(
                            "", f"{said(action, 60)}: the betting of {phase} is over", action,
                            key="lance_over", params={"lance": phase})
                state.advance(lance[-1])
            except MusError as err:
                raise err.under(f"bets.{phase}[{i}]") from None
        checked[phase] = tuple(lance)
        if state.phase == phase:
            raise IllegalError(f"bets.{phase}", f"the betting is unfinished: seat {state.to_speak} to speak", None,
                               key="betting_unfinished", params={"lance": phase, "speaker": state.to_speak})
    for name in bets:
        if name not in checked:
            raise IllegalError(f"bets.{name}", f"{name} is not bet in this hand ({_why_unplayed(state, name)})", name,
                               key="lance_not_bet", params={"lance": name})
    return {name: actions for name, actions in checked.items() if actions}


def _why_unplayed(state: HandState, lance: str) -> str:
    if state.phase == "over":
        return "the hand ended before it"
    for done in state.done:
        if done.name == lance:
            return f"only team {done.team} has {lance}" if done.status == "uncontested" else f"nobody has {lance}"
    return "juego is played instead" if lance == "punto" else "punto is played instead"
