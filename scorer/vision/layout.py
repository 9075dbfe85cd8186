"""Pure geometry: corners into cards, cards into seats and hands, warnings.

Nothing here runs a model; every function takes plain boxes and names, so the
grouping rules are tested with synthetic boxes.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

Box = tuple[float, float, float, float]

LOW_CONFIDENCE = 0.7  # a card read less sure than this is flagged for a person to confirm
MOVE_CONF = 0.3  # an outvoted read this sure may name a card box with no read
ALT_CONF = 0.05  # a card read as a name already taken may take its next name from this
ORPHAN_CONF = 0.8  # ... or, with no such box, be a card of its own
LOST_CONF = 0.3  # a read outvoted in its box, this sure, is a card of its own in a showdown short of cards
SHOWDOWN_MIN_CARDS = 8
DEAL = 16  # the Mus cards of a showdown: four hands of four
SEAT_NAMES = ("bottom", "right", "top", "left")
TIGHT_COVER = 0.6  # an unsure card whose box lies this much inside a hand-mate's lies in a tight fan
# A showdown with this many unsure reads (cards under LOW_CONFIDENCE and boxes not read) is
# likely a deck the readers never learnt: on the development showdowns of the thirty-third
# session, decks the readers know gave at most 2 (96 photos), an unseen deck 3 to 14 (100).
UNFAMILIAR_DECK = 4


@dataclass(frozen=True)
class Read:
    """A corner read by the classifier."""

    box: Box
    name: str
    conf: float
    alts: tuple[tuple[str, float], ...] = ()  # the next names and their probabilities


@dataclass(frozen=True)
class Card:
    """A card as reported: its name, confidence, box, and the names it was also read as."""

    name: str
    conf: float
    box: Box
    others: tuple[str, ...] = ()
    alts: tuple[tuple[str, float], ...] = ()  # the next names and how sure: other corners' reads, the classifier's


def upright(box: Box) -> bool:
    """True for a box taller than wide (a card of the bottom or top hand)."""
    return (box[3] - box[1]) >= (box[2] - box[0])


def _containment(inner: Box, outer: Box) -> float:
    w = min(inner[2], outer[2]) - max(inner[0], outer[0])
    h = min(inner[3], outer[3]) - max(inner[1], outer[1])
    area = max(1e-9, (inner[2] - inner[0]) * (inner[3] - inner[1]))
    return max(0.0, w) * max(0.0, h) / area


def _corner_distance(inner: Box, outer: Box) -> float:
    """How far a corner patch is from being a corner of the card box `outer`: the
    distance between the patch's and the box's like corners, over the box's longer
    side, at the box corners where a card's indices sit (top-left and bottom-right for
    a card standing, top-right and bottom-left for one lying sideways, either way up)."""
    w, h = outer[2] - outer[0], outer[3] - outer[1]
    if max(w, h) < 1.15 * min(w, h):
        which = ((0, 1), (2, 3), (2, 1), (0, 3))
    elif h > w:
        which = ((0, 1), (2, 3))
    else:
        which = ((2, 1), (0, 3))
    d = min(math.hypot(inner[i] - outer[i], inner[j] - outer[j]) for i, j in which)
    return d / max(1e-9, w, h)


def owner(corner: Box, cards: list[Box]) -> int | None:
    """The index of the card box a corner belongs to: mostly inside it and near one of
    its corners; None if no card box holds it."""
    best, best_score = None, -1e9
    for i, card in enumerate(cards):
        c = _containment(corner, card)
        if c < 0.5:
            continue
        score = c - _corner_distance(corner, card)
        if score > best_score:
            best, best_score = i, score
    return best


def iou(a: Box, b: Box) -> float:
    """Intersection over union."""
    w, h = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    return w * h / (_area(a) + _area(b) - w * h)


def _intersects(a: Box, b: Box) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def group_cards(reads: list[Read], card_boxes: list[Box]) -> tuple[list[Card], list[Box]]:
    """Cards from corner reads: one card per card box (the name read with the most
    confidence there; the same name twice counts once); corners outside every card
    box make cards of their own. Returns the cards and the card boxes with no read."""
    by_box: dict[int, list[Read]] = {}
    orphans: list[Read] = []
    for r in reads:
        i = owner(r.box, card_boxes)
        if i is None:
            orphans.append(r)
        else:
            by_box.setdefault(i, []).append(r)
    # a name outvoted in its box moves to a box with no read that also holds it
    for i in list(by_box):
        winner = _one_card(by_box[i], card_boxes[i]).name
        for r in [r for r in by_box[i] if r.name != winner]:
            free = [k for k in range(len(card_boxes)) if k not in by_box and iou(card_boxes[k], card_boxes[i]) < 0.8]
            j = owner(r.box, [card_boxes[k] for k in free]) if r.conf >= MOVE_CONF else None
            if j is not None:
                by_box[i].remove(r)
                by_box[free[j]] = [r]
            elif r.conf >= ORPHAN_CONF and not _far_end(r.box, by_box[i], winner, card_boxes[i]):
                # a sure read near the winner's end of the box: a neighbour's corner showing
                # over this card's box (fans overlap), not this card's other index
                by_box[i].remove(r)
                orphans.append(r)
    cards: list[Card] = []
    for i, box in enumerate(card_boxes):
        if i in by_box:
            cards.append(_one_card(by_box[i], box))
    # corners outside every card box: the same name where their boxes touch is one card
    groups: list[list[Read]] = []
    for r in sorted(orphans, key=lambda r: -r.conf):
        for g in groups:
            if g[0].name == r.name and any(_near(r.box, o.box) for o in g):
                g.append(r)
                break
        else:
            groups.append([r])
    for g in groups:
        box = g[0].box
        for r in g[1:]:
            box = _union(box, r.box)
        cards.append(Card(g[0].name, max(r.conf for r in g), box, alts=g[0].alts))
    unread = [box for i, box in enumerate(card_boxes) if i not in by_box]
    return _merge_same(cards), unread


def far_apart(a: Box, b: Box, card: Box) -> bool:
    """Whether corners `a` and `b` sit at opposite ends of `card` (their centres more than
    half its longer side apart), as a card's two index corners do."""
    d = math.hypot((a[0] + a[2] - b[0] - b[2]) / 2, (a[1] + a[3] - b[1] - b[3]) / 2)
    return d > 0.5 * max(card[2] - card[0], card[3] - card[1])


