"""Matches: hands into games, games into vacas, vacas into the match (RULES.md "Game, vaca, match").

A `Match` carries the score from hand to hand, turns the esku, counts games, vacas and
the match winner. `replay_match` reads a `mus-match/1` JSON Lines file.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .errors import (
    IllegalError,
    MalformedError,
    MusError,
    json_problem,
    json_type,
    loads,
    lone_surrogate,
    said,
)
from .record import MATCH_RULES, parse_hand
from .rules import Rules, check_esku
from .settle import settlement as settlement_of

__all__ = ["Match", "iter_match", "replay_match"]

MATCH_FORMAT = "mus-match/1"
HAND_FORMAT = "mus-hand/1"


def _at_line(err: MusError, line: int) -> MusError:
    """The same error with its line number in front of the field: `line 3: hands[0][1]: ...`.

    The new error keeps the class, `value`, `reason`, `key` and `params`; `line` is the
    line number and `original` the error as the line alone gave it."""
    new = err.moved(f"line {line}: {err.field}" if err.field else f"line {line}")
    new.line = line  # type: ignore[attr-defined]
    new.original = err  # type: ignore[attr-defined]
    return new


def _is_score(value: Any) -> bool:
    """Whether `value` reads as a score: two whole numbers (said as they are, not quoted)."""
    return isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)


class Match:
    """A match between two teams, played hand by hand.

    `rules` (a `Rules` or its JSON dict) gives the target, `games_per_vaca` and
    `vacas_to_win`; `esku` is the seat speaking first in the first hand. Methods that
    refuse (`MusError`) leave the match as it was.
    """

    def __init__(
        self,
        rules: Rules | dict[str, Any] | None = None,
        teams: Sequence[str] = ("Team 0", "Team 1"),
        players: Sequence[str] = ("P0", "P1", "P2", "P3"),
        esku: int = 0,
    ) -> None:
        if rules is None or isinstance(rules, dict):
            rules = Rules.from_json(rules)  # Rules checks its own values
        if not isinstance(rules, Rules):
            raise MalformedError("rules", f"{said(rules)} is not a Rules or a rules object", rules)
        if not (isinstance(teams, list | tuple) and len(teams) == 2 and all(isinstance(t, str) for t in teams)):
            raise MalformedError("teams", f"{said(teams)} is not two team names", teams)
        if not (isinstance(players, list | tuple) and len(players) == 4 and all(isinstance(p, str) for p in players)):
            raise MalformedError("players", f"{said(players)} is not four player names", players)
        check_esku(esku)  # as a hand's esku is checked, and said
        self.rules = rules
        self.teams: tuple[str, str] = (teams[0], teams[1])
        self.players: tuple[str, str, str, str] = (players[0], players[1], players[2], players[3])
        self.first_esku = esku
        self.esku = esku
        self.score = [0, 0]
        self.games = [0, 0]
        self.vacas = [0, 0]
        self.stones = [0, 0]  # stones scored over the whole match
        self.winner: int | None = None
        self.hands = 0
        self.game_scores: list[list[int]] = []
        self.history: list[dict[str, Any]] = []  # one {"record", "settlement"} per hand

    def __repr__(self) -> str:
        hands = f"{self.hands} hand{'' if self.hands == 1 else 's'}"
        won = f", won by {self.teams[self.winner]!r}" if self.winner is not None else ""
        return (f"<Match {self.teams[0]!r} v {self.teams[1]!r}: {hands}, score {self.score}, games {self.games}, "
                f"vacas {self.vacas}, esku {self.esku}{won}>")

    # -- playing -------------------------------------------------------------------------

    def _record_for(self, hand: dict[str, Any]) -> dict[str, Any]:
        """The complete `mus-hand/1` record of a match line: the match's score, rules and esku."""
        if not isinstance(hand, dict):
            raise MalformedError("", f"a hand is a JSON object, not {json_type(hand)}", hand)
        if self.winner is not None:
            raise IllegalError(
                "", f"the match is over: {self.teams[self.winner]} won {self.vacas[0]}-{self.vacas[1]}",
                key="match_won", params={"team": self.teams[self.winner]},
            )
        fmt = hand.get("format", HAND_FORMAT)
        if fmt != HAND_FORMAT:
            raise MalformedError("format", f"{said(fmt)} is not {said(HAND_FORMAT)}", fmt)
        record = dict(hand)
        if "score" in hand and hand["score"] != self.score:
            given = hand["score"]
            raise IllegalError("score", f"{said(given)} differs from the match score {said(self.score)}", given,
                               key="score_differs", params={"given": given if _is_score(given) else said(given, 40),
                                                            "score": list(self.score)})
        record["score"] = list(self.score)
        mine = self.rules.to_json()
        if "rules" in hand and hand["rules"] is not None:
            given = hand["rules"]
            if not isinstance(given, dict):
                raise MalformedError("rules", f"{said(given)} is not an object", given)
            for key in given:
                if key not in mine:
                    raise MalformedError(f"rules.{key}", f"{said(key)} is not a rule (known: {', '.join(mine)})", key)
            # each value checked as a rule first, as a hand's rules are (typed: 1.0, True and 0
            # are no 1 or false; MalformedError naming the key and quoting the value), then
            # compared with the match's: a well-typed other value differs (IllegalError)
            Rules.from_json({**mine, **given})
            for key, value in given.items():
                if value != mine[key]:
                    where = (f"; {key} belongs in the {MATCH_FORMAT} header's rules, not a hand's"
                             if key in MATCH_RULES else "")
                    raise IllegalError(f"rules.{key}", f"{said(value)} differs from the match rules ({said(mine[key])}){where}",
                                       value)
        # a hand's rules only (HAND-RECORD.md "A hand"); the match's length, which the web
        # export wrote in every line until the engine's records carried a hand's rules only,
        # is taken where it is the header's (engine README ruling 17) and left out
        record["rules"] = self.rules.hand_json()
        if hand.get("esku") is None:
            # HAND-RECORD.md "A match": the esku turns each hand, and a line may still name
            # its own (mus corrido); the turn goes on from there
            record["esku"] = self.esku
        return record

    def play(self, hand: dict[str, Any]) -> dict[str, Any]:
        """Settle one hand of the match (a `mus-hand/1` without score) and advance the match.

        Returns the hand's `mus-settlement/1`. Raises `MusError`, changing nothing, on bad
        input or when the match is over. The record kept (`history`, `to_lines`, the
        replay's rows) is the hand in the contract's words (`HandRecord.to_json`): a
        declaration `null` the line may carry (engine README ruling 15) is written as the
        cards hold, an envido names its `n`; it settles the same.
        """
        parsed = parse_hand(self._record_for(hand))
        settlement = settlement_of(parsed)
        self._advance(parsed.to_json(), settlement)
        return settlement

    def copy(self) -> Match:
        """An independent copy to play on: its own scores and history (the records and
        settlements in it are shared: nothing changes them once played)."""
        new = copy.copy(self)
        for name in ("score", "games", "vacas", "stones", "game_scores", "history"):
            setattr(new, name, list(getattr(self, name)))
        return new

    def _advance(self, record: dict[str, Any], settlement: dict[str, Any]) -> None:
        score = list(settlement["score"])
        self.hands += 1
        self.esku = (record["esku"] + 1) % 4
        self.history.append({"record": record, "settlement": settlement})
        if settlement.get("game_over"):
            w = settlement["winner"]
            for t in (0, 1):
                self.stones[t] += score[t]
            self.score = [0, 0]
            self.game_scores = []
            self.games[w] += 1
            if self.games[w] >= self.rules.games_per_vaca:
                self.vacas[w] += 1
                self.games = [0, 0]
                if self.vacas[w] >= self.rules.vacas_to_win:
                    self.winner = w
        else:
            self.score = score
            self.game_scores.append(list(score))

    # -- reading -------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Whether the match has a winner."""
        return self.winner is not None

    def adentro(self) -> list[bool]:
        """Per team: at target - 5 or more in the current game (the game is not won yet)."""
        return [s >= self.rules.target - 5 for s in self.score]

    def state(self) -> dict[str, Any]:
        """Score, games (in the current vaca), vacas, winner, hands played, next esku, adentro,
        the current game's scores, and the stones each team scored over the whole match."""
        return {
            "score": list(self.score),
            "games": list(self.games),
            "vacas": list(self.vacas),
            "winner": self.winner,
            "hands": self.hands,
            "esku": self.esku,
            "adentro": self.adentro(),
            "game_scores": [list(s) for s in self.game_scores],
            "stones": [self.stones[0] + self.score[0], self.stones[1] + self.score[1]],
        }

    def result(self) -> dict[str, Any]:
        """The match's result as `standings` reads it."""
        state = self.state()
        return {"teams": list(self.teams), "vacas": state["vacas"], "stones": state["stones"], "winner": self.winner}

    def header(self) -> dict[str, Any]:
        """Line 1 of the match's `mus-match/1` file."""
        return {
            "format": MATCH_FORMAT,
            "rules": self.rules.to_json(),
            "teams": list(self.teams),
            "players": list(self.players),
            "esku": self.first_esku,
        }

    def to_lines(self) -> list[str]:
        """The match as `mus-match/1` JSON Lines (header, then each hand without its score)."""
        lines = [json.dumps(self.header(), ensure_ascii=False)]
        for entry in self.history:
            hand = {k: v for k, v in entry["record"].items() if k not in ("score", "rules")}
            lines.append(json.dumps(hand, ensure_ascii=False))
        return lines

    @classmethod
    def from_header(cls, header: Any) -> Match:
        """A new match from a `mus-match/1` header object."""
        if not isinstance(header, dict):
            raise MalformedError("", f"the header is a JSON object, not {json_type(header)}", header)
        if header.get("format") != MATCH_FORMAT:
            raise MalformedError("format", f"{said(header.get('format'))} is not {said(MATCH_FORMAT)}", header.get("format"))
        # An unknown key that is a known one misspelt ("team", "Players", "esk") or a rule
        # outside `rules` ("target") is refused, as in a hand record (engine README ruling
        # 15), rather than read as the default it leaves; one far from every known key
        # ("event", "date") is another app's note, left aside as before.
        known = ("format", "rules", "teams", "players", "esku")
        rule_keys = tuple(f.name for f in dataclasses.fields(Rules))
        for key in header:
            folded = key.casefold()
            if key not in known and (folded in rule_keys or any(
                    difflib.SequenceMatcher(None, folded, k).ratio() >= 0.75 for k in known)):
                raise MalformedError(str(key), f"{said(key)} is not a key of {MATCH_FORMAT} ({', '.join(known)})"
                                     + (': a rule goes in "rules"' if folded in rule_keys else ""), key)
        rules = Rules.from_json(header.get("rules"))
        return cls(
            rules,
            teams=header.get("teams", ("Team 0", "Team 1")),
            players=header.get("players", ("P0", "P1", "P2", "P3")),
            esku=header.get("esku", 0),
        )

    @classmethod
    def from_lines(cls, lines: Iterable[str | dict[str, Any]]) -> Match:
        """Replay a `mus-match/1` file; errors name the line number."""
        match: Match | None = None
        for _row, last in iter_match(lines):
            match = last
        assert match is not None  # iter_match raises without a header
        return match


