"""Betting as a log of actions: every action is checked, then applied to a copy of the state.

`Lance` is the betting inside one lance, `HandState` the whole hand (lances and
declarations), `LiveHand` the public face: a hand entered action by action, rebuilt
from its log by `replay`, undone by replaying the log less its last action.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from .cards import parse_hands
from .errors import IllegalError, MalformedError, MusError, said
from .evaluate import hand_values
from .rules import Rules, check_esku, check_score

LANCES = ("grande", "chica", "pares", "juego", "punto")
PHASES = ("grande", "chica", "pares_declare", "pares", "juego_declare", "juego", "punto", "showdown", "over")
BET_ACTS = ("paso", "envido", "mas", "ordago", "quiero", "no_quiero")
_ACTION_KEYS = {"seat", "act", "n", "pares", "juego"}
MAX_BET = 1000  # stones in one envido or raise: far past any game's 40, within what every JSON reader keeps exact
_NEXT = {"grande": "chica", "chica": "pares_declare", "pares": "juego_declare", "juego": "showdown", "punto": "showdown"}


class Action(NamedTuple):
    """A validated action: `act` is a betting act or `declare` (then `holds` is the claim)."""

    seat: int
    act: str
    n: int | None = None
    holds: bool | None = None
    claim: str | None = None  # "pares" or "juego" for a declaration

    @staticmethod
    def parse(obj: Any, declare: bool = True) -> Action:
        """Check the shape of a JSON action (not its legality); without `declare` (a
        `mus-hand/1` record's bets, where declarations have their own key) only a bet."""
        if not isinstance(obj, dict):
            raise MalformedError("", f"{said(obj)} is not an action object", obj)
        if not _ACTION_KEYS.issuperset(obj):
            key = next(k for k in obj if k not in _ACTION_KEYS)
            raise MalformedError(str(key), f"{said(key)} is not a key of an action", key)
        seat = obj.get("seat")
        if type(seat) is not int or not 0 <= seat <= 3:
            raise MalformedError("seat", f"{said(seat)} is not a seat 0..3", seat)
        act = obj.get("act")
        if act == "declare" and declare:
            claims = [k for k in ("pares", "juego") if k in obj]
            if len(claims) != 1 or "n" in obj:
                raise MalformedError("act", '"declare" takes exactly one of "pares" or "juego"', act)
            holds = obj[claims[0]]
            if type(holds) is not bool:
                raise MalformedError(claims[0], f"{said(holds)} is not true or false", holds)
            return Action(seat, act, holds=holds, claim=claims[0])
        if act not in BET_ACTS:
            known = ", ".join(BET_ACTS) + (", declare" if declare else "")
            raise MalformedError("act", f"{said(act, 40)} is not an action ({known})", act)
        for key in ("pares", "juego"):
            if key in obj:
                raise MalformedError(key, f'{said(key)} belongs to a "declare" action, not {said(act)}', obj[key])
        if act not in ("envido", "mas"):
            if "n" in obj:
                raise MalformedError("n", f'"n" is for "envido" and "mas", not {said(act)}', obj["n"])
            return Action(seat, act)
        if act == "mas" and "n" not in obj:  # HAND-RECORD.md: "`mas` (raise by `n`)"; only envido has a default
            raise MalformedError("n", f'missing in {said(obj, 60)}: "mas" names the stones it raises by '
                                 '(only "envido" defaults to 2)', None)
        n = obj.get("n", 2)
        least = 2 if act == "envido" else 1
        if type(n) is not int or not least <= n <= MAX_BET:
            raise MalformedError("n", f"{said(n, 40)} is not a whole number of stones from {least} to {MAX_BET}", n)
        return Action(seat, act, n)

    def to_json(self) -> dict[str, Any]:
        """The action as JSON (an envido always names its `n`)."""
        out: dict[str, Any] = {"seat": self.seat, "act": self.act}
        if self.n is not None:
            out["n"] = self.n
        if self.claim is not None:
            out[self.claim] = self.holds
        return out


class Lance(NamedTuple):
    """The betting inside one lance."""

    name: str
    seats: tuple[int, ...]  # who takes part, in speaking order from esku
    passed: int = 0  # opening round: how many have passed so far
    queue: tuple[int, ...] = ()  # facing a bet: who may still answer, in speaking order
    out: frozenset[int] = frozenset()  # refused a bet: out of this lance
    bettor: int | None = None  # seat of the last bet
    stake: int = 0  # what accepting the bet on the table is worth
    agreed: int = 0  # what refusing it pays the bettor (the deje)
    chain: tuple[str, ...] = ()  # the bets in words: "envido 2", "3 more", "ordago"
    bettors: tuple[int, ...] = ()  # every seat that bet or raised
    ordago: bool = False
    status: str | None = None  # once over: "paso", "accepted" or "refused"

    @property
    def to_speak(self) -> int | None:
        """The seat expected to speak, `None` once the lance is over."""
        if self.status:
            return None
        return self.seats[self.passed] if self.bettor is None else self.queue[0]

    def legal(self) -> list[dict[str, Any]]:
        """Every action legal now, as JSON."""
        seat = self.to_speak
        if seat is None:
            return []
        if self.bettor is None:
            acts: list[dict[str, Any]] = [{"seat": seat, "act": "paso"}]
            acts += [{"seat": seat, "act": "envido", "n": n} for n in (2, 3, 5)]
            return [*acts, {"seat": seat, "act": "ordago"}]
        acts = [{"seat": seat, "act": "quiero"}, {"seat": seat, "act": "no_quiero"}]
        if len(self.queue) > 1:  # the partner answers after: "paso" refuses for this seat's part only
            acts.append({"seat": seat, "act": "paso"})
        if not self.ordago:
            acts += [{"seat": seat, "act": "mas", "n": 2}, {"seat": seat, "act": "ordago"}]
        return acts

    def step(self, a: Action) -> Lance:
        """Apply a betting action by the seat to speak (turn already checked)."""
        if self.bettor is None:
            if a.act == "paso":
                passed = self.passed + 1
                return self._replace(passed=passed, status="paso" if passed == len(self.seats) else None)
            if a.act == "envido":
                return self._bet(a.seat, a.n or 2, 1, f"envido {a.n}", ordago=False)
            if a.act == "ordago":
                return self._bet(a.seat, 0, 1, "ordago", ordago=True)
            if a.act == "mas":
                raise IllegalError("act", f"{said(a.act)} in {self.name}: no bet has been made to raise: open with "
                                   '"envido"', a.act, key="no_bet_to_raise", params={"lance": self.name})
            raise IllegalError("act", f"{said(a.act)} in {self.name}: there is no bet to answer", a.act,
                               key="no_bet_to_answer", params={"lance": self.name, "act": a.act})
        if a.act == "quiero":
            return self._replace(status="accepted")
        if a.act == "no_quiero":  # the team's refusal: the partner may not overturn it (seed 004 art. 10)
            return self._replace(queue=(), out=self.out | {a.seat}, status="refused")
        if a.act == "paso":  # "for my part" (nere gatik tira): out of the lance; the partner, if any, answers
            queue = self.queue[1:]
            return self._replace(queue=queue, out=self.out | {a.seat}, status=None if queue else "refused")
        if self.ordago:
            raise IllegalError("act", f'{said(a.act)} in {self.name}: an ordago is answered "quiero" or "no_quiero"', a.act,
                               key="ordago_answer", params={"lance": self.name})
        if a.act == "mas":
            return self._bet(a.seat, self.stake + (a.n or 0), self.stake, f"{a.n} more", ordago=False)
        if a.act == "ordago":
            return self._bet(a.seat, self.stake, self.stake, "ordago", ordago=True)
        raise IllegalError("act", f'"envido" in {self.name}: a bet is on the table; raise it with "mas"', a.act,
                           key="bet_on_table", params={"lance": self.name})

    def _bet(self, seat: int, stake: int, agreed: int, words: str, *, ordago: bool) -> Lance:
        opponents = ((seat + 1) % 4, (seat + 3) % 4)  # in speaking order from the bettor
        queue = tuple([s for s in opponents if s in self.seats and s not in self.out])
        return self._replace(
            bettor=seat, queue=queue, stake=stake, agreed=agreed, chain=(*self.chain, words),
            bettors=(*self.bettors, seat), ordago=ordago,
        )


class Done(NamedTuple):
    """How a lance ended in the betting."""

    name: str
    status: str  # paso, accepted, refused, uncontested, not_played
    team: int | None = None  # the betting team (refused), or the only team holding (uncontested)
    stake: int = 0  # the accepted stake, or the deje paid
    chain: tuple[str, ...] = ()
    bettors: tuple[int, ...] = ()
    ordago: bool = False
    out: frozenset[int] = frozenset()  # the seats that refused a bet: out of the lance's count


_ALL_PASSED = {name: Done(name, "paso") for name in LANCES}
Deje = tuple[str, int, int, str, tuple[int, int]]  # lance, team, stones, why, score after


@dataclass(slots=True)
class HandState:
    """Everything said in a hand so far, and the dejes paid.

    The `advance*` methods change the state in place (the record replay owns its state);
    `step` and `act` leave it alone and return a changed copy. Every field holds an
    immutable value, so a shallow copy is a snapshot.
    """

    rules: Rules
    esku: int
    order: tuple[int, ...]  # the four seats in speaking order from esku
    start: tuple[int, int]  # score before the hand
    score: tuple[int, int]  # with the dejes paid so far
    phase: str = "grande"
    lance: Lance | None = None
    declaring: tuple[bool, ...] = ()
    pares: tuple[bool, ...] | None = None  # declarations by seat, once all four are made
    juego: tuple[bool, ...] | None = None
    done: tuple[Done, ...] = ()
    dejes: tuple[Deje, ...] = ()
    ordago: str | None = None
    game_over: bool = False
    # (lance, refuser, partner): a no_quiero that just refused a bet the partner could still have
    # answered; until the next action the partner may echo it, never overturn it (seed 004 art. 10)
    refusal: tuple[str, int, int] | None = None

    @staticmethod
    def begin(rules: Rules, esku: int, score: tuple[int, int]) -> HandState:
        """A hand before anyone spoke."""
        order = (esku, (esku + 1) % 4, (esku + 2) % 4, (esku + 3) % 4)
        return HandState(rules, esku, order, score, score, lance=Lance("grande", order))

    @property
    def to_speak(self) -> int | None:
        """The seat expected to speak now."""
        if self.lance is not None:
            return self.lance.to_speak
        if self.phase.endswith("_declare"):
            return self.order[len(self.declaring)]
        return None

    def legal(self) -> list[dict[str, Any]]:
        """Every action legal now, as JSON."""
        if self.lance is not None:
            return self.lance.legal()
        seat = self.to_speak
        if seat is None:
            return []
        claim = self.phase.removesuffix("_declare")
        return [{"seat": seat, "act": "declare", claim: True}, {"seat": seat, "act": "declare", claim: False}]

    def act(self, obj: Any) -> HandState:
        """A copy with the JSON action `obj` checked and applied."""
        return self.step(Action.parse(obj))

    def step(self, a: Action) -> HandState:
        """A copy with the parsed action `a` checked and applied."""
        state = replace(self)
        state.advance(a)
        return state

    def is_echo(self, a: Action) -> bool:
        """Whether `a` is a partner's `no_quiero` right after the other partner refused: a
        redundant echo of the team's refusal, accepted and without effect."""
        refusal = self.refusal
        return refusal is not None and a.act == "no_quiero" and a.seat == refusal[2]

    def overturn_error(self, a: Action) -> IllegalError | None:
        """The error for a partner's `quiero`, `mas` or `ordago` right after the other partner
        refused the bet (`None` if `a` is no such answer)."""
        refusal = self.refusal
        if refusal is None or a.seat != refusal[2] or a.act not in ("quiero", "mas", "ordago"):
            return None
        lance, refuser, partner = refusal
        return IllegalError(
            "act",
            f"{said(a.act)} by seat {partner}: its partner, seat {refuser}, refused the bet in {lance} and a refusal "
            f"binds the team (seed 004 art. 10: « le partenaire de celui qui les prononce ne peut les "
            "désavouer »); to refuse for one's own part only, leaving the partner to answer, say \"paso\"",
            a.act, key="refusal_binds", params={"seat": partner, "refuser": refuser, "lance": lance},
        )

    def advance(self, a: Action) -> None:
        """Check the parsed action `a` and apply it, in place."""
        if self.is_echo(a):
            self.refusal = None
            return  # the partner's echo of the team's refusal
        error = self.overturn_error(a)
        self.refusal = None
        try:
            self._advance(a)
        except IllegalError:
            if error is None:
                raise
            raise error from None

    def _advance(self, a: Action) -> None:
        if self.phase in ("showdown", "over"):
            over = self.phase == "showdown"
            why = "the betting is over" if over else "the hand is over"
            raise IllegalError("act", f"{said(a.act)}: {why}; no more actions", a.act,
                               key="betting_over" if over else "hand_over")
        lance = self.lance
        if lance is None:
            return self._declare(a)
        if a.act == "declare":
            raise IllegalError("act", f'"declare" during the betting of {lance.name}', a.act,
                               key="declare_in_betting", params={"lance": lance.name})
        if a.seat != lance.to_speak:
            raise self._out_of_turn(a.seat)
        partner = lance.queue[1] if a.act == "no_quiero" and len(lance.queue) > 1 else None
        lance = lance.step(a)
        if lance.status is None:
            self.lance = lance
        else:
            self._finish(lance)
            if partner is not None:
                self.refusal = (lance.name, a.seat, partner)

    def advance_passing(self) -> None:
        """The current lance, not yet opened, passed by everyone, in place."""
        lance = self.lance
        if lance is None or lance.passed or lance.bettor is not None:
            raise IllegalError("bets", f"no lance to pass in phase {said(self.phase)}", self.phase)
        self.refusal = None
        self.done += (_ALL_PASSED[lance.name],)
        self._next(lance.name)

    def advance_declaring(self, holds: tuple[bool, ...]) -> None:
        """All four declarations of the current declare phase at once (by seat), in place."""
        if not self.phase.endswith("_declare") or self.declaring:
            raise IllegalError("declared", f"no declarations expected in phase {said(self.phase)}", self.phase)
        self.refusal = None
        self._declared(self.phase.removesuffix("_declare"), holds)

    def _out_of_turn(self, seat: int) -> IllegalError:
        lance = self.lance
        assert lance is not None
        if seat not in lance.seats:
            why = f"seat {seat} takes no part in {lance.name}: it declared no {lance.name}"
            if (seat + 2) % 4 in lance.seats:
                why += " and may not bet for its partner (seed 002 art. 19)"
            key, params = "not_in_lance", {"seat": seat, "lance": lance.name}
        elif seat in lance.out:
            why = f"seat {seat} passed facing a bet (for its part) and is out of {lance.name}"
            key, params = "out_of_lance", {"seat": seat, "lance": lance.name}
        else:
            why = f"seat {seat} is out of turn: seat {lance.to_speak} speaks"
            key, params = "out_of_turn", {"seat": seat, "speaker": lance.to_speak}
        return IllegalError("seat", why, seat, key=key, params=params)

    def _declare(self, a: Action) -> None:
        claim = self.phase.removesuffix("_declare")
        if a.act != "declare" or a.claim != claim:
            raise IllegalError("act", f"{said(a.act)}: each seat now declares whether it has {claim}", a.act,
                               key="must_declare", params={"lance": claim})
        if a.seat != self.to_speak:
            raise IllegalError("seat", f"seat {a.seat} is out of turn: seat {self.to_speak} declares", a.seat,
                               key="out_of_turn", params={"seat": a.seat, "speaker": self.to_speak})
        self.declaring += (bool(a.holds),)
        if len(self.declaring) == 4:
            by_seat = [False] * 4
            for seat, holds in zip(self.order, self.declaring, strict=True):
                by_seat[seat] = holds
            self._declared(claim, tuple(by_seat))

    def _declared(self, claim: str, by_seat: tuple[bool, ...]) -> None:
        """All four have declared `claim`: bet it, skip it, or play punto."""
        setattr(self, claim, by_seat)
        self.declaring = ()
        holders = tuple([s for s in self.order if by_seat[s]])
        teams = {s % 2 for s in holders}
        if len(teams) == 2:
            self.phase, self.lance = claim, Lance(claim, holders)
        elif claim == "juego" and not teams:
            self.phase, self.lance = "punto", Lance("punto", self.order)
        else:
            self.done += (Done(claim, "uncontested", teams.pop()) if teams else Done(claim, "not_played"),)
            self.phase, self.lance = _NEXT[claim], None

    def _finish(self, lance: Lance) -> None:
        """`lance` is over: pay a deje, end on an accepted ordago, or go on."""
        status, bettor = lance.status, lance.bettor
        team = None if bettor is None else bettor % 2
        stake = lance.agreed if status == "refused" else lance.stake if status == "accepted" else 0
        self.done += (Done(lance.name, status or "", team, stake, lance.chain, lance.bettors, lance.ordago, lance.out),)
        self.lance = None
        if status == "refused" and team is not None:
            score = self.score
            self.score = (score[0] + stake, score[1]) if team == 0 else (score[0], score[1] + stake)
            refused = "envido" if lance.chain[-1].startswith("envido") else lance.chain[-1]
            self.dejes += ((lance.name, team, stake, f"deje: {refused} refused", self.score),)
            if self.score[team] >= self.rules.target:
                self.phase, self.game_over = "over", True
                return
        elif status == "accepted" and lance.ordago:
            self.phase, self.ordago, self.game_over = "over", lance.name, True
            return
        self._next(lance.name)

    def _next(self, name: str) -> None:
        """Go on to the phase after lance `name`."""
        self.phase = _NEXT[name]
        self.lance = Lance("chica", self.order) if self.phase == "chica" else None


def deje_events(state: HandState) -> list[dict[str, Any]]:
    """The dejes paid so far, in the settlement's event shape."""
    if not state.dejes:
        return []
    return [
        {"lance": lance, "team": team, "stones": stones, "why": why, "score": list(score)}
        for lance, team, stones, why, score in state.dejes
    ]


@dataclass(frozen=True, slots=True)
class LiveHand:
    """A hand entered action by action; immutable, every method returns a new one."""

    state: HandState
    actions: tuple[Action, ...] = ()  # the log, checked
    phases: tuple[str, ...] = ()  # the phase each action was made in

    @staticmethod
    def start(rules: Rules | dict[str, Any] | None, esku: int, score: tuple[int, int]) -> LiveHand:
        """A new hand: `esku` speaks first, `score` is the score before it (rules as `Rules` or JSON)."""
        rules = Rules.from_json(rules) if not isinstance(rules, Rules) else rules
        return LiveHand(HandState.begin(rules, check_esku(esku), check_score(score, rules)))

    @staticmethod
    def replay(rules: Rules | dict[str, Any] | None, esku: int, score: tuple[int, int], log: Any) -> LiveHand:
        """The hand after every action of `log`, in order (errors name `log[i]`)."""
        if not isinstance(log, list | tuple):
            raise MalformedError("log", f"{said(log)} is not a list of actions", log)
        hand = LiveHand.start(rules, esku, score)
        for i, action in enumerate(log):
            try:
                hand = hand.apply(action)
            except MusError as err:
                raise err.under(f"log[{i}]") from None
        return hand

    def __hash__(self) -> int:
        """Hashable, as an immutable value: equal hands (the same rules, esku, score and log)
        hash alike, so a bot may key a cache or a set by them."""
        s = self.state
        return hash((s.rules, s.esku, s.start, self.actions))

    def __repr__(self) -> str:
        """Reads like code: the `replay` that rebuilds this hand."""
        s = self.state
        return f"LiveHand.replay({s.rules!r}, {s.esku!r}, {s.start!r}, {list(self.log)!r})"

    @property
    def log(self) -> tuple[dict[str, Any], ...]:
        """The actions so far, as JSON (an envido always names its `n`)."""
        return tuple(a.to_json() for a in self.actions)

    @property
    def phase(self) -> str:
        """`grande`, `chica`, `pares_declare`, `pares`, `juego_declare`, `juego`, `punto`, `showdown`, `over`."""
        return self.state.phase

    @property
    def to_speak(self) -> int | None:
        """The seat expected to speak now."""
        return self.state.to_speak

    @property
    def score(self) -> tuple[int, int]:
        """The score with the dejes paid so far."""
        return self.state.score

    @property
    def events(self) -> list[dict[str, Any]]:
        """The dejes paid so far, as settlement events."""
        return deje_events(self.state)

    @property
    def game_over(self) -> bool:
        """True once this hand ends the game: a deje reached the target, or an órdago was accepted."""
        return self.state.game_over

    @property
    def ordago(self) -> str | None:
        """The lance of an accepted órdago, if any."""
        return self.state.ordago

    def legal(self) -> list[dict[str, Any]]:
        """Every action legal now, as JSON actions."""
        return self.state.legal()

    def check(self, action: Any) -> None:
        """Raise `MalformedError` or `IllegalError` unless `action` is legal now."""
        self.state.act(action)

    def is_legal(self, action: Any) -> bool:
        """Whether `check(action)` accepts `action` (and `apply` would): any `envido` or
        `mas` size, and a partner's echoed `no_quiero`, which `legal()` does not list."""
        try:
            self.check(action)
        except MusError:
            return False
        return True

    def apply(self, action: Any) -> LiveHand:
        """Check `action`, then return the hand with it applied."""
        a = Action.parse(action)
        s = self.state
        phase = s.refusal[0] if s.refusal is not None and s.is_echo(a) else s.phase  # an echo: the refused lance
        return LiveHand(s.step(a), (*self.actions, a), (*self.phases, phase))

    def undo(self) -> LiveHand:
        """The hand without its last action."""
        s = self.state
        return LiveHand.replay(s.rules, s.esku, s.start, self.log[:-1])

    def to_record(self, hands: list[list[str] | None] | None = None) -> dict[str, Any]:
        """The `mus-hand/1` record of what was said, with `hands` (or none shown).

        Mid-declaration (engine README ruling 15), a seat still to declare is written as its
        cards hold (HAND-RECORD.md: a declaration not recorded "matched the cards"), the
        declarations made as said. Where such a seat is not shown, the round cannot be
        written (the contract has no null, and a list left out would lose the declarations
        made and say they matched the cards): `MalformedError` on `declared.<claim>[seat]`
        (`claim_unknown`, the first such seat), as `settle` refuses that record; `log`
        keeps every declaration."""
        s = self.state
        declared: dict[str, list[bool | None]] = {}
        bets: dict[str, list[dict[str, Any]]] = {}
        for action, phase in zip(self.actions, self.phases, strict=True):
            if action.claim is not None:
                declared.setdefault(action.claim, [None] * 4)[action.seat] = action.holds
            else:
                bets.setdefault(phase, []).append(action.to_json())
        shown = parse_hands(hands)
        if any(None in said for said in declared.values()):  # a declaration round under way
            for claim, said in declared.items():
                unknown = [seat for seat in range(4) if said[seat] is None and shown[seat] is None]
                if unknown:
                    raise MalformedError(
                        f"declared.{claim}[{unknown[0]}]",
                        f"seat {unknown[0]} has not declared {claim} yet and its cards are not shown: a "
                        "mus-hand/1 record (no null) cannot hold the declarations made in this round", None,
                        key="claim_unknown", params={"seat": unknown[0], "lance": claim},
                    )
            from .record import written_declared  # record imports this module
            declared = written_declared(declared, hand_values(shown, s.rules.kings, s.rules.real31))
        record: dict[str, Any] = {
            "format": "mus-hand/1",
            "rules": s.rules.hand_json(),
            "esku": s.esku,
            "score": list(s.start),
            "hands": [None if h is None else list(h) for h in hands] if hands is not None else [None] * 4,
        }
        if declared:
            record["declared"] = declared
        if bets:
            record["bets"] = bets
        return record
