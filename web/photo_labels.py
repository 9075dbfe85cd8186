"""What the annotated copy of a showdown photo says (`scorer.vision.annotate`'s labels).

The table page writes each card at its box as "12o" and each hand by its player's name
(web/static/app.js `renderPhoto`); the annotated copy, the photo the history shows and a
player opens to settle an argument, says the same: the cards the table holds, not what the
reader read. A card a person named over the read is labelled with the read struck
through, then the card named (`("5o", "12o")`): the photo shows which labels the reader
did not give, and what it had said. Names and card codes only: no word of any language,
so that the copy is one for every phone at the table (kept, and served with one ETag).

The cards are placed as the page places them (`fillFromScan`, then `placeOver` with the
table's cards): each card read, in the order read, at the next place of its seat (a card
read twice at its surest read); the boxes found but not read take the places the players
filled where the read left none, in order.
"""

from __future__ import annotations

import json
from typing import Any

Places = list[list[Any]]  # four seats of four places: a card, or None


def _seated(c: dict[str, Any]) -> bool:
    seat = c.get("seat")
    return type(seat) is int and 0 <= seat <= 3


def _conf(c: dict[str, Any]) -> float:
    conf = c.get("conf")
    return 1.0 if conf is None else float(conf)


def places(scan: dict[str, Any]) -> tuple[Places, dict[int, tuple[int, int]]]:
    """The places of a scan's cards as the table page first fills them (`fillFromScan`):
    `(four seats of four places, {index of a card in scan["cards"]: (seat, place)})`."""
    slots: Places = [[None] * 4 for _ in range(4)]
    where: dict[int, tuple[int, int]] = {}
    cards = scan.get("cards") or []
    surest: dict[str, int] = {}
    for k, c in enumerate(cards):
        name = c.get("card")
        if name and _seated(c) and (name not in surest or _conf(c) > _conf(cards[surest[name]])):
            surest[name] = k
    # a seat read with more than four keeps its four surest reads, in the reader's order
    kept: set[int] = set()
    for seat in range(4):
        mine = [k for k, c in enumerate(cards) if _seated(c) and c["seat"] == seat
                and not (c.get("card") and surest[c["card"]] != k)]
        kept.update(sorted(mine, key=lambda k: -_conf(cards[k]))[:4])
    taken: set[Any] = set()
    for k, c in enumerate(cards):
        if k not in kept:  # seated, its card's surest read, among its seat's four surest
            continue
        row, name = slots[c["seat"]], c.get("card")
        if None not in row or name in taken:
            continue
        i = row.index(None)
        row[i] = name
        where[k] = (c["seat"], i)
        taken.add(name)
    hands = scan.get("hands")
    if isinstance(hands, list):  # a scan that names the hands but not every box
        for seat, hand in enumerate(hands[:4]):
            for name in hand or ():
                if name and name not in taken and None in slots[seat]:
                    slots[seat][slots[seat].index(None)] = name
                    taken.add(name)
    return slots, where


def align(read: list[Any], held: list[Any]) -> list[int]:
    """A seat's places as read paired with its places held (the page's `alignRow`): a card
    read with the place holding it in that seat (another photo keeps the cards read before
    where they were, where the photos read together may list them in another order), the
    other places with each other in order. `[the held place of read place j, ...]`."""
    at: list[int | None] = [held.index(card) if card and card in held else None for card in read]
    rest = [i for i in range(len(held)) if i not in at]
    return [rest.pop(0) if i is None else i for i in at]


def _unread(scan: dict[str, Any]) -> list[dict[str, Any]]:
    """The boxes found but not read, as `annotate` draws them (a warning with a box and no card)."""
    return [w for w in scan.get("warnings") or () if w.get("card") is None and w.get("box")]


def _box(box: Any) -> tuple[float, ...]:
    return tuple(float(v) for v in box)


def photo_labels(scans: list[dict[str, Any]], index: int, held: Any, players: list[str]) -> dict[str, list[Any]]:
    """The labels of photo `index` of a showdown's photos (`scans`, read alone, first
    first), the table holding `held` (four seats of four places, a card or None; None: the
    cards as read, nothing corrected) and its seats named `players`: `{"cards": a label per
    card of scans[index]["cards"], "unread": a label per box found but not read, "seats":
    a line per seat}`, `annotate`'s `card_labels`, `unread_labels` and `seat_labels`. A
    label is the card ("12o"), or `[read, held]` where the table holds another card at the
    read's place ("?" for none); a seat's line is "Maite · 12o 5c 1e 7b"."""
    from scorer.vision.layout import combine

    together = scans[0] if len(scans) == 1 else combine(scans)
    read, where = places(together)
    ok = (isinstance(held, list) and len(held) == 4
          and all(row is None or (isinstance(row, list) and len(row) == 4) for row in held)
          and any(card for row in held if row for card in row))  # a hand settled without cards: as read
    hands: Places = [list(row) if row is not None else [None] * 4 for row in held] if ok else read
    # each seat's cards held, at the read's places they pair with (`align`): compared place by place
    held_at: Places = [[hands[s][i] for i in align(read[s], hands[s])] for s in range(4)]
    labels: dict[tuple[str | None, tuple[float, ...]], Any] = {}  # (card read, box) -> label, in photo `index`
    for k, c in enumerate(together.get("cards") or ()):
        if c.get("photo", 0) != index or not c.get("box"):
            continue
        name, label = c.get("card"), c.get("card")
        if k in where:
            s, i = where[k]
            now = held_at[s][i]
            if now != name:
                label = [name, now or "?"]
        labels[name, _box(c["box"])] = label
    # the places the players filled where the read left none: the unread boxes', in order
    filled = [(s, i) for s in range(4) for i in range(4) if held_at[s][i] and not read[s][i]]
    unread: dict[tuple[float, ...], Any] = {}
    for j, w in enumerate(w for w in together.get("warnings") or () if w.get("code") == "low_confidence"
                          and w.get("card") is None and w.get("box")):
        if w.get("photo", 0) == index:
            unread[_box(w["box"])] = held_at[filled[j][0]][filled[j][1]] if j < len(filled) else "?"
    # a card another photo read surer (not in the showdown read together): as the table
    # holds the place of that name
    at = {name: (s, i) for s in range(4) for i, name in enumerate(read[s]) if name}

    def label(c: dict[str, Any]) -> Any:
        name = c.get("card")
        got = labels.get((name, _box(c.get("box") or ())))
        if got is not None:
            return got
        if name not in at:
            return name or "?"
        now = held_at[at[name][0]][at[name][1]]
        return name if now == name else [name, now or "?"]

    scan = scans[index]
    return {
        "cards": [label(c) for c in scan.get("cards") or ()],
        "unread": [unread.get(_box(w["box"]), "?") for w in _unread(scan)],
        "seats": [f"{players[s]} · {' '.join(card or '?' for card in hands[s])}" for s in range(4)],
    }


def key(labels: dict[str, list[Any]]) -> str:
    """The labels as kept with the copy drawn with them (`photos.labels`)."""
    return json.dumps(labels, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def for_annotate(labels: dict[str, list[Any]]) -> dict[str, Any]:
    """`annotate`'s keyword arguments for `labels` (a pair as a tuple: drawn struck through)."""

    def one(label: Any) -> Any:
        return tuple(label) if isinstance(label, list) else label

    return {"card_labels": [one(x) for x in labels["cards"]], "unread_labels": [one(x) for x in labels["unread"]],
            "seat_labels": list(labels["seats"])}
