"""Tables: a match being played, its settled hands and the hand being entered.

A table's state lives in SQLite (header, settled hands, the current hand's action
log); in memory it is an `engine.Match` replayed from the settled hands plus an
`engine.LiveHand` replayed from the log, cached per table and version. Every write
goes through `TableStore.write`: one writer, the idempotency key (`client_id`) and
the expected `version` checked inside the transaction, the engine deciding what is
legal, then the new version committed and published.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scorer import engine
from scorer.engine.errors import KEYS as ENGINE_KEYS
from scorer.engine.errors import SEAT_PARAMS, said
from scorer.engine.standings import invisible, team_key
from scorer.engine.upgrade import record_defined
from scorer.storage.db import Database

MAX_NAME = 40
MAX_LOOSE = 8  # showdowns photographed at a table that no hand cites, kept (the newest)
MAX_PHOTOS = 4  # photos of one showdown read together
MAX_ESKUS = 16  # choices of esku kept for undo in one hand (the newest)
MAX_UNDONE = 16  # hands undone whose settled time is kept, to tell which hand a photo was of (the newest)
RULE_KEYS = ("kings", "target", "real31", "games_per_vaca", "vacas_to_win")
HEADER_KEYS = ("teams", "players", "rules", "esku")  # what POST /api/tables takes
DEFAULT_TEAMS = ["Team 0", "Team 1"]  # a table opened without team names


REASONS = frozenset({"blank_name", "name_too_long", "named_twice", "named_again", "player_twice", "team_count",
                     "bad_start", "bad_every_days", "group_count", "group_too_small", "groups_team_count",
                     "ko_team_count", "third_place_count", "lances_started", "no_showdown_yet",
                     "teams_differ", "watch_link", "fixtures_would_move", "result_teams", "not_league_team",
                     "result_vacas", "result_stones", "walkover_team", "walkover_score", "winner_team",
                     "not_the_winner"}) | ENGINE_KEYS
"""The `reason` keys a refusal may carry (`StoreError`); a page says each in its language.
The engine's refusals bring theirs (`scorer.engine.errors.KEYS`, `engine_why`)."""


class StoreError(Exception):
    """A request the store refuses; `status` is the HTTP status the web layer answers.
    `reason` and `params`, where given, say why in a stable key and its values, so that a
    page can say it in its reader's language (`why.<reason>` in `web.i18n`); `message`
    stays the English for everyone else."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 reason: str | None = None, params: dict[str, Any] | None = None) -> None:
        if reason is not None and reason not in REASONS:
            raise ValueError(f"reason: {said(reason)} is not one of REASONS")
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason
        self.params = params


def engine_why(exc: engine.MusError, players: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The `reason` and `params` of an engine refusal, as `StoreError` takes them ({} where
    it has none): each seat the params name (`scorer.engine.errors.SEAT_PARAMS`) has its
    player's name beside it, `<param>_name`, for the page to say."""
    if exc.key is None:
        return {}
    params = dict(exc.params)
    for name in SEAT_PARAMS:
        seat = params.get(name)
        if type(seat) is int and 0 <= seat < len(players):
            params[f"{name}_name"] = players[seat]
    return {"reason": exc.key, "params": params}


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def iso_day(when: float | None) -> str | None:
    """A time (seconds since the epoch) as its day, ISO `YYYY-MM-DD`, in the server's local
    time (a club's evening is its own day); None for none."""
    if when is None:
        return None
    return datetime.datetime.fromtimestamp(when).date().isoformat()


def new_token() -> str:
    """An unguessable token (256 bits)."""
    return secrets.token_urlsafe(32)


def new_id() -> str:
    """A short table or photo id (not a secret: the tokens are)."""
    return secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")


@dataclass
class Runtime:
    """A table at one version, in memory. Treated as immutable once cached."""

    id: str
    version: int
    token: str
    watch_token: str
    header: dict[str, Any]
    rules: Any  # engine.Rules
    match: Any  # engine.Match (with every settled hand played)
    live: Any  # engine.LiveHand | None (None once the match has a winner)
    mus_rounds: int
    hands: list[dict[str, Any]]  # [{n, record, settlement, photo_id}]
    logs: list[tuple[list[dict[str, Any]], int]]  # per settled hand: (live log, mus rounds)
    hands_json: str = ""  # the JSON array of `hands` (settled hands never change: built once)
    # the esku chosen for the current hand (mus corrido, or a wrong esku fixed), each choice
    # in turn (the last one stands; undo takes them back one by one); () = the turn's esku
    eskus: tuple[int, ...] = ()
    # the showdown not yet settled, `{hands, photo_id, bottom}` (`set_shown`: every phone opens
    # it as it stands), with `checked`, the unsure reads a person confirmed (`check_shown`),
    # where there are any; or a showdown undone: the cards its hand was settled with and its photo,
    # `{hands, photo_id}`, kept for the showdown again (the players need not photograph and
    # correct them twice)
    shown: dict[str, Any] | None = None
    # the hands undone, `(n, settled, undone)` (times), the newest last (`MAX_UNDONE`): while
    # hand n was settled, the hand after it was being played (`_settled_after`)
    undone: tuple[tuple[int, float, float], ...] = ()
    # the day the table was created, ISO (`YYYY-MM-DD`, the server's local time): the
    # match sheet's date (an import into the table keeps it)
    created: str | None = None
    _json: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.hands_json:
            self.hands_json = "[" + ",".join(_dumps(h) for h in self.hands) + "]"
        # computed now, while this runtime's match is still this version's (see `TableStore`)
        self._json = self._state_json()

    def role(self, token: str) -> str | None:
        """What `token` opens of this table: "play" (reads and writes), "watch" (reads) or
        None, compared in constant time (the API and the pages both ask this)."""
        if same(token, self.token):
            return "play"
        if same(token, self.watch_token):
            return "watch"
        return None

    def stream_token(self) -> str:
        """The players' live-stream token: derived from the players' token (which it does
        not reveal), it opens only `GET .../events`, counted as the players' (their reserve
        of the table's streams), so that the players' page streams without putting the
        token that writes in an address."""
        mac = hmac.new(self.token.encode("utf-8"), b"mus-scorer players' live stream", hashlib.sha256)
        return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode("ascii")

    def match_file(self) -> str:
        """The match as a `mus-match/1` file (JSON Lines: the header, then each hand record)."""
        lines = [self.match.header(),
                 *({k: v for k, v in h["record"].items() if k not in ("score", "rules")} for h in self.hands)]
        return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)

    def with_hand(self, **changes: Any) -> Runtime:
        """The next version: `changes` to the fields; `hands_json` follows `hands`."""
        hands = changes.get("hands", self.hands)
        if hands is self.hands:
            changes.setdefault("hands_json", self.hands_json)
        elif len(hands) == len(self.hands) + 1 and hands[:-1] == self.hands:
            sep = "," if self.hands else ""
            changes.setdefault("hands_json", self.hands_json[:-1] + sep + _dumps(hands[-1]) + "]")
        else:
            changes.setdefault("hands_json", "")
        return dataclasses.replace(self, _json=None, **changes)

    def state(self) -> dict[str, Any]:
        """The table state the API answers (CONTRACTS.md, Web)."""
        return json.loads(self.state_json())

    def _head(self) -> dict[str, Any]:
        ms = self.match.state()
        current = None
        esku = ms["esku"]
        if self.live is not None:
            live = self.live
            esku = live.state.esku  # the turn's, or the one chosen for this hand
            current = {
                "phase": live.phase,
                "to_speak": live.to_speak,
                "legal": live.legal(),
                "log": list(live.log),
                "phases": list(live.phases),
                "events": list(live.events),
                "score": list(live.score),
                "esku": esku,
                "esku_chosen": bool(self.eskus),
                "shown": self.shown,
                "mus_rounds": self.mus_rounds,
                "game_over": bool(live.game_over),
                "ordago": live.ordago,
            }
        return {
            "id": self.id,
            "version": self.version,
            "teams": self.header["teams"],
            "players": self.header["players"],
            "rules": self.header["rules"],
            "score": list(ms["score"]),
            "games": list(ms["games"]),
            "vacas": list(ms["vacas"]),
            "winner": ms["winner"],
            "adentro": list(ms["adentro"]),
            "esku": esku,
            "game_scores": [list(s) for s in ms.get("game_scores", [])],
            "current": current,
            "last_settlement": self.hands[-1]["settlement"] if self.hands else None,
            "created": self.created,
        }

    def _state_json(self) -> str:
        head = _dumps(self._head())
        return head[:-1] + ',"hands":' + self.hands_json + "}"

    def state_json(self) -> str:
        """The state as JSON text (one line), made once per version."""
        if self._json is None:
            self._json = self._state_json()
        return self._json


