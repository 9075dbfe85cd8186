"""Storage: the SQLite file, WAL, migrations, the one writer."""

from __future__ import annotations

import sqlite3

import pytest

from scorer.storage import SCHEMA_VERSION, Database, SchemaError, default_db_path

pytestmark = pytest.mark.webapi  # `-k web` selects the backend's tests too


def test_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "mus-scorer" / "mus.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_db_path().parts[-4:] == (".local", "share", "mus-scorer", "mus.db")


def test_new_database_is_wal_and_migrated(tmp_path) -> None:
    path = tmp_path / "sub" / "mus.db"
    db = Database(path)
    assert path.exists()
    assert db.schema_version == SCHEMA_VERSION
    assert db.reader().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = {r[0] for r in db.reader().execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"tables", "hands", "ops", "photos"} <= names
    db.close()
    # opening again migrates nothing and keeps the data
    db2 = Database(path)
    assert db2.schema_version == SCHEMA_VERSION
    db2.close()


def test_newer_schema_is_refused(tmp_path) -> None:
    path = tmp_path / "mus.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(SchemaError, match="newer"):
        Database(path)


def test_failed_write_rolls_back(tmp_path) -> None:
    db = Database(tmp_path / "mus.db")
    with pytest.raises(RuntimeError):
        with db.write() as conn:
            conn.execute("INSERT INTO photos (id, mime, data, created) VALUES ('p', 'image/jpeg', x'00', 0)")
            raise RuntimeError("boom")
    assert db.reader().execute("SELECT count(*) FROM photos").fetchone()[0] == 0
    with db.write() as conn:
        conn.execute("INSERT INTO photos (id, mime, data, created) VALUES ('p', 'image/jpeg', x'00', 0)")
    assert db.reader().execute("SELECT count(*) FROM photos").fetchone()[0] == 1
    db.close()


def test_readers_are_read_only(tmp_path) -> None:
    db = Database(tmp_path / "mus.db")
    with pytest.raises(sqlite3.OperationalError):
        db.reader().execute("DELETE FROM tables")
    db.close()


def _database_at(path, version: int, *inserts: str) -> Database:
    """A database file made by the first `version` migrations, holding `inserts`, opened
    by this mus-scorer (which migrates it)."""
    from scorer.storage.db import MIGRATIONS

    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    for script in MIGRATIONS[:version]:
        script(conn) if callable(script) else conn.executescript(script)
    for sql in inserts:
        conn.execute(sql)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    return Database(path)


def test_a_version_1_database_is_migrated_and_keeps_its_photos(tmp_path) -> None:
    db = _database_at(tmp_path / "old.db", 1,
                      "INSERT INTO photos (id, mime, data, created) VALUES ('p', 'image/jpeg', x'00', 0)")
    assert db.schema_version == SCHEMA_VERSION >= 2
    row = db.reader().execute("SELECT id, data, first_id FROM photos").fetchone()
    assert (row["id"], row["data"], row["first_id"]) == ("p", b"\x00", None)
    db.close()


def test_a_version_2_database_gets_tournaments_and_keeps_its_tables(tmp_path) -> None:
    from scorer.storage.tables import TableStore
    from scorer.storage.tournaments import TournamentStore

    db = _database_at(tmp_path / "v2.db", 2,
                      "INSERT INTO tables (id, token, watch_token, header, version, current, created, updated) VALUES "
                      "('t1', 'tok', 'w', '{\"teams\": [\"A\", \"B\"], \"players\": [\"a\", \"b\", \"c\", \"d\"], "
                      "\"rules\": {\"kings\": 8, \"target\": 40}, \"esku\": 0}', 3, '{\"log\": []}', 0, 0)")
    assert db.schema_version == SCHEMA_VERSION >= 3
    tables = TableStore(db)
    tours = TournamentStore(db, tables)
    tour = tours.create({"name": "Liga"})
    assert tours.add_table(tour["id"], "t1") and not tours.add_table(tour["id"], "t1")
    assert tours.state(tour["id"])["matches"][0]["teams"] == ["A", "B"]
    with db.write() as w:  # a pruned table leaves the tournament with it (ON DELETE CASCADE)
        w.execute("DELETE FROM tables WHERE id = 't1'")
    assert tours.table_ids(tour["id"]) == []
    db.close()