def _far_end(corner: Box, reads: list[Read], name: str, card: Box) -> bool:
    """Whether `corner` sits at the far end of `card` from every read of `name` there."""
    return all(far_apart(corner, r.box, card) for r in reads if r.name == name)


def _near(a: Box, b: Box) -> bool:
    side = max(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1])
    grown = (a[0] - 2 * side, a[1] - 2 * side, a[2] + 2 * side, a[3] + 2 * side)
    return _intersects(grown, b)


def _one_card(reads: list[Read], box: Box) -> Card:
    """The card of one card box: the name with the most summed confidence. A name
    contradicted by another read loses the other's confidence."""
    total: dict[str, float] = {}
    best: dict[str, float] = {}
    for r in reads:
        total[r.name] = total.get(r.name, 0.0) + r.conf
        best[r.name] = max(best.get(r.name, 0.0), r.conf)
    ranked = sorted(total, key=lambda n: (-total[n], -best[n]))
    name = ranked[0]
    conf = best[name]
    if len(ranked) > 1:
        conf = conf * total[name] / sum(total.values())
    # the next names: read at the box's other corners, then the classifier's for this one
    nexts = {n: best[n] for n in ranked[1:]}
    for n, p in max((r for r in reads if r.name == name), key=lambda r: r.conf).alts:
        if n != name:
            nexts[n] = max(nexts.get(n, 0.0), p)
    alts = tuple(sorted(nexts.items(), key=lambda t: -t[1]))
    return Card(name, conf, box, tuple(ranked[1:]), alts)