def same(a: str, b: str) -> bool:
    """Whether two secrets are equal, compared in constant time."""
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


def visible(text: str) -> str:
    """`text` without control and invisible format characters (zero-width spaces, byte
    order marks, direction overrides; spaces and tabs stay, and the joiner inside an
    emoji), stripped."""
    return "".join(c for c in text if c == "\u200d" or not invisible(c)).strip()


def _check_names(obj: Any, key: str, n: int, default: list[str]) -> list[str]:
    if obj is None:
        return list(default)
    if not isinstance(obj, list) or len(obj) != n:
        raise StoreError(422, "invalid", f"{key}: expected a list of {n} names", key)
    out = []
    for i, name in enumerate(obj):
        shown = visible(name) if isinstance(name, str) else ""
        if not shown.strip("\u200d"):
            raise StoreError(422, "invalid", f"{key}[{i}]: expected a name, not blank nor only invisible characters, got {said(name)}",
                             f"{key}[{i}]", "blank_name")
        if len(shown) > MAX_NAME:  # counted as a league counts its teams' names: what shows, spaces around aside
            raise StoreError(422, "invalid", f"{key}[{i}]: longer than {MAX_NAME} characters", f"{key}[{i}]",
                             "name_too_long", {"name": shown, "limit": MAX_NAME})
        out.append(shown)
    return out


def _check_teams_apart(teams: list[str]) -> None:
    """Two names of one team (`engine.team_key`: case, accents and spacing aside) are refused:
    standings and tournaments could not tell the teams apart."""
    if team_key(teams[0]) == team_key(teams[1]):
        raise StoreError(422, "invalid", f"teams: {said(teams[0])} and {said(teams[1])} are one name (case, accents and "
                         "spacing aside): give the two teams names that differ", "teams",
                         "named_again", {"name": teams[1], "same": teams[0]})


def _check_players_apart(players: list[str]) -> None:
    """Two players of one name (by `engine.team_key`, as the teams: case, accents and
    spacing aside) are refused: "Habla Ane" would not say which Ane. The message, `field`
    (the second seat, `players[j]`) and params (`name`, `same`: the two as typed; `first`,
    `second`: their places 1..4, as the new-table form numbers them) name both."""
    seen: dict[str, int] = {}
    for j, name in enumerate(players):
        i = seen.setdefault(team_key(name), j)
        if i != j:
            raise StoreError(422, "invalid", f"players[{j}]: {said(name)} is the name of players[{i}] too ({said(players[i])}; "
                             "case, accents and spacing aside): give each player a name of their own",
                             f"players[{j}]", "player_twice",
                             {"name": name, "same": players[i], "first": i + 1, "second": j + 1})


def check_known(body: dict[str, Any], known: tuple[str, ...]) -> None:
    """The first key of `body` not in `known` (a misspelt `player`, a `target` outside
    `rules`) is a 422 `invalid` naming it and the known keys, rather than silently left
    out; `field` is that key (quoted as JSON, `said`, where it is blank, spaced or
    unprintable, so that it shows)."""
    for key in body:
        if key not in known:
            shown = key if key and key.isprintable() and key == key.strip() else said(key)
            raise StoreError(422, "invalid", f"{shown}: unknown key (known: {', '.join(known)})", shown)


def check_header(body: Any, strict: bool = False) -> dict[str, Any]:
    """Validate `{teams, players, rules, esku}` into a normalised table header. `strict`
    (a table made here, not an imported file): an unknown key, two teams of one name and
    two players of one name are refused."""
    if not isinstance(body, dict):
        raise StoreError(400, "bad_json", "the body must be a JSON object", None)
    if strict:
        check_known(body, HEADER_KEYS)
    teams = _check_names(body.get("teams"), "teams", 2, list(DEFAULT_TEAMS))
    if strict:
        _check_teams_apart(teams)
    players = _check_names(body.get("players"), "players", 4, ["P0", "P1", "P2", "P3"])
    if strict:
        _check_players_apart(players)
    esku = body.get("esku", 0)
    if isinstance(esku, bool) or not isinstance(esku, int) or not 0 <= esku <= 3:
        raise StoreError(422, "invalid", f"esku: expected a seat 0..3, got {said(esku)}", "esku")
    rules = check_rules(body.get("rules"))
    return {"teams": teams, "players": players, "rules": rules.to_json(), "esku": esku}


def check_rules(raw_rules: Any) -> Any:
    """The `engine.Rules` of a body's `rules` object (None, or a rule left out, takes the
    default), or a 422 `invalid` naming `rules` or the rule at fault (`rules.kings`)."""
    if raw_rules is not None and not isinstance(raw_rules, dict):
        raise StoreError(422, "invalid", "rules: expected an object", "rules")
    unknown = sorted(set(raw_rules or {}) - set(RULE_KEYS))
    if unknown:
        raise StoreError(422, "invalid", f"rules.{unknown[0]}: unknown rule", f"rules.{unknown[0]}")
    try:
        return engine.Rules.from_json(raw_rules)
    except engine.MusError as exc:
        field_ = exc.field if exc.field.startswith("rules") else f"rules.{exc.field}".rstrip(".")
        raise StoreError(422, "invalid", str(exc), field_) from None
    except (ValueError, TypeError) as exc:
        raise StoreError(422, "invalid", f"rules: {exc}", "rules") from None


def _match_for(header: dict[str, Any]) -> tuple[Any, Any]:
    rules = engine.Rules.from_json(header["rules"])
    match = engine.Match(rules, teams=tuple(header["teams"]), players=tuple(header["players"]), esku=header["esku"])
    return rules, match


def _without_score(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "score"}


def _with_hand_rules(record: dict[str, Any], rules: Any) -> dict[str, Any]:
    """`record` carrying the rules a `mus-hand/1` record carries (HAND-RECORD.md "A hand":
    `kings`, `target`, `real31`; the match's length belongs to the table's header), right
    after its `format`: a hand played here, one imported, or one stored before with all
    the table's rules."""
    out = {k: v for k, v in record.items() if k not in ("format", "rules")}
    return {"format": record.get("format", "mus-hand/1"), "rules": rules.hand_json(), **out}


