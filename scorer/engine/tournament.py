"""A tournament's draw, from its teams and the matches played: the league's fixtures (in
one league or in groups), the final stage's bracket, the teams it would take from the
league. Pure functions of plain data: `scorer.storage.tournaments` keeps the tournaments
and feeds them the matches its tables played, each `{teams, table, ranked, vacas,
finished, winner}`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .standings import knockout_draw, round_robin, team_key

__all__ = ["GROUP_NAMES", "apart", "bracket_pairings", "fixtures", "group_fixtures", "knockout", "qualifiers"]

GROUP_NAMES = "ABCDEFGH"  # the groups of a league played in groups


def _pairing(a: str | None, b: str | None, matches: list[dict[str, Any]], used: set[str]) -> dict[str, Any]:
    """A pairing `{teams, table, vacas, finished, winner}` with the first ranked table of
    `matches` between `a` and `b` (by `team_key`) not in `used` (which then
    holds it), if any, a finished one before one still unfinished (a table left half played
    and the match played again at another); `vacas` in the pairing's order, `winner` `a` or `b`."""
    m = None
    if a is not None and b is not None:
        tables = [m for m in matches if m["ranked"] and m["table"] not in used
                  and {team_key(t) for t in m["teams"]} == {team_key(a), team_key(b)}]
        m = next((m for m in tables if m["finished"]), tables[0] if tables else None)
    if m is not None:
        used.add(m["table"])
    flip = m is not None and team_key(m["teams"][0]) != team_key(a or "")
    won = None if m is None or m["winner"] is None else m["winner"] ^ flip
    return {
        "teams": [a, b],
        "table": m["table"] if m else None,
        "vacas": (m["vacas"][::-1] if flip else m["vacas"]) if m else None,
        "finished": bool(m and m["finished"]),
        "winner": None if won is None else (a, b)[won],
    }


def fixtures(teams: list[str], matches: list[dict[str, Any]], legs: int = 1,
             used: set[str] | None = None) -> list[list[dict[str, Any]]]:
    """The league's rounds (`round_robin`), each pairing (`_pairing`) with an
    enrolled table between those two teams, if any: in the order the tables were added,
    a pairing's first leg takes the first such table and its return leg the next, a
    finished one before an unfinished one (the tables in `used` are taken already)."""
    used = set() if used is None else used
    return [[_pairing(a, b, matches, used) for a, b in pairs]
            for pairs in (round_robin(teams, legs) if len(teams) >= 2 else [])]


def group_fixtures(groups: list[list[str]], matches: list[dict[str, Any]], legs: int = 1) -> list[list[dict[str, Any]]]:
    """The rounds of a league in groups: round k holds round k of every group (`fixtures`),
    each pairing naming its `group` ("A", "B", ...); a group of fewer rounds sits the
    last ones out."""
    used: set[str] = set()
    per_group = []
    for name, teams in zip(GROUP_NAMES, groups, strict=False):
        per_group.append([[{**g, "group": name} for g in games] for games in fixtures(teams, matches, legs, used)])
    return [[g for rounds in per_group if k < len(rounds) for g in rounds[k]]
            for k in range(max(len(rounds) for rounds in per_group))]


def _loser(game: dict[str, Any]) -> str | None:
    """The team that lost a pairing, or None before it is won."""
    if game["winner"] is None:
        return None
    return game["teams"][1] if game["winner"] == game["teams"][0] else game["teams"][0]


def _bye(team: str) -> dict[str, Any]:
    """A first-round pairing of `team` against a bye: won at once, without a table."""
    return {"teams": [team, None], "table": None, "vacas": None, "finished": True, "winner": team, "bye": True}