def _merge_same(cards: list[Card]) -> list[Card]:
    """Cards of the same name whose boxes overlap are one card (both its corners read
    in two boxes)."""
    out: list[Card] = []
    for c in sorted(cards, key=lambda c: -c.conf):
        for j, o in enumerate(out):
            if o.name == c.name and _intersects(o.box, c.box):
                big = o.box if _area(o.box) >= _area(c.box) else c.box
                out[j] = Card(o.name, o.conf, big, o.others, o.alts)
                break
        else:
            out.append(c)
    return out


def _area(b: Box) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def unique_names(cards: list[Card], least: float = ALT_CONF) -> list[Card]:
    """A deck has each card once: a name read twice stays with its surer card, and the
    other card takes its next name that no card has, if the classifier gave it at least
    `least`, and keeps its duplicate name otherwise (and the warning)."""
    out = list(cards)
    taken = {c.name for c in cards}
    for i in sorted(range(len(out)), key=lambda i: -out[i].conf):
        c = out[i]
        if not any(o.name == c.name and (o.conf > c.conf or (o.conf == c.conf and j < i))
                   for j, o in enumerate(out) if j != i):
            continue
        for name, p in c.alts:
            if name not in taken and p >= least:
                out[i] = Card(name, p, c.box, (c.name, *c.others), ())
                taken.add(name)
                break
    return out


def recover_lost(cards: list[Card], reads: list[Read], card_boxes: list[Box], n: int = DEAL,
                 least: float = LOST_CONF) -> list[Card]:
    """A showdown short of `n` Mus cards: a corner read at least `least` sure whose name no
    card has was outvoted in a box where two cards lie nearly one on the other, and is a card
    of its own, surest first, in the box of the card it lies in (so in the same seat), at its
    own confidence (under `LOW_CONFIDENCE` it is flagged for a person to confirm). That card's
    read, discounted for the disagreement (`_one_card`), gets back its own confidence."""
    out = list(cards)
    short = n - mus_count(out)
    taken = {c.name for c in out}
    for r in sorted(reads, key=lambda r: -r.conf):
        if short <= 0 or r.conf < least:
            break
        if r.name in taken or not_mus(r.name):
            continue
        i = owner(r.box, card_boxes)
        box = card_boxes[i] if i is not None else r.box
        for j, c in enumerate(out):
            if c.box == box and r.name in c.others:
                own = [x.conf for x in reads if x.name == c.name and owner(x.box, card_boxes) == i]
                out[j] = Card(c.name, max(own, default=c.conf), c.box, tuple(o for o in c.others if o != r.name),
                              tuple(a for a in c.alts if a[0] != r.name))
        out.append(Card(r.name, r.conf, box, (), r.alts))
        taken.add(r.name)
        short -= 1
    return out