class TableStore:
    """The tables of one database, with a cache of their in-memory state."""

    def __init__(self, db: Database, cache_size: int = 2000) -> None:
        self.db = db
        self._cache: OrderedDict[str, Runtime] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._cache_size = cache_size
        self.listeners: list[Callable[[str, int], None]] = []

    # -- reading -------------------------------------------------------------------
    def runtime(self, table_id: str) -> Runtime:
        """The table's current state; `StoreError` 404 if there is no such table.

        A cached runtime is checked against the database's row (one indexed read of its
        version): a table deleted by another process (`mus-scorer prune --tables-days`)
        is a 404 and leaves the cache, one written by another process is read again."""
        with self._cache_lock:
            rt = self._cache.get(table_id)
        if rt is not None:
            stored = self._stored_version(self.db.reader(), table_id)
            if stored == rt.version:
                with self._cache_lock:
                    if table_id in self._cache:
                        self._cache.move_to_end(table_id)
                return rt
            if stored is None:
                self._gone(table_id)
        with self.db.lock:  # rebuild once, not in every thread that missed
            conn = self.db.locked_conn()
            with self._cache_lock:
                rt = self._cache.get(table_id)
            if rt is not None and self._stored_version(conn, table_id) != rt.version:
                self._forget(table_id)
                rt = None
            if rt is None:
                try:
                    rt = self._load(conn, table_id)
                except StoreError:
                    self._forget(table_id)
                    raise
                self._remember(rt)
            return rt

    @staticmethod
    def _stored_version(conn: Any, table_id: str) -> int | None:
        """The table's version in the database; None where it has no row (deleted)."""
        row = conn.execute("SELECT version FROM tables WHERE id = ?", (table_id,)).fetchone()
        return None if row is None else int(row[0])

    def _gone(self, table_id: str) -> None:
        """The table has no row (deleted meanwhile, by a prune): out of the cache, a 404."""
        self._forget(table_id)
        raise StoreError(404, "not_found", f"no table {said(table_id)}", None)

    def exists(self, table_id: str) -> bool:
        """Whether the table still has its row in the database (not deleted meanwhile)."""
        return self._stored_version(self.db.reader(), table_id) is not None

    def _remember(self, rt: Runtime) -> None:
        with self._cache_lock:
            self._cache[rt.id] = rt
            self._cache.move_to_end(rt.id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _forget(self, table_id: str) -> None:
        with self._cache_lock:
            self._cache.pop(table_id, None)

    def _load(self, conn: Any, table_id: str) -> Runtime:
        row = conn.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            raise StoreError(404, "not_found", f"no table {said(table_id)}", None)
        header = json.loads(row["header"])
        current = json.loads(row["current"])
        rules, match = _match_for(header)
        hands, logs = [], []
        for h in conn.execute("SELECT * FROM hands WHERE table_id = ? ORDER BY n", (table_id,)):
            record = _with_hand_rules(json.loads(h["record"]), rules)
            if record.get("esku") is None:  # an import stored its null before the forty-fifth session
                record["esku"] = match.state()["esku"]
            # an import stored its line as it came: said in the contract's words (no `hands`,
            # a `mas` without `n`, a declaration null: what the engine took them to mean)
            record = record_defined(record)
            match.play(_without_score(record))
            hands.append(
                {"n": h["n"], "record": record, "settlement": json.loads(h["settlement"]), "photo_id": h["photo_id"]}
            )
            logs.append((json.loads(h["log"]), h["mus_rounds"]))
        eskus = tuple(current.get("eskus", ()))
        live = self._live_for(rules, match, current["log"], eskus[-1] if eskus else None)
        return Runtime(
            id=table_id,
            version=row["version"],
            token=row["token"],
            watch_token=row["watch_token"],
            header=header,
            rules=rules,
            match=match,
            live=live,
            mus_rounds=current.get("mus_rounds", 0),
            hands=hands,
            logs=logs,
            eskus=eskus,
            shown=current.get("shown"),
            undone=tuple(tuple(u) for u in current.get("undone", ())),
            created=iso_day(row["created"]),
        )

    @staticmethod
    def _live_for(rules: Any, match: Any, log: list[dict[str, Any]], esku: int | None = None) -> Any:
        """The current hand after `log`: its esku `esku` where one was chosen, else the turn's."""
        st = match.state()
        if st["winner"] is not None:
            return None
        return engine.LiveHand.replay(rules, st["esku"] if esku is None else esku, tuple(st["score"]), log)

    def photo(self, table_id: str, photo_id: str, annotated: bool = False) -> tuple[str, bytes]:
        col = "annotated" if annotated else "data"
        row = self.db.reader().execute(
            f"SELECT mime, {col} AS blob FROM photos WHERE id = ? AND table_id = ?", (photo_id, table_id)
        ).fetchone()
        if row is None or row["blob"] is None:
            raise StoreError(404, "not_found", f"no photo {said(photo_id)} at this table", None)
        return ("image/jpeg" if annotated else row["mime"]), bytes(row["blob"])

    def annotated_photo(self, table_id: str, photo_id: str, photo: bool = True,
                        labels: str | None = None) -> tuple[bytes | None, bytes | None, str | None]:
        """A photo's annotated copy: `(JPEG, None, None)`; where it has none (its seats
        changed since it was drawn, `set_shown`, or none was ever drawn), or `labels` is
        given and its copy was drawn with others (`web.photo_labels.key`: a card corrected,
        a player renamed since), `(None, the photo, its scan as stored)` to draw one from
        and keep (`set_annotated`); without `photo`, `(None, None, its scan)` (the photo's
        bytes not read). A 404 `not_found` for no such photo at the table."""
        row = self.db.reader().execute(
            "SELECT CASE WHEN ? IS NULL OR labels IS ? THEN annotated END AS annotated,"
            " CASE WHEN (annotated IS NULL OR ? IS NOT NULL AND labels IS NOT ?) AND ? THEN data END AS data,"
            " scan FROM photos WHERE id = ? AND table_id = ?",
            (labels, labels, labels, labels, photo, photo_id, table_id)
        ).fetchone()
        if row is None:
            raise StoreError(404, "not_found", f"no photo {said(photo_id)} at this table", None)
        if row["annotated"] is not None:
            return bytes(row["annotated"]), None, None
        return None, None if row["data"] is None else bytes(row["data"]), row["scan"]

    def set_annotated(self, table_id: str, photo_id: str, jpeg: bytes, scan: str | None,
                      labels: str | None = None) -> bool:
        """Keep `jpeg` as the annotated copy of a photo that has none (or one drawn with
        other labels than `labels`), drawn from its scan `scan` as stored
        (`annotated_photo`) with `labels`: not where that scan changed meanwhile (seated
        again once more: the next copy is drawn from the new one). Whether it was kept (a
        read-only database, or a full disk, keeps nothing: the copy is drawn again)."""
        if self.db.readonly:
            return False
        try:
            with self.db.write() as conn:
                cur = conn.execute("UPDATE photos SET annotated = ?, labels = ? WHERE id = ? AND table_id = ?"
                                   " AND (annotated IS NULL OR labels IS NOT ?) AND scan IS ?",
                                   (jpeg, labels, photo_id, table_id, labels, scan))
        except sqlite3.OperationalError:
            return False
        return cur.rowcount == 1

    # -- creating ------------------------------------------------------------------
    def create(self, body: Any, hands: list[dict[str, Any]] | None = None, strict: bool = False) -> Runtime:
        """A new table from `{teams, players, rules, esku}`, with settled `hands` records
        (`strict`: as `check_header` takes it)."""
        header = check_header(body, strict)
        now = time.time()
        rt = self._fresh(new_id(), new_token(), new_token(), header, hands or [], version=1, created=iso_day(now))
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO tables (id, token, watch_token, header, version, current, created, updated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (rt.id, rt.token, rt.watch_token, _dumps(header), rt.version, _dumps({"log": [], "mus_rounds": 0}), now, now),
            )
            self._insert_hands(conn, rt.id, rt.hands, now)
        self._remember(rt)
        return rt

    def _fresh(
        self, table_id: str, token: str, watch: str, header: dict[str, Any], records: list[dict[str, Any]], version: int,
        created: str | None = None,
    ) -> Runtime:
        rules, match = _match_for(header)
        hands, logs = [], []
        for i, rec in enumerate(records, start=1):
            st = match.state()
            full = _with_hand_rules(_without_score(rec), rules)
            if full.get("esku") is None:  # left out or null: the turn's (HAND-RECORD.md "A match")
                full["esku"] = st["esku"]
            full["score"] = list(st["score"])
            full = record_defined(full)  # a declaration null (what the seat's cards hold) said so
            settlement = match.play(_without_score(full))
            hands.append({"n": i, "record": full, "settlement": settlement, "photo_id": None})
            logs.append(([], 0))
        live = self._live_for(rules, match, [])
        return Runtime(table_id, version, token, watch, header, rules, match, live, 0, hands, logs, created=created)

    @staticmethod
    def _insert_hands(conn: Any, table_id: str, hands: list[dict[str, Any]], now: float) -> None:
        for h in hands:
            conn.execute(
                "INSERT INTO hands (table_id, n, record, settlement, log, mus_rounds, photo_id, created)"
                " VALUES (?, ?, ?, ?, '[]', 0, ?, ?)",
                (table_id, h["n"], _dumps(h["record"]), _dumps(h["settlement"]), h["photo_id"], now),
            )

    # -- writing -------------------------------------------------------------------
    def write(
        self, table_id: str, client_id: Any, version: Any, kind: str, change: Callable[[Runtime], dict[str, Any]],
        request: Any = None,
    ) -> tuple[Runtime, bool]:
        """Apply one write: `(new runtime, replayed)`.

        `change(rt)` returns what to store: `{"live": LiveHand, "mus_rounds": n}` and
        optionally `"settle": {...}` (a hand to add), `"unsettle": True` (the last hand
        goes), `"replace": Runtime` (the header and every hand replaced by that
        runtime's, which is the next version, as `replace` makes it) or `"header"` with
        `"match"` (the table's names changed: the header and its match), and `"eskus"` (the
        current hand's chosen esku, each choice in turn; kept where not said, emptied by a
        settle or a replace); it raises
        `engine.MusError` (422) or `StoreError` and nothing changes. `"shown"` (the cards and
        photo of the showdown not yet settled, or of a showdown undone) is kept likewise: emptied
        by a settle or a replace. `"photos"`: `{photo_id: scan}`, stored scans seated again. A `client_id` seen
        before with the same `kind` and `request` answers the table as it is now, without
        applying anything (`replayed`); seen with another, it is a 409 (`_seen`).
        """
        client_id = check_client_id(client_id)
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:  # malformed, not stale
            raise StoreError(400, "invalid", f"version: expected the table's version, a whole number, got "
                             f"{said(version)}", "version")
        digest = _digest(kind, request)
        rt = self.runtime(table_id)  # 404 before taking the lock
        with self.db.lock:
            rt = self.runtime(table_id)
            conn = self.db.locked_conn()
            if _seen(conn, table_id, client_id, kind, digest) is not None:
                return rt, True
            if version != rt.version:
                raise StoreError(
                    409, "stale_version", f"version {version} is not the table's version {rt.version}", "version"
                )
            try:
                out = change(rt)
            except engine.MusError as exc:  # the engine changes nothing when it refuses
                code = "illegal" if isinstance(exc, engine.IllegalError) else "invalid"
                raise StoreError(422, code, str(exc), exc.field or None,
                                 **engine_why(exc, rt.header.get("players") or ())) from None
            except StoreError:
                raise
            except BaseException:
                self._forget(table_id)
                raise
            try:
                new = self._commit(rt, client_id, kind, out, digest)
            except BaseException as exc:
                self._forget(table_id)
                # deleted by another process (a prune) since it was read: its hands, ops
                # and photos refer to no table (a foreign key failure), its row is not there
                if isinstance(exc, sqlite3.IntegrityError | StoreError) and not self.exists(table_id):
                    self._gone(table_id)
                raise
            self._remember(new)
        self._notify(table_id, new.version)
        return new, False

    def _notify(self, table_id: str, version: int) -> None:
        """Tell the listeners (the live event hub) that a table has a new version."""
        for listener in list(self.listeners):
            listener(table_id, version)

    def _commit(self, rt: Runtime, client_id: str, kind: str, out: dict[str, Any], digest: str) -> Runtime:
        now = time.time()
        version = rt.version + 1
        hands, logs, match, header = rt.hands, rt.logs, rt.match, rt.header
        live, mus_rounds = out["live"], out["mus_rounds"]
        if "eskus" in out:
            eskus = tuple(out["eskus"])
        else:  # a new hand, or a new match, starts with the turn's esku
            eskus = () if ("settle" in out or "replace" in out) else rt.eskus
        if "shown" in out:
            shown = out["shown"]
        else:  # the cards of a showdown undone stay with their hand until it is settled again
            shown = None if ("settle" in out or "replace" in out) else rt.shown
        undone = () if "replace" in out else rt.undone  # a new match: no hand of it was undone
        current = {"log": list(live.log) if live is not None else [], "mus_rounds": mus_rounds}
        if eskus:
            current["eskus"] = list(eskus)
        if shown:
            current["shown"] = shown
        with self.db.write() as conn:
            if "replace" in out:
                new = out["replace"]
                conn.execute("DELETE FROM hands WHERE table_id = ?", (rt.id,))
                self._insert_hands(conn, rt.id, new.hands, now)
                conn.execute("UPDATE tables SET header = ? WHERE id = ?", (_dumps(new.header), rt.id))
            elif "settle" in out:
                s = out["settle"]
                n = len(hands) + 1
                conn.execute(
                    "INSERT INTO hands (table_id, n, record, settlement, log, mus_rounds, photo_id, created)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (rt.id, n, _dumps(s["record"]), _dumps(s["settlement"]), _dumps(s["log"]), s["mus_rounds"],
                     s["photo_id"], now),
                )
                hands = [*hands, {"n": n, "record": s["record"], "settlement": s["settlement"], "photo_id": s["photo_id"]}]
                logs = [*logs, (s["log"], s["mus_rounds"])]
                match = s["match"]
            elif out.get("unsettle"):
                settled = conn.execute("SELECT created FROM hands WHERE table_id = ? AND n = ?",
                                       (rt.id, len(hands))).fetchone()["created"]
                undone = (*undone, (len(hands), settled, now))[-MAX_UNDONE:]
                conn.execute("DELETE FROM hands WHERE table_id = ? AND n = ?", (rt.id, len(hands)))
                hands, logs = hands[:-1], logs[:-1]
                match = out["match"]
            elif "header" in out:
                header = out["header"]
                conn.execute("UPDATE tables SET header = ? WHERE id = ?", (_dumps(header), rt.id))
                match = out["match"]
            for pid, scan in out.get("photos", {}).items():  # photos seated again (`set_shown`): their
                # annotated copies, labelled with the seats first read, are drawn again when next asked for
                conn.execute("UPDATE photos SET scan = ?, annotated = NULL, labels = NULL WHERE id = ? AND table_id = ?",
                             (_dumps(scan), pid, rt.id))
            if undone:
                current["undone"] = [list(u) for u in undone]
            cur = conn.execute(
                "UPDATE tables SET version = ?, current = ?, updated = ? WHERE id = ? AND version = ?",
                (version, _dumps(current), now, rt.id, rt.version),
            )
            if cur.rowcount != 1:  # another process wrote this table
                raise StoreError(409, "stale_version", "the table changed meanwhile; reload it", "version")
            conn.execute(
                "INSERT INTO ops (table_id, client_id, kind, version, created, digest) VALUES (?, ?, ?, ?, ?, ?)",
                (rt.id, client_id, kind, version, now, digest),
            )
        if "replace" in out:
            return out["replace"]
        return rt.with_hand(version=version, match=match, live=live, mus_rounds=mus_rounds, hands=hands, logs=logs,
                            eskus=eskus, header=header, shown=shown, undone=undone)

    # -- the writes --------------------------------------------------------------
    def act(self, table_id: str, client_id: Any, version: Any, action: Any) -> tuple[Runtime, bool]:
        """Apply one betting or declaring action (checked by the engine)."""

        def change(rt: Runtime) -> dict[str, Any]:
            live = _require_live(rt)
            if not isinstance(action, dict):
                raise StoreError(422, "invalid", f"action: expected an object, got {said(action)}", "action")
            return {"live": live.apply(action), "mus_rounds": rt.mus_rounds}

        return self.write(table_id, client_id, version, "action", change, action)

    def mus(self, table_id: str, client_id: Any, version: Any) -> tuple[Runtime, bool]:
        """One more mus round (only before the first word of the hand)."""

        def change(rt: Runtime) -> dict[str, Any]:
            live = _require_live(rt)
            if live.log:
                raise StoreError(422, "illegal", "mus: the lances have started; no more mus this hand", "mus",
                                 "lances_started")
            return {"live": live, "mus_rounds": rt.mus_rounds + 1}

        return self.write(table_id, client_id, version, "mus", change)

    def set_esku(self, table_id: str, client_id: Any, version: Any, seat: Any) -> tuple[Runtime, bool]:
        """Choose who is esku this hand (mus corrido: the player who cut; or a wrong esku
        fixed), only before anything is said in it (no word, no mus round); the next hand's
        esku follows from it."""

        def change(rt: Runtime) -> dict[str, Any]:
            live = _require_live(rt)
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
                raise StoreError(422, "invalid", f"seat: expected a seat 0..3, got {said(seat)}", "seat")
            if live.log or rt.mus_rounds:
                done = f"{len(live.log)} word(s)" if live.log else f"{rt.mus_rounds} mus round(s)"
                raise StoreError(409, "hand_started", f"seat: the esku is chosen before anything is said in the hand, "
                                 f"and {done} were said already (undo them first)", "seat")
            if seat == live.state.esku:  # that seat is esku already: nothing to take back later
                return {"live": live, "mus_rounds": 0}
            st = rt.match.state()
            eskus = (*rt.eskus, seat)[-MAX_ESKUS:]
            return {"live": engine.LiveHand.start(rt.rules, seat, tuple(st["score"])), "mus_rounds": 0,
                    "eskus": eskus}

        return self.write(table_id, client_id, version, "esku", change, seat)

    def undo(self, table_id: str, client_id: Any, version: Any) -> tuple[Runtime, bool]:
        """Take back the last action, mus round or, between hands, the last showdown (its
        hand comes back with its words, and `shown`: its cards and photo)."""

        def change(rt: Runtime) -> dict[str, Any]:
            if rt.live is not None and rt.live.log:
                return {"live": rt.live.undo(), "mus_rounds": rt.mus_rounds}
            if rt.live is not None and rt.mus_rounds:
                return {"live": rt.live, "mus_rounds": rt.mus_rounds - 1}
            if rt.live is not None and rt.eskus:  # the last choice of esku: the one before it, or the turn's
                eskus = rt.eskus[:-1]
                return {"live": self._live_for(rt.rules, rt.match, [], eskus[-1] if eskus else None),
                        "mus_rounds": 0, "eskus": eskus}
            if not rt.hands:
                raise StoreError(422, "nothing_to_undo", "nothing to undo: no action, mus, esku or hand yet", None)
            _, match = _match_for(rt.header)
            for h in rt.hands[:-1]:
                match.play(_without_score(h["record"]))
            log, mus_rounds = rt.logs[-1]
            if not log:  # an imported hand (stored without a log): its words, rebuilt from its record
                log = _log_of(rt.rules, rt.hands[-1]["record"])
            # the hand comes back with its esku: a chosen one (mus corrido) stays chosen
            last = rt.hands[-1]
            esku = last["record"].get("esku", match.state()["esku"])
            chosen = (esku,) if esku != match.state()["esku"] else ()
            # and with the cards it was settled with and its photo, for its showdown again
            cards = last["record"].get("hands") or [None] * 4
            shown = {"hands": cards, "photo_id": last["photo_id"]} \
                if last["photo_id"] or any(h for h in cards) else None
            return {"live": self._live_for(rt.rules, match, log, esku), "mus_rounds": mus_rounds, "unsettle": True,
                    "match": match, "eskus": chosen, "shown": shown}

        return self.write(table_id, client_id, version, "undo", change)

    def showdown(
        self, table_id: str, client_id: Any, version: Any, hands: Any, photo_id: Any = None
    ) -> tuple[Runtime, bool]:
        """Settle the current hand with the cards shown; the next hand starts."""

        def change(rt: Runtime) -> dict[str, Any]:
            live = _require_live(rt)
            if live.phase not in ("showdown", "over"):
                raise StoreError(422, "illegal", f"phase: the hand is still in {live.phase}; no showdown yet", "phase",
                                 "no_showdown_yet")
            # the showdown's first photo is the one the hand cites
            cited = None if photo_id is None else self._pending_photo(rt, photo_id)
            if hands is not None and not isinstance(hands, list):
                raise StoreError(422, "invalid", "hands: expected four lists of four cards", "hands")
            record = _with_hand_rules(live.to_record(hands), rt.rules)
            # played on a copy: the cached runtime's match is read meanwhile (tournaments,
            # other requests) and must not show a hand whose commit may yet fail
            match = rt.match.copy()
            settlement = match.play(_without_score(record))
            live_next = self._live_for(rt.rules, match, [])
            return {
                "live": live_next,
                "mus_rounds": 0,
                "settle": {"record": record, "settlement": settlement, "log": list(live.log),
                           "mus_rounds": rt.mus_rounds, "photo_id": cited, "match": match},
            }

        return self.write(table_id, client_id, version, "showdown", change, [hands, photo_id])

    def set_shown(self, table_id: str, client_id: Any, version: Any, hands: Any, photo_id: Any = None,
                  bottom: Any = None) -> tuple[Runtime, bool]:
        """Keep the current hand's showdown as it stands, not yet settled: `hands` (four
        lists of four places by seat, a place null where no card is named yet) and the
        first photo of its showdown `photo_id` (any of its photos may be named) whose
        bottom edge is the seat `bottom`: every phone at the table, and a page reloaded,
        opens the showdown with them (`current.shown`). A `bottom` other than the one the
        photos were read with seats their cards again, a rotation (`rotate_scan`): their
        stored scans say the new seats, and their annotated copies are dropped, drawn again
        with them when next asked for (`annotated_photo`). Only at the showdown; nothing
        said or settled changes. Four empty hands and no photo empty it."""

        def change(rt: Runtime) -> dict[str, Any]:
            live = _require_live(rt)
            if live.phase not in ("showdown", "over"):
                raise StoreError(422, "illegal", f"phase: the hand is still in {live.phase}; no showdown yet", "phase",
                                 "no_showdown_yet")
            places = _check_places(hands)
            if bottom is not None and (type(bottom) is not int or bottom not in (0, 1, 2, 3)):
                raise StoreError(422, "invalid", f"bottom: expected the seat 0..3 at the photo's bottom edge, got "
                                 f"{said(bottom, 60)}", "bottom")
            out: dict[str, Any] = {"live": live, "mus_rounds": rt.mus_rounds}
            cited = None
            if photo_id is not None:
                cited = self._pending_photo(rt, photo_id)
                if bottom is not None:
                    out["photos"] = {pid: rotate_scan(scan, bottom)
                                     for pid, scan in self.photo_set(rt.id, cited, conn=self.db.locked_conn())
                                     if isinstance(scan, dict) and scan.get("bottom", 0) != bottom}
            if cited is None and not any(c for hand in places for c in hand):
                out["shown"] = None
            else:
                out["shown"] = {"hands": places, "photo_id": cited, **({} if bottom is None else {"bottom": bottom})}
                if checked := _carried_checks(rt.shown, out["shown"]):
                    out["shown"]["checked"] = checked
            return out

        return self.write(table_id, client_id, version, "shown", change, [hands, photo_id, bottom])

    def check_shown(self, table_id: str, client_id: Any, version: Any, photo_id: Any, seat: Any, place: Any,
                    card: Any, undo: Any = False) -> tuple[Runtime, bool]:
        """Record that a person confirmed the card `card` at `hands[seat][place]` of the
        showdown kept (`set_shown`), read from its photo `photo_id` (any photo of that
        showdown): every phone shows it confirmed (`current.shown.checked`). `undo` true
        takes that confirmation back instead: every phone shows the card unsure again (a
        422 `nothing_to_undo` on `card` where it is not confirmed). A 422 names a bad seat,
        place, card or `undo`, a card not at that place, or a photo that is not the
        showdown's kept; only at the showdown. Nothing else changes."""

        def change(rt: Runtime) -> dict[str, Any]:
            if type(undo) is not bool:
                raise StoreError(422, "invalid", f"undo: expected true (take the confirmation back) or false, got "
                                 f"{said(undo, 60)}", "undo")
            for name, value in (("seat", seat), ("place", place)):
                if type(value) is not int or value not in (0, 1, 2, 3):
                    raise StoreError(422, "invalid", f"{name}: {said(value)} is not a {name} 0..3", name)
            try:
                engine.Card.parse(card)
            except engine.MusError as exc:
                raise StoreError(422, "invalid", f"card: {exc.reason}", "card") from None
            live = _require_live(rt)
            if live.phase not in ("showdown", "over"):
                raise StoreError(422, "illegal", f"phase: the hand is still in {live.phase}; no showdown yet", "phase",
                                 "no_showdown_yet")
            cited = self._pending_photo(rt, photo_id)
            shown = rt.shown or {}
            if shown.get("photo_id") != cited:
                kept = shown.get("photo_id")
                raise StoreError(422, "invalid", f"photo_id: photo {said(photo_id)} is not of the showdown kept "
                                 + (f"(its first photo is {said(kept)})" if kept else "(it has no photo)"), "photo_id")
            held = shown["hands"][seat][place] if shown["hands"][seat] else None
            if held != card:
                raise StoreError(422, "invalid", f"card: hands[{seat}][{place}] holds "
                                 f"{'no card' if held is None else said(held)}, not {said(card)}", "card")
            checked = [c for c in shown.get("checked", ()) if (c["seat"], c["place"]) != (seat, place)]
            if undo:
                if len(checked) == len(shown.get("checked", ())):
                    raise StoreError(422, "nothing_to_undo", f"card: {said(card)} at hands[{seat}][{place}] is not "
                                     "confirmed: nothing to take back", "card")
                rest = {k: v for k, v in shown.items() if k != "checked"}
                return {"live": live, "mus_rounds": rt.mus_rounds, "shown": {**rest, **({"checked": checked} if checked
                                                                                        else {})}}
            checked.append({"seat": seat, "place": place, "card": card})
            checked.sort(key=lambda c: (c["seat"], c["place"]))
            return {"live": live, "mus_rounds": rt.mus_rounds, "shown": {**shown, "checked": checked}}

        return self.write(table_id, client_id, version, "uncheck" if undo is True else "check", change,
                          [photo_id, seat, place, card])

    def _pending_photo(self, rt: Runtime, photo_id: Any) -> str:
        """The first photo of the showdown `photo_id` is of, where that showdown is the
        current hand's: a 422 `invalid` on `photo_id` for no such photo at the table, a 409
        `showdown_settled` for a photo of a hand settled already."""
        try:
            cited = self._first_of(self.db.locked_conn(), rt.id, photo_id)
        except StoreError:  # never here, or gone meanwhile (the page then settles without it)
            raise StoreError(422, "invalid", f"photo_id: no photo {said(photo_id, 60)} at this table",
                             "photo_id") from None
        settled = next((h["n"] for h in rt.hands if h["photo_id"] == cited), None)
        if settled is not None:  # a photo of an earlier showdown (a stale page): not this hand's
            raise StoreError(409, "showdown_settled", f"photo_id: photo {said(photo_id)} is of the showdown of "
                             f"hand {settled}, settled already: it is not this hand's", "photo_id")
        after = _settled_after(self.db.locked_conn(), rt.id, cited)
        if after is not None:  # taken for an earlier hand that was settled without it
            raise StoreError(409, "showdown_settled", f"photo_id: photo {said(photo_id)} was taken before hand "
                             f"{after} was settled: it is not this hand's", "photo_id")
        return cited

    def rename(self, table_id: str, client_id: Any, version: Any, teams: Any = None,
               players: Any = None) -> tuple[Runtime, bool]:
        """Rename the table's teams and/or players (checked as at creation; `None`: as they
        are). The hands name seats, so every hand stays as it was; the history, the sheet
        and the export say the new names."""

        def change(rt: Runtime) -> dict[str, Any]:
            if teams is None and players is None:
                raise StoreError(422, "invalid", "teams, players: nothing to rename (send teams, players or both)",
                                 "teams")
            new_teams = _check_names(teams, "teams", 2, rt.header["teams"])
            new_players = _check_names(players, "players", 4, rt.header["players"])
            _check_teams_apart(new_teams)
            if players is not None:  # (an imported match's players, left as they are, are not checked)
                _check_players_apart(new_players)
            match = rt.match.copy()  # the cached one is read meanwhile: its names change with the commit
            match.teams, match.players = tuple(new_teams), tuple(new_players)
            header = {**rt.header, "teams": new_teams, "players": new_players}
            return {"live": rt.live, "mus_rounds": rt.mus_rounds, "header": header, "match": match}

        return self.write(table_id, client_id, version, "rename", change, [teams, players])

    def replace(self, table_id: str, client_id: Any, version: Any, header: dict[str, Any],
                records: list[dict[str, Any]], rename: bool = False) -> tuple[Runtime, bool]:
        """Replace the table's match by an imported one (same id and tokens). Its two teams
        must differ (`engine.team_key`), as on creating or renaming a table here: the table
        may be a tournament's, whose standings could not tell them apart (a new table
        imported takes a file as it is). They must also be the table's two teams (by
        `engine.team_key`, in either order), unless `rename` or the table was opened without
        names (`DEFAULT_TEAMS`): another pairing's file, taken
        for this table's, would silently make it another match (a tournament's fixture
        played by the wrong teams); a 409 `teams_differ` names both pairings."""

        def change(rt: Runtime) -> dict[str, Any]:
            _check_teams_apart(header["teams"])
            mine, theirs = list(rt.header["teams"]), list(header["teams"])
            unnamed = mine == DEFAULT_TEAMS  # a table opened without names takes the file's
            if not rename and not unnamed and {team_key(t) for t in mine} != {team_key(t) for t in theirs}:
                file, table = " – ".join(theirs), " – ".join(mine)
                raise StoreError(409, "teams_differ", f"teams: the file is the match {said(theirs[0])} – "
                                 f"{said(theirs[1])}, and this table is {said(mine[0])} – {said(mine[1])}: import it "
                                 "with ?rename=1 to make the table that match", "teams", "teams_differ",
                                 {"file": file, "table": table})
            new = self._fresh(rt.id, rt.token, rt.watch_token, header, records, rt.version + 1, rt.created)
            return {"live": new.live, "mus_rounds": 0, "replace": new}

        return self.write(table_id, client_id, version, "import", change, [header, records])

    def add_photo(
        self, table_id: str, client_id: Any, mime: str, data: bytes, annotated: bytes | None, scan: dict[str, Any],
        with_id: str | None = None, digest: str | None = None, taken: float | None = None, labels: str | None = None,
    ) -> tuple[dict[str, Any], bool]:
        """Store a showdown photo with its scan; `({photo_id, scan}, replayed)`. With
        `with_id` it is another photo of the showdown that photo is of (`photo_set`).
        `digest`: the upload's `photo_digest`, where the caller has it already; `taken`:
        when its upload came (`time.time()`, before it was read; default now): it is of
        the showdown of the hand being played then (`_settled_after`). `labels`: those its
        annotated copy was drawn with (`set_annotated`)."""
        self.runtime(table_id)  # 404
        if client_id is not None:
            client_id = check_client_id(client_id)
        try:
            return self._add_photo(table_id, client_id, mime, data, annotated, scan, with_id, digest, taken, labels)
        except sqlite3.IntegrityError:  # the table was deleted meanwhile (a prune): its photo refers to none
            if not self.exists(table_id):
                self._gone(table_id)
            raise

    def _add_photo(
        self, table_id: str, client_id: str | None, mime: str, data: bytes, annotated: bytes | None,
        scan: dict[str, Any], with_id: str | None, digest: str | None, taken: float | None = None,
        labels: str | None = None,
    ) -> tuple[dict[str, Any], bool]:
        photo_id = new_id() + new_id()
        response = {"photo_id": photo_id, "scan": scan}
        now = time.time() if taken is None else min(taken, time.time())
        if client_id is not None and digest is None:  # the seats of its scan follow from its bottom
            bottom = scan.get("bottom") if isinstance(scan, dict) else None
            digest = photo_digest(data, with_id, bottom if bottom in (1, 2, 3) else 0)
        with self.db.write() as conn:
            if client_id is not None:
                seen = _seen(conn, table_id, client_id, "photo", digest)
                if seen is not None:
                    return json.loads(seen["response"] or "null"), True
            _require_live(self.runtime(table_id))  # a 409 match_over: no more showdowns
            first_id = self._first_of(conn, table_id, with_id, adding=True) if with_id is not None else None
            if first_id is None:
                _drop_loose(conn, table_id)
            if client_id is not None:
                conn.execute(
                    "INSERT INTO ops (table_id, client_id, kind, response, created, digest)"
                    " VALUES (?, ?, 'photo', ?, ?, ?)", (table_id, client_id, _dumps(response), now, digest),
                )
            conn.execute(
                "INSERT INTO photos (id, table_id, mime, data, annotated, scan, created, first_id, labels)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (photo_id, table_id, mime, data, annotated, _dumps(scan), now, first_id, labels),
            )
        return response, False

    @staticmethod
    def _first_of(conn: Any, table_id: str, photo_id: Any, adding: bool = False) -> str:
        """The first photo of the showdown `photo_id` is of; with `adding`, refused when
        that showdown has its `MAX_PHOTOS` already or a settled hand cites it."""
        if not isinstance(photo_id, str) or (row := conn.execute(
            "SELECT coalesce(first_id, id) AS first FROM photos WHERE id = ? AND table_id = ?", (photo_id, table_id)
        ).fetchone()) is None:
            raise StoreError(422, "invalid", f"with: no photo {said(photo_id)} at this table", "with")
        first = row["first"]
        if adding:
            settled = conn.execute("SELECT n FROM hands WHERE table_id = ? AND photo_id = ?", (table_id, first)).fetchone()
            if settled is not None:
                raise StoreError(409, "showdown_settled",
                                 f"with: the showdown of photo {said(photo_id)} is settled already (hand {settled['n']}): "
                                 "a photo of another showdown starts a new one", "with")
            if (after := _settled_after(conn, table_id, first)) is not None:
                raise StoreError(409, "showdown_settled",
                                 f"with: photo {said(photo_id)} was taken before hand {after} was settled: it is of "
                                 "an earlier showdown; a photo of this one starts a new one", "with")
            n = conn.execute("SELECT count(*) FROM photos WHERE id = ? OR first_id = ?", (first, first)).fetchone()[0]
            if n >= MAX_PHOTOS:
                raise StoreError(422, "too_many_photos",
                                 f"with: the showdown of photo {said(photo_id)} has {n} photos already "
                                 f"(at most {MAX_PHOTOS} are read together)", "with")
        return first

    def first_photo(self, table_id: str, photo_id: Any, adding: bool = False) -> str:
        """The first photo of the showdown `photo_id` is of (422 when there is no such photo,
        or, with `adding`, when that showdown has its `MAX_PHOTOS`)."""
        return self._first_of(self.db.reader(), table_id, photo_id, adding)

    def photo_set(self, table_id: str, photo_id: str, scans: bool = True,
                  conn: Any = None) -> list[tuple[str, dict[str, Any] | None]]:
        """The photos of the showdown `photo_id` is of, first first: `[(photo_id, scan)]`
        (the scans `None` without `scans`)."""
        conn = conn or self.db.reader()
        first = self._first_of(conn, table_id, photo_id)
        rows = conn.execute(f"SELECT id, {'scan' if scans else 'NULL AS scan'} FROM photos WHERE id = ? OR first_id = ? "
                            "ORDER BY first_id IS NOT NULL, created, rowid", (first, first)).fetchall()
        return [(r["id"], json.loads(r["scan"] or "null")) for r in rows]

    def photo_for(self, table_id: str, client_id: Any, digest: str) -> dict[str, Any] | None:
        """The answer already given to the upload whose `photo_digest` is `digest` with this
        `client_id`, if any; a 409 where the `client_id` was sent with another request."""
        client_id = check_client_id(client_id)
        row = _seen(self.db.reader(), table_id, client_id, "photo", digest)
        return json.loads(row["response"]) if row is not None else None

    def counts(self, table_id: str) -> dict[str, int]:
        """Row counts for one table (tests check that a refused write changed nothing)."""
        conn = self.db.reader()
        return {
            t: conn.execute(f"SELECT count(*) FROM {t} WHERE table_id = ?", (table_id,)).fetchone()[0]
            for t in ("hands", "ops", "photos")
        }


