"""Club standings over finished matches (RULES.md "Club standings", seed 002 art. 25 and 31).

Teams are ranked by matches won, then vacas won in the matches they lost, then fewest
vacas lost, then stones, then their head-to-head. `round_robin` draws a league's fixtures:
every team meets every other once (or twice, home and away). A team is its name as
`team_key` folds it: "Gorriak", "gorriak" and "GÓRRIAK " are one team, shown as first
written.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .errors import MalformedError, said

__all__ = ["TIE_BREAKS", "WITHDRAWAL_RESULTS", "knockout_draw", "round_robin", "standings", "team_key", "tie_breaks"]

# What becomes of a withdrawn team's results: all annulled (its matches leave the standings,
# and so does the team), or those played stand (the team is ranked last, its other matches
# not played). The first is the default: every team is then ranked on the same matches.
WITHDRAWAL_RESULTS = ("annulled", "stand")


def invisible(c: str) -> bool:
    """Whether the character `c` shows nothing: a control or format character (a zero-width
    space, a byte order mark, a direction override), spaces and tabs aside."""
    return not c.isspace() and unicodedata.category(c) in ("Cc", "Cf")


def team_key(name: str) -> str:
    """What makes two spellings of a team's name one team: case, accents and spacing
    aside (`team_key(" Gorriák ") == team_key("GORRIAK") == "gorriak"`), since phones
    capitalise and players type names as they please; invisible characters (a zero-width
    space, a byte order mark) aside too."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c) and not invisible(c))
    return " ".join(bare.casefold().split())


def _check_once(teams: Sequence[str]) -> None:
    """`MalformedError` on `teams[j]` where it names again a team named at `teams[i]` (by
    `team_key`: case, accents and spacing aside), saying which team and both places."""
    first: dict[str, int] = {}
    for j, name in enumerate(teams):
        i = first.setdefault(team_key(name), j)
        if i != j:
            told = f"{said(name)} is named twice" if teams[i] == name else f"{said(name)} is {said(teams[i])} again"
            raise MalformedError(f"teams[{j}]", f"{told} (teams[{i}] and teams[{j}])", name)