def test_a_version_3_league_is_played_once_after_the_migration(tmp_path) -> None:
    from scorer.storage.tables import TableStore
    from scorer.storage.tournaments import TournamentStore

    db = _database_at(tmp_path / "v3.db", 3, "INSERT INTO tournaments (id, token, watch_token, name, teams, created) "
                      "VALUES ('c1', 'tok', 'w', 'Liga', '[\"A\", \"B\", \"C\"]', 0)")
    assert db.schema_version == SCHEMA_VERSION >= 4
    tours = TournamentStore(db, TableStore(db))
    state = tours.state("c1")
    assert (state["teams"], state["legs"], len(state["fixtures"])) == (["A", "B", "C"], 1, 3)
    tours.set_teams("c1", {"teams": ["A", "B", "C"], "legs": 2})
    assert len(tours.state("c1")["fixtures"]) == 6
    db.close()


def test_a_version_8_tournament_was_last_run_when_it_was_created_or_last_enrolled_a_table(tmp_path) -> None:
    db = _database_at(tmp_path / "v8.db", 8,
                      "INSERT INTO tables (id, token, watch_token, header, version, current, created, updated) VALUES "
                      "('t1', 'tok', 'w', '{}', 1, '{\"log\": []}', 0, 0)",
                      "INSERT INTO tournaments (id, token, watch_token, name, created) VALUES "
                      "('old', 'a', 'b', 'Old', 100), ('enrolled', 'c', 'd', 'Enrolled', 100)",
                      "INSERT INTO tournament_tables (tournament_id, table_id, added) VALUES ('enrolled', 't1', 500)")
    assert db.schema_version == SCHEMA_VERSION >= 9
    rows = dict(db.reader().execute("SELECT id, updated FROM tournaments").fetchall())
    assert rows == {"old": 100, "enrolled": 500}
    db.close()


def test_a_version_4_tournament_keeps_its_bracket_and_gains_groups(tmp_path) -> None:
    from scorer.storage.tables import TableStore
    from scorer.storage.tournaments import TournamentStore

    db = _database_at(tmp_path / "v4.db", 4, "INSERT INTO tournaments (id, token, watch_token, name, teams, created, "
                      "knockout) VALUES ('c1', 'tok', 'w', 'Liga', '[\"A\", \"B\"]', 0, "
                      "'{\"teams\": [\"A\", \"B\", \"C\", \"D\"], \"drawn\": 0}')")
    assert db.schema_version == SCHEMA_VERSION >= 5
    tours = TournamentStore(db, TableStore(db))
    state = tours.state("c1")
    assert state["groups"] is None and state["knockout"]["third_place"] is None  # drawn before third places
    assert [g["teams"] for g in state["knockout"]["rounds"][0]] == [["A", "D"], ["B", "C"]]
    tours.set_teams("c1", {"groups": [["A", "B"], ["C", "D"]]})
    assert [g["name"] for g in tours.state("c1")["groups"]] == ["A", "B"]
    db.close()


def test_a_version_11_tournament_has_the_default_rules_and_takes_its_own(tmp_path) -> None:
    from scorer.storage.tables import TableStore
    from scorer.storage.tournaments import TournamentStore

    db = _database_at(tmp_path / "v11.db", 11, "INSERT INTO tournaments (id, token, watch_token, name, teams, created) "
                      "VALUES ('c1', 'tok', 'w', 'Liga', '[\"A\", \"B\"]', 0)")
    assert db.schema_version == SCHEMA_VERSION >= 12
    tours = TournamentStore(db, TableStore(db))
    defaults = {"kings": 8, "target": 40, "real31": False, "games_per_vaca": 1, "vacas_to_win": 3}
    assert tours.state("c1")["rules"] == defaults
    tours.set_rules("c1", {"rules": {"kings": 4, "vacas_to_win": 5}}, revision=0)
    state = tours.state("c1")
    assert (state["rules"], state["revision"], state["teams"]) == ({**defaults, "kings": 4, "vacas_to_win": 5}, 1,
                                                                   ["A", "B"])
    db.close()


