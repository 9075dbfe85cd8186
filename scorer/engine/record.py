"""Hand records (`mus-hand/1`): parsing, validation, and the replay of what was said."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .betting import LANCES, HandState
from .cards import _BY_TEXT, Card
from .errors import IllegalError, MalformedError, MusError
from .evaluate import CODE, HandValue, table
from .rules import Rules

FORMAT = "mus-hand/1"
_KEYS = ("format", "rules", "esku", "score", "hands", "declared", "bets")

Hand = tuple[Card, Card, Card, Card]


@dataclass(frozen=True, slots=True)
class HandRecord:
    """A validated hand record; `state` is what was said, replayed up to the showdown."""

    rules: Rules
    esku: int
    score: tuple[int, int]
    hands: tuple[Hand | None, ...]
    declared: dict[str, tuple[bool | None, ...]]
    bets: dict[str, tuple[dict[str, Any], ...]]
    values: tuple[HandValue | None, ...] = field(compare=False, repr=False)
    state: HandState = field(compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The record as a `mus-hand/1` dict."""
        out: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.rules.to_json(),
            "esku": self.esku,
            "score": list(self.score),
            "hands": [None if h is None else [str(c) for c in h] for h in self.hands],
        }
        if self.declared:
            out["declared"] = {k: list(v) for k, v in self.declared.items()}
        if self.bets:
            out["bets"] = {k: [dict(a) for a in v] for k, v in self.bets.items()}
        return out


def check_esku(esku: Any) -> int:
    """The esku seat, 0 to 3."""
    if type(esku) is not int or not 0 <= esku <= 3:
        raise MalformedError("esku", f"{esku!r} is not a seat (0 to 3)", esku)
    return esku


def check_score(score: Any, rules: Rules) -> tuple[int, int]:
    """A game score before a hand: two stone counts below the target."""
    if not isinstance(score, list | tuple) or len(score) != 2:
        raise MalformedError("score", f"{score!r} is not a pair of stone counts [team 0, team 1]", score)
    for i, stones in enumerate(score):
        if type(stones) is not int or stones < 0:
            raise MalformedError(f"score[{i}]", f"{stones!r} is not a number of stones", stones)
        if stones >= rules.target:
            raise IllegalError(f"score[{i}]", f"{stones!r}: the game is already won (target {rules.target})", stones)
    return score[0], score[1]


def parse_hand(obj: Any) -> HandRecord:
    """Validate a `mus-hand/1` dict and replay its betting; `MusError` names the bad field."""
    if not isinstance(obj, dict):
        raise MalformedError("", f"{_short(obj)} is not a hand record (a JSON object)", obj)
    for key in obj:
        if key not in _KEYS:
            raise MalformedError(str(key), f"{key!r} is not a key of {FORMAT} ({', '.join(_KEYS)})", key)
    fmt = obj.get("format", FORMAT)
    if fmt != FORMAT:
        raise MalformedError("format", f"{fmt!r} is not {FORMAT!r}", fmt)
    rules = Rules.from_json(obj.get("rules"))
    esku = check_esku(obj.get("esku", 0) if "esku" in obj else _missing("esku"))
    score = check_score(obj.get("score", (0, 0)), rules)
    hands = _parse_hands(obj.get("hands"))
    codes = table(rules.kings, rules.real31)
    values = tuple([None if h is None else codes[CODE[h[0].rank] + CODE[h[1].rank] + CODE[h[2].rank] + CODE[h[3].rank]]
                    for h in hands])
    declared = _parse_declared(obj.get("declared"))
    bets = _parse_bets(obj.get("bets"))
    state = _replay(HandState.begin(rules, esku, score), declared, bets, values)
    return HandRecord(rules, esku, score, hands, declared, bets, values, state)


def _missing(key: str) -> None:
    raise MalformedError(key, f"{key!r} is missing", None)


def _short(obj: Any) -> str:
    text = repr(obj)
    return text if len(text) <= 60 else text[:57] + "..."


def _parse_hands(obj: Any) -> tuple[Hand | None, ...]:
    if obj is None:
        return (None, None, None, None)
    if not isinstance(obj, list) or len(obj) != 4:
        raise MalformedError("hands", f"{_short(obj)} is not a list of four hands (one per seat)", obj)
    hands: list[Hand | None] = []
    dealt: list[str] = []
    for s, cards in enumerate(obj):
        if cards is None:
            hands.append(None)
            continue
        if not isinstance(cards, list):
            raise MalformedError(f"hands[{s}]", f"{_short(cards)} is not a list of four cards", cards)
        if len(cards) != 4:
            raise IllegalError(f"hands[{s}]", f"{len(cards)} cards {_short(cards)}: a hand has four", cards)
        try:
            hands.append((_BY_TEXT[cards[0]], _BY_TEXT[cards[1]], _BY_TEXT[cards[2]], _BY_TEXT[cards[3]]))
        except (KeyError, TypeError):
            for i, text in enumerate(cards):
                try:
                    Card.parse(text)
                except MusError as err:
                    raise err.under(f"hands[{s}][{i}]") from None
        dealt += cards
    if len(set(dealt)) < len(dealt):
        _check_duplicates(obj)
    return tuple(hands)