def knockout(seeds: list[str], matches: list[dict[str, Any]], third_place: bool = False) -> dict[str, Any]:
    """The final stage `{teams, rounds, third_place, champion, third}` between `seeds`
    (`knockout_draw`): each round's pairings (`_pairing`, a team None until the
    match before it is won, each with `bye` false) played by `matches`, the first table
    between those two teams each; the winners of pairings 2k and 2k + 1 meet next;
    `champion`, the final's winner or None. Short of 4, 8 or 16 teams, the bracket is
    the next of those and the top seeds meet a bye in the first round: that pairing is
    `{teams: [team, None], bye: true}`, won by its team at once, with no table. With
    `third_place` (4 teams or more), the semi-finals' losers meet too: `third_place`,
    that pairing (else None), and `third`, its winner or None."""
    used: set[str] = set()

    def game(a: str | None, b: str | None) -> dict[str, Any]:
        return {**_pairing(a, b, matches, used), "bye": False}

    # a None in the first round is a bye (`knockout_draw` never pairs two); later, a team to come
    games = [_bye(a) if b is None else game(a, b) for a, b in knockout_draw(seeds)]
    rounds = [games]
    while len(games) > 1:
        games = [game(games[i]["winner"], games[i + 1]["winner"]) for i in range(0, len(games), 2)]
        rounds.append(games)
    third = None
    if third_place and len(seeds) >= 4:
        third = game(_loser(rounds[-2][0]), _loser(rounds[-2][1]))
    return {"teams": seeds, "rounds": rounds, "third_place": third, "champion": rounds[-1][0]["winner"],
            "third": third["winner"] if third else None}


def bracket_pairings(bracket: dict[str, Any]) -> list[dict[str, Any]]:
    """Every pairing of a final stage (`knockout`), the third-place one included."""
    games = [g for games in bracket["rounds"] for g in games]
    return games + ([bracket["third_place"]] if bracket["third_place"] else [])


def qualifiers(state: dict[str, Any]) -> list[str]:
    """The teams a final stage would take from the league as it stands, best seed first,
    for the organiser to put right. From one league, the top 8, 4 or 2 of its standings.
    From groups, about the top two of each (4 from 2 or 3 groups, 8 from 4 to 7, 16 from
    8): every group's winner (A, B, ...), then its runner-up, and so on; where a place
    does not fit whole, its best by the whole league's standings. A team not yet ranked
    follows its group's ranked ones, as entered. The seeds are then put so that no two
    of one group meet in the first round where that can be helped (`apart`)."""
    if not state["groups"]:
        order = [r["team"] for r in state["standings"]]
        return order[:next((n for n in (8, 4, 2) if n <= len(order)), 0)]
    key = team_key
    overall = {key(r["team"]): i for i, r in enumerate(state["standings"])}
    ranked, group_of = [], {}
    for group in state["groups"]:
        rows = [r["team"] for r in group["standings"]]
        keys = {key(t) for t in rows}
        ranked.append(rows + [t for t in group["teams"] if key(t) not in keys])
        group_of.update({key(t): group["name"] for t in group["teams"]})
    total = sum(map(len, ranked))
    n = next(n for n in (16, 8, 4, 2) if n <= min(2 * len(ranked), total))
    seeds: list[str] = []
    for place in range(max(map(len, ranked))):
        tier = [teams[place] for teams in ranked if place < len(teams)]
        if len(seeds) + len(tier) > n:
            tier = sorted(tier, key=lambda t: overall.get(key(t), len(overall)))[:n - len(seeds)]
        seeds += tier
        if len(seeds) == n:
            break
    return apart(seeds, lambda t: group_of[key(t)])


def apart(seeds: list[str], group: Callable[[str], str]) -> list[str]:
    """`seeds` with lower seeds swapped, the fewest and nearest first, so that no first-round
    pairing of `knockout_draw` puts two teams of one `group(team)` together where a
    swap between two pairings can help it."""
    seeds = list(seeds)
    slot = {a: i for i, a in enumerate(seeds)}
    pairs = [(slot[a], slot[b]) for a, b in knockout_draw(seeds) if b is not None]  # a bye splits nothing
    for i, (top, low) in enumerate(pairs):
        if group(seeds[top]) != group(seeds[low]):
            continue
        for j in sorted(range(len(pairs)), key=lambda j: abs(j - i)):
            top2, low2 = pairs[j]
            if j != i and group(seeds[top]) != group(seeds[low2]) and group(seeds[top2]) != group(seeds[low]):
                seeds[low], seeds[low2] = seeds[low2], seeds[low]
                break
    return seeds