def assign_seats(boxes: list[Box], bottom: int = 0) -> list[int]:
    """The seat of each card by its nearest table edge, in the frame of the cards'
    layout: `bottom` at the bottom edge, then counterclockwise (right `bottom`+1, top
    +2, left +3). Cards standing upright lean to top and bottom, cards lying sideways
    to left and right, and no edge takes more than its share (four for 16 cards)."""
    n = len(boxes)
    if n == 0:
        return []
    cx = [(b[0] + b[2]) / 2 for b in boxes]
    cy = [(b[1] + b[3]) / 2 for b in boxes]
    x0, x1, y0, y1 = min(cx), max(cx), min(cy), max(cy)
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    hx, hy = max((x1 - x0) / 2, 1e-9), max((y1 - y0) / 2, 1e-9)
    costs = []
    for i, b in enumerate(boxes):
        u, v = (cx[i] - mx) / hx, (cy[i] - my) / hy
        up = upright(b)
        # nearness to each edge (edge index: 0 bottom, 1 right, 2 top, 3 left), higher is nearer
        near = [v, u, -v, -u]
        bonus = [0.5, 0.0, 0.5, 0.0] if up else [0.0, 0.5, 0.0, 0.5]
        costs.append([near[e] + bonus[e] for e in range(4)])
    cap = max(4, -(-n // 4))
    order = sorted(range(n), key=lambda i: -(sorted(costs[i])[-1] - sorted(costs[i])[-2]))
    taken = [0, 0, 0, 0]
    edge = [0] * n
    for i in order:
        ranked = sorted(range(4), key=lambda e: -costs[i][e])
        # a full edge gives a card up to a close second edge only (a card at a corner)
        edge[i] = next((e for e in ranked if taken[e] < cap and costs[i][e] >= costs[i][ranked[0]] - 0.5),
                       ranked[0])
        taken[edge[i]] += 1
    return [(bottom + e) % 4 for e in edge]


def hand_order(box: Box, edge: int) -> float:
    """Sort key of a card in its hand, left to right as its player sees it."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return (cx, -cy, -cx, cy)[edge]


def is_showdown(cards: list[Card]) -> bool:
    """A layout of hands at the table's edges, not a card or two."""
    return len(cards) >= SHOWDOWN_MIN_CARDS


def not_mus(name: str) -> bool:
    """8s and 9s are not in the Mus deck."""
    return name[:-1] in ("8", "9")


def mus_count(cards: list[Card]) -> int:
    """How many of `cards` are Mus cards (not 8s or 9s)."""
    return sum(not not_mus(c.name) for c in cards)


def maybe_names(card: Card, most: int = 3) -> list[str]:
    """The Mus cards an unsure read may be instead, likeliest first: the names its other
    corners were read as, then the next names of its own read."""
    names = dict.fromkeys([*card.others, *(name for name, _ in card.alts)])
    return [n for n in names if n != card.name and not not_mus(n)][:most]


def warnings_for(
    cards: list[Card], seats: list[int] | None, unread: list[Box] = ()
) -> list[dict]:
    """Duplicates, seats without four cards, low-confidence and unread cards, 8s and 9s."""
    out: list[dict] = []
    for name, k in sorted(Counter(c.name for c in cards).items()):
        if k > 1:
            out.append({"code": "duplicate", "message": f"{name} was read {k} times: one of them is misread",
                        "card": name, "count": k})
    if seats is not None:
        counts = Counter(seats)
        for s in range(4):
            if counts[s] != 4:
                out.append({"code": "seat_count", "message": f"seat {s} has {counts[s]} cards, not 4",
                            "seat": s, "count": counts[s]})
    for c in cards:
        if c.conf < LOW_CONFIDENCE:
            maybe = maybe_names(c)
            also = f" (or {', '.join(maybe)})" if maybe else ""
            out.append({"code": "low_confidence",
                        "message": f"{c.name}{also} read with confidence {c.conf:.2f}: please confirm",
                        "card": c.name, "conf": round(c.conf, 3), "box": [round(v) for v in c.box],
                        "others": maybe})
    for b in unread:
        out.append({"code": "low_confidence", "message": "a card was found but its index could not be read: please check",
                    "card": None, "conf": 0.0, "box": [round(v) for v in b]})
    for c in cards:
        if not_mus(c.name):
            out.append({"code": "not_mus_card", "message": f"{c.name} is not a card of the Mus deck (no 8s or 9s)",
                        "card": c.name, "box": [round(v) for v in c.box]})
    return out


def layout(cards: list[Card], bottom: int = 0, unread: list[Box] = ()) -> dict:
    """The scan result's `cards`, `hands` and `warnings` from the cards read. 8s and
    9s (not in the Mus deck, so not in a hand) get no seat."""
    n = len(cards)
    seats: list[int | None] = [None] * n
    hands = None
    order = sorted(range(n), key=lambda i: ((cards[i].box[1] + cards[i].box[3]) / 2,
                                            (cards[i].box[0] + cards[i].box[2]) / 2))
    mus = [i for i in range(n) if not not_mus(cards[i].name)]
    if is_showdown([cards[i] for i in mus]):
        for i, s in zip(mus, assign_seats([cards[i].box for i in mus], bottom), strict=True):
            seats[i] = s
        key = {i: (seats[i], hand_order(cards[i].box, (seats[i] - bottom) % 4)) for i in mus}
        order = sorted(mus, key=lambda i: key[i]) + [i for i in order if i not in key]
        hands = [[cards[i].name for i in order if seats[i] == s] for s in range(4)]
    out_cards = [
        {"card": cards[i].name, "conf": round(float(cards[i].conf), 3), "box": [round(v) for v in cards[i].box],
         "seat": seats[i]}
        for i in order
    ]
    warnings = warnings_for(cards, [seats[i] for i in mus] if hands else None, list(unread))
    warnings += tight_fans(cards, seats)
    if not cards and not unread:
        warnings.append(no_cards())
    return {"cards": out_cards, "hands": hands, "warnings": warnings + unfamiliar_deck(warnings, hands is not None)}


def no_cards(photos: int = 1) -> dict:
    """The `no_cards` warning: nothing in the photo (or in any of `photos` photos) was
    found to be a card, read or not: no cards, cards face down, or a photo too dark,
    blurred or far to show them."""
    where = "the photo" if photos == 1 else f"any of the {photos} photos"
    return {"code": "no_cards", "message": f"no card was found in {where}: lay the cards face up, each hand "
                                           "spread, and take the photo from above, close enough to fill it"}


def unfamiliar_deck(warnings: list[dict], showdown: bool) -> list[dict]:
    """An `unfamiliar_deck` warning where a showdown has `UNFAMILIAR_DECK` or more unsure
    reads (its `low_confidence` warnings): what a deck the readers never learnt looks like,
    which teaching the deck from four photos of it (the deck page) puts right."""
    n = sum(w.get("code") == "low_confidence" for w in warnings)
    if not showdown or n < UNFAMILIAR_DECK:
        return []
    return [{"code": "unfamiliar_deck", "count": n,
             "message": f"{n} cards were hard to read: if the reader has not learnt this deck, teach it "
                        "from four photos of its cards (the deck page)"}]


def tight_fans(cards: list[Card], seats: list[int | None]) -> list[dict]:
    """A `tight_fan` warning for each seat where an unsure card's box lies mostly
    (`TIGHT_COVER`) inside another card box of its hand: a card that shows little more
    than its numeral, whose suit the photo hardly shows. Most misreads of a deck the reader
    knows are such cards; that hand spread wider, in another photo, reads them."""
    out = []
    for s in range(4):
        hand = [c for c, seat in zip(cards, seats, strict=True) if seat == s]
        covered = [c.name for c in hand if c.conf < LOW_CONFIDENCE
                   and any(_containment(c.box, o.box) >= TIGHT_COVER for o in hand if o is not c)]
        if covered:
            out.append({"code": "tight_fan", "seat": s, "cards": covered,
                        "message": f"seat {s}: {', '.join(covered)} mostly covered by the next card: "
                                   "spread that hand and add a photo"})
    return out


def combine(scans: list[dict]) -> dict:
    """Several photos of one showdown, read alone (`scan` results, the same `bottom`), as
    one: each name at its surest read and that read's seat; a seat left with more than
    four cards loses its unsure reads, least sure first, down to four (another photo
    read that card better under its own name). Each card keeps its `box` in the photo
    it was read in, named by `photo` (the index into `scans`). A seat named with more
    than four cards over the photos means a card read two ways: a `photos_disagree`
    warning names the cards not every photo put there, even where dropping an unsure
    read left four (the surer read may be the wrong one). Unread boxes are reported only
    while the combined showdown is short of a deal."""
    best: dict[str, tuple[dict, int]] = {}
    others: dict[tuple[int, str], list[str]] = {}
    unread: list[dict] = []
    for k, scan in enumerate(scans):
        for w in scan.get("warnings", []):
            if w.get("code") == "low_confidence" and w.get("card"):
                others[k, w["card"]] = list(w.get("others") or [])
            elif w.get("code") == "low_confidence":
                unread.append({**w, "photo": k})
        for c in scan.get("cards", []):
            seated = c.get("seat") is not None
            if c["card"] not in best or (seated, c["conf"]) > (best[c["card"]][0].get("seat") is not None,
                                                               best[c["card"]][0]["conf"]):
                best[c["card"]] = (c, k)
    by_seat = Counter(c.get("seat") for c, _ in best.values() if c.get("seat") is not None)
    for name, (c, _) in sorted(best.items(), key=lambda t: t[1][0]["conf"]):
        seat = c.get("seat")
        if seat is not None and by_seat[seat] > 4 and c["conf"] < LOW_CONFIDENCE:
            del best[name]
            by_seat[seat] -= 1
    first: dict[str, int] = {}  # hand order: as the first photo that seated the name lists it
    for scan in scans:
        for i, name in enumerate(n for hand in scan.get("hands") or [] for n in hand):
            first.setdefault(name, i)
    order = sorted(best, key=lambda n: (best[n][0].get("seat") is None, best[n][0].get("seat") or 0,
                                        first.get(n, len(first)), n))
    cards = [Card(n, best[n][0]["conf"], tuple(best[n][0]["box"]), tuple(others.get((best[n][1], n), ())))
             for n in order]
    seats = [best[n][0].get("seat") for n in order]
    mus = [i for i, c in enumerate(cards) if not not_mus(c.name)]
    showdown = any(s is not None for s in seats)
    hands = [[cards[i].name for i in mus if seats[i] == s] for s in range(4)] if showdown else None
    warnings = warnings_for(cards, [seats[i] for i in mus] if showdown else None)
    for w in warnings:
        if "box" in w and w.get("card") in best:
            w["photo"] = best[w["card"]][1]
    disputed: set[str] = set()  # a seat named with more than four cards over the photos
    for seat in range(4):
        named = [{c["card"] for c in scan.get("cards", []) if c.get("seat") == seat and not not_mus(c["card"])}
                 for scan in scans if scan.get("hands")]
        if named and len(set.union(*named)) > 4:
            disputed |= set.union(*named) - set.intersection(*named)
    if disputed:
        names = sorted(disputed, key=lambda n: (n[-1], int(n[:-1])))
        warnings.append({"code": "photos_disagree", "message": f"the photos disagree on {', '.join(names)}: "
                         "please confirm", "cards": names})
    for k, scan in enumerate(scans):  # a card still unsure, read in a photo where its hand lay tight
        for w in scan.get("warnings", []):
            if w.get("code") == "tight_fan":
                names = [n for n in w.get("cards", []) if n in best and best[n][1] == k
                         and best[n][0]["conf"] < LOW_CONFIDENCE]
                if names:
                    warnings.append({**w, "cards": names, "photo": k})
    if hands is None or sum(map(len, hands)) < DEAL:
        warnings += unread
    if not best and not unread and scans:
        warnings.append(no_cards(len(scans)))
    warnings += unfamiliar_deck(warnings, showdown)
    out_cards = [{"card": n, "conf": best[n][0]["conf"], "box": list(best[n][0]["box"]), "seat": s,
                  "photo": best[n][1]} for n, s in zip(order, seats, strict=True)]
    return {"cards": out_cards, "hands": hands, "warnings": warnings, "photos": len(scans)}