def _settled_after(conn: Any, table_id: str, photo_id: str) -> int | None:
    """The last hand of the table settled after the photo `photo_id` was taken (`None` if
    none): the photo was of that hand's showdown or an earlier one, never of a later hand
    (a hand undone is no longer there: its photo is the hand's again). Not where that hand
    was settled already when the photo was taken, and was undone and settled again since
    (the table's `undone`): the photo was of the hand after it, the one being played then."""
    row = conn.execute("SELECT max(h.n) AS n, max(p.created) AS taken FROM hands h JOIN photos p "
                       "ON p.id = ? AND p.table_id = h.table_id WHERE h.table_id = ? AND h.created > p.created",
                       (photo_id, table_id)).fetchone()
    if row is None or row["n"] is None:
        return None
    table = conn.execute("SELECT current FROM tables WHERE id = ?", (table_id,)).fetchone()
    undone = json.loads(table["current"]).get("undone", ()) if table is not None else ()
    if any(n == row["n"] and settled <= row["taken"] < gone for n, settled, gone in undone):
        return None
    return row["n"]


def _carried_checks(old: dict[str, Any] | None, new: dict[str, Any]) -> list[dict[str, Any]]:
    """The confirmations of `old` (`check_shown`) that stand in the showdown `new` kept
    instead: of the same showdown (its first photo; a photo added to it keeps it, a new
    first photo asks afresh, as the page drops the places settled by hand), each where its
    card is still at its place, in its seat turned as the cards were where `new` is seen
    from another seat (`bottom`)."""
    if not old or not old.get("checked") or new["photo_id"] is None or old.get("photo_id") != new["photo_id"]:
        return []
    was, now = old.get("bottom"), new.get("bottom")
    turn = (now - was) % 4 if isinstance(was, int) and isinstance(now, int) else 0
    out = []
    for c in old["checked"]:
        seat = (c["seat"] + turn) % 4
        if new["hands"][seat][c["place"]] == c["card"]:
            out.append({**c, "seat": seat})
    return sorted(out, key=lambda c: (c["seat"], c["place"]))