def _check_duplicates(obj: list[list[str] | None]) -> None:
    """Refuse the same card twice, or a fifth card of a rank (rank-only cards may repeat)."""
    seen: dict[str, str] = {}
    per_rank: dict[int, int] = {}
    for s, cards in enumerate(obj):
        for i, text in enumerate(cards or ()):
            where, card = f"hands[{s}][{i}]", _BY_TEXT[text]
            if card.suit is not None:
                if text in seen:
                    raise IllegalError(where, f"{text!r} is already dealt at {seen[text]}: the same card twice", text)
                seen[text] = where
            per_rank[card.rank] = count = per_rank.get(card.rank, 0) + 1
            if count > 4:
                raise IllegalError(where, f"{text!r} is a fifth card of rank {card.rank} (the deck has four)", text)


def _parse_declared(obj: Any) -> dict[str, tuple[bool | None, ...]]:
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise MalformedError("declared", f"{_short(obj)} is not an object with 'pares' and 'juego'", obj)
    out = {}
    for key, claims in obj.items():
        if key not in ("pares", "juego"):
            raise MalformedError(f"declared.{key}", f"{key!r} is not 'pares' or 'juego'", key)
        if claims is None:
            continue
        if not isinstance(claims, list) or len(claims) != 4:
            raise MalformedError(f"declared.{key}", f"{_short(claims)} is not four true/false (one per seat)", claims)
        for s, claim in enumerate(claims):
            if claim is not None and type(claim) is not bool:
                raise MalformedError(f"declared.{key}[{s}]", f"{claim!r} is not true, false or null", claim)
        out[key] = tuple(claims)
    return out


def _parse_bets(obj: Any) -> dict[str, tuple[dict[str, Any], ...]]:
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise MalformedError("bets", f"{_short(obj)} is not an object of lances", obj)
    out = {}
    for lance, actions in obj.items():
        if lance not in LANCES:
            raise MalformedError(f"bets.{lance}", f"{lance!r} is not a lance ({', '.join(LANCES)})", lance)
        if not isinstance(actions, list):
            raise MalformedError(f"bets.{lance}", f"{_short(actions)} is not a list of actions", actions)
        if actions:
            out[lance] = tuple(actions)
    return out


def _declarations(claim: str, declared: dict, values: tuple[HandValue | None, ...]) -> tuple[bool, ...]:
    """What each seat declared: as recorded, else what its cards hold."""
    said = declared.get(claim)
    if said is None and None not in values:
        return tuple([bool(v.pares_kind if claim == "pares" else v.juego) for v in values if v is not None])
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
                )
            holds = bool(value.pares_kind if claim == "pares" else value.juego)
        out.append(holds)
    return tuple(out)


def _replay(state: HandState, declared: dict, bets: dict, values: tuple[HandValue | None, ...]) -> HandState:
    """Feed the record's declarations and bets, lance by lance, to the betting machine."""
    played = set()
    while state.phase not in ("showdown", "over"):
        phase = state.phase
        if phase.endswith("_declare"):
            state = state.declare_all(_declarations(phase.removesuffix("_declare"), declared, values))
            continue
        played.add(phase)
        actions = bets.get(phase)
        if actions is None:
            state = state.all_pass()
            continue
        for i, action in enumerate(actions):
            if state.phase != phase:
                raise IllegalError(f"bets.{phase}[{i}]", f"{_short(action)}: the betting of {phase} is over", action)
            try:
                state = state.act(action)
            except MusError as err:
                raise err.under(f"bets.{phase}[{i}]") from None
        if state.phase == phase:
            raise IllegalError(f"bets.{phase}", f"the betting is unfinished: seat {state.to_speak} to speak", None)
    for lance in bets:
        if lance not in played:
            raise IllegalError(f"bets.{lance}", f"{lance} is not bet in this hand ({_why_unplayed(state, lance)})", lance)
    return state


def _why_unplayed(state: HandState, lance: str) -> str:
    if state.phase == "over":
        return "the hand ended before it"
    for done in state.done:
        if done.name == lance:
            return f"only team {done.team} has {lance}" if done.status == "uncontested" else f"nobody has {lance}"
    return "juego is played instead" if lance == "punto" else "punto is played instead"
