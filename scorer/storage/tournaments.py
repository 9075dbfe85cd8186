"""Tournaments: a club's league of tables, ranked with the engine's standings.

A tournament is a name, two tokens (the organiser's adds tables; the watch token only
reads) and the tables played in it. Adding a table takes that table's players' token
too, so nobody enrols a match they could not open. The standings are never stored:
they are the engine's `standings` over the tables' matches as they stand now, so a
hand settled at any table moves them at once.
"""

from __future__ import annotations

import hmac
import json
import time
from typing import Any

from scorer import engine
from scorer.storage.db import Database
from scorer.storage.tables import MAX_NAME, StoreError, TableStore, new_id, new_token

MAX_TOURNAMENT_NAME = 60
MAX_TABLES = 200  # tables in one tournament
MAX_TEAMS = 32  # teams in a league's fixtures (496 matches)


def _tidy_name(value: Any, field: str, limit: int) -> str:
    """`value` as a name with its spaces tidied, or a 422 naming `field`."""
    if not isinstance(value, str) or not value.strip():
        raise StoreError(422, "invalid", f"{field}: expected a non-empty name, got {value!r}", field)
    name = " ".join(value.split())
    if len(name) > limit:
        raise StoreError(422, "invalid", f"{field}: longer than {limit} characters", field)
    return name


def check_name(body: Any) -> str:
    """The tournament name of a `{"name": ...}` body, or a 422 that says what is wrong
    (as a table's names are checked)."""
    if not isinstance(body, dict):
        raise StoreError(400, "bad_json", f"expected a JSON object with a name, got {type(body).__name__}")
    return _tidy_name(body.get("name"), "name", MAX_TOURNAMENT_NAME)


def check_teams(body: Any) -> list[str]:
    """The teams of a `{"teams": [...]}` body (2 to 32 different names, spaces tidied), or
    a 422 that names what is wrong."""
    teams = body.get("teams") if isinstance(body, dict) else None
    if not isinstance(teams, list) or not 2 <= len(teams) <= MAX_TEAMS:
        raise StoreError(422, "invalid", f"teams: expected a list of 2 to {MAX_TEAMS} team names", "teams")
    out: list[str] = []
    for i, value in enumerate(teams):
        name = _tidy_name(value, f"teams[{i}]", MAX_NAME)
        if name in out:
            raise StoreError(422, "invalid", f"teams[{i}]: {name!r} is named twice", f"teams[{i}]")
        out.append(name)
    return out


def role_of(row: dict[str, Any], token: str) -> str | None:
    """What `token` opens of the tournament `row`: "organise", "watch" or None (compared
    in constant time)."""
    if hmac.compare_digest(token.encode("utf-8"), row["token"].encode("utf-8")):
        return "organise"
    if hmac.compare_digest(token.encode("utf-8"), row["watch_token"].encode("utf-8")):
        return "watch"
    return None


