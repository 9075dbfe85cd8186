"""The table store: cache, rebuild from the database, failed commits, idempotency keys."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import pytest

from scorer.storage import Database
from scorer.storage.tables import StoreError, TableStore

pytestmark = pytest.mark.webapi  # `-k web` selects the backend's tests too

DECK = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]
DEAL = [DECK[0:4], DECK[10:14], DECK[20:24], DECK[30:34]]


def play_first_legal(store: TableStore, tid: str, n: int, prefix: str) -> None:
    for i in range(n):
        rt = store.runtime(tid)
        if rt.live.phase in ("showdown", "over"):
            store.showdown(tid, f"{prefix}{i}", rt.version, DEAL)
        else:
            store.act(tid, f"{prefix}{i}", rt.version, rt.live.legal()[0])


def fail_commits(store: TableStore, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make every write of `store` fail at its commit (a full disk) until the returned
    `write` is set back on `store.db`."""
    real_write = store.db.write

    @contextmanager
    def failing() -> Any:
        with real_write() as conn:
            yield conn
            raise OSError("disk full")

    monkeypatch.setattr(store.db, "write", failing)
    return real_write


def test_a_small_cache_gives_the_same_states(tmp_path) -> None:
    big = TableStore(Database(tmp_path / "a.db"))
    small = TableStore(Database(tmp_path / "b.db"), cache_size=1)
    for store in (big, small):
        ids = [store.create({"esku": e}).id for e in range(3)]
        for k in range(30):  # interleaved: the small cache keeps evicting
            play_first_legal(store, ids[k % 3], 1, f"k{k}-")
        store.states = [store.runtime(t).state() for t in ids]  # type: ignore[attr-defined]
    for a, b in zip(big.states, small.states, strict=True):  # type: ignore[attr-defined]
        a.pop("id"), b.pop("id")
        assert a == b


def test_reopened_store_rebuilds_the_same_state(tmp_path) -> None:
    store = TableStore(Database(tmp_path / "m.db"))
    tid = store.create({}).id
    play_first_legal(store, tid, 40, "x")
    before = store.runtime(tid).state_json()
    store.db.close()
    again = TableStore(Database(tmp_path / "m.db"))
    assert again.runtime(tid).state_json() == before


