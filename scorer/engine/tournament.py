"""A tournament's draw, from its teams and the matches played: the league's fixtures (in
one league or in groups), the final stage's bracket, the teams it would take from the
league. Pure functions of plain data: `scorer.storage.tournaments` keeps the tournaments
and feeds them the matches its tables played, each `{teams, table, ranked, vacas,
finished, winner}`, and the results its organiser entered without hands, each with
`table` None, `result` its id and `walkover` the team that did not turn up (or None):
such a result takes a pairing just as a finished table does (`match_id`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from typing import Any

from .standings import knockout_draw, round_robin, team_key

__all__ = ["GROUP_NAMES", "apart", "bracket_pairings", "draw_fixtures", "knockout", "match_id", "moves", "qualifiers",
           "redraw", "standard_draw", "walkover_vacas"]

GROUP_NAMES = "ABCDEFGH"  # the groups of a league played in groups

# A league's draw: for each group (one for a league not in groups), each leg's rounds, each
# round's pairings [home, away]. Kept, so that a change of the teams redraws only what is
# not played yet (`redraw`).
Draw = list[list[list[list[list[str]]]]]


def match_id(match: dict[str, Any]) -> str | None:
    """What tells a match (or a pairing) from every other: its table's id, or for a result
    entered without hands its `result` id; None for a pairing nothing played."""
    return match.get("table") or match.get("result")


def _pairing(a: str | None, b: str | None, matches: list[dict[str, Any]], used: set[str]) -> dict[str, Any]:
    """A pairing `{teams, table, result, walkover, vacas, finished, winner}` with the first
    ranked match of `matches` between `a` and `b` (by `team_key`) not in `used` (which then
    holds it), if any, a finished one before one still unfinished (a table left half played
    and the match played again at another): a table (`table` its id) or a result entered
    without hands (`result` its id, `walkover` the team that did not turn up, else None);
    `vacas` in the pairing's order, `winner` `a` or `b`."""
    m = None
    if a is not None and b is not None:
        tables = [m for m in matches if m["ranked"] and match_id(m) not in used
                  and {team_key(t) for t in m["teams"]} == {team_key(a), team_key(b)}]
        m = next((m for m in tables if m["finished"]), tables[0] if tables else None)
    if m is not None:
        used.add(match_id(m))
    flip = m is not None and team_key(m["teams"][0]) != team_key(a or "")
    won = None if m is None or m["winner"] is None else m["winner"] ^ flip
    return {
        "teams": [a, b],
        "table": m.get("table") if m else None,
        "result": m.get("result") if m else None,
        "walkover": m.get("walkover") if m else None,
        "vacas": (m["vacas"][::-1] if flip else m["vacas"]) if m else None,
        "finished": bool(m and m["finished"]),
        "winner": None if won is None else (a, b)[won],
    }


def standard_draw(groups: list[list[str]], legs: int = 1) -> Draw:
    """The draw `round_robin` makes for each group: its first leg's rounds, then (2 legs)
    the same with the sides swapped."""
    out: Draw = []
    for teams in groups:
        first = [[[a, b] for a, b in pairs] for pairs in round_robin(teams, 1)] if len(teams) >= 2 else []
        out.append([first, [[[b, a] for a, b in pairs] for pairs in first]][:legs])
    return out


def draw_fixtures(draw: Draw, matches: list[dict[str, Any]], grouped: bool = False) -> list[list[dict[str, Any]]]:
    """The rounds of `draw`, each pairing (`_pairing`) with an enrolled table between its
    two teams, if any: group by group, round by round, in the order the tables were added,
    a pairing's first leg takes the first such table and its return leg the next, a
    finished one before an unfinished one. Round k holds round k of every group (a group of
    fewer rounds sits the last ones out), each pairing naming its `group` where `grouped`."""
    used: set[str] = set()
    per_group = []
    for name, legs in zip(GROUP_NAMES, draw, strict=False):
        rounds = [[_pairing(a, b, matches, used) for a, b in pairs] for block in legs for pairs in block]
        per_group.append([[{**g, "group": name} if grouped else g for g in games] for games in rounds])
    return [[g for rounds in per_group if k < len(rounds) for g in rounds[k]]
            for k in range(max((len(rounds) for rounds in per_group), default=0))]


