"""Tournaments: a club's league of tables, ranked with the engine's standings.

A tournament is a name, two tokens (the organiser's adds tables; the watch token only
reads) and the tables played in it. Adding a table takes that table's players' token
too, so nobody enrols a match they could not open. The standings are never stored:
they are the engine's `standings` over the tables' matches as they stand now, so a
hand settled at any table moves them at once.
"""

from __future__ import annotations

import csv
import hmac
import io
import json
import re
import time
import unicodedata
import zipfile
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


def check_teams(body: Any) -> tuple[list[str], int]:
    """The teams of a `{"teams": [...], "legs": 1 | 2}` body (2 to 32 names, spaces tidied,
    no two alike by `engine.team_key`; `legs` 1 unless given: 2 plays the league home and
    away), or a 422 that names what is wrong."""
    teams = body.get("teams") if isinstance(body, dict) else None
    if not isinstance(teams, list) or not 2 <= len(teams) <= MAX_TEAMS:
        raise StoreError(422, "invalid", f"teams: expected a list of 2 to {MAX_TEAMS} team names", "teams")
    out: list[str] = []
    for i, value in enumerate(teams):
        name = _tidy_name(value, f"teams[{i}]", MAX_NAME)
        same = next((o for o in out if engine.team_key(o) == engine.team_key(name)), None)
        if same is not None:
            told = f"{name!r} is named twice" if same == name else f"{name!r} is {same!r} again"
            raise StoreError(422, "invalid", f"teams[{i}]: {told}", f"teams[{i}]")
        out.append(name)
    legs = body.get("legs", 1)
    if legs not in (1, 2) or isinstance(legs, bool) or not isinstance(legs, int):
        raise StoreError(422, "invalid", f"legs: expected 1 (each pair meets once) or 2 (home and away), "
                         f"got {legs!r}", "legs")
    return out, legs


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
        """`{id, token, watch_token, name, teams, legs}`; a 404 where there is no such tournament."""
        row = self.db.reader().execute(
            "SELECT id, token, watch_token, name, teams, legs FROM tournaments WHERE id = ?", (tournament_id,)
        ).fetchone()
        if row is None:
            raise StoreError(404, "not_found", f"no tournament {tournament_id!r}")
        return {**dict(row), "teams": json.loads(row["teams"])}

    def set_teams(self, tournament_id: str, body: Any) -> None:
        """The league's teams from `{"teams": [...], "legs": 1 | 2}`, for its fixtures (the
        caller has checked the organiser's token)."""
        teams, legs = check_teams(body)
        self.get(tournament_id)
        with self.db.write() as conn:
            conn.execute("UPDATE tournaments SET teams = ?, legs = ? WHERE id = ?",
                         (json.dumps(teams, ensure_ascii=False), legs, tournament_id))

    def add_table(self, tournament_id: str, table_id: str) -> bool:
        """Enrol a table (the caller has checked both tokens): True if it was not in yet."""
        self.get(tournament_id)
        teams = self.tables.runtime(table_id).header["teams"]  # a 404 names a table that does not exist
        if engine.team_key(teams[0]) == engine.team_key(teams[1]):
            raise StoreError(422, "same_team_names", f"table: its teams are named {teams[0]!r} and {teams[1]!r}, one "
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
            # False where the teams were renamed alike since the table was added
            ranked = engine.team_key(result["teams"][0]) != engine.team_key(result["teams"][1])
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
        return {"id": row["id"], "name": row["name"], "matches": matches,
                "standings": engine.standings(results, names=row["teams"]), "teams": row["teams"],
                "legs": row["legs"], "fixtures": fixtures(row["teams"], matches, row["legs"])}

    def export(self, tournament_id: str) -> tuple[bytes, str]:
        """The tournament as a zip and its file name: `standings.csv`, `tournament.json`
        (the answer of `state`, without tokens) and `matches/NN-team-team.jsonl`, each
        enrolled table's match as `mus-match/1` (what `mus-scorer standings` ranks)."""
        state = self.state(tournament_id)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("standings.csv", standings_csv(state["standings"]))
            z.writestr("tournament.json", json.dumps(state, ensure_ascii=False, indent=1) + "\n")
            for n, m in enumerate(state["matches"], 1):
                try:
                    text = self.tables.runtime(m["table"]).match_file()
                except StoreError:  # deleted since it was listed
                    continue
                z.writestr(f"matches/{n:02d}-{slug(m['teams'][0])}-{slug(m['teams'][1])}.jsonl", text)
        return buf.getvalue(), f"{slug(state['name'], 'tournament')}.zip"


STANDINGS_COLUMNS = ("rank", "team", "played", "won", "lost", "vacas_won", "vacas_lost", "vacas_won_in_lost",
                     "stones", "head_to_head")


def standings_csv(rows: list[dict[str, Any]]) -> str:
    """The standings rows as CSV, a header line first. A team name that a spreadsheet
    would take for a formula (=, +, -, @) is written after a quote mark."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(STANDINGS_COLUMNS)
    for r in rows:
        team = "'" + r["team"] if r["team"][:1] in ("=", "+", "-", "@") else r["team"]
        w.writerow([team if k == "team" else r[k] for k in STANDINGS_COLUMNS])
    return out.getvalue()


def slug(name: str, empty: str = "team") -> str:
    """A name as a file name: ASCII letters, digits and dashes ("Peña Txoko" -> "pena-txoko"),
    `empty` where none is left."""
    bare = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", bare.lower()).strip("-")[:40].strip("-") or empty


def fixtures(teams: list[str], matches: list[dict[str, Any]], legs: int = 1) -> list[list[dict[str, Any]]]:
    """The league's rounds (`engine.round_robin`), each pairing with an enrolled table
    between those two teams (names matched by `engine.team_key`), if any: in the order
    the tables were added, a pairing's first leg takes the first such table and its
    return leg the next. Each is `{teams, table, vacas, finished, winner}`, with `vacas`
    in the pairing's order and `winner` one of its `teams`."""
    key = engine.team_key
    used: set[str] = set()
    rounds = []
    for pairs in engine.round_robin(teams, legs) if len(teams) >= 2 else []:
        out = []
        for a, b in pairs:
            m = next((m for m in matches if m["ranked"] and m["table"] not in used
                      and {key(t) for t in m["teams"]} == {key(a), key(b)}), None)
            if m is not None:
                used.add(m["table"])
            flip = m is not None and key(m["teams"][0]) != key(a)
            won = None if m is None or m["winner"] is None else m["winner"] ^ flip
            out.append({
                "teams": [a, b],
                "table": m["table"] if m else None,
                "vacas": (m["vacas"][::-1] if flip else m["vacas"]) if m else None,
                "finished": bool(m and m["finished"]),
                "winner": None if won is None else (a, b)[won],
            })
        rounds.append(out)
    return rounds