def _check_places(hands: Any) -> list[list[str | None]]:
    """A showdown not yet settled (`set_shown`): four lists of four places by seat, each a
    card or null (a seat null: four empty places); a 422 naming the first bad place."""
    if not isinstance(hands, list) or len(hands) != 4:
        raise StoreError(422, "invalid", f"hands: expected four lists (one per seat) of four places, a card or "
                         f"null, got {said(hands, 60)}", "hands")
    places: list[list[str | None]] = []
    seen: dict[str, str] = {}
    for s, hand in enumerate(hands):
        hand = [None] * 4 if hand is None else hand
        if not isinstance(hand, list) or len(hand) != 4:
            raise StoreError(422, "invalid", f"hands[{s}]: expected four places, a card or null, got "
                             f"{said(hand, 60)}", f"hands[{s}]")
        for i, card in enumerate(hand):
            where = f"hands[{s}][{i}]"
            if card is None:
                continue
            try:
                engine.Card.parse(card)
            except engine.MusError as exc:
                raise StoreError(422, "invalid", f"{where}: {exc.reason}", where) from None
            if card in seen and card[-1:].isalpha():
                raise StoreError(422, "invalid", f"{where}: {said(card)} is already at {seen[card]}: the same card twice",
                                 where)
            seen[card] = where
        places.append(list(hand))
    return places