def _fill(rounds: list[list[int]], pairs: list[list[str]], left: list[int]) -> list[list[int]]:
    """`rounds` (of indices into `pairs`) with the pairings `left` added, round by round from
    the first, each where both its teams are free (the teams with the most pairings left
    first), new rounds at the end."""
    rounds = [list(r) for r in rounds]
    keys = [{team_key(t) for t in p} for p in pairs]
    k = 0
    while left:
        if k == len(rounds):
            rounds.append([])
        busy = {t for i in rounds[k] for t in keys[i]}
        count = Counter(t for i in left for t in keys[i])
        placed = set()
        for i in sorted(left, key=lambda i: (-max(count[t] for t in keys[i]), -sum(count[t] for t in keys[i]), i)):
            if not keys[i] & busy:
                rounds[k].append(i)
                busy |= keys[i]
                placed.add(i)
        left = [i for i in left if i not in placed]
        k += 1
    return rounds


def _plan(pairs: list[list[str]], fixed: dict[int, int], before: dict[int, tuple[int, int]],
          standard: dict[int, int]) -> list[list[list[str]]]:
    """One leg of one group: `pairs` in rounds, pairing i at round `fixed[i]` (played or
    begun), the others where they were (`before`: round, place in it), else where
    `round_robin` puts them (`standard`), else anywhere (`_fill`): of those, the fewest
    rounds. Each round lists its pairings in their old order, the new ones after."""
    last = max(fixed.values(), default=-1)

    def layout(wanted: dict[int, int]) -> list[list[int]]:
        rounds: list[list[int]] = [[] for _ in range(last + 1)]
        busy: list[set[str]] = [set() for _ in rounds]
        rest = []
        for i in sorted(range(len(pairs)), key=lambda i: i not in fixed):
            k, keys = fixed.get(i, wanted.get(i)), {team_key(t) for t in pairs[i]}
            if k is not None and k >= len(rounds):
                rounds += [[] for _ in range(k + 1 - len(rounds))]
                busy += [set() for _ in range(k + 1 - len(busy))]
            if k is not None and (i in fixed or not keys & busy[k]):
                rounds[k].append(i)
                busy[k] |= keys
            else:
                rest.append(i)
        rounds = _fill(rounds, pairs, rest)
        return [r for k, r in enumerate(rounds) if r or k <= last]  # an empty round goes, unless one played follows

    where = {i: k for i, (k, _) in before.items()}
    best = min((layout(where), layout(standard), layout({})), key=len)  # where they were, if that is as short
    return [[pairs[i] for i in sorted(r, key=lambda i: (before[i][1] if i in before else len(pairs), i))]
            for r in best]