class TournamentStore:
    """The tournaments of one database, over its `TableStore`."""

    def __init__(self, db: Database, tables: TableStore) -> None:
        self.db = db
        self.tables = tables

    def create(self, body: Any) -> dict[str, Any]:
        """A new tournament from `{"name": ...}`: `{id, token, watch_token, name}`."""
        row = {"id": new_id(), "token": new_token(), "watch_token": new_token(), "name": check_name(body)}
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO tournaments (id, token, watch_token, name, created) VALUES (?, ?, ?, ?, ?)",
                (row["id"], row["token"], row["watch_token"], row["name"], time.time()),
            )
        return row

    def get(self, tournament_id: str) -> dict[str, Any]:
        """`{id, token, watch_token, name}`; a 404 where there is no such tournament."""
        row = self.db.reader().execute(
            "SELECT id, token, watch_token, name, teams FROM tournaments WHERE id = ?", (tournament_id,)
        ).fetchone()
        if row is None:
            raise StoreError(404, "not_found", f"no tournament {tournament_id!r}")
        return {**dict(row), "teams": json.loads(row["teams"])}

    def set_teams(self, tournament_id: str, body: Any) -> None:
        """The league's teams from `{"teams": [...]}`, for its fixtures (the caller has
        checked the organiser's token)."""
        teams = check_teams(body)
        self.get(tournament_id)
        with self.db.write() as conn:
            conn.execute("UPDATE tournaments SET teams = ? WHERE id = ?",
                         (json.dumps(teams, ensure_ascii=False), tournament_id))

    def add_table(self, tournament_id: str, table_id: str) -> bool:
        """Enrol a table (the caller has checked both tokens): True if it was not in yet."""
        self.get(tournament_id)
        teams = self.tables.runtime(table_id).header["teams"]  # a 404 names a table that does not exist
        if teams[0] == teams[1]:
            raise StoreError(422, "same_team_names", f"table: both its teams are named {teams[0]!r}: the standings "
                             "rank teams by name, so rename one first", "table")
        with self.db.write() as conn:
            if conn.execute(
                "SELECT 1 FROM tournament_tables WHERE tournament_id = ? AND table_id = ?", (tournament_id, table_id)
            ).fetchone():
                return False
            n = conn.execute("SELECT COUNT(*) FROM tournament_tables WHERE tournament_id = ?",
                             (tournament_id,)).fetchone()[0]
            if n >= MAX_TABLES:
                raise StoreError(409, "too_many_tables", f"a tournament holds {MAX_TABLES} tables at most")
            conn.execute("INSERT INTO tournament_tables (tournament_id, table_id, added) VALUES (?, ?, ?)",
                         (tournament_id, table_id, time.time()))
        return True

    def remove_table(self, tournament_id: str, table_id: str) -> None:
        """Take a table out (the table itself stays as it is); a 404 where it is not in."""
        self.get(tournament_id)
        with self.db.write() as conn:
            gone = conn.execute("DELETE FROM tournament_tables WHERE tournament_id = ? AND table_id = ?",
                                (tournament_id, table_id)).rowcount
        if not gone:
            raise StoreError(404, "not_found", f"table {table_id!r} is not in this tournament", "table")

    def names_for(self, table_id: str) -> list[str]:
        """The names of the tournaments a table counts in (for its page and its sheet)."""
        rows = self.db.reader().execute(
            "SELECT t.name FROM tournaments t JOIN tournament_tables tt ON tt.tournament_id = t.id"
            " WHERE tt.table_id = ? ORDER BY tt.added", (table_id,)
        )
        return [r["name"] for r in rows]

    def table_ids(self, tournament_id: str) -> list[str]:
        """The tournament's tables, in the order they were added."""
        rows = self.db.reader().execute(
            "SELECT table_id FROM tournament_tables WHERE tournament_id = ? ORDER BY added, table_id", (tournament_id,)
        )
        return [r["table_id"] for r in rows]

    def state(self, tournament_id: str, watch_links: bool = False) -> dict[str, Any]:
        """`{id, name, matches, standings, teams, fixtures}`: each table's match as it stands and the
        engine's standings over them (an unfinished match only lists its teams; one whose
        two teams were renamed alike is listed with `ranked` false and left out). With
        `watch_links`, each match carries its table's watch token (for the organiser);
        `fixtures`, the league's rounds (`fixtures`) where its teams were entered."""
        row = self.get(tournament_id)
        matches, results = [], []
        for table_id in self.table_ids(tournament_id):
            try:
                rt = self.tables.runtime(table_id)
            except StoreError:  # deleted since it was listed
                continue
            result = rt.match.result()
            st = rt.match.state()
            ranked = result["teams"][0] != result["teams"][1]  # renamed alike since it was added
            match = {
                "table": table_id,
                "teams": result["teams"],
                "vacas": list(result["vacas"]),
                "games": list(st["games"]),
                "score": list(st["score"]),
                "stones": list(result["stones"]),
                "hands": len(rt.hands),
                "winner": result["winner"],
                "finished": result["winner"] is not None,
                "ranked": ranked,
            }
            if watch_links:
                match["watch_token"] = rt.watch_token
            matches.append(match)
            if ranked:
                results.append(result)
        return {"id": row["id"], "name": row["name"], "matches": matches, "standings": engine.standings(results),
                "teams": row["teams"], "fixtures": fixtures(row["teams"], matches)}


def fixtures(teams: list[str], matches: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The league's rounds (`engine.round_robin`), each pairing with the first enrolled
    table between those two teams, if any: `{teams, table, vacas, finished, winner}`,
    with `vacas` in the pairing's order and `winner` a team name."""
    rounds = []
    for pairs in engine.round_robin(teams) if len(teams) >= 2 else []:
        out = []
        for a, b in pairs:
            m = next((m for m in matches if set(m["teams"]) == {a, b} and m["ranked"]), None)
            flip = m is not None and m["teams"][0] != a
            out.append({
                "teams": [a, b],
                "table": m["table"] if m else None,
                "vacas": (m["vacas"][::-1] if flip else m["vacas"]) if m else None,
                "finished": bool(m and m["finished"]),
                "winner": m["teams"][m["winner"]] if m and m["winner"] is not None else None,
            })
        rounds.append(out)
    return rounds
