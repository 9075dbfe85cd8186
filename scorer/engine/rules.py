"""Table rules: deck mode, target and match length."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .errors import IllegalError, MalformedError, said

_CHOICES = {"kings": (4, 8), "target": (30, 40), "games_per_vaca": (1, 2, 3)}


@dataclass(frozen=True, slots=True)
class Rules:
    """The rules a table plays by (RULES.md); defaults are the engine's defaults."""

    kings: int = 8
    target: int = 40
    real31: bool = False
    games_per_vaca: int = 1
    vacas_to_win: int = 3

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if type(value) is not int or value not in allowed:
                raise MalformedError(f"rules.{name}", f"{said(value)} is not one of {list(allowed)}", value)
        if type(self.real31) is not bool:
            raise MalformedError("rules.real31", f"{said(self.real31)} is not true or false", self.real31)
        v = self.vacas_to_win
        if type(v) is not int or not 1 <= v <= 9:
            raise MalformedError("rules.vacas_to_win", f"{said(v)} is not a whole number from 1 to 9", v)

    @classmethod
    def from_json(cls, obj: Any = None) -> Rules:
        """Rules from a JSON object; `None` (or a missing key) takes the default."""
        if obj is None:
            return DEFAULT_RULES
        if not isinstance(obj, dict):
            raise MalformedError("rules", f"{said(obj)} is not an object", obj)
        typed = tuple((k, type(v), v) for k, v in obj.items())  # typed: 8.0 and True are no 8 and 1
        try:
            return _KNOWN[typed]
        except (KeyError, TypeError):  # not seen yet, or an unhashable value
            pass
        for key in obj:
            if key not in _FIELDS:
                raise MalformedError(f"rules.{key}", f"{said(key)} is not a rule (known: {', '.join(_FIELDS)})", key)
        rules = cls(**obj)
        if len(_KNOWN) < 64:
            _KNOWN[typed] = rules
        return rules

    def to_json(self) -> dict[str, Any]:
        """All the rules as a JSON object (a table's or a `mus-match/1` header's)."""
        return asdict(self)

    def hand_json(self) -> dict[str, Any]:
        """The rules a `mus-hand/1` record carries: `kings`, `target` and `real31`
        (HAND-RECORD.md "A hand"; the match's length belongs to its header)."""
        return {"kings": self.kings, "target": self.target, "real31": self.real31}


_FIELDS = tuple(Rules.__dataclass_fields__)
DEFAULT_RULES = Rules()
_KNOWN: dict[tuple, Rules] = {(): DEFAULT_RULES}  # rules objects already checked, by their JSON items


def check_esku(esku: Any) -> int:
    """The esku seat, 0..3."""
    if type(esku) is not int or not 0 <= esku <= 3:
        raise MalformedError("esku", f"{said(esku)} is not a seat 0..3", esku)
    return esku


def check_score(score: Any, rules: Rules) -> tuple[int, int]:
    """A game score before a hand: two stone counts below the target."""
    if not isinstance(score, list | tuple) or len(score) != 2:
        raise MalformedError("score", f"{said(score)} is not a pair of stone counts [team 0, team 1]", score)
    for i, stones in enumerate(score):
        if type(stones) is not int or stones < 0:
            raise MalformedError(f"score[{i}]", f"{said(stones)} is not a number of stones", stones)
        if stones >= rules.target:
            raise IllegalError(f"score[{i}]", f"{said(stones)}: the game is already won (target {rules.target})", stones)
    return score[0], score[1]
