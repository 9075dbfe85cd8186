"""Settlement of a hand (`mus-settlement/1`): dejes as they happened, then the count, and disputes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from .betting import Done, deje_events
from .errors import MalformedError
from .evaluate import best_seat
from .record import HandRecord, parse_hand

SETTLEMENT = "mus-settlement/1"


def settle(obj: dict[str, Any] | HandRecord) -> dict[str, Any]:
    """Settle a `mus-hand/1` dict, or the `HandRecord` `parse_hand` made of one (already
    checked), into a `mus-settlement/1` dict; `MusError` on bad input."""
    return settlement(obj if isinstance(obj, HandRecord) else parse_hand(obj))


@dataclass(frozen=True, slots=True)
class Ruling:
    """How a contradicted declaration changes a lance's count."""

    annul: bool = False  # the lance's bets and count are replaced by `team` scoring `tira` (+ `bonus`)
    team: int | None = None  # the team the rule pays
    tira: int = 0  # stones "of the tira" (and of the punto) paid to `team`
    bonus: bool = False  # with `annul`: `team` also counts its own combinations
    cause: str = ""  # for the events: "false pares of seat 0 (seed 004 art. 13a)"


class _Found(NamedTuple):
    """A declaration the cards contradict, and what its article does."""

    seat: int
    said: bool
    cards: bool
    rule: str
    annul: bool
    tira: int
    bonus: bool
    effect: str


class _Count:
    """The running count of one hand: score, events, and whether the game is won."""

    def __init__(self, rec: HandRecord) -> None:
        st = rec.state
        self.st, self.values = st, rec.values
        self.target = rec.rules.target
        self.score = list(st.score)
        self.events = deje_events(st)
        self.winner = None if st.phase != "over" or st.ordago else 0 if self.score[0] >= self.target else 1
        self.ordago = st.ordago  # the lance of an accepted órdago that decides the game (None once annulled)
        self.disputes: list[dict[str, Any]] = []
        self.shown: dict[str, tuple[bool | None, ...]] = {}  # claim -> what each seat's cards hold (None: unknown)
        self.holding: dict[str, tuple[int, ...]] = {}  # claim -> seats that declared it and, if shown, hold it
        values = self.values
        for claim, declared in (("pares", st.pares), ("juego", st.juego)):
            if declared is None:
                continue
            if claim == "pares":
                shown = tuple([None if v is None else v.pares_kind > 0 for v in values])
            else:
                shown = tuple([None if v is None else v.juego > 0 for v in values])
            self.shown[claim] = shown
            self.holding[claim] = tuple([s for s in st.order if declared[s] and shown[s] is not False])

    def add(self, lance: str, team: int, stones: int, why: str) -> int:
        """Count `stones` for `team` unless the game is already won; the stones counted."""
        if self.winner is not None or stones <= 0:
            return 0
        self.score[team] += stones
        self.events.append({"lance": lance, "team": team, "stones": stones, "why": why, "score": list(self.score)})
        if self.score[team] >= self.target:
            self.winner = team
        return stones

    def holders(self, claim: str, team: int, out: frozenset[int] = frozenset()) -> list[int]:
        """The seats of `team` (speaking order) that declared `claim` and whose cards, if shown,
        hold it, less the seats `out` of the lance."""
        return [s for s in self.holding[claim] if s % 2 == team and s not in out]

    def bonus(self, claim: str, team: int, out: frozenset[int] = frozenset()) -> tuple[int, str] | None:
        """The combinations `team` counts in `claim` (less those of seats `out` of the lance),
        in stones and words; `None` if cards are missing."""
        stones, words = 0, []
        for seat in self.holders(claim, team, out):
            value = self.values[seat]
            if value is None:
                return None
            stones += value.pares_kind if claim == "pares" else value.juego_bonus
            words.append(f"seat {seat} {value.describe(claim)}")
        return stones, ", ".join(words)

    def best(self, lance: str, out: frozenset[int] = frozenset()) -> int | None:
        """The seat whose cards win `lance` among those taking part and not `out` of it (a
        seat that refused a bet gives up the lance, RULES.md "Betting inside a lance"; `None`
        if unknown or nobody)."""
        seats = self.holding.get(lance, self.st.order)
        return best_seat(self.values, lance, tuple([s for s in seats if s not in out]))