def _parse_lines(lines: Iterable[str | dict[str, Any]]) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for every non-blank line."""
    for n, line in enumerate(lines, 1):
        if isinstance(line, bytes | bytearray):
            line = line.decode("utf-8")
        if isinstance(line, str):
            if not line.strip():
                continue
            try:
                obj = loads(line)
            except (ValueError, RecursionError) as exc:
                raise _at_line(MalformedError("", f"not JSON: {json_problem(exc)}"), n) from None
            if "\\u" in line and (where := lone_surrogate(obj)) is not None:  # "\\ud800": no text holds it
                raise _at_line(MalformedError(where, "a lone surrogate escape, which is not text"), n)
            yield n, obj
        else:
            yield n, line


def iter_match(lines: Iterable[str | dict[str, Any]]) -> Iterator[tuple[dict[str, Any] | None, Match]]:
    """Yield (None, match) after the header, then (row, match) after every hand."""
    match: Match | None = None
    for n, obj in _parse_lines(lines):
        try:
            if match is None:
                match = Match.from_header(obj)
                yield None, match
                continue
            settlement = match.play(obj)
        except MusError as err:
            raise _at_line(err, n) from None
        row = {"hand": match.hands, "line": n, "record": match.history[-1]["record"],
               "settlement": settlement, "state": match.state()}
        yield row, match
    if match is None:
        raise _at_line(MalformedError("", f"no {MATCH_FORMAT} header"), 1)


def replay_match(lines: Iterable[str | dict[str, Any]]) -> list[dict[str, Any]]:
    """Replay a `mus-match/1` file: one row per hand, `{"hand": n, "line": line number,
    "record": the complete mus-hand/1, "settlement": ..., "state": Match.state() after it}`.
    Errors name the line number."""
    return [row for row, _match in iter_match(lines) if row is not None]