def round_robin(teams: Sequence[str], legs: int = 1) -> list[list[tuple[str, str]]]:
    """The rounds of a league in which every team meets every other once (the circle
    method): n - 1 rounds for n teams, n rounds when n is odd (each round one team rests).
    Each round is a list of pairings, no team twice in a round. With `legs=2` the rounds
    are played again with the sides swapped (the return leg). The same teams in the same
    order always give the same fixtures."""
    if legs not in (1, 2) or isinstance(legs, bool):
        raise MalformedError("legs", f"{said(legs)} is neither 1 nor 2", legs)
    _check_once(teams)
    ring: list[str | None] = list(teams)
    if len(ring) % 2:
        ring.append(None)  # whoever meets None rests that round
    n = len(ring)
    rounds = []
    for r in range(n - 1):
        pairs = [(ring[i], ring[n - 1 - i]) for i in range(n // 2)]
        # alternate the first team's side so that it does not always come first
        rounds.append([(b, a) if (i == 0 and r % 2) else (a, b) for i, (a, b) in enumerate(pairs)
                       if a is not None and b is not None])
        ring = [ring[0], ring[-1], *ring[1:-1]]
    if legs == 2:
        rounds += [[(b, a) for a, b in pairs] for pairs in rounds]
    return rounds


def knockout_draw(seeds: Sequence[str]) -> list[tuple[str, str | None]]:
    """The first round of a knockout between `seeds`, best first (2 teams or more): the
    first meets the last, and the draw keeps the top seeds apart until the end (1 and 2
    only in the final, 1 to 4 only from the semi-finals). The winners of pairings 2k
    and 2k + 1 meet in the next round. Short of a power of two (4, 8, 16, ...), the
    seeds are padded at the end with byes (None) up to the next one: the top seeds meet
    a bye, which takes them through the first round without playing (a bye never
    meets a bye)."""
    n = len(seeds)
    if n < 2:
        raise MalformedError("teams", f"a knockout takes 2 teams or more, got {n}", list(seeds))
    _check_once(seeds)
    size = 1 << (n - 1).bit_length()  # the next power of two
    slots: list[str | None] = [*seeds, *[None] * (size - n)]
    order = [1]
    while len(order) < size:
        m = 2 * len(order) + 1
        order = [x for s in order for x in (s, m - s)]
    return [(slots[order[i] - 1], slots[order[i + 1] - 1]) for i in range(0, size, 2)]  # type: ignore[misc]


def _result_winner(i: int, result: Mapping[str, Any], teams: Sequence[str], vacas: Sequence[int]) -> int | None:
    """The winning team index (0/1) of one result, or None for an unfinished match."""
    if "winner" not in result:
        if vacas[0] == vacas[1]:
            return None
        return 0 if vacas[0] > vacas[1] else 1
    winner = result["winner"]
    if winner is None:
        return None
    if isinstance(winner, bool) or not isinstance(winner, int | str):
        raise MalformedError(f"results[{i}].winner", f"{said(winner)} is neither 0, 1 nor a team name", winner)
    if isinstance(winner, str):
        if winner not in teams:
            raise MalformedError(f"results[{i}].winner", f"{said(winner)} is not one of the teams {said(list(teams))}", winner)
        return list(teams).index(winner)
    if winner not in (0, 1):
        raise MalformedError(f"results[{i}].winner", f"{said(winner)} is neither 0, 1 nor a team name", winner)
    return winner


def _pair(i: int, result: Mapping[str, Any], key: str, default: list[int] | None = None) -> list[int]:
    value = result.get(key, default)
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        raise MalformedError(f"results[{i}].{key}", f"{said(value)} is not a pair of non-negative integers", value)
    return [int(value[0]), int(value[1])]


def _withdrawals(withdrawn: Mapping[str, str] | None) -> dict[str, str]:
    """`withdrawn` (team -> one of `WITHDRAWAL_RESULTS`) by `team_key`, or `MalformedError`."""
    out = {}
    for team, results in (withdrawn or {}).items():
        if results not in WITHDRAWAL_RESULTS:
            raise MalformedError(f"withdrawn[{said(team)}]", f"{said(results)} is neither \"annulled\" nor \"stand\"",
                                 results)
        out[team_key(team)] = results
    return out


def standings(results: Iterable[Mapping[str, Any]], names: Sequence[str] = (),
              withdrawn: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Rank the teams of a club or tournament from their match results.

    Each result is a dict `{"teams": [name0, name1], "vacas": [v0, v1], "stones": [s0, s1],
    "winner": 0 | 1 | name | None}` (`Match.result()` gives one; `stones`, the stones each
    team scored over the match, is optional; a missing `winner` is the team with more
    vacas). A result whose winner is None (an unfinished match) only lists its teams.

    Returns one row per team, best first: `{"rank", "team", "played", "won", "lost",
    "vacas_won", "vacas_lost", "vacas_won_in_lost", "stones", "head_to_head"}`, where
    `head_to_head` is the number of wins against the teams tied with it on every other
    criterion. Teams still tied after that share a rank and are listed by name.
    Names are matched by `team_key`; a team is shown as `names` spells it (a league's
    teams as entered), or else as its first result does.
    `withdrawn` names the teams that withdrew (team -> "annulled" or "stand"): an annulled
    team's results are left out, and so is the team; a team whose results stand is ranked
    after every other, its row marked `"withdrawn": true` (the other rows have no such key).
    A malformed result raises `MalformedError` naming it (`results[2].vacas`).
    """
    gone = _withdrawals(withdrawn)
    rows: dict[str, dict[str, Any]] = {}  # by team_key
    meetings: list[tuple[str, str]] = []  # (winner, loser) keys of every finished match
    spelt = {team_key(n): n for n in reversed(names)}

    def row(team: str) -> dict[str, Any]:
        key = team_key(team)
        if key not in rows:
            rows[key] = {"rank": 0, "team": spelt.get(key, team), "played": 0, "won": 0, "lost": 0,
                         "vacas_won": 0, "vacas_lost": 0, "vacas_won_in_lost": 0, "stones": 0, "head_to_head": 0}
        return rows[key]

    for i, result in enumerate(results):
        if not isinstance(result, Mapping):
            raise MalformedError(f"results[{i}]", f"{said(result)} is not a match result object", result)
        teams = result.get("teams")
        if (
            not isinstance(teams, list | tuple)
            or len(teams) != 2
            or not all(isinstance(t, str) and t.strip() for t in teams)
            or team_key(teams[0]) == team_key(teams[1])
        ):
            raise MalformedError(f"results[{i}].teams", f"{said(teams)} is not two different team names", teams)
        vacas = _pair(i, result, "vacas")
        stones = _pair(i, result, "stones", [0, 0])
        winner = _result_winner(i, result, teams, vacas)
        if any(gone.get(team_key(t)) == "annulled" for t in teams):
            continue
        a, b = row(teams[0]), row(teams[1])
        if winner is None:
            continue
        loser = 1 - winner
        for k, r in ((0, a), (1, b)):
            r["played"] += 1
            r["vacas_won"] += vacas[k]
            r["vacas_lost"] += vacas[1 - k]
            r["stones"] += stones[k]
        w, lo = (a, b) if winner == 0 else (b, a)
        w["won"] += 1
        lo["lost"] += 1
        lo["vacas_won_in_lost"] += vacas[loser]
        meetings.append((team_key(w["team"]), team_key(lo["team"])))

    def key(r: dict[str, Any]) -> tuple[bool, int, int, int, int]:
        return (team_key(r["team"]) in gone, -r["won"], -r["vacas_won_in_lost"], r["vacas_lost"], -r["stones"])

    ordered = sorted(rows.values(), key=lambda r: (key(r), r["team"]))
    # Head-to-head inside each group tied on every other criterion.
    groups: list[list[dict[str, Any]]] = []
    for r in ordered:
        if groups and key(groups[-1][0]) == key(r):
            groups[-1].append(r)
        else:
            groups.append([r])
    result_rows: list[dict[str, Any]] = []
    for group in groups:
        if len(group) > 1:
            keys = {team_key(r["team"]) for r in group}
            for r in group:
                r["head_to_head"] = sum(1 for w, lo in meetings if w == team_key(r["team"]) and lo in keys)
            group.sort(key=lambda r: (-r["head_to_head"], r["team"]))
        result_rows.extend(group)
    for n, r in enumerate(result_rows):
        prev = result_rows[n - 1] if n else None
        if prev is not None and key(prev) == key(r) and prev["head_to_head"] == r["head_to_head"]:
            r["rank"] = prev["rank"]
        else:
            r["rank"] = n + 1
        if team_key(r["team"]) in gone:
            r["withdrawn"] = True
    return result_rows


# The criteria after matches won, in their order, each with whether more is better.
TIE_BREAKS = (("vacas_won_in_lost", True), ("vacas_lost", False), ("stones", True), ("head_to_head", True))


def tie_breaks(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """What split each tie on matches won in the `standings` rows: for each two rows in a
    row that won as many matches, `{ahead, behind, by, values}`: `by` the first criterion
    of `TIE_BREAKS` on which they differ ("vacas_won_in_lost", "vacas_lost", "stones",
    "head_to_head"), `values` the two rows' values of it; `by` None (and `values` None)
    where they share the rank, level on every criterion. A team that withdrew is behind
    for that alone: no tie."""
    out = []
    for a, b in zip(rows, rows[1:], strict=False):
        if a["won"] != b["won"] or a.get("withdrawn") or b.get("withdrawn"):
            continue
        by = next((k for k, _ in TIE_BREAKS if a[k] != b[k]), None) if a["rank"] != b["rank"] else None
        out.append({"ahead": a["team"], "behind": b["team"], "by": by,
                    "values": [a[by], b[by]] if by else None})
    return out