def test_a_version_12_tournament_keeps_its_tables_and_takes_results_entered_without_hands(tmp_path) -> None:
    from scorer.storage.tables import TableStore
    from scorer.storage.tournaments import TournamentStore

    db = _database_at(tmp_path / "v12.db", 12,
                      "INSERT INTO tables (id, token, watch_token, header, version, current, created, updated) VALUES "
                      "('t1', 'tok', 'w', '{\"teams\": [\"A\", \"B\"], \"players\": [\"a\", \"b\", \"c\", "
                      "\"d\"], \"rules\": {\"kings\": 8, \"target\": 40}, \"esku\": 0}', 1, '{\"log\": []}', 0, 0)",
                      "INSERT INTO tournaments (id, token, watch_token, name, teams, created, rules) "
                      "VALUES ('c1', 'tok', 'w', 'Liga', '[\"A\", \"B\", \"C\"]', 0, '{\"vacas_to_win\": 2}')",
                      "INSERT INTO tournament_tables (tournament_id, table_id, added) VALUES ('c1', 't1', 1)")
    assert db.schema_version == SCHEMA_VERSION >= 13
    tours = TournamentStore(db, TableStore(db))
    before = tours.state("c1")
    assert [m["table"] for m in before["matches"]] == ["t1"] and before["rules"]["vacas_to_win"] == 2
    result = tours.add_result("c1", {"teams": ["B", "C"], "walkover": "C"}, revision=0)
    state = tours.state("c1")
    assert [m["table"] or m["result"] for m in state["matches"]] == ["t1", result]
    assert state["standings"][0] == {**state["standings"][0], "team": "B", "won": 1, "vacas_won": 2}
    with db.write() as w:  # the tournament deleted takes its results with it (ON DELETE CASCADE)
        w.execute("DELETE FROM tournaments WHERE id = 'c1'")
    assert db.reader().execute("SELECT COUNT(*) FROM tournament_results").fetchone()[0] == 0
    db.close()


def test_a_version_5_database_keeps_its_writes_as_retries(tmp_path) -> None:
    from scorer.storage.tables import TableStore

    db = _database_at(tmp_path / "v5.db", 5,
                      "INSERT INTO tables (id, token, watch_token, header, version, current, created, updated) VALUES "
                      "('t1', 'tok', 'w', '{\"teams\": [\"A\", \"B\"], \"players\": [\"a\", \"b\", \"c\", \"d\"], "
                      "\"rules\": {\"kings\": 8, \"target\": 40}, \"esku\": 0}', 3, '{\"log\": []}', 0, 0)",
                      "INSERT INTO ops (table_id, client_id, kind, version, created) VALUES ('t1', 'old', 'action', 3, 0)")
    assert db.schema_version == SCHEMA_VERSION >= 6
    store = TableStore(db)
    legal = store.runtime("t1").live.legal()[0]
    # written before digests were kept: a retry by kind alone; another kind is refused
    assert store.act("t1", "old", 3, legal)[1] is True
    with pytest.raises(Exception, match='client_id "old" was sent already'):
        store.mus("t1", "old", 3)
    rt, replayed = store.act("t1", "new", 3, legal)
    assert not replayed and rt.version == 4
    assert db.reader().execute("SELECT digest FROM ops WHERE client_id = 'new'").fetchone()[0]
    db.close()


def test_a_version_6_tournament_starts_at_revision_0_and_counts_its_changes(tmp_path) -> None:
    from scorer.storage.tables import StoreError, TableStore
    from scorer.storage.tournaments import TournamentStore

    db = _database_at(tmp_path / "v6.db", 6, "INSERT INTO tournaments (id, token, watch_token, name, teams, created) "
                      "VALUES ('c1', 'tok', 'w', 'Liga', '[\"A\", \"B\"]', 0)")
    assert db.schema_version == SCHEMA_VERSION >= 7
    tours = TournamentStore(db, TableStore(db))
    assert tours.state("c1")["revision"] == 0
    tours.rename("c1", {"name": "Liga de otoño"}, revision=0)
    with pytest.raises(StoreError, match="follows revision 0, but the tournament is at revision 1"):
        tours.rename("c1", {"name": "Otra"}, revision=0)
    assert (tours.state("c1")["name"], tours.state("c1")["revision"]) == ("Liga de otoño", 1)
    db.close()