def redraw(old: Draw, groups: list[list[str]], legs: int, matches: list[dict[str, Any]]) -> Draw:
    """The draw of `groups` (each group's teams) and `legs` after a change of the teams, from
    the `old` draw and the league's `matches`: a pairing played or begun (one that took a
    table in the old draw) stays in its round and leg, with its sides; a group's leg whose
    pairings are all as before stays as it was; the rest is drawn again around them (each
    where it was if that takes no more rounds; a return leg not begun mirrors the first).
    Where the return leg has a pairing played or begun, each leg left shorter (a team taken
    out) keeps its old rounds, empty ones at its end, so that those keep their rounds too.
    Where nothing was played, `standard_draw`."""
    where: dict[tuple[int, frozenset[str]], tuple[int, int, int, list[str]]] = {}  # -> (group, round, place, sides)
    size: Counter[tuple[int, int]] = Counter()  # pairings of each old (group, leg)
    taken: set[tuple[int, frozenset[str]]] = set()
    used: set[str] = set()
    for n, group in enumerate(old):
        for leg, block in enumerate(group):
            for k, pairs in enumerate(block):
                for j, (a, b) in enumerate(pairs):
                    ident = (leg, frozenset((team_key(a), team_key(b))))
                    where[ident] = (n, k, j, [a, b])
                    size[n, leg] += 1
                    if match_id(_pairing(a, b, matches, used)):
                        taken.add(ident)
    if not taken:
        return standard_draw(groups, legs)
    out: Draw = []
    for teams in groups:
        spelt = {team_key(t): t for t in teams}
        blocks: list[list[list[list[str]]]] = []
        for leg, block in enumerate(standard_draw([teams], legs)[0]):
            pairs: list[list[str]] = []
            fixed: dict[int, int] = {}
            before: dict[int, tuple[int, int]] = {}
            places: dict[int, int] = {}
            homes: set[tuple[int, int]] = set()
            for k, games in enumerate(block):
                for a, b in games:
                    ident = (leg, frozenset((team_key(a), team_key(b))))
                    i = len(pairs)
                    if ident in where:  # its sides as drawn before, spelt as entered now
                        n, k0, j0, sides = where[ident]
                        before[i] = (k0, j0)
                        homes.add((n, leg))
                        a, b = (spelt[team_key(t)] for t in sides)
                        if ident in taken:
                            fixed[i] = k0
                    elif leg == 1:  # a new return leg: the first leg's sides swapped
                        b, a = next(p for r in blocks[0] for p in r if {team_key(t) for t in p} == ident[1])
                    pairs.append([a, b])
                    places[i] = k
            if len(homes) == 1 and len(before) == len(pairs) == size[next(iter(homes))]:
                rounds: list[list[list[str]]] = [[] for _ in range(max(k for k, _ in before.values()) + 1)]
                for i in sorted(before, key=before.get):  # the same pairings as one old leg: kept as drawn
                    rounds[before[i][0]].append(pairs[i])
                blocks.append(rounds)
            elif leg == 1 and not fixed:  # the return leg not begun: the first leg, sides swapped
                blocks.append([[[b, a] for a, b in games] for games in blocks[0]])
            else:
                blocks.append(_plan(pairs, fixed, before, places))
            if leg == 1 and fixed:  # both legs keep their rounds, so that the return leg's played keep theirs
                was = {where[(1, frozenset(map(team_key, pairs[i])))][0] for i in fixed}
                for n, block in enumerate(blocks):
                    block += [[] for _ in range(max(len(old[g][n]) for g in was) - len(block))]
        out.append(blocks)
    return out


def moves(before: list[list[dict[str, Any]]], before_dates: list[str] | None,
          after: list[list[dict[str, Any]]], after_dates: list[str] | None) -> list[dict[str, Any]]:
    """The pairings played or begun in the fixtures `before` (those with a table, or a result
    entered without hands) that are not in the same round on the same date `after`: `{teams,
    table, round, date, to_round, to_date}` (rounds counted from 1; `table` None for a result
    entered; `to_round` None where no pairing takes that match any more). A date given where
    there was none, or taken away, moves nothing."""
    now = {match_id(g): k for k, games in enumerate(after) for g in games if match_id(g)}
    out = []
    for k, games in enumerate(before):
        for g in games:
            if not match_id(g):
                continue
            to = now.get(match_id(g))
            date = before_dates[k] if before_dates and k < len(before_dates) else None
            to_date = after_dates[to] if to is not None and after_dates and to < len(after_dates) else None
            if to != k or (date and to_date and date != to_date):
                out.append({"teams": g["teams"], "table": g["table"], "round": k + 1, "date": date,
                            "to_round": None if to is None else to + 1, "to_date": to_date})
    return out


def _loser(game: dict[str, Any]) -> str | None:
    """The team that lost a pairing, or None before it is won; of a pairing both of whose
    teams withdrew (`not_played`), its second (which withdrew: it loses its next by walkover)."""
    if game.get("not_played"):
        return game["teams"][1]
    if game["winner"] is None:
        return None
    return game["teams"][1] if game["winner"] == game["teams"][0] else game["teams"][0]


def _through(game: dict[str, Any]) -> str | None:
    """The team a pairing sends to the next round: its winner, or None before it is won; of
    a pairing both of whose teams withdrew (`not_played`), its first (which withdrew: it
    loses its next by walkover, so that its opponent there goes through)."""
    return game["teams"][0] if game.get("not_played") else game["winner"]


def _bye(team: str, out: AbstractSet[str] = frozenset()) -> dict[str, Any]:
    """A first-round pairing of `team` against a bye: won at once, without a table."""
    return {"teams": [team, None], "table": None, "result": None, "walkover": None, "vacas": None, "finished": True,
            "winner": team, "bye": True, "withdrawn": team if team_key(team) in out else None, "not_played": False}