def rotate_scan(scan: dict[str, Any], bottom: int) -> dict[str, Any]:
    """A photo's scan (`scorer.vision.layout`) as read with the seat `bottom` at its bottom
    edge: the seats follow from the bottom, counterclockwise (`assign_seats`), so each card,
    hand and warning of seat s goes to s + (bottom - the bottom it was read with)."""
    turn = (bottom - (scan.get("bottom") or 0)) % 4

    def seat(s: Any) -> Any:
        return s if not isinstance(s, int) or isinstance(s, bool) else (s + turn) % 4

    out = {**scan, "bottom": bottom}
    out["cards"] = [{**c, "seat": seat(c.get("seat"))} if "seat" in c else c for c in scan.get("cards") or []]
    if isinstance(scan.get("hands"), list) and len(scan["hands"]) == 4:
        out["hands"] = [scan["hands"][(s - turn) % 4] for s in range(4)]
    out["warnings"] = [{**w, "seat": seat(w["seat"])} if "seat" in w else w for w in scan.get("warnings") or []]
    return out


def _digest(kind: str, request: Any) -> str:
    """What a write asked for, in 32 hex digits: its kind and its body."""
    text = json.dumps([kind, request], sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def photo_digest(data: bytes, with_id: str | None, bottom: int = 0) -> str:
    """What a photo upload asked for: its bytes, the photo it goes with and the seat at
    its bottom edge (left out where 0, as the digests stored before it was counted)."""
    return _digest("photo", [hashlib.sha256(data).hexdigest(), with_id, *([bottom] if bottom else [])])


def _seen(conn: Any, table_id: str, client_id: str, kind: str, digest: str) -> Any:
    """The ops row of a write this table took with `client_id` already (None if none): a
    retry of it, or a 409 where that write was another (another kind or another body;
    a row written before digests were kept is compared by kind)."""
    row = conn.execute("SELECT kind, digest, response FROM ops WHERE table_id = ? AND client_id = ?",
                       (table_id, client_id)).fetchone()
    if row is not None and (row["kind"] != kind or (row["digest"] is not None and row["digest"] != digest)):
        told = row["kind"] if row["kind"] != kind else f"{kind}, other content"
        raise StoreError(409, "client_id_reused", f"client_id {said(client_id)} was sent already with another request "
                         f"({told}): a new request needs a new client_id", "client_id")
    return row


def check_client_id(client_id: Any) -> str:
    if not isinstance(client_id, str) or not 1 <= len(client_id) <= 100:
        raise StoreError(400, "invalid", f"client_id: expected a string of 1 to 100 characters, got {said(client_id)}",
                         "client_id")
    return client_id


def _log_of(rules: Any, record: dict[str, Any]) -> list[dict[str, Any]]:
    """The live log that says what `record` recorded, in the order it is said at the
    table: its declarations (one not recorded, what the seat's cards hold) and its bets
    (a lance not recorded, passed by all; a partner's echo of the team's refusal right
    after it), up to the showdown; as far as the engine takes them ([] for a record it
    refuses as a whole)."""
    try:
        rec = engine.parse_hand(record)
    except engine.MusError:
        return []
    bets = {lance: [a.to_json() for a in acts] for lance, acts in rec.bets.items()}
    live = engine.LiveHand.start(rules, rec.esku, rec.score)
    last = None  # the lance of the last bet taken from the record
    action: dict[str, Any]
    while live.phase not in ("showdown", "over") or (last is not None and bets.get(last)):
        seat, phase = live.to_speak, live.phase
        if last is not None and last != phase and bets.get(last):
            action = bets[last].pop(0)  # said after its lance ended: the partner's echo of a refusal
        elif phase.endswith("_declare"):
            claim = phase.removesuffix("_declare")
            holds = (rec.declared.get(claim) or (None,) * 4)[seat]
            if holds is None:
                value = rec.values[seat]
                holds = bool(value is not None and (value.pares_kind if claim == "pares" else value.juego))
            action = {"seat": seat, "act": "declare", claim: holds}
        else:
            queue = bets.get(phase)
            action = queue.pop(0) if queue else {"seat": seat, "act": "paso"}
            last = phase
        try:
            live = live.apply(action)
        except engine.MusError:  # not the engine's reading of the record: what it took stands
            break
    return list(live.log)


def _require_live(rt: Runtime) -> Any:
    if rt.live is None:
        raise StoreError(409, "match_over", "the match is over: no more hands", None)
    return rt.live


def _drop_loose(conn: Any, table_id: str) -> None:
    """Before a new showdown's first photo: the table's oldest showdowns that no hand
    cites (photos retaken, or sent by no one at the table) go, all but `MAX_LOOSE` - 1,
    so that a table's photos cannot grow without end. The photo of a showdown undone
    (the current hand's `shown`) stays while its hand is played again."""
    row = conn.execute("SELECT current FROM tables WHERE id = ?", (table_id,)).fetchone()
    keep = ((json.loads(row["current"]).get("shown") or {}).get("photo_id") if row else None) or ""
    loose = [r[0] for r in conn.execute(
        "SELECT id FROM photos WHERE table_id = ? AND first_id IS NULL AND id != ? AND id NOT IN "
        "(SELECT photo_id FROM hands WHERE table_id = ? AND photo_id IS NOT NULL) ORDER BY created, rowid",
        (table_id, keep, table_id))]
    for first in loose[:max(0, len(loose) - MAX_LOOSE + 1)]:
        conn.execute("DELETE FROM photos WHERE table_id = ? AND (id = ? OR first_id = ?)", (table_id, first, first))