def settlement(rec: HandRecord) -> dict[str, Any]:
    """The settlement of a validated record."""
    st = rec.state
    c = _Count(rec)
    found = {claim: _contradictions(c, claim) for claim in c.shown}
    rulings = _rulings(c, found)
    _flag_bets_for_partner(c)
    lances: dict[str, dict[str, Any]] = {}
    for done in st.done:
        lances[done.name] = _count_lance(c, done, rulings)
    (a, b), edge, winner = c.score, c.target - 5, c.winner
    return {
        "format": SETTLEMENT,
        "score": c.score,
        "game_over": winner is not None,
        "winner": winner,
        "ordago": c.ordago is not None,
        "lances": lances,
        "events": c.events,
        "amarrakos": [[a // 5, a % 5], [b // 5, b % 5]],
        "adentro": [a >= edge and winner != 0, b >= edge and winner != 1],
        "disputes": c.disputes,
    }


def _count_lance(c: _Count, done: Done, rulings: dict[str, Ruling]) -> dict[str, Any]:
    lance = done.name
    # a seat that refused gives up the lance: out of an accepted bet's showdown (a refused
    # lance's `best` still names whose cards were best, for the record)
    best = c.best(lance, done.out if done.status == "accepted" else frozenset())
    deje = done.stake if done.status == "refused" else 0
    entry = {"best": best, "team": done.team if deje else None, "status": done.status, "stake": done.stake,
             "stones": deje}
    if c.ordago is not None:
        if c.ordago == lance:
            _count_ordago(c, done, best, entry)
        return entry
    claim = "juego" if lance == "punto" else lance
    ruling = rulings.get(claim)
    if ruling is not None and ruling.annul:
        team = ruling.team
        assert team is not None
        bonus = c.bonus(claim, team) if ruling.bonus else (0, "")
        if bonus is None:
            return entry
        parts = [f"tira {ruling.tira}"] if ruling.tira else []
        parts += [bonus[1]] if bonus[1] else []
        stake = 0 if done.status == "accepted" else done.stake
        gained = c.add(lance, team, ruling.tira + bonus[0], f"{ruling.cause}: {', '.join(parts)}")
        return entry | {"team": team if gained else entry["team"], "stake": stake, "stones": deje + gained}
    line = _line(c, done, best)
    if line is not None:
        team, stones, why = line
        gained = c.add(lance, team, stones, why)
        if gained:
            entry.update(team=team, stones=deje + gained)
    if ruling is not None and ruling.team is not None and ruling.tira:
        gained = c.add(lance, ruling.team, ruling.tira, f"{ruling.cause}: tira {ruling.tira}")
        if gained:
            entry.update(team=ruling.team, stones=entry["stones"] + gained)
    return entry


def _line(c: _Count, done: Done, best: int | None) -> tuple[int, int, str] | None:
    """The count of a lance without disputes: (team, stones, why), or `None`."""
    lance, status = done.name, done.status
    if lance in ("pares", "juego"):
        if status == "not_played":
            return None
        team = done.team if status in ("refused", "uncontested") else None if best is None else best % 2
        if team is None:
            return None
        bonus = c.bonus(lance, team, done.out)
        if bonus is None:
            return None
        stones, words = bonus
        if status == "refused":
            return team, stones, f"bonus after refused bet: {words}"
        if status == "uncontested":
            return team, stones, f"only team {team} has {lance}: {words}"
        if status == "accepted":
            return team, done.stake + stones, f"{', '.join(done.chain)}, accepted; best {lance} seat {best}; bonus: {words}"
        return team, stones, f"all passed; best {lance} seat {best}; bonus: {words}"
    if status == "refused":
        return (done.team, 1, "punto after refused bet: 1") if lance == "punto" and done.team is not None else None
    if best is None:
        return None
    if status == "accepted":
        extra = 1 if lance == "punto" else 0
        why = f"{', '.join(done.chain)}, accepted; best {lance} seat {best}" + ("; punto 1" * extra)
        return best % 2, done.stake + extra, why
    return best % 2, 1, f"all passed; best {lance} seat {best}"


def _count_ordago(c: _Count, done: Done, best: int | None, entry: dict[str, Any]) -> None:
    """An accepted órdago: the team that wins the lance wins the game."""
    if best is None:
        seats = c.holding.get("juego" if done.name == "punto" else done.name, c.st.order)
        if any(c.values[s] is None for s in seats if s not in done.out):
            raise MalformedError("hands", f"the cards are needed to decide the ordago accepted in {done.name}", None,
                                 key="cards_needed", params={"lance": done.name})
        return  # no seat of the lance holds what it declared: nobody wins the órdago
    team = best % 2
    stones = c.target - c.score[team]
    c.add(done.name, team, stones, f"{', '.join(done.chain)}, accepted; best {done.name} seat {best} wins the game")
    entry.update(team=team, stake=stones, stones=stones)


# (claim, what the seat declared, its partner has the claim, an opponent has it)
#   -> (rule, annul the lance, tira paid to the opponents, opponents count their combinations, effect)
_RULES: dict[tuple[str, bool, bool, bool], tuple[str, bool, int, bool, str]] = {
    # false "pares": seed 004 art. 13 (the federation's rules say nothing)
    ("pares", True, False, True): ("seed 004 art. 13a", True, 0, True,
                                   "bets on pares annulled; the opponents count their pares"),
    ("pares", True, False, False): ("seed 004 art. 13a", True, 0, True,
                                    "bets on pares annulled; the opponents count their pares"),
    ("pares", True, True, True): ("seed 004 art. 13b", True, 1, True,
                                  "bets on pares annulled; the opponents count the tira and their pares"),
    ("pares", True, True, False): ("engine ruling (as seed 004 art. 15b)", False, 0, False,
                                   "the false pares does not count; the partner's pares does"),
    # undeclared pares: seed 002 art. 16 (seed 004 art. 14: denied pares count for nothing)
    ("pares", False, False, True): ("seed 002 art. 16, seed 004 art. 14", False, 1, False,
                                    "the undeclared pares does not count; the opponents score 1 (tira)"),
    ("pares", False, True, True): ("seed 002 art. 16", False, 1, False,
                                   "the undeclared pares does not count; the opponents score 1 (tira)"),
    ("pares", False, False, False): ("seed 002 art. 16, seed 004 art. 14", False, 0, False,
                                     "the undeclared pares does not count"),
    ("pares", False, True, False): ("seed 002 art. 16, seed 004 art. 14", False, 0, False,
                                    "the undeclared pares does not count"),
    # false juego: seed 002 art. 17 (seed 004 art. 15)
    ("juego", True, False, False): ("seed 002 art. 17, seed 004 art. 15a", True, 2, False,
                                    "the opponents score 2 (the punto and the tira)"),
    ("juego", True, False, True): ("seed 002 art. 17, seed 004 art. 15c", True, 0, True,
                                   "bets on juego annulled; the opponents count their juego"),
    ("juego", True, True, True): ("seed 002 art. 17, seed 004 art. 15d", True, 1, True,
                                  "bets on juego annulled; the opponents count the tira and their juego"),
    ("juego", True, True, False): ("seed 002 art. 17, over seed 004 art. 15b", True, 1, True,
                                   "bets on juego annulled; the opponents score the tira"),
    # undeclared juego: seed 002 art. 18 (seed 004 art. 16)
    ("juego", False, False, False): ("seed 002 art. 18, seed 004 art. 16a", True, 2, False,
                                     "bets on punto annulled; the undeclared juego does not count; "
                                     "the opponents score 2 (the tira and the punto)"),
    ("juego", False, True, False): ("seed 004 art. 16b", False, 0, False,
                                    "the undeclared juego does not count; the partner's juego does"),
    ("juego", False, False, True): ("seed 002 art. 18, seed 004 art. 16c", False, 1, False,
                                    "the undeclared juego does not count; the opponents score the tira besides "
                                    "their juego"),
    ("juego", False, True, True): ("seed 002 art. 18", False, 1, False,
                                   "the undeclared juego does not count; the opponents score the tira besides "
                                   "their juego"),
}


_ORDAGO_LANCES = {"pares": ("pares",), "juego": ("juego", "punto")}  # claim -> the lances it decides


def _contradictions(c: _Count, claim: str) -> list[_Found]:
    """Every declaration of `claim` the cards contradict, from esku, with its article."""
    declared, shown = getattr(c.st, claim), c.shown[claim]
    found = []
    for seat in c.st.order:
        actual = shown[seat]
        if actual is None or actual == declared[seat]:
            continue
        said, team = declared[seat], seat % 2
        partner_has = (seat + 2) % 4 in c.holding[claim]
        opponents_have = bool(c.holders(claim, 1 - team))
        found.append(_Found(seat, said, actual, *_RULES[(claim, said, partner_has, opponents_have)]))
    return found


def _rulings(c: _Count, found: dict[str, list[_Found]]) -> dict[str, Ruling]:
    """Report every contradiction; the ruling of each claim's lance (the first from esku).

    An accepted órdago is a bet like any other: a contradiction in its lance whose article
    annuls the bets annuls the órdago too (the first such from esku rules that lance), and
    the game goes on. Otherwise the órdago decides the game and the rest is reported."""
    ordago = c.st.ordago
    chosen: dict[str, int] = {}
    for claim, items in found.items():
        here = ordago in _ORDAGO_LANCES[claim]
        chosen[claim] = next((i for i, f in enumerate(items) if f.annul), 0) if here else 0
        if here and items and items[chosen[claim]].annul:
            c.ordago = None
    rulings = {}
    for claim, items in found.items():
        for i, f in enumerate(items):
            effect = f.effect
            if c.ordago is not None:
                effect = (f"reported; the ordago accepted in {c.ordago} decides the game, "
                          "and only combinations the cards show count in it")
            elif i != chosen[claim]:
                first = items[chosen[claim]]
                effect = ("reported; the first contradiction from esku rules the lance" if chosen[claim] == 0 else
                          f"reported; the contradiction of seat {first.seat}, which annuls the ordago, rules the lance")
            else:
                if ordago in _ORDAGO_LANCES[claim]:
                    effect += f"; the ordago accepted in {ordago} is annulled with them: the game goes on"
                cause = f"{'false' if f.said else 'undeclared'} {claim} of seat {f.seat} ({f.rule})"
                rulings[claim] = Ruling(f.annul, 1 - f.seat % 2 if f.annul or f.tira else None, f.tira, f.bonus, cause)
            kind = "false_declaration" if f.said else "undeclared"
            c.disputes.append({"seat": f.seat, "lance": claim, "kind": kind, "declared": f.said, "cards": f.cards,
                               "rule": f.rule, "effect": effect})
    return rulings


def _flag_bets_for_partner(c: _Count) -> None:
    """Seed 002 art. 19: whoever holds neither pares nor juego may not bet for the partner."""
    for done in c.st.done:
        if done.name not in ("pares", "juego"):
            continue
        for seat in dict.fromkeys(done.bettors):
            value = c.values[seat]
            if value is not None and not value.pares_kind and not value.juego:
                c.disputes.append({
                    "seat": seat, "lance": done.name, "kind": "bet_for_partner",
                    "declared": getattr(c.st, done.name)[seat], "cards": False, "rule": "seed 002 art. 19",
                    "effect": f"flagged: seat {seat} holds neither pares nor juego yet bet in {done.name}",
                })


