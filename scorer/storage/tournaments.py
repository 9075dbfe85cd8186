"""Tournaments: a club's league of tables, ranked with the engine's standings.

A tournament is a name, two tokens (the organiser's adds tables; the watch token only
reads), the tables played in it and the results its organiser entered without hands (a
match played on paper, a walkover: `check_result`). Adding a table takes that table's
players' token too, so nobody enrols a match they could not open. The standings are never stored:
they are the engine's `standings` over the tables' matches as they stand now, so a
hand settled at any table moves them at once.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import json
import re
import sqlite3
import time
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

from scorer import engine
from scorer.engine.errors import json_type, said
from scorer.engine.standings import WITHDRAWAL_RESULTS
from scorer.engine.tournament import (
    GROUP_NAMES,
    bracket_pairings,
    draw_fixtures,
    knockout,
    match_id,
    moves,
    redraw,
    standard_draw,
    walkover_vacas,
)
from scorer.storage.db import Database
from scorer.storage.tables import (
    MAX_NAME,
    RULE_KEYS,
    StoreError,
    TableStore,
    check_known,
    check_rules,
    new_id,
    new_token,
    same,
    visible,
)

MAX_TOURNAMENT_NAME = 60
MAX_TABLES = 200  # tables in one tournament
MAX_TEAMS = 32  # teams in a league's fixtures (496 matches)
MAX_GROUPS = 8  # groups in a league played in groups, named A to H
MAX_KNOCKOUT = 16  # teams in a final stage (2 to 16; short of 4, 8 or 16, the top seeds get byes)
NAME_KEYS = ("name", "rules")  # the keys of a new tournament's body
RULES_KEYS = ("rules", "revision")  # of its rules' (PUT .../rules)
RENAME_KEYS = ("name", "revision")  # of a renaming's
TEAMS_KEYS = ("teams", "groups", "legs", "start", "every_days", "move_played", "revision")  # of the league's teams'
KNOCKOUT_KEYS = ("teams", "third_place", "revision")  # of the final stage's
WITHDRAW_KEYS = ("team", "results", "revision")  # of a team's withdrawal
RESULT_KEYS = ("teams", "vacas", "stones", "winner", "walkover", "revision")  # of a result entered without hands
MAX_RESULTS = 1000  # results entered without hands in one tournament (a league of 32 home and away plays 992)
MAX_STONES = 9999  # the stones a team of a result entered may have scored


def _tidy_name(value: Any, field: str, limit: int) -> str:
    """`value` as a name with its spaces tidied, or a 422 naming `field`."""
    name = " ".join(visible(value).split()) if isinstance(value, str) else ""
    if not name.strip("\u200d"):
        raise StoreError(422, "invalid", f"{field}: expected a name, not blank nor only invisible characters, got {said(value)}", field,
                         "blank_name")
    if len(name) > limit:
        raise StoreError(422, "invalid", f"{field}: longer than {limit} characters", field,
                         "name_too_long", {"name": name, "limit": limit})
    return name


def check_name(body: Any, known: tuple[str, ...] = NAME_KEYS) -> str:
    """The tournament name of a `{"name": ...}` body (no other key than `known`: a
    renaming's may name its `revision` too), or a 422 that says what is wrong (as a
    table's names are checked)."""
    if not isinstance(body, dict):
        raise StoreError(400, "bad_json", f"expected a JSON object with a name, got {json_type(body)}")
    check_known(body, known)
    return _tidy_name(body.get("name"), "name", MAX_TOURNAMENT_NAME)


def check_tournament_rules(body: Any) -> dict[str, Any]:
    """The rules of a `{"rules": {...}}` body (`tables.check_rules`: a rule left out takes
    the default) as all five rules' JSON, or a 422 naming `rules` (missing or not an object)
    or the rule at fault (`rules.kings`); another key than those and `revision` too."""
    if not isinstance(body, dict):
        raise StoreError(400, "bad_json", f"expected a JSON object with rules, got {json_type(body)}")
    check_known(body, RULES_KEYS)
    if not isinstance(body.get("rules"), dict):
        raise StoreError(422, "invalid", f"rules: expected an object of the rules ({', '.join(RULE_KEYS)}), "
                         f"got {said(body.get('rules'))}", "rules")
    return check_rules(body["rules"]).to_json()


def check_teams(body: Any) -> tuple[list[str], int, dict[str, Any] | None, list[list[str]] | None]:
    """The teams of a `{"teams": [...], "legs": 1 | 2, "start": "YYYY-MM-DD", "every_days":
    n}` body (2 to 32 names, spaces tidied, no two alike by `engine.team_key`; `legs` 1
    unless given: 2 plays the league home and away; `start`, the first round's date, and
    `every_days` (1 to 60, 7 unless given) date the rounds), as (teams, legs, schedule or
    None, None), or a 422 that names what is wrong. `{"groups": [[...], [...]], ...}` in
    place of `teams` plays the league in 2 to 8 groups of 2 teams or more (32 in all),
    each its own round robin: (all the teams, legs, schedule, groups). Another key than
    those and `revision` is a 422 naming it."""
    if not isinstance(body, dict):
        raise StoreError(400, "bad_json", f"expected a JSON object with teams, got {json_type(body)}")
    check_known(body, TEAMS_KEYS)
    groups = None
    if "groups" in body:
        if "teams" in body:
            raise StoreError(422, "invalid", "groups: give the teams or the groups, not both", "groups")
        groups = check_groups(body["groups"])
        out = [team for group in groups for team in group]
    else:
        teams = body.get("teams")
        if not isinstance(teams, list) or not 2 <= len(teams) <= MAX_TEAMS:
            raise StoreError(422, "invalid", f"teams: expected a list of 2 to {MAX_TEAMS} team names", "teams",
                             "team_count", {"max": MAX_TEAMS})
        out = _team_names(teams)
    legs = body.get("legs", 1)
    if legs not in (1, 2) or isinstance(legs, bool) or not isinstance(legs, int):
        raise StoreError(422, "invalid", f"legs: expected 1 (each pair meets once) or 2 (home and away), "
                         f"got {said(legs)}", "legs")
    schedule = check_schedule(body)
    rounds = max(len(g) - 1 + len(g) % 2 for g in (groups or [out])) * legs
    try:
        round_dates(schedule, rounds)
    except OverflowError:
        raise StoreError(422, "invalid", f"start: the league's {rounds} rounds from {schedule['start']} every "
                         f"{schedule['every_days']} days run past the year 9999", "start") from None
    return out, legs, schedule, groups


def check_groups(groups: Any) -> list[list[str]]:
    """The groups of a league (`check_teams`): 2 to 8 lists of 2 or more names, 32 in all,
    no name in two groups or twice in one, or a 422 naming the first wrong one
    (`groups[i]` or `groups[i][j]`)."""
    if not isinstance(groups, list) or not 2 <= len(groups) <= MAX_GROUPS:
        raise StoreError(422, "invalid", f"groups: expected a list of 2 to {MAX_GROUPS} groups, each a list of "
                         "team names", "groups", "group_count", {"max": MAX_GROUPS})
    out: list[list[str]] = []
    seen: list[str] = []
    for i, group in enumerate(groups):
        if not isinstance(group, list) or len(group) < 2:
            raise StoreError(422, "invalid", f"groups[{i}]: expected a list of 2 team names or more, got {said(group)}",
                             f"groups[{i}]", "group_too_small", {"group": GROUP_NAMES[i]})
        out.append(_team_names(group, f"groups[{i}]", seen))
        seen += out[-1]
    if len(seen) > MAX_TEAMS:
        raise StoreError(422, "invalid", f"groups: {len(seen)} teams, {MAX_TEAMS} at most", "groups",
                         "groups_team_count", {"count": len(seen), "max": MAX_TEAMS})
    return out


def _team_names(teams: list[Any], field: str = "teams", taken: list[str] = ()) -> list[str]:
    """`teams` as names, spaces tidied, no two alike by `engine.team_key` nor like one of
    `taken`, or a 422 naming the first wrong one (`teams[i]`)."""
    out: list[str] = []
    for i, value in enumerate(teams):
        name = _tidy_name(value, f"{field}[{i}]", MAX_NAME)
        same = next((o for o in (*taken, *out) if engine.team_key(o) == engine.team_key(name)), None)
        if same is not None:
            told = f"{said(name)} is named twice" if same == name else f"{said(name)} is {said(same)} again"
            raise StoreError(422, "invalid", f"{field}[{i}]: {told}", f"{field}[{i}]",
                             "named_twice" if same == name else "named_again", {"name": name, "same": same})
        out.append(name)
    return out


def check_schedule(body: dict[str, Any]) -> dict[str, Any] | None:
    """`{"start", "every_days"}` from a teams body (None without `start`), or a 422. A bad
    `every_days` is refused with or without `start` (without one, a good one dates nothing)."""
    start, every = body.get("start"), body.get("every_days", 7)
    day = None
    if start is not None and start != "":
        try:
            if not isinstance(start, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", start):
                raise ValueError
            day = dt.date.fromisoformat(start)
        except ValueError:
            raise StoreError(422, "invalid", f"start: expected the first round's date as YYYY-MM-DD, got {said(start)}",
                             "start", "bad_start") from None
    if isinstance(every, bool) or not isinstance(every, int) or not 1 <= every <= 60:
        raise StoreError(422, "invalid", f"every_days: expected a whole number of days from 1 to 60, got {said(every)}",
                         "every_days", "bad_every_days")
    return None if day is None else {"start": day.isoformat(), "every_days": every}


def round_dates(schedule: dict[str, Any] | None, rounds: int) -> list[str] | None:
    """The date of each of `rounds` rounds (ISO), or None without a schedule."""
    if not schedule:
        return None
    start = dt.date.fromisoformat(schedule["start"])
    return [(start + dt.timedelta(days=k * schedule["every_days"])).isoformat() for k in range(rounds)]


def check_knockout(body: Any) -> tuple[list[str], bool]:
    """The seeds of a `{"teams": [...], "third_place": false}` final stage (2 to 16
    names, best first, no two alike by `engine.team_key`; short of 4, 8 or 16, the top
    seeds get byes) and whether the semi-finals' losers play for third place (4 teams
    or more), or a 422 that names what is wrong (another key than those and `revision`
    too)."""
    if isinstance(body, dict):
        check_known(body, KNOCKOUT_KEYS)
    teams = body.get("teams") if isinstance(body, dict) else None
    if not isinstance(teams, list) or not 2 <= len(teams) <= MAX_KNOCKOUT:
        raise StoreError(422, "invalid", f"teams: expected 2 to {MAX_KNOCKOUT} team names, the best seed first",
                         "teams", "ko_team_count", {"max": MAX_KNOCKOUT})
    seeds = _team_names(teams)
    third = body.get("third_place", False)
    if not isinstance(third, bool):
        raise StoreError(422, "invalid", f"third_place: expected true or false, got {said(third)}", "third_place")
    if third and len(seeds) < 4:
        raise StoreError(422, "invalid", f"third_place: takes 4 teams or more, got {len(seeds)} (with fewer, no two "
                         "semi-finals are played to lose)", "third_place", "third_place_count", {"count": len(seeds)})
    return seeds, third


def withdrawable(teams: list[str], seeds: list[str] | None = None) -> list[str]:
    """The teams that may withdraw: the league's entered `teams`, then the final stage's
    `seeds` that are none of those (by `engine.team_key`: a cup played as a knockout only,
    its seeds typed when drawing it), each spelt as given."""
    keys = {engine.team_key(t) for t in teams}
    out = list(teams)
    for seed in seeds or []:
        if engine.team_key(seed) not in keys:
            keys.add(engine.team_key(seed))
            out.append(seed)
    return out


def check_withdrawal(body: Any, teams: list[str], seeds: list[str] | None = None) -> tuple[str, str]:
    """The team of a `{"team": name, "results": "annulled" | "stand"}` withdrawal, spelt as
    the league entered it (else as the final stage's `seeds` spell it: `withdrawable`), and
    what becomes of its results ("annulled" unless given), or a 422 naming `team` (none of
    the league's `teams` nor of the `seeds`) or `results`."""
    if not isinstance(body, dict):
        raise StoreError(400, "bad_json", f"expected a JSON object with a team, got {json_type(body)}")
    check_known(body, WITHDRAW_KEYS)
    name = body.get("team")
    team = next((t for t in withdrawable(teams, seeds)
                 if isinstance(name, str) and engine.team_key(t) == engine.team_key(name)), None)
    if team is None:
        known = [f"one of the league's teams ({', '.join(map(said, teams))})"] if teams else []
        known += [f"one of the final stage's seeds ({', '.join(map(said, seeds))})"] if seeds else []
        expected = " or ".join(known) or "a team of the league or a seed of the final stage, none of them entered yet"
        raise StoreError(422, "invalid", f"team: expected {expected}, got {said(name)}", "team")
    results = body.get("results", "annulled")
    if results not in WITHDRAWAL_RESULTS:
        raise StoreError(422, "invalid", f"results: expected \"annulled\" (its matches leave the standings) or "
                         f"\"stand\" (those played count, the others are not played), got {said(results)}", "results")
    return team, results


def _whole_pair(value: Any, most: int) -> bool:
    """Whether `value` is two whole numbers from 0 to `most` (not true or false)."""
    return isinstance(value, list) and len(value) == 2 and all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= most for v in value)


def check_result(body: Any, teams: list[str], vacas_to_win: int) -> dict[str, Any]:
    """A finished match's result entered without hands, from `{"teams": [a, b], "vacas":
    [va, vb], "stones"?: [sa, sb], "winner"?: team}` (a match played on paper) or
    `{"teams": [a, b], "walkover": team}` (that team did not turn up), as `{teams, vacas,
    stones, walkover}`, or a 422 naming the field at fault.

    `teams`: two names not alike by `engine.team_key`, each one of the league's `teams`
    where those are entered (spelt as the league spells it). `vacas`: the winner's are the
    tournament's `vacas_to_win` and the loser's fewer (2–1 to 2 vacas); `stones` 0–0 unless
    given; `winner`, where given, must be the team those vacas make the winner. A walkover
    ("no presentado") is a match won by the team present by `vacas_to_win` vacas to 0, no
    stones either way: it counts in the standings as played, won and lost; `vacas` and
    `stones` are not given with it (the convention sets them), `walkover` names one of the
    two `teams`."""
    if not isinstance(body, dict):
        raise StoreError(400, "bad_json", f"expected a JSON object with the teams and their vacas, got {json_type(body)}")
    check_known(body, RESULT_KEYS)
    pair = body.get("teams")
    if not isinstance(pair, list) or len(pair) != 2:
        raise StoreError(422, "invalid", f"teams: expected the match's two teams, [team, team], got {said(pair)}", "teams",
                         "result_teams")
    names = [_tidy_name(v, f"teams[{i}]", MAX_NAME) for i, v in enumerate(pair)]
    if engine.team_key(names[0]) == engine.team_key(names[1]):
        told = f"{said(names[1])} is named twice" if names[0] == names[1] else f"{said(names[1])} is {said(names[0])} again"
        raise StoreError(422, "invalid", f"teams[1]: {told}: a match is between two teams", "teams[1]",
                         "named_twice" if names[0] == names[1] else "named_again", {"name": names[1], "same": names[0]})
    if teams:
        for i, name in enumerate(names):
            spelt = next((t for t in teams if engine.team_key(t) == engine.team_key(name)), None)
            if spelt is None:
                raise StoreError(422, "invalid", f"teams[{i}]: expected one of the league's teams "
                                 f"({', '.join(map(said, teams))}), got {said(name)}", f"teams[{i}]",
                                 "not_league_team", {"name": name})
            names[i] = spelt
    keys = [engine.team_key(t) for t in names]
    walkover = body.get("walkover")
    if walkover is not None:
        if not isinstance(walkover, str) or engine.team_key(walkover) not in keys:
            raise StoreError(422, "invalid", f"walkover: expected the one of the match's two teams ({said(names[0])} "
                             f"or {said(names[1])}) that did not turn up, got {said(walkover)}", "walkover",
                             "walkover_team")
        for key in ("vacas", "stones"):
            if key in body:
                raise StoreError(422, "invalid", f"{key}: a walkover is won by {vacas_to_win} vacas (the "
                                 f"tournament's vacas_to_win) to 0, no stones: leave {key} out", key,
                                 "walkover_score", {"vacas": vacas_to_win})
        absent = keys.index(engine.team_key(walkover))
        out = {"teams": names, "vacas": walkover_vacas(absent, vacas_to_win), "stones": [0, 0],
               "walkover": names[absent]}
    else:
        vacas = body.get("vacas")
        if not _whole_pair(vacas, vacas_to_win) or max(vacas) != vacas_to_win or min(vacas) == vacas_to_win:
            raise StoreError(422, "invalid", f"vacas: expected the vacas each team won, [{vacas_to_win}, n] or [n, "
                             f"{vacas_to_win}] with n from 0 to {vacas_to_win - 1} (the winner's are the tournament's "
                             f"vacas_to_win, {vacas_to_win}), got {said(vacas)}", "vacas",
                             "result_vacas", {"vacas": vacas_to_win})
        stones = body.get("stones", [0, 0])
        if not _whole_pair(stones, MAX_STONES):
            raise StoreError(422, "invalid", f"stones: expected the stones each team scored, two whole numbers from 0 "
                             f"to {MAX_STONES}, got {said(stones)}", "stones", "result_stones", {"max": MAX_STONES})
        out = {"teams": names, "vacas": list(vacas), "stones": list(stones), "walkover": None}
    won = 0 if out["vacas"][0] > out["vacas"][1] else 1
    winner = body.get("winner")
    if winner is not None:
        if not isinstance(winner, str) or engine.team_key(winner) not in keys:
            raise StoreError(422, "invalid", f"winner: expected one of the match's two teams ({said(names[0])} or "
                             f"{said(names[1])}), got {said(winner)}", "winner", "winner_team")
        if keys.index(engine.team_key(winner)) != won:
            raise StoreError(422, "invalid", f"winner: {said(winner)} is not the winner: the vacas "
                             f"{out['vacas'][0]}–{out['vacas'][1]} make {said(names[won])} the winner", "winner",
                             "not_the_winner", {"name": names[keys.index(engine.team_key(winner))], "team": names[won]})
    return out


def role_of(row: dict[str, Any], token: str) -> str | None:
    """What `token` opens of the tournament `row`: "organise", "watch" or None (compared
    in constant time)."""
    if same(token, row["token"]):
        return "organise"
    if same(token, row["watch_token"]):
        return "watch"
    return None


class TournamentStore:
    """The tournaments of one database, over its `TableStore`."""

    def __init__(self, db: Database, tables: TableStore) -> None:
        self.db = db
        self.tables = tables

    def create(self, body: Any) -> dict[str, Any]:
        """A new tournament from `{"name": ..., "rules"?: {...}}` (the rules left out, or
        any of them, take the defaults): `{id, token, watch_token, name}`."""
        row = {"id": new_id(), "token": new_token(), "watch_token": new_token(), "name": check_name(body)}
        rules = check_rules(body.get("rules")).to_json() if body.get("rules") is not None else None
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO tournaments (id, token, watch_token, name, rules, created, updated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (row["id"], row["token"], row["watch_token"], row["name"], json.dumps(rules) if rules else None,
                 *[time.time()] * 2),
            )
        return row

    def get(self, tournament_id: str) -> dict[str, Any]:
        """`{id, token, watch_token, name, rules, teams, legs, schedule, knockout, groups,
        revision, draw, withdrawn}` (`rules` all five, the defaults where none were set;
        `draw` the league's, `standard_draw` of its teams where none was kept); a 404 where
        there is no such tournament."""
        row = self.db.reader().execute(
            "SELECT id, token, watch_token, name, rules, teams, legs, schedule, knockout, groups, revision, draw,"
            " withdrawn FROM tournaments WHERE id = ?", (tournament_id,),
        ).fetchone()
        if row is None:
            raise StoreError(404, "not_found", f"no tournament {said(tournament_id)}")
        out = {**dict(row), "teams": json.loads(row["teams"]),
               "rules": engine.Rules.from_json(json.loads(row["rules"]) if row["rules"] else None).to_json(),
               "schedule": json.loads(row["schedule"]) if row["schedule"] else None,
               "knockout": json.loads(row["knockout"]) if row["knockout"] else None,
               "groups": json.loads(row["groups"]) if row["groups"] else None,
               "withdrawn": json.loads(row["withdrawn"]) if row["withdrawn"] else []}
        out["draw"] = json.loads(row["draw"]) if row["draw"] else standard_draw(out["groups"] or [out["teams"]],
                                                                                 out["legs"])
        return out

    @contextlib.contextmanager
    def _revised(self, tournament_id: str, revision: int | None) -> Iterator[sqlite3.Connection]:
        """A write that changes the tournament's settings and counts one more revision; a
        404 where the tournament is gone, a 409 `stale_revision` where `revision` (the
        one the organiser's view showed; None: any) is not the tournament's now."""
        with self.db.write() as conn:
            now = conn.execute("SELECT revision FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
            if now is None:
                raise StoreError(404, "not_found", f"no tournament {said(tournament_id)}")
            if revision is not None and revision != now[0]:
                raise _stale(revision, now[0])
            conn.execute("UPDATE tournaments SET revision = revision + 1, updated = ? WHERE id = ?",
                         (time.time(), tournament_id))
            yield conn

    def rename(self, tournament_id: str, body: Any, revision: int | None = None) -> None:
        """A new name from `{"name": ...}` (the caller has checked the organiser's token)."""
        name = check_name(body, RENAME_KEYS)
        with self._revised(tournament_id, revision) as conn:
            conn.execute("UPDATE tournaments SET name = ? WHERE id = ?", (name, tournament_id))

    def set_rules(self, tournament_id: str, body: Any, revision: int | None = None) -> None:
        """The tournament's rules from `{"rules": {...}}` (`check_tournament_rules`; the
        caller has checked the organiser's token): the tables opened from its page take
        them, and a table of other rules is flagged (`state`'s `rules_differ`)."""
        rules = check_tournament_rules(body)
        with self._revised(tournament_id, revision) as conn:
            conn.execute("UPDATE tournaments SET rules = ? WHERE id = ?", (json.dumps(rules), tournament_id))

    def delete(self, tournament_id: str, revision: int | None = None) -> None:
        """Delete the tournament (the caller has checked the organiser's token); its tables
        stay as they are."""
        with self._revised(tournament_id, revision) as conn:
            conn.execute("DELETE FROM tournaments WHERE id = ?", (tournament_id,))  # its enrolments cascade

    def set_teams(self, tournament_id: str, body: Any, revision: int | None = None) -> None:
        """The league's teams from `{"teams" or "groups", "legs": 1 | 2, "start", "every_days"}`
        (`check_teams`), for its fixtures (the caller has checked the organiser's token).
        The fixtures played or begun keep their rounds and dates, and only the others are
        drawn again (`engine.tournament.redraw`); where one would move all the same (its
        team gone, its round or date changed), a 409 `fixtures_would_move` (`field`
        `move_played`) names them, unless the body says `"move_played": true`. Every
        withdrawal stays, that of a team no longer entered too (its results as it chose)."""
        teams, legs, schedule, groups = check_teams(body)
        move_played = body.get("move_played", False)
        if not isinstance(move_played, bool):
            raise StoreError(422, "invalid", f"move_played: expected true or false, got {said(move_played)}",
                             "move_played")
        row = self.get(tournament_id)  # read once: the state before and the draw it keeps
        before = self._state(row)
        if revision is not None and revision != before["revision"]:  # said before what would move
            raise _stale(revision, before["revision"])
        league = [m for m in before["matches"] if m["stage"] == "league"]
        draw = redraw(row["draw"], groups or [teams], legs, league)
        after = draw_fixtures(draw, league, bool(groups))
        try:
            dates = round_dates(schedule, len(after))
        except OverflowError:
            raise StoreError(422, "invalid", f"start: the league's {len(after)} rounds from {schedule['start']} "
                             f"every {schedule['every_days']} days run past the year 9999", "start") from None
        moved = moves(before["fixtures"], before["round_dates"], after, dates)
        if moved and not move_played:
            raise _would_move(tournament_id, moved, teams, [w["team"] for w in before["withdrawn"]])
        keys = {engine.team_key(t): t for t in teams}
        with self._revised(tournament_id, revision) as conn:  # every withdrawal stays, its team entered or not
            kept = [{**w, "team": keys.get(engine.team_key(w["team"]), w["team"])}
                    for w in self._withdrawn(conn, tournament_id)]
            conn.execute("UPDATE tournaments SET teams = ?, legs = ?, schedule = ?, groups = ?, draw = ?, withdrawn = ?"
                         " WHERE id = ?",
                         (json.dumps(teams, ensure_ascii=False), legs, json.dumps(schedule) if schedule else None,
                          json.dumps(groups, ensure_ascii=False) if groups else None,
                          json.dumps(draw, ensure_ascii=False), json.dumps(kept, ensure_ascii=False) if kept else None,
                          tournament_id))

    @staticmethod
    def _withdrawn(conn: sqlite3.Connection, tournament_id: str) -> list[dict[str, Any]]:
        """The tournament's withdrawals as they stand in this write."""
        raw = conn.execute("SELECT withdrawn FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()[0]
        return json.loads(raw) if raw else []

    def withdraw(self, tournament_id: str, body: Any, revision: int | None = None) -> None:
        """A team of the league, or a seed of the final stage (a cup played as a knockout
        only), withdraws, from `{"team", "results": "annulled" | "stand"}`
        (`check_withdrawal`; the caller has checked the organiser's token): its results
        annulled (its matches leave the standings, and so does it), or those played stand
        (it is ranked last); its pairings not played are not played, and those of the final
        stage go to its opponents by walkover (`state`). Withdrawn already, the choice of
        `results` is changed."""
        row = self.get(tournament_id)
        team, results = check_withdrawal(body, row["teams"], row["knockout"]["teams"] if row["knockout"] else None)
        with self._revised(tournament_id, revision) as conn:
            now = [w for w in self._withdrawn(conn, tournament_id)
                   if engine.team_key(w["team"]) != engine.team_key(team)]
            conn.execute("UPDATE tournaments SET withdrawn = ? WHERE id = ?",
                         (json.dumps([*now, {"team": team, "results": results}], ensure_ascii=False), tournament_id))

    def reinstate(self, tournament_id: str, team: str, revision: int | None = None) -> None:
        """Undo a team's withdrawal: its matches count and its pairings wait to be played
        again; a 404 (`field` `team`) where it has not withdrawn."""
        with self._revised(tournament_id, revision) as conn:
            now = self._withdrawn(conn, tournament_id)
            kept = [w for w in now if engine.team_key(w["team"]) != engine.team_key(team)]
            if len(kept) == len(now):
                raise StoreError(404, "not_found", f"team: {said(team)} has not withdrawn from this tournament", "team")
            conn.execute("UPDATE tournaments SET withdrawn = ? WHERE id = ?",
                         (json.dumps(kept, ensure_ascii=False) if kept else None, tournament_id))

    def set_knockout(self, tournament_id: str, body: Any, revision: int | None = None) -> None:
        """Draw the final stage from `{"teams": [best seed first], "third_place": bool}` (the
        caller has checked the organiser's token). The tables added from its first draw on
        play it; drawn again (a name put right), it keeps that time."""
        seeds, third = check_knockout(body)
        row = self.get(tournament_id)
        drawn = row["knockout"]["drawn"] if row["knockout"] else time.time()
        stage = {"teams": seeds, "drawn": drawn, "third_place": third}
        with self._revised(tournament_id, revision) as conn:
            conn.execute("UPDATE tournaments SET knockout = ? WHERE id = ?",
                         (json.dumps(stage, ensure_ascii=False), tournament_id))

    def clear_knockout(self, tournament_id: str, revision: int | None = None) -> None:
        """Remove the final stage (its tables stay, and count in the league again); a 404
        where none was drawn."""
        if self.get(tournament_id)["knockout"] is None:
            raise StoreError(404, "not_found", "this tournament has no final stage drawn", "knockout")
        with self._revised(tournament_id, revision) as conn:
            conn.execute("UPDATE tournaments SET knockout = NULL WHERE id = ?", (tournament_id,))

    def add_result(self, tournament_id: str, body: Any, revision: int | None = None) -> str:
        """Enter a finished match's result without hands (`check_result`: a match played on
        paper, or a walkover; the caller has checked the organiser's token): its id. It
        takes its pairing in the fixtures (or the bracket, entered once the final stage is
        drawn) as a finished table added now would, and counts in the standings alike; its
        `rules` are the tournament's as they are now."""
        result = self._checked_result(tournament_id, body)
        result_id = new_id()
        with self._revised(tournament_id, revision) as conn:
            n = conn.execute("SELECT COUNT(*) FROM tournament_results WHERE tournament_id = ?",
                             (tournament_id,)).fetchone()[0]
            if n >= MAX_RESULTS:
                raise StoreError(409, "too_many_results", f"a tournament holds {MAX_RESULTS} results entered without "
                                 "hands at most")
            conn.execute("INSERT INTO tournament_results (tournament_id, id, result, added) VALUES (?, ?, ?, ?)",
                         (tournament_id, result_id, json.dumps(result, ensure_ascii=False), time.time()))
        return result_id

    def correct_result(self, tournament_id: str, result_id: str, body: Any, revision: int | None = None) -> None:
        """Put right a result entered without hands, from the same body as `add_result`'s
        (`check_result`; the caller has checked the organiser's token): it keeps its id and
        the time it was added, so it keeps its place among the matches and its pairing; its
        `rules` are the tournament's as they are now (as entering it again would take). A
        404 (`field` `result`) where the tournament has no such result; refused, nothing
        changes."""
        result = self._checked_result(tournament_id, body)
        with self._revised(tournament_id, revision) as conn:
            done = conn.execute("UPDATE tournament_results SET result = ? WHERE tournament_id = ? AND id = ?",
                                (json.dumps(result, ensure_ascii=False), tournament_id, result_id)).rowcount
            if not done:
                raise _no_result(result_id)

    def remove_result(self, tournament_id: str, result_id: str, revision: int | None = None) -> None:
        """Take out a result entered without hands (to put it right without losing its place,
        `correct_result`); a 404 (`field` `result`) where the tournament has no such result."""
        with self._revised(tournament_id, revision) as conn:
            gone = conn.execute("DELETE FROM tournament_results WHERE tournament_id = ? AND id = ?",
                                (tournament_id, result_id)).rowcount
            if not gone:
                raise _no_result(result_id)

    def _checked_result(self, tournament_id: str, body: Any) -> dict[str, Any]:
        """`check_result` of `body` against the tournament's teams and vacas to win, with the
        tournament's `rules` as they are now (what `add_result` and `correct_result` store)."""
        row = self.get(tournament_id)
        return {**check_result(body, row["teams"], row["rules"]["vacas_to_win"]), "rules": row["rules"]}

    def _entered(self, tournament_id: str) -> list[tuple[str, dict[str, Any], float]]:
        """The results entered without hands: (id, `check_result`'s with its `rules`, when
        it was entered), in the order they were entered."""
        rows = self.db.reader().execute(
            "SELECT id, result, added FROM tournament_results WHERE tournament_id = ? ORDER BY added, id",
            (tournament_id,),
        )
        return [(r["id"], json.loads(r["result"]), r["added"]) for r in rows]

    def add_table(self, tournament_id: str, table_id: str) -> bool:
        """Enrol a table (the caller has checked both tokens): True if it was not in yet."""
        self.get(tournament_id)
        teams = self.tables.runtime(table_id).header["teams"]  # a 404 names a table that does not exist
        if engine.team_key(teams[0]) == engine.team_key(teams[1]):
            raise StoreError(422, "same_team_names", f"table: its teams are named {said(teams[0])} and {said(teams[1])}, one "
                             "team to the standings, which rank teams by name: rename one first", "table")
        with self.db.write() as conn:
            if conn.execute(
                "SELECT 1 FROM tournament_tables WHERE tournament_id = ? AND table_id = ?", (tournament_id, table_id)
            ).fetchone():
                return False
            n = conn.execute("SELECT COUNT(*) FROM tournament_tables WHERE tournament_id = ?",
                             (tournament_id,)).fetchone()[0]
            if n >= MAX_TABLES:
                raise StoreError(409, "too_many_tables", f"a tournament holds {MAX_TABLES} tables at most")
            try:
                conn.execute("INSERT INTO tournament_tables (tournament_id, table_id, added) VALUES (?, ?, ?)",
                             (tournament_id, table_id, time.time()))
                conn.execute("UPDATE tournaments SET updated = ? WHERE id = ?", (time.time(), tournament_id))
            except sqlite3.IntegrityError:  # the table (or the tournament) was deleted meanwhile (a prune)
                self.get(tournament_id)  # a 404 for the tournament
                self.tables.runtime(table_id)  # a 404 for the table
                raise
        return True

    def remove_table(self, tournament_id: str, table_id: str) -> None:
        """Take a table out (the table itself stays as it is); a 404 where it is not in."""
        self.get(tournament_id)
        with self.db.write() as conn:
            gone = conn.execute("DELETE FROM tournament_tables WHERE tournament_id = ? AND table_id = ?",
                                (tournament_id, table_id)).rowcount
            if gone:
                conn.execute("UPDATE tournaments SET updated = ? WHERE id = ?", (time.time(), tournament_id))
        if not gone:
            raise StoreError(404, "not_found", f"table {said(table_id)} is not in this tournament", "table")

    def names_for(self, table_id: str) -> list[str]:
        """The names of the tournaments a table counts in (for its page and its sheet)."""
        rows = self.db.reader().execute(
            "SELECT t.name FROM tournaments t JOIN tournament_tables tt ON tt.tournament_id = t.id"
            " WHERE tt.table_id = ? ORDER BY tt.added", (table_id,)
        )
        return [r["name"] for r in rows]

    def table_ids(self, tournament_id: str) -> list[str]:
        """The tournament's tables, in the order they were added."""
        return [table_id for table_id, _ in self._enrolled(tournament_id)]

    def _enrolled(self, tournament_id: str) -> list[tuple[str, float]]:
        """(table id, when it was added), in the order they were added."""
        rows = self.db.reader().execute(
            "SELECT table_id, added FROM tournament_tables WHERE tournament_id = ? ORDER BY added, table_id",
            (tournament_id,),
        )
        return [(r["table_id"], r["added"]) for r in rows]

    def state(self, tournament_id: str, watch_links: bool = False) -> dict[str, Any]:
        """`{id, name, revision, rules, matches, standings, teams, legs, schedule, fixtures,
        round_dates, groups, knockout, champion}`.

        `revision`: how many times the organiser changed the name, rules, teams or final
        stage (a write may name the revision it follows, and is refused where it is not this).
        `rules`: the tournament's, all five (the defaults where the organiser set none).
        `matches`: each table's match as it stands, and each result entered without hands
        (`add_result`: `table`, `games` and `score` None, `result` its id, `walkover` the
        team that did not turn up or None; a table's has `result` and `walkover` None), in
        the order they were added, with its `stage`: "league" (a table
        added before the final stage was drawn, or while there is none), "knockout" (one
        added since, that plays one of the bracket's pairings) or "friendly" (one added
        since that plays none of them, or none yet: an early final whose other semi-final
        is still being played becomes "knockout" once it is won); a friendly counts in no
        standings. Each match's `unknown_teams`: where the league's teams are set, those
        of a league match's two teams that are not among them (by `engine.team_key`: a
        name mistyped makes a team of its own), else []. Each match's `off_fixtures`: true
        for a league match between two of the league's teams (of one group) that none of
        the fixtures' pairings took, the first table of each pairing (of each leg), a finished
        one first, having taken it: a pairing played again at another table, which the standings count
        too. Each match's `rules`: its table's, all five; its `rules_differ`: where they are not
        the tournament's, each rule that differs, `{rule: {table, tournament}}` (its result
        counts all the same: the organiser decides), else None (always for a friendly).
        `standings`: the engine's
        over the league's matches (an unfinished one only lists its teams; one whose two
        teams were renamed alike is listed with `ranked` false and left out).
        `fixtures`: the league's rounds where its teams were entered (`round_dates`, their
        dates where a `schedule` was given). `groups`: a league played in groups, each
        `{name, teams, standings}` (its standings over the league's matches between two of
        its teams), round k of every group played in round k of `fixtures`, each pairing
        naming its `group`, and each league match its `group` (None where its teams are
        not both in one); else None. `knockout`: the final stage where one was drawn
        (`knockout`), with its `unknown_teams`: the seeds that are not among the league's
        teams (those entered, else those of its standings; by `engine.team_key`: a name
        mistyped, whose pairings no table between the league's teams plays), else [];
        the draw is kept all the same, as a league match is. `champion`: the final's
        winner, or the league's sole leader once every fixture is finished (never a
        league in groups), else None. With
        `watch_links`, each match carries its table's watch token (for the organiser).
        `withdrawn`: the teams that withdrew, `[{team, results}]` ("annulled": their matches,
        each `annulled`, leave the standings and so do they; "stand": they are ranked last,
        marked `withdrawn`), each pairing of the fixtures marked (`_mark_withdrawn`): one not
        finished is `not_played`, and the league ends without it. In the final stage, each
        pairing of theirs not played, its two teams known, goes to the other team by walkover
        (the tournament's `vacas_to_win` to 0, `walkover` the team withdrawn, no table nor
        `result`: `engine.tournament.knockout`), so that the bracket goes on; one played keeps
        its result, and undoing the withdrawal takes those walkovers back (nothing is stored)."""
        return self._state(self.get(tournament_id), watch_links)

    def _state(self, row: dict[str, Any], watch_links: bool = False) -> dict[str, Any]:
        """`state` of the tournament whose row (`get`) is `row`, read by the caller."""
        tournament_id = row["id"]
        matches, results, added = [], {}, {}
        for result_id, r, when in self._entered(tournament_id):  # merged with the tables below, by when added
            won = 0 if r["vacas"][0] > r["vacas"][1] else 1
            matches.append({
                "table": None, "result": result_id, "walkover": r["walkover"],
                "teams": r["teams"], "vacas": r["vacas"], "games": None, "score": None, "stones": r["stones"],
                "hands": 0, "winner": won, "finished": True, "ranked": True, "stage": "league",
                "unknown_teams": [], "off_fixtures": False, "rules": r["rules"], "rules_differ": None,
            })
            added[result_id] = when
            results[result_id] = {"teams": r["teams"], "vacas": r["vacas"], "stones": r["stones"], "winner": won}
        for table_id, when in self._enrolled(tournament_id):
            try:
                rt = self.tables.runtime(table_id)
            except StoreError:  # deleted since it was listed
                continue
            result = rt.match.result()
            st = rt.match.state()
            # False where the teams were renamed alike since the table was added
            ranked = engine.team_key(result["teams"][0]) != engine.team_key(result["teams"][1])
            match = {
                "table": table_id,
                "result": None,
                "walkover": None,
                "teams": result["teams"],
                "vacas": list(result["vacas"]),
                "games": list(st["games"]),
                "score": list(st["score"]),
                "stones": list(result["stones"]),
                "hands": len(rt.hands),
                "winner": result["winner"],
                "finished": result["winner"] is not None,
                "ranked": ranked,
                "stage": "league",
                "unknown_teams": [],
                "off_fixtures": False,
                "rules": rt.rules.to_json(),
                "rules_differ": None,
            }
            if watch_links:
                match["watch_token"] = rt.watch_token
            matches.append(match)
            added[table_id] = when
            if ranked:
                results[table_id] = result
        matches.sort(key=lambda m: added[match_id(m)])  # the tables and the results entered, as added (stable)
        ko = row["knockout"]
        bracket = None
        if ko is not None:
            # a team that withdrew loses its pairings not played by walkover: the bracket goes on
            bracket = knockout(ko["teams"], [m for m in matches if added[match_id(m)] >= ko["drawn"]],
                               ko.get("third_place", False), [w["team"] for w in row["withdrawn"]],
                               row["rules"]["vacas_to_win"])
            played = {match_id(g) for g in bracket_pairings(bracket) if match_id(g)}
            for m in matches:
                if added[match_id(m)] >= ko["drawn"]:  # never the league's: the bracket's, or a friendly
                    m["stage"] = "knockout" if match_id(m) in played else "friendly"
        for m in matches:  # a friendly counts in no standings: its rules are its own
            m["rules_differ"] = None if m["stage"] == "friendly" else rules_differ(m["rules"], row["rules"])
        league = [m for m in matches if m["stage"] == "league"]
        if row["teams"]:
            known = {engine.team_key(t) for t in row["teams"]}
            for m in league:
                m["unknown_teams"] = [t for t in m["teams"] if engine.team_key(t) not in known]
        gone = {w["team"]: w["results"] for w in row["withdrawn"]}
        annulled = {engine.team_key(t) for t, how in gone.items() if how == "annulled"}
        for m in matches:
            m["annulled"] = m["stage"] == "league" and any(engine.team_key(t) in annulled for t in m["teams"])
        ranked = [results[match_id(m)] for m in league if m["ranked"]]
        table = engine.standings(ranked, names=row["teams"], withdrawn=gone)
        if bracket is not None:  # a seed of no league team: no table between the league's teams plays its pairing
            league_keys = {engine.team_key(t) for t in row["teams"] or [r["team"] for r in table]}
            bracket["unknown_teams"] = [t for t in ko["teams"] if league_keys and engine.team_key(t) not in league_keys]
        groups = None
        if row["groups"]:
            key = engine.team_key
            group_of = {key(t): name for name, teams in zip(GROUP_NAMES, row["groups"], strict=False) for t in teams}
            for m in league:  # the group both its teams are in, else None (a friendly, or a name mistyped)
                a, b = (group_of.get(key(t)) for t in m["teams"])
                m["group"] = a if a == b else None
            groups = [{"name": name, "teams": teams, "standings": engine.standings(
                [results[match_id(m)] for m in league if m["ranked"] and m["group"] == name], names=teams,
                withdrawn={t: how for t, how in gone.items() if t in teams})}
                for name, teams in zip(GROUP_NAMES, row["groups"], strict=False)]
        drawn = draw_fixtures(row["draw"], league, bool(row["groups"]))
        _mark_withdrawn(drawn, gone)
        # a league match between two league teams (of one group) that no pairing took: that
        # pairing was played at another table too (a match played again), and both count
        taken = {match_id(g) for games in drawn for g in games if match_id(g)}
        for m in league:
            m["off_fixtures"] = bool(drawn) and m["ranked"] and not m["unknown_teams"] \
                and m.get("group", "") is not None and match_id(m) not in taken
        if bracket is not None:
            champion = bracket["champion"]
        elif groups is None and drawn and all(g["finished"] or g["not_played"] for games in drawn for g in games):
            # the sole leader of the teams that stayed (a withdrawn one, ranked last, never is;
            # none where every team left withdrew, or none ranked at all)
            stayed = [r for r in table if not r.get("withdrawn")]
            champion = stayed[0]["team"] if stayed and (len(stayed) < 2 or stayed[1]["rank"] > 1) else None
        else:
            champion = None
        return {"id": row["id"], "name": row["name"], "revision": row["revision"], "rules": row["rules"],
                "matches": matches,
                "standings": table, "teams": row["teams"],
                "legs": row["legs"], "schedule": row["schedule"], "fixtures": drawn,
                "round_dates": round_dates(row["schedule"], len(drawn)) if drawn else None,
                "groups": groups, "knockout": bracket, "champion": champion,
                "withdrawn": [{"team": t, "results": how} for t, how in gone.items()]}

    def export(self, tournament_id: str,
               extra: Callable[[dict[str, Any]], dict[str, bytes]] | None = None) -> tuple[bytes, str]:
        """The tournament as a zip and its file name: `standings.csv` (and
        `standings-group-A.csv`, ... for a league in groups), `tournament.json`
        (the answer of `state`, without tokens) and `matches/NN-team-team.jsonl`, each
        league table's match as `mus-match/1` (what `mus-scorer standings` ranks; a result
        entered without hands has no hands and no such file: `tournament.json` lists it
        with its `result` id and `walkover`, numbered among the matches all the same), the
        final stage's in `knockout/`, the friendlies' (`state`) in `friendly/`, those a
        withdrawal annulled in `annulled/`; and
        `extra(state)`, more files by name, from the same state (the web app's
        spreadsheets in the reader's language, `web.sheets`)."""
        state = self.state(tournament_id)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("standings.csv", standings_csv(state["standings"]))
            for group in state["groups"] or []:
                z.writestr(f"standings-group-{group['name']}.csv", standings_csv(group["standings"]))
            for name, data in (extra(state) if extra else {}).items():
                z.writestr(name, data)
            z.writestr("tournament.json", json.dumps(state, ensure_ascii=False, indent=1) + "\n")
            for n, m in enumerate(state["matches"], 1):
                if m["table"] is None:  # a result entered without hands: no hands, no match file (tournament.json)
                    continue
                try:
                    text = self.tables.runtime(m["table"]).match_file()
                except StoreError:  # deleted since it was listed
                    continue
                folder = {"knockout": "knockout", "friendly": "friendly"}.get(m["stage"], "matches")
                folder = "annulled" if m["annulled"] else folder  # a withdrawn team's, in no standings
                z.writestr(f"{folder}/{n:02d}-{slug(m['teams'][0])}-{slug(m['teams'][1])}.jsonl", text)
        return buf.getvalue(), f"{slug(state['name'], 'tournament')}.zip"


def rules_differ(table: dict[str, Any], tournament: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """The rules in which a table's (`table`) differ from its tournament's, each `{rule:
    {"table": its value, "tournament": the tournament's}}` in `RULE_KEYS` order, or None
    where they are the same."""
    out = {k: {"table": table[k], "tournament": tournament[k]} for k in RULE_KEYS if table[k] != tournament[k]}
    return out or None


def _mark_withdrawn(drawn: list[list[dict[str, Any]]], gone: dict[str, str]) -> None:
    """Each pairing's `withdrawn` (its team that withdrew, else None), `not_played` (that
    team's pairing not finished: it will not be played) and `annulled` (finished, its
    result annulled with the team's)."""
    keys = {engine.team_key(t): (t, how) for t, how in gone.items()}
    for games in drawn:
        for g in games:
            team, how = next((keys[engine.team_key(t)] for t in g["teams"] if engine.team_key(t) in keys),
                             (None, None))
            g["withdrawn"] = team
            g["not_played"] = team is not None and not g["finished"]
            g["annulled"] = how == "annulled" and g["finished"]


def _no_result(result_id: str) -> StoreError:
    """The 404 (`field` `result`) of a result the tournament has not entered."""
    return StoreError(404, "not_found", f"result: no result {said(result_id)} entered in this tournament", "result")


def _stale(revision: int, now: int) -> StoreError:
    """The 409 `stale_revision` of a write that follows `revision` when the tournament is at `now`."""
    return StoreError(409, "stale_revision", f"revision: this change follows revision {revision}, but the tournament "
                      f"is at revision {now} (changed from another phone): load it again", "revision")


def _would_move(tournament_id: str, moved: list[dict[str, Any]], teams: list[str],
                withdrawn: list[str]) -> StoreError:
    """The 409 `fixtures_would_move` of teams that would move the fixtures played or begun
    (`moves`): each named, the teams no longer in the league that played them (`gone`,
    whom a withdrawal takes out instead; not those `withdrawn` already, whose withdrawal
    stays), and the flag that saves all the same."""
    keys = {engine.team_key(t) for t in teams}
    left = list(dict.fromkeys(t for m in moved if m["to_round"] is None for t in m["teams"]
                              if engine.team_key(t) not in keys))
    out = {engine.team_key(t) for t in withdrawn}
    gone = [t for t in left if engine.team_key(t) not in out]
    stays = [t for t in left if engine.team_key(t) in out]
    said_moves = "; ".join(
        f"{said(m['teams'][0])} – {said(m['teams'][1])}, round {m['round']}: "
        + ("out of the fixtures" if m["to_round"] is None else
           f"to round {m['to_round']}" + (f" on {m['to_date']}" if m["to_date"] else ""))
        for m in moved[:2]) + (f"; and {len(moved) - 2} more" if len(moved) > 2 else "")
    hint = (f"; to take {', '.join(map(said, gone))} out of a league under way, withdraw instead (POST "
            f"/api/tournaments/{tournament_id}/withdrawals): the fixtures stay") if gone else ""
    hint += (f"; {', '.join(map(said, stays))} withdrew already: {'its withdrawal stays' if len(stays) == 1 else 'their withdrawals stay'}"
             if stays else "")
    return StoreError(409, "fixtures_would_move",
                      f"move_played: {len(moved)} "
                      + ("fixture played or begun would leave its" if len(moved) == 1 else
                         "fixtures played or begun would leave their") + " round or date "
                      f"({said_moves}){hint}; send \"move_played\": true to save all the same",
                      "move_played", "fixtures_would_move",
                      {"count": len(moved), "moves": moved, "gone": gone})


STANDINGS_COLUMNS = ("rank", "team", "played", "won", "lost", "vacas_won", "vacas_lost", "vacas_won_in_lost",
                     "stones", "head_to_head", "withdrawn")


def spreadsheet_safe(value: Any) -> Any:
    """A name a spreadsheet would take for a formula (=, +, -, @) after a quote mark."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value
    return value


def standings_csv(rows: list[dict[str, Any]]) -> str:
    """The standings rows as CSV, a header line first. A team name that a spreadsheet
    would take for a formula (=, +, -, @) is written after a quote mark. `withdrawn`: "yes"
    for a team that withdrew (its results standing, ranked last), else blank."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(STANDINGS_COLUMNS)
    for r in rows:
        cells = {**r, "team": spreadsheet_safe(r["team"]), "withdrawn": "yes" if r.get("withdrawn") else ""}
        w.writerow([cells[k] for k in STANDINGS_COLUMNS])
    return out.getvalue()


def slug(name: str, empty: str = "team") -> str:
    """A name as a file name: its `engine.team_key` in ASCII letters, digits and dashes
    ("Peña Txoko" -> "pena-txoko"), `empty` where none is left."""
    bare = engine.team_key(name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", bare).strip("-")[:40].strip("-") or empty
