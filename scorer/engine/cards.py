"""Cards of the 40-card Spanish deck in HAND-RECORD notation (`"12o"`, or rank only `"12"`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import MalformedError

RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
SUITS = ("o", "c", "e", "b")  # oros, copas, espadas, bastos
SUIT_NAMES = {"o": "oros", "c": "copas", "e": "espadas", "b": "bastos"}


@dataclass(frozen=True, slots=True)
class Card:
    """One card; `suit` is `None` when only the rank is known."""

    rank: int
    suit: str | None = None

    def __post_init__(self) -> None:
        if type(self.rank) is not int or self.rank not in RANKS:
            raise MalformedError("rank", f"{self.rank!r} is not a rank of the Mus deck {list(RANKS)}", self.rank)
        if self.suit is not None and self.suit not in SUITS:
            raise MalformedError("suit", f"{self.suit!r} is not a suit (o, c, e, b)", self.suit)

    @staticmethod
    def parse(text: Any) -> Card:
        """The card written `text` (`"12o"`, `"3c"`, `"7"`); `MalformedError` otherwise."""
        try:
            return _BY_TEXT[text]
        except (KeyError, TypeError):
            raise _not_a_card(text) from None

    def __str__(self) -> str:
        return f"{self.rank}{self.suit or ''}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


def _not_a_card(text: Any) -> MalformedError:
    if not isinstance(text, str):
        return MalformedError("", f"{text!r} is not a card (a card is a string such as '12o')", text)
    if text[:1] in ("8", "9") and text[1:] in ("", *SUITS):
        return MalformedError("", f"{text!r} is not a card of the Mus deck (no 8s or 9s)", text)
    return MalformedError("", f"{text!r} is not a card (rank 1-7, 10, 11, 12 then o, c, e or b)", text)


DECK: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in RANKS)
_BY_TEXT: dict[str, Card] = {str(c): c for c in DECK} | {str(r): Card(r) for r in RANKS}