def test_a_version_7_database_says_its_old_refusals_as_they_meant(tmp_path) -> None:
    """Hands stored while a no_quiero counted for its speaker alone (the partner then
    accepted, raised or refused too) are said with paso for that speaker's part: the
    table opens, its settled hand reads and settles as it did, and its current hand, whose
    partner was still to answer, still waits for that partner."""
    import json

    from scorer import engine
    from scorer.storage.tables import TableStore

    header = {"teams": ["A", "B"], "players": ["a", "b", "c", "d"], "rules": {"kings": 8, "target": 40}, "esku": 0}
    hands = [["12o", "3c", "1e", "5b"], ["7o", "7c", "7e", "10b"], ["2o", "4c", "6e", "11b"], ["1o", "1c", "5e", "6o"]]
    old_log = [{"seat": 0, "act": "envido", "n": 2}, {"seat": 1, "act": "no_quiero"}, {"seat": 3, "act": "quiero"}]
    record = {"format": "mus-hand/1", "esku": 0, "score": [0, 0], "hands": hands,
              "declared": {"pares": [True, True, False, True], "juego": [False, True, False, False]},
              "bets": {"grande": old_log}}
    new_record = {**record, "bets": {"grande": [old_log[0], {"seat": 1, "act": "paso"}, old_log[2]]}}
    settlement = engine.settle(new_record)
    # the next hand, esku seat 1: seat 2 refused for itself, seat 0 not yet answered
    current = {"log": [{"seat": 1, "act": "envido", "n": 2}, {"seat": 2, "act": "no_quiero"}], "mus_rounds": 0}
    q = lambda obj: json.dumps(obj).replace("'", "''")  # noqa: E731
    db = _database_at(
        tmp_path / "v7.db", 7,
        "INSERT INTO tables (id, token, watch_token, header, version, current, created, updated) VALUES "
        f"('t1', 'tok', 'w', '{q(header)}', 5, '{q(current)}', 0, 0)",
        "INSERT INTO hands (table_id, n, record, settlement, log, created) VALUES "
        f"('t1', 1, '{q(record)}', '{q(settlement)}', '{q(old_log)}', 0)",
    )
    assert db.schema_version == SCHEMA_VERSION >= 8
    rt = TableStore(db).runtime("t1")
    assert [a["act"] for a in rt.hands[0]["record"]["bets"]["grande"]] == ["envido", "paso", "quiero"]
    assert engine.settle(rt.hands[0]["record"])["score"] == settlement["score"]
    assert [a["act"] for a in rt.logs[0][0]] == ["envido", "paso", "quiero"]
    assert rt.live.log[1]["act"] == "paso" and rt.live.to_speak == 0  # the partner still answers
    db.close()


def test_every_commit_is_synced_to_disk(tmp_path) -> None:
    """`synchronous=FULL`: in WAL mode NORMAL may lose the last commits to a power cut."""
    db = Database(tmp_path / "mus.db")
    assert db.locked_conn().execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert db.reader().execute("PRAGMA synchronous").fetchone()[0] == 2
    db.close()


def _old_database(path, version: int) -> None:
    """A file made by the first `version` migrations, in the rollback journal mode
    `sqlite3` makes files in."""
    from scorer.storage.db import MIGRATIONS

    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:version]:
        script(conn) if callable(script) else conn.executescript(script)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


def _open_at(path, go, done) -> None:  # in a child process
    go.wait()
    try:
        Database(path).close()
        done.put("ok")
    except Exception as exc:  # noqa: BLE001 - reported to the test
        done.put(f"{type(exc).__name__}: {exc}")


