"""Every lance's value of a four-card hand, precomputed over the 715 rank multisets.

A hand's value depends only on the multiset of its ranks, so each deck mode
(`kings` 8 or 4, `real31`) has a table from a multiset code (the sum of
`5 ** rank_index` over the four cards, unique because a rank appears at most four
times) to a `HandValue`. Every comparison is then one integer comparison: higher wins.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement

from .cards import RANKS, Card
from .errors import IllegalError, MalformedError, MusError, said

PARES_NAMES = ("", "pareja", "medias", "duples")
JUEGO_ORDER = (33, 34, 35, 36, 37, 40, 32, 31)  # worst to best; the real 31 comes above
CODE = {rank: 5**i for i, rank in enumerate(RANKS)}  # rank -> its part of a multiset code


@dataclass(frozen=True, slots=True)
class HandValue:
    """A hand's strength in every lance (higher wins; 0 = no pares / no juego)."""

    grande: int
    chica: int
    pares: int
    pares_kind: int  # 0 none, 1 pareja, 2 medias, 3 duples: also the pares bonus
    points: int
    juego: int

    @property
    def punto(self) -> int:
        """Strength at punto: the total (only meaningful without juego)."""
        return self.points

    @property
    def juego_bonus(self) -> int:
        """Stones for this juego at the count: 3 for a 31, 2 otherwise, 0 without juego."""
        return 0 if not self.juego else 3 if self.points == 31 else 2

    def strength(self, lance: str) -> int:
        """The strength in `lance` (`grande`, `chica`, `pares`, `juego`, `punto`)."""
        return getattr(self, lance)

    def describe(self, lance: str) -> str:
        """The combination in words for a count line: `pareja`, `duples`, `31`, `33`."""
        return PARES_NAMES[self.pares_kind] if lance == "pares" else str(self.points)


def _effective(rank: int, kings: int) -> int:
    """With 8 kings a 3 is a rey and a 2 an as in every lance."""
    if kings == 8:
        return {3: 12, 2: 1}.get(rank, rank)
    return rank


def _value(ranks: Sequence[int], kings: int, real31: bool) -> HandValue:
    eff = [_effective(r, kings) for r in ranks]
    order = sorted((RANKS.index(r) for r in eff), reverse=True)  # 0 (as) .. 9 (rey), high first
    grande = sum(o << (4 * (3 - i)) for i, o in enumerate(order))
    chica = sum((9 - o) << (4 * i) for i, o in enumerate(order))  # lowest card weighs most
    counts = sorted(((n, o) for o, n in Counter(order).items()), reverse=True)
    pairs = sorted((o for n, o in counts for _ in range(n // 2)), reverse=True)
    if counts[0][0] == 3:
        kind, hi, lo = 2, counts[0][1], 0
    elif len(pairs) == 2:
        kind, hi, lo = 3, pairs[0], pairs[1]
    elif len(pairs) == 1:
        kind, hi, lo = 1, pairs[0], 0
    else:
        kind, hi, lo = 0, 0, 0
    pares = (kind << 8 | hi << 4 | lo) if kind else 0
    points = sum(10 if r >= 10 else r for r in eff)
    juego = JUEGO_ORDER.index(points) + 1 if points >= 31 else 0
    if real31 and points == 31 and sorted(ranks) == [7, 7, 7, 10]:
        juego += 1
    return HandValue(grande, chica, pares, kind, points, juego)


@cache
def table(kings: int = 8, real31: bool = False) -> dict[int, HandValue]:
    """Multiset code -> value, for all 715 multisets of four ranks."""
    return {
        sum(CODE[r] for r in combo): _value(combo, kings, real31)
        for combo in combinations_with_replacement(RANKS, 4)
    }


def hand_code(cards: Sequence[Card]) -> int:
    """The multiset code of four cards: their key in `table`."""
    return CODE[cards[0].rank] + CODE[cards[1].rank] + CODE[cards[2].rank] + CODE[cards[3].rank]


def hand_values(hands: Sequence[Sequence[Card] | None], kings: int, real31: bool) -> tuple[HandValue | None, ...]:
    """The value of each hand (`None` for a hand not shown)."""
    tab = table(kings, real31)
    return tuple([None if h is None else tab[CODE[h[0].rank] + CODE[h[1].rank] + CODE[h[2].rank] + CODE[h[3].rank]]
                  for h in hands])


def evaluate(cards: Iterable[Card | str], kings: int = 8, real31: bool = False) -> HandValue:
    """The value in every lance of four cards (`Card`s or their names, `"12o"`).

    `MalformedError` for what is no card or no deck mode, `IllegalError` for other than four
    cards or the same card twice (rank-only cards may repeat)."""
    if type(kings) is not int or kings not in (4, 8):
        raise MalformedError("kings", f"{said(kings, 60)} is not one of [4, 8]", kings)
    if type(real31) is not bool:
        raise MalformedError("real31", f"{said(real31, 60)} is not true or false", real31)
    try:
        hand = tuple(cards) if not isinstance(cards, str) else None
    except TypeError:
        hand = None
    if hand is None:
        raise MalformedError("cards", f"{said(cards, 60)} is not a list of four cards", cards)
    if len(hand) != 4:
        raise IllegalError("cards", f"{len(hand)} cards {said(hand, 60)}: a hand has four", hand)
    if type(hand[0]) is not Card or type(hand[1]) is not Card or type(hand[2]) is not Card \
            or type(hand[3]) is not Card or len(set(hand)) < 4:
        hand = _checked(hand)
    return table(kings, real31)[hand_code(hand)]


def _checked(hand: tuple[Card | str, ...]) -> tuple[Card, ...]:
    """The four cards of `hand` as `Card`s; `MusError` on the first that is no card or is
    a card already given."""
    out: list[Card] = []
    for i, item in enumerate(hand):
        try:
            card = item if type(item) is Card else Card.parse(item)
        except MusError as err:
            raise err.under(f"cards[{i}]") from None
        if card.suit is not None and card in out:
            raise IllegalError(f"cards[{i}]", f"{said(str(card))} is already at cards[{out.index(card)}]: the same card twice",
                               item)
        out.append(card)
    return tuple(out)


def best_seat(values: Sequence[HandValue | None], lance: str, seats: Sequence[int]) -> int | None:
    """The seat among `seats` (in speaking order from esku) whose hand wins `lance`.

    Ties go to the seat closer to esku; `None` when a seat's cards are unknown.
    """
    best, top = None, -1
    for seat in seats:
        value = values[seat]
        if value is None:
            return None
        strength = getattr(value, lance)
        if strength > top:
            best, top = seat, strength
    return best  # None when `seats` is empty
