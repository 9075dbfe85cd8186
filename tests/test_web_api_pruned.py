"""A table deleted by another process (`mus-scorer prune --tables-days`) while the server
holds it in its cache: every route answers a clean 404 `not_found`, nothing is read or
written for it, and its live stream ends."""

from __future__ import annotations

from typing import Any

import pytest

from scorer.storage import Database
from scorer.storage.prune import prune
from scorer.storage.tables import StoreError
from tests.test_web_api_photos import DEAL, FakeRecognizer, photo_bytes
from web import create_app
from web.live import Hub, stream

pytestmark = pytest.mark.webapi


@pytest.fixture()
def rec() -> FakeRecognizer:
    return FakeRecognizer()


@pytest.fixture()
def app(tmp_path, rec):
    return create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": rec})


@pytest.fixture()
def client(app):
    return app.test_client()


def _table(client) -> dict[str, Any]:
    r = client.post("/api/tables", json={"teams": ["Txuriak", "Beltzak"]})
    assert r.status_code == 201
    t = r.json
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    return t


def _prune_all(app) -> None:
    """Every table idle 0 days goes, as the command line prunes: its own connection."""
    other = Database(app.config["DATABASE"])
    try:
        assert prune(other, photos_days=None, tables_days=0, now=10**11).tables >= 1
    finally:
        other.close()


def _assert_404(r) -> None:
    assert r.status_code == 404, (r.status_code, r.data[:300])
    assert r.mimetype == "application/json"
    err = r.json["error"]
    assert set(err) == {"status", "code", "message", "field"}
    assert (err["status"], err["code"]) == (404, "not_found")


def test_a_pruned_table_is_404_on_every_route(app, client, rec) -> None:
    t = _table(client)
    tid, auth = t["id"], t["auth"]
    s = client.get(f"/api/tables/{tid}", headers=auth).json  # cached
    v = s["version"]
    store = app.extensions["mus_store"]
    assert tid in store._cache
    _prune_all(app)

    _assert_404(client.get(f"/api/tables/{tid}", headers=auth))
    assert tid not in store._cache  # the server noticed: out of its cache
    _assert_404(client.get(f"/api/tables/{tid}", headers=auth))
    _assert_404(client.get(f"/api/tables/{tid}/export", headers=auth))
    _assert_404(client.get(f"/api/tables/{tid}/events", headers=auth))
    writes = [
        ("post", "actions", {"action": s["current"]["legal"][0]}),
        ("post", "mus", {}),
        ("post", "undo", {}),
        ("post", "esku", {"seat": 1}),
        ("post", "showdown", {"hands": DEAL}),
    ]
    for i, (method, path, extra) in enumerate(writes):
        r = client.open(f"/api/tables/{tid}/{path}", method=method.upper(), headers=auth,
                        json={"client_id": f"w{i}", "version": v, **extra})
        _assert_404(r)
    _assert_404(client.patch(f"/api/tables/{tid}", headers=auth,
                             json={"client_id": "r", "version": v, "teams": ["Q", "R"]}))
    _assert_404(client.post(f"/api/tables/{tid}/import?client_id=i&version={v}", headers=auth,
                            data=b'{"format":"mus-match/1","teams":["a","b"]}\n'))
    _assert_404(client.post(f"/api/tables/{tid}/photos?client_id=p", headers={**auth, "Content-Type": "image/jpeg"},
                            data=photo_bytes()))
    assert rec.calls == []  # the photo was never read
    assert client.get(f"/t/{tid}?token={t['token']}").status_code == 404
    assert client.get(f"/w/{tid}?token={t['watch_token']}").status_code == 404


def test_a_pruned_table_is_404_to_a_tournament(app, client) -> None:
    t = _table(client)
    client.get(f"/api/tables/{t['id']}", headers=t["auth"])  # cached
    _prune_all(app)
    r = client.post("/api/tournaments", json={"name": "Liga"})
    assert r.status_code == 201
    org = {"Authorization": f"Bearer {r.json['token']}"}
    _assert_404(client.post(f"/api/tournaments/{r.json['id']}/tables", headers=org,
                            json={"table": t["id"], "token": t["token"]}))


@pytest.mark.parametrize("kind", ["act", "showdown", "rename", "photo"])
def test_a_table_deleted_while_written_is_404_not_500(app, client, kind) -> None:
    """Deleted between the checks and the commit: the foreign key failure (or the row
    not there to update) is the table's 404, and the cache forgets it."""
    t = _table(client)
    tid = t["id"]
    store = app.extensions["mus_store"]
    if kind == "showdown":
        for i in range(80):
            rt = store.runtime(tid)
            if rt.live.phase in ("showdown", "over"):
                break
            store.act(tid, f"a{i}", rt.version, rt.live.legal()[0])
    rt = store.runtime(tid)
    other = Database(app.config["DATABASE"])

    def delete() -> None:
        with other.write() as conn:
            conn.execute("DELETE FROM tables WHERE id = ?", (tid,))

    with pytest.raises(StoreError) as exc:
        if kind == "photo":
            real = store._add_photo

            def racing(*args: Any) -> Any:
                delete()
                return real(*args)

            store._add_photo = racing
            store.add_photo(tid, "p", "image/jpeg", b"x", None, {"cards": []})
        else:
            real_commit = store._commit

            def racing_commit(*args: Any) -> Any:
                delete()
                return real_commit(*args)

            store._commit = racing_commit
            if kind == "act":
                store.act(tid, "c", rt.version, rt.live.legal()[0])
            elif kind == "showdown":
                store.showdown(tid, "c", rt.version, DEAL)
            else:
                store.rename(tid, "c", rt.version, ["Q", "R"])
    other.close()
    assert (exc.value.status, exc.value.code) == (404, "not_found")
    assert tid not in store._cache


def test_the_live_stream_of_a_pruned_table_ends(app, client) -> None:
    t = _table(client)
    store, hub = app.extensions["mus_store"], Hub()
    assert hub.try_open(10, t["id"], 4)
    s = stream(store, hub, t["id"], None, heartbeat=0.05, max_seconds=30)
    it = iter(s)
    assert next(it).startswith("retry:")
    assert next(it).startswith("id: 1\n")
    _prune_all(app)
    rest = list(it)  # ends (a heartbeat or none, then the table's end)
    assert rest[-1].startswith("event: gone\n") and '"not_found"' in rest[-1]
    assert hub.streams == 0