def test_a_failed_commit_changes_nothing(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = TableStore(Database(tmp_path / "m.db"))
    tid = store.create({}).id
    play_first_legal(store, tid, 40, "x")  # into the second hand, one settled
    rt = store.runtime(tid)
    before = rt.state_json()
    real_write = fail_commits(store, monkeypatch)
    with pytest.raises(OSError):
        store.act(tid, "fail", rt.version, rt.live.legal()[0])
    monkeypatch.setattr(store.db, "write", real_write)
    assert store.runtime(tid).state_json() == before
    # and the client_id of the failed write is still free
    assert store.act(tid, "fail", rt.version, rt.live.legal()[0])[1] is False


def test_a_failed_showdown_commit_leaves_the_match_as_it_was(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = TableStore(Database(tmp_path / "m.db"))
    tid = store.create({}).id
    rt = store.runtime(tid)
    while rt.live.phase not in ("showdown", "over"):
        rt, _ = store.act(tid, f"a{rt.version}", rt.version, rt.live.legal()[0])
    before = rt.state_json()
    real_write = fail_commits(store, monkeypatch)
    with pytest.raises(OSError):
        store.showdown(tid, "sd", rt.version, DEAL)
    # the runtime read before (cached, and read by tournaments meanwhile) never saw the hand
    assert rt.match.state()["hands"] == 0 and rt.match.history == [] and rt.state_json() == before
    monkeypatch.setattr(store.db, "write", real_write)
    assert store.runtime(tid).state_json() == before
    after, _ = store.showdown(tid, "sd", rt.version, DEAL)
    assert len(after.hands) == 1 and after.match.state()["hands"] == 1
    assert rt.match.state()["hands"] == 0  # the old version stays what it was


def test_unknown_table_is_404(tmp_path) -> None:
    store = TableStore(Database(tmp_path / "m.db"))
    with pytest.raises(StoreError) as err:
        store.runtime("nope")
    assert err.value.status == 404


def test_client_ids_are_per_table(tmp_path) -> None:
    store = TableStore(Database(tmp_path / "m.db"))
    a, b = store.create({}).id, store.create({}).id
    ra, replayed_a = store.mus(a, "same", 1)
    rb, replayed_b = store.mus(b, "same", 1)
    assert not replayed_a and not replayed_b and ra.version == rb.version == 2


def test_replace_goes_through_the_one_write(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An import replaces header and hands in one write: a failed commit changes nothing,
    a retry with its client_id is a replay, another request with it a 409, and a
    reopened store rebuilds what it answered."""
    store = TableStore(Database(tmp_path / "m.db"))
    src = store.create({}).id
    play_first_legal(store, src, 40, "x")  # into the second hand, one settled
    records = [h["record"] for h in store.runtime(src).hands]
    header = {**store.runtime(src).header, "teams": ["Txuriak", "Beltzak"]}
    tid = store.create({}).id
    store.mus(tid, "m", 1)
    before, counts = store.runtime(tid).state_json(), store.counts(tid)
    real_write = fail_commits(store, monkeypatch)
    with pytest.raises(OSError):
        store.replace(tid, "imp", 2, header, records)
    monkeypatch.setattr(store.db, "write", real_write)
    assert store.runtime(tid).state_json() == before and store.counts(tid) == counts
    with pytest.raises(StoreError) as err:
        store.replace(tid, "imp", 1, header, records)
    assert (err.value.status, err.value.code) == (409, "stale_version")
    new, replayed = store.replace(tid, "imp", 2, header, records)
    assert not replayed and new.version == 3 and len(new.hands) == 1 and new.header["teams"] == ["Txuriak", "Beltzak"]
    assert new.mus_rounds == 0 and store.runtime(tid) is new
    again, replayed = store.replace(tid, "imp", 2, header, records)
    assert replayed and again is new
    with pytest.raises(StoreError) as err:
        store.replace(tid, "imp", 3, header, [])
    assert (err.value.status, err.value.code) == (409, "client_id_reused")
    store.db.close()
    assert TableStore(Database(tmp_path / "m.db")).runtime(tid).state_json() == new.state_json()


def test_the_state_says_the_day_the_table_was_opened(tmp_path) -> None:
    """`created`: the table's creation day (the server's local time), ISO; read back from
    the database when the store opens again, and kept by an import into the table."""
    import datetime
    import time

    store = TableStore(Database(tmp_path / "m.db"))
    before = datetime.date.today().isoformat()
    tid = store.create({}).id
    assert store.runtime(tid).state()["created"] in (before, datetime.date.today().isoformat())
    day = datetime.datetime(2026, 12, 31, 23, 30)  # late in the evening: still that day
    with store.db.write() as conn:
        conn.execute("UPDATE tables SET created = ? WHERE id = ?", (time.mktime(day.timetuple()), tid))
    store.db.close()
    store = TableStore(Database(tmp_path / "m.db"))
    assert store.runtime(tid).state()["created"] == "2026-12-31"
    play_first_legal(store, tid, 3, "x")
    header = {**store.runtime(tid).header, "teams": ["Txuriak", "Beltzak"]}
    new, _ = store.replace(tid, "imp", store.runtime(tid).version, header, [])
    assert new.state()["created"] == "2026-12-31"


def _settle_one(store: TableStore, tid: str, prefix: str) -> None:
    """The current hand played (first legal word each turn) and settled, typed."""
    n = len(store.runtime(tid).hands)
    for i in range(80):
        if len(store.runtime(tid).hands) > n:
            return
        play_first_legal(store, tid, 1, f"{prefix}{i}-")
    raise AssertionError("the hand was not settled")


def test_a_photo_of_a_hand_stays_its_when_two_hands_before_it_are_undone_and_settled_again(tmp_path) -> None:
    """Which hand a photo no hand cites is of survives undoing and settling again any hands
    before it, a reopened store and all; an import makes the photo an earlier match's."""
    store = TableStore(Database(tmp_path / "m.db"))
    tid = store.create({}).id

    def photo() -> str:
        return store.add_photo(tid, None, "image/jpeg", b"jpeg", None, {"cards": []})[0]["photo_id"]

    def refused(pid: str, hand: int) -> None:
        with pytest.raises(StoreError) as err:
            store.first_photo(tid, pid, adding=True)
        assert (err.value.status, err.value.code, err.value.field) == (409, "showdown_settled", "with")
        assert f"taken before hand {hand} was settled" in err.value.message

    _settle_one(store, tid, "a")
    _settle_one(store, tid, "b")
    third = photo()  # taken while hand 3 is played
    while store.runtime(tid).hands:  # hand 3's words, hand 2, then hand 1 undone
        store.undo(tid, f"u{store.runtime(tid).version}", store.runtime(tid).version)
    first = photo()  # taken for hand 1, played again
    _settle_one(store, tid, "c")
    second = photo()  # taken for hand 2, played again
    _settle_one(store, tid, "d")
    assert len(store.runtime(tid).hands) == 2 and [h["photo_id"] for h in store.runtime(tid).hands] == [None, None]
    store.db.close()
    store = TableStore(Database(tmp_path / "m.db"))
    refused(first, 2)
    refused(second, 2)
    assert store.first_photo(tid, third, adding=True) == third  # hand 3's, as when it was taken
    rt = store.runtime(tid)
    records = [h["record"] for h in rt.hands]
    store.replace(tid, "imp", rt.version, rt.header, records)  # the same hands, imported after the photo
    refused(third, 2)
    assert store.counts(tid)["photos"] == 3