def walkover_vacas(absent: int, vacas_to_win: int) -> list[int]:
    """The vacas of a walkover, in the match's order: the team present (not `absent`, 0 or
    1) wins by `vacas_to_win` to 0."""
    vacas = [0, 0]
    vacas[1 - absent] = vacas_to_win
    return vacas


def _forfeit(game: dict[str, Any], out: AbstractSet[str], vacas_to_win: int, used: set[str]) -> dict[str, Any]:
    """A final stage's pairing with its `withdrawn` (its team that withdrew, by `team_key` in
    `out`, else None) and `not_played`. A pairing of a team that withdrew, its two teams
    known and not finished (a pairing played keeps its result), goes to the other team by
    walkover, as an entered walkover does: `walkover` the team withdrawn, `vacas` the
    `vacas_to_win` to 0, `finished`, `table` and `result` None (a table begun between them
    is a friendly then). Where both withdrew, it is `not_played`, with no winner."""
    left = [t for t in game["teams"] if t is not None and team_key(t) in out]
    game = {**game, "withdrawn": left[0] if left else None, "not_played": False}
    if not left or game["finished"] or None in game["teams"]:
        return game
    used.discard(match_id(game) or "")
    game.update(table=None, result=None)
    if len(left) == 2:
        game.update(walkover=None, vacas=None, winner=None, not_played=True)
        return game
    absent = 0 if team_key(game["teams"][0]) in out else 1
    game.update(walkover=game["teams"][absent], vacas=walkover_vacas(absent, vacas_to_win), finished=True,
                winner=game["teams"][1 - absent])
    return game


def knockout(seeds: list[str], matches: list[dict[str, Any]], third_place: bool = False,
             withdrawn: Iterable[str] = (), vacas_to_win: int = 3) -> dict[str, Any]:
    """The final stage `{teams, rounds, third_place, champion, third}` between `seeds`
    (`knockout_draw`): each round's pairings (`_pairing`, a team None until the
    match before it is won, each with `bye` false) played by `matches`, the first table
    between those two teams each; the winners of pairings 2k and 2k + 1 meet next;
    `champion`, the final's winner or None. Short of 4, 8 or 16 teams, the bracket is
    the next of those and the top seeds meet a bye in the first round: that pairing is
    `{teams: [team, None], bye: true}`, won by its team at once, with no table. With
    `third_place` (4 teams or more), the semi-finals' losers meet too: `third_place`,
    that pairing (else None), and `third`, its winner or None. A team of `withdrawn`
    (the tournament's withdrawals) loses each of its pairings not played by walkover,
    `vacas_to_win` to 0, so that the bracket goes on (`_forfeit`); each pairing has its
    `withdrawn` and `not_played`."""
    used: set[str] = set()
    out = {team_key(t) for t in withdrawn}

    def game(a: str | None, b: str | None) -> dict[str, Any]:
        return _forfeit({**_pairing(a, b, matches, used), "bye": False}, out, vacas_to_win, used)

    # a None in the first round is a bye (`knockout_draw` never pairs two); later, a team to come
    games = [_bye(a, out) if b is None else game(a, b) for a, b in knockout_draw(seeds)]
    rounds = [games]
    while len(games) > 1:
        games = [game(_through(games[i]), _through(games[i + 1])) for i in range(0, len(games), 2)]
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
    of one group meet in the first round where that can be helped (`apart`). A team that
    withdrew (`state["withdrawn"]`) is never one."""
    out = {team_key(w["team"]) for w in state.get("withdrawn") or []}
    if not state["groups"]:
        order = [r["team"] for r in state["standings"] if team_key(r["team"]) not in out]
        return order[:next((n for n in (8, 4, 2) if n <= len(order)), 0)]
    key = team_key
    overall = {key(r["team"]): i for i, r in enumerate(state["standings"])}
    ranked, group_of = [], {}
    for group in state["groups"]:
        rows = [r["team"] for r in group["standings"]]
        keys = {key(t) for t in rows}
        ranked.append([t for t in rows + [t for t in group["teams"] if key(t) not in keys] if key(t) not in out])
        group_of.update({key(t): group["name"] for t in group["teams"]})
    total = sum(map(len, ranked))
    n = next((n for n in (16, 8, 4, 2) if n <= min(2 * len(ranked), total)), 0)  # 0: too few left
    if not n:
        return []
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
