"""Cards of the 40-card Spanish deck in HAND-RECORD notation (`"12o"`, or rank only `"12"`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import IllegalError, MalformedError, MusError, said

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
            raise MalformedError("rank", f"{said(self.rank)} is not a rank of the Mus deck {list(RANKS)}", self.rank)
        if self.suit is not None and self.suit not in SUITS:
            raise MalformedError("suit", f"{said(self.suit)} is not a suit (o, c, e, b)", self.suit)

    @staticmethod
    def parse(text: Any) -> Card:
        """The card written `text` (`"12o"`, `"3c"`, `"7"`); `MalformedError` otherwise."""
        try:
            return BY_TEXT[text]
        except (KeyError, TypeError):
            raise _not_a_card(text) from None

    def __str__(self) -> str:
        return f"{self.rank}{self.suit or ''}"

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def _order(self) -> tuple[int, int]:
        """How cards sort: by rank (1 .. 12), then suit (o, c, e, b), a rank-only card first."""
        return self.rank, -1 if self.suit is None else SUITS.index(self.suit)

    def __lt__(self, other: Card) -> bool:
        return self._order() < other._order() if type(other) is Card else NotImplemented

    def __le__(self, other: Card) -> bool:
        return self._order() <= other._order() if type(other) is Card else NotImplemented

    def __gt__(self, other: Card) -> bool:
        return self._order() > other._order() if type(other) is Card else NotImplemented

    def __ge__(self, other: Card) -> bool:
        return self._order() >= other._order() if type(other) is Card else NotImplemented


def _not_a_card(text: Any) -> MalformedError:
    why = {"key": "not_a_card", "params": {"text": text if isinstance(text, str) else said(text, 40)}}
    if not isinstance(text, str):
        return MalformedError("", f'{said(text)} is not a card (a card is a string such as "12o")', text, **why)
    if text[:1] in ("8", "9") and text[1:] in ("", *SUITS):
        return MalformedError("", f"{said(text)} is not a card of the Mus deck (no 8s or 9s)", text, **why)
    return MalformedError("", f"{said(text)} is not a card (rank 1-7, 10, 11, 12 then o, c, e or b)", text, **why)


DECK: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in RANKS)
BY_TEXT: dict[str, Card] = {str(c): c for c in DECK} | {str(r): Card(r) for r in RANKS}  # every card written
_RANK_ONLY = frozenset(str(r) for r in RANKS)


Hand = tuple[Card, Card, Card, Card]


def parse_hands(obj: Any) -> tuple[Hand | None, ...]:
    """The four hands of a record (`None` for a seat not shown); `MusError` names the bad card."""
    if obj is None:
        return (None, None, None, None)
    if not isinstance(obj, list) or len(obj) != 4:
        raise MalformedError("hands", f"{said(obj, 60)} is not a list of four hands (one per seat)", obj)
    hands: list[Hand | None] = []
    dealt: list[str] = []
    for s, cards in enumerate(obj):
        if cards is None:
            hands.append(None)
            continue
        if not isinstance(cards, list):
            raise MalformedError(f"hands[{s}]", f"{said(cards, 60)} is not a list of four cards", cards)
        if len(cards) != 4:
            raise IllegalError(f"hands[{s}]", f"{len(cards)} cards {said(cards, 60)}: a hand has four", cards,
                               key="hand_of_four", params={"seat": s, "count": len(cards)})
        try:
            hands.append((BY_TEXT[cards[0]], BY_TEXT[cards[1]], BY_TEXT[cards[2]], BY_TEXT[cards[3]]))
        except (KeyError, TypeError):
            for i, text in enumerate(cards):
                try:
                    Card.parse(text)
                except MusError as err:
                    raise err.under(f"hands[{s}][{i}]") from None
        dealt += cards
    if len(set(dealt)) < len(dealt) or not _RANK_ONLY.isdisjoint(dealt):
        _check_duplicates(obj)
    return tuple(hands)


def _check_duplicates(obj: list[list[str] | None]) -> None:
    """Refuse the same card twice, or a fifth card of a rank (rank-only cards may repeat)."""
    seen: dict[str, str] = {}
    per_rank: dict[int, int] = {}
    for s, cards in enumerate(obj):
        for i, text in enumerate(cards or ()):
            where, card = f"hands[{s}][{i}]", BY_TEXT[text]
            if card.suit is not None:
                if text in seen:
                    raise IllegalError(where, f"{said(text)} is already dealt at {seen[text]}: the same card twice", text,
                                       key="card_twice", params={"card": text})
                seen[text] = where
            per_rank[card.rank] = count = per_rank.get(card.rank, 0) + 1
            if count > 4:
                raise IllegalError(where, f"{said(text)} is a fifth card of rank {card.rank} (the deck has four)", text,
                                   key="fifth_of_rank", params={"card": text, "rank": card.rank})