def test_two_processes_open_an_old_database_at_once(tmp_path) -> None:
    """Two processes (a server starting, a cron'd prune) open one version-5 file at the
    same moment: both open it, and it is migrated once (one of them failed each time: the
    second to ask for WAL mode was refused at once, or ran a step the first had run)."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    for trial in range(5):
        path = tmp_path / f"v5-{trial}.db"
        _old_database(path, 5)
        go, done = ctx.Barrier(2), ctx.Queue()
        procs = [ctx.Process(target=_open_at, args=(path, go, done)) for _ in range(2)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        assert [done.get(timeout=5), done.get(timeout=5)] == ["ok", "ok"], trial
        db = Database(path)
        assert db.schema_version == SCHEMA_VERSION
        assert db.reader().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        db.close()


def test_two_openers_of_an_old_database_migrate_it_once(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server starting while a prune opens the same version-5 file: the second opener
    migrates it between the first one's reading of its version and its taking the write
    lock. The first sees the steps done and runs none of them again (it ran the 5 -> 6
    step a second time: 'duplicate column name: digest')."""
    path = tmp_path / "v5.db"
    _old_database(path, 5)
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO tournaments (id, token, watch_token, name, created) VALUES ('c1', 't', 'w', 'L', 0)")
    conn.close()

    class OtherOpensFirst:
        """The first opener's writer: the other process opens (and migrates) the file just
        before this one's first `BEGIN IMMEDIATE`."""

        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn, self.other = conn, True

        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
            if sql == "BEGIN IMMEDIATE" and self.other:
                self.other = False
                Database(path).close()
            return self.conn.execute(sql, *args)

        def __getattr__(self, name: str) -> object:
            return getattr(self.conn, name)

    real_connect = Database._connect
    opened: list[Database] = []

    def connect(self: Database) -> sqlite3.Connection:
        conn = real_connect(self)
        if opened:
            return conn
        opened.append(self)
        return OtherOpensFirst(conn)  # type: ignore[return-value]

    monkeypatch.setattr(Database, "_connect", connect)
    db = Database(path)
    monkeypatch.undo()
    assert db.schema_version == SCHEMA_VERSION
    cols = [r[1] for r in db.reader().execute("PRAGMA table_info(ops)")]
    assert cols.count("digest") == 1
    assert db.reader().execute("SELECT name, revision FROM tournaments").fetchone()[:] == ("L", 0)
    db.close()


def test_a_memory_database_is_one_database_for_every_thread_and_keeps_nothing() -> None:
    """`:memory:`: each reader thread opened its own, empty, in-memory database ("no such
    table: tables"); now the writer and every reader share one, gone on close."""
    import os
    import threading

    db, other = Database(":memory:"), Database(":memory:")
    with db.write() as conn:
        conn.execute("INSERT INTO photos (id, mime, data, created) VALUES ('p', 'image/jpeg', x'00', 0)")
    seen: list[int] = []
    thread = threading.Thread(target=lambda: seen.append(db.reader().execute("SELECT count(*) FROM photos")
                                                          .fetchone()[0]))
    thread.start()
    thread.join()
    assert seen == [1] and db.reader().execute("SELECT count(*) FROM photos").fetchone()[0] == 1
    assert other.reader().execute("SELECT count(*) FROM photos").fetchone()[0] == 0  # each its own
    assert db.path == ":memory:" and os.path.exists(db.file)
    db.close()
    other.close()
    assert not os.path.exists(os.path.dirname(db.file))  # nothing kept


def test_a_database_at_this_schema_opens_while_another_process_writes(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing to migrate, nothing to wait for: a server starting while a `prune --vacuum`
    holds the write lock opens the file at once (it waited for the lock, then failed)."""
    import scorer.storage.db as dbmod

    path = tmp_path / "m.db"
    Database(path).close()
    other = sqlite3.connect(path)
    other.execute("BEGIN IMMEDIATE")
    monkeypatch.setattr(dbmod, "BUSY_SECONDS", 0.5)
    try:
        db = Database(path)
        assert db.schema_version == SCHEMA_VERSION
        db.close()
    finally:
        other.rollback()
        other.close()
