"""Server-sent events against a real waitress server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from waitress.server import create_server

from web import create_app

pytestmark = pytest.mark.webapi  # `-k web` selects the backend's tests too


@pytest.fixture()
def server(tmp_path) -> Iterator[tuple[str, Any]]:
    with serving({"DATABASE": str(tmp_path / "mus.db"), "SSE_HEARTBEAT": 0.3, "SSE_MAX_SECONDS": 20,
                  "SSE_MAX_STREAMS": 3}) as out:
        yield out


@contextlib.contextmanager
def serving(config: dict[str, Any], threads: int = 8) -> Iterator[tuple[str, Any]]:
    """The app on waitress on 127.0.0.1 in a thread: `(base URL, app)`."""
    app = create_app(config)
    srv = create_server(app, host="127.0.0.1", port=0, threads=threads, asyncore_loop_timeout=0.1)

    def run() -> None:
        try:
            srv.run()
        except OSError:  # closed from the test's thread
            pass

    th = threading.Thread(target=run, daemon=True)
    th.start()
    try:
        yield f"http://127.0.0.1:{srv.effective_port}", app
    finally:
        app.extensions["mus_hub"].close()
        srv.close()
        th.join(5)


def new_table(base: str) -> dict[str, Any]:
    t = requests.post(f"{base}/api/tables", json={}, timeout=5).json()
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    return t


def write(base: str, t: dict[str, Any], version: int) -> dict[str, Any]:
    r = requests.post(f"{base}/api/tables/{t['id']}/mus", headers=t["auth"],
                      json={"client_id": f"m{version}", "version": version}, timeout=5)
    assert r.status_code == 200, r.text
    return r.json()


class Events:
    """Reads an SSE stream on a raw socket, event by event."""

    def __init__(self, base: str, path: str, headers: dict[str, str] | None = None) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=5)
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Accept: text/event-stream"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.buf = b""
        head = self._until(b"\r\n\r\n")
        self.status = int(head.split(b" ")[1])
        self.headers = head.decode("latin-1").lower()
        self.chunked = "transfer-encoding: chunked" in self.headers
        self.body = b""

    def _until(self, sep: bytes) -> bytes:
        while sep not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("stream closed")
            self.buf += data
        out, _, self.buf = self.buf.partition(sep)
        return out

    def _more(self) -> None:
        if self.chunked:
            size = int(self._until(b"\r\n"), 16)
            if size == 0:
                raise EOFError("stream ended")
            while len(self.buf) < size + 2:
                data = self.sock.recv(65536)
                if not data:
                    raise EOFError("stream closed")
                self.buf += data
            self.body += self.buf[:size]
            self.buf = self.buf[size + 2:]
        else:
            data = self.buf or self.sock.recv(65536)
            self.buf = b""
            if not data:
                raise EOFError("stream closed")
            self.body += data

    def next_block(self) -> str:
        """The next blank-line separated block (an event, a comment or `retry:`)."""
        while b"\n\n" not in self.body:
            self._more()
        block, _, self.body = self.body.partition(b"\n\n")
        return block.decode()

    def next_event(self) -> tuple[int, str]:
        while True:
            block = self.next_block()
            fields = dict(line.split(": ", 1) for line in block.split("\n") if line and not line.startswith(":")
                          and ": " in line)
            if "id" in fields:
                return int(fields["id"]), fields["data"]

    def close(self) -> None:
        self.sock.close()


def test_stream_sends_state_then_every_change_pushed(tmp_path) -> None:
    # a heartbeat of a minute: nothing but a write's push wakes the stream before the socket's
    # own timeout, so each change arriving, and arriving before any heartbeat, is the push
    with serving({"DATABASE": str(tmp_path / "mus.db"), "SSE_HEARTBEAT": 60.0}) as (base, _):
        t = new_table(base)
        ev = Events(base, f"/api/tables/{t['id']}/events", t["auth"])
        try:
            assert ev.status == 200 and "text/event-stream" in ev.headers
            assert ev.next_block() == "retry: 1000"
            v, data = ev.next_event()
            assert v == 1 and f'"id":"{t["id"]}"' in data
            for version in (1, 2, 3):
                write(base, t, version)
                block = ev.next_block()
                assert block.startswith(f"id: {version + 1}\n") and f'"version":{version + 1}' in block, block
        finally:
            ev.close()


def test_last_event_id_catches_up(server) -> None:
    base, _ = server
    t = new_table(base)
    write(base, t, 1)
    write(base, t, 2)  # now version 3
    # up to date: nothing until the next change
    ev = Events(base, f"/api/tables/{t['id']}/events", {**t["auth"], "Last-Event-ID": "3"})
    try:
        ev.next_block()  # retry
        assert ev.next_block().startswith(":")  # a heartbeat, no state
        write(base, t, 3)
        assert ev.next_event()[0] == 4
    finally:
        ev.close()
    # behind: the latest state at once
    ev = Events(base, f"/api/tables/{t['id']}/events?token={t['watch_token']}", {"Last-Event-ID": "2"})
    try:
        assert ev.next_event()[0] == 4
    finally:
        ev.close()


def test_heartbeats_and_watchers_of_other_tables_stay_quiet(server) -> None:
    base, _ = server
    t, other = new_table(base), new_table(base)
    ev = Events(base, f"/api/tables/{other['id']}/events", other["auth"])
    try:
        assert ev.next_event()[0] == 1
        write(base, t, 1)
        block = ev.next_block()
        assert block.startswith(":"), block  # only a heartbeat: the other table's change is not ours
    finally:
        ev.close()


def test_stream_refusals_are_json(server) -> None:
    base, _ = server
    t = new_table(base)
    r = requests.get(f"{base}/api/tables/{t['id']}/events", timeout=5)
    assert r.status_code == 401 and r.json()["error"]["code"] == "missing_token"
    for bad in ("x", "1_0", "+1", "-1", "9" * 19, "0" * 19):  # int() takes the middle three
        r = requests.get(f"{base}/api/tables/{t['id']}/events", headers={**t["auth"], "Last-Event-ID": bad}, timeout=5)
        assert r.status_code == 400 and r.json()["error"]["field"] == "Last-Event-ID", bad
        assert json.dumps(bad) in r.json()["error"]["message"]
        # from the query, the refusal names the query's parameter
        r = requests.get(f"{base}/api/tables/{t['id']}/events", params={"last_event_id": bad}, headers=t["auth"],
                         timeout=5)
        assert r.status_code == 400 and r.json()["error"]["field"] == "last_event_id", bad
        assert r.json()["error"]["message"].startswith("last_event_id: ") and json.dumps(bad) in r.json()["error"]["message"]


def test_the_document_bounds_last_event_id_as_the_server_does(tmp_path) -> None:
    """The served document's Last-Event-ID and ?last_event_id=: whole numbers from 0 to
    the largest of 18 digits, which the server takes; one past it, it refuses."""
    with serving({"DATABASE": str(tmp_path / "mus.db"), "SSE_HEARTBEAT": 0.3, "SSE_MAX_SECONDS": 20}) as (base, _):
        _last_event_id_bounds(base)


def _last_event_id_bounds(base: str) -> None:
    t = new_table(base)
    doc = requests.get(f"{base}/api/openapi.json", timeout=5).json()
    params = {p["name"]: p for p in doc["paths"]["/api/tables/{table_id}/events"]["get"]["parameters"]}
    for name in ("Last-Event-ID", "last_event_id"):
        schema = params[name]["schema"]
        assert schema["type"] == "integer" and schema["minimum"] == 0, name
        top = schema["maximum"]
        for value, status in ((top, 200), (0, 200), (top + 1, 400)):
            sent = {"headers": {**t["auth"], name: str(value)}} if name == "Last-Event-ID" else {
                "headers": t["auth"], "params": {name: str(value)}}
            with requests.get(f"{base}/api/tables/{t['id']}/events", stream=True, timeout=5, **sent) as r:
                assert r.status_code == status, (name, value)


def test_too_many_streams_is_503_and_streams_are_released(server) -> None:
    base, app = server
    t = new_table(base)
    streams = [Events(base, f"/api/tables/{t['id']}/events", t["auth"]) for _ in range(3)]
    for ev in streams:
        ev.next_event()
    r = requests.get(f"{base}/api/tables/{t['id']}/events", headers=t["auth"], timeout=5)
    assert r.status_code == 503 and r.json()["error"]["code"] == "too_many_streams"
    for ev in streams:
        ev.close()
    hub = app.extensions["mus_hub"]
    deadline = time.monotonic() + 5
    while hub.streams and time.monotonic() < deadline:  # closed sockets are found at the next heartbeat
        time.sleep(0.1)
    assert hub.streams == 0


def test_requests_stream_reader(server) -> None:
    """The same with requests' streaming reader (what a script would use)."""
    base, _ = server
    t = new_table(base)
    with requests.get(f"{base}/api/tables/{t['id']}/events", headers=t["auth"], stream=True, timeout=5) as r:
        lines = r.iter_lines(decode_unicode=True)
        ids = []
        for line in lines:
            if line.startswith("id: "):
                ids.append(int(line[4:]))
                if len(ids) == 1:
                    write(base, t, 1)
                else:
                    break
        assert ids == [1, 2]


def test_eight_phones_racing_over_http_one_wins(server) -> None:
    base, _ = server
    t = new_table(base)
    barrier = threading.Barrier(8)
    codes: list[int] = []

    def phone(i: int) -> None:
        with requests.Session() as s:
            barrier.wait()
            r = s.post(f"{base}/api/tables/{t['id']}/mus", headers=t["auth"],
                       json={"client_id": f"race{i}", "version": 1}, timeout=10)
            codes.append(r.status_code)

    threads = [threading.Thread(target=phone, args=(i,)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(15)
    assert sorted(codes) == [200] + [409] * 7
    s = requests.get(f"{base}/api/tables/{t['id']}", headers=t["auth"], timeout=5).json()
    assert s["version"] == 2 and s["current"]["mus_rounds"] == 1


def test_a_stream_closed_before_it_started_is_counted_out(tmp_path) -> None:
    from web.live import Hub, stream

    app = create_app({"DATABASE": str(tmp_path / "mus.db")})
    hub = Hub()
    assert hub.try_open(1) and not hub.try_open(1)
    s = stream(app.extensions["mus_store"], hub, "nope", None)
    s.close()
    s.close()
    assert hub.streams == 0


def test_one_table_cannot_take_every_stream(tmp_path) -> None:
    # SSE_MAX_PER_TABLE: streams opened on one table stop at its limit, and another
    # table's players still get theirs; a closed stream gives its table's place back
    from web.live import Hub, stream

    app = create_app({"DATABASE": str(tmp_path / "mus.db")})
    hub = Hub()
    assert all(hub.try_open(100, "attacker", 3) for _ in range(3))
    assert not hub.try_open(100, "attacker", 3)
    assert hub.try_open(100, "victim", 3)
    assert hub.streams == 4 and hub.per_table == {"attacker": 3, "victim": 1}
    s = stream(app.extensions["mus_store"], hub, "attacker", None)
    s.close()
    assert hub.per_table["attacker"] == 2 and hub.try_open(100, "attacker", 3)
    hub.release("victim")
    assert "victim" not in hub.per_table and hub.streams == 3


def test_watchers_leave_the_tables_last_places_to_its_players(tmp_path) -> None:
    # SSE_PLAYER_RESERVE: streams opened with the watch token stop at SSE_MAX_PER_TABLE
    # less the reserve (the same 503 as a full table); the players' token may fill the
    # table's every place, and a watcher's closed stream gives its place back
    from web.live import Hub

    hub = Hub()
    assert all(hub.try_open(100, "t", 5, reserved=2) for _ in range(3))  # three watchers
    assert not hub.try_open(100, "t", 5, reserved=2)  # a fourth: the last two are the players'
    assert hub.try_open(100, "t", 5) and hub.try_open(100, "t", 5)  # players take them
    assert not hub.try_open(100, "t", 5)  # the table is full for everyone
    assert hub.per_table == {"t": 5}
    hub.release("t")
    assert not hub.try_open(100, "t", 5, reserved=2) and hub.try_open(100, "t", 5)
    assert hub.try_open(100, "u", 0, reserved=2)  # no per-table limit: no reserve either
    assert not hub.try_open(100, "v", 2, reserved=2) and hub.try_open(100, "v", 2)  # a reserve of all: players only


def test_watchers_cannot_take_a_players_stream_over_http(tmp_path) -> None:
    with serving({"DATABASE": str(tmp_path / "mus.db"), "SSE_HEARTBEAT": 0.3, "SSE_MAX_SECONDS": 20,
                  "SSE_MAX_STREAMS": 50, "SSE_MAX_PER_TABLE": 4, "SSE_PLAYER_RESERVE": 2}) as (base, app):
        t = new_table(base)
        path = f"/api/tables/{t['id']}/events"
        opened = []
        try:
            for _ in range(2):  # watchers: SSE_MAX_PER_TABLE less the reserve
                opened.append(Events(base, f"{path}?token={t['watch_token']}"))
                assert opened[-1].next_event()[0] == 1
            r = requests.get(f"{base}{path}?token={t['watch_token']}", timeout=5)
            assert r.status_code == 503 and r.json()["error"]["code"] == "too_many_streams"
            assert "too many live connections" in r.json()["error"]["message"] and r.headers["Retry-After"] == "5"
            for _ in range(2):  # the players' phones still get the last places
                opened.append(Events(base, path, t["auth"]))
                assert opened[-1].status == 200 and opened[-1].next_event()[0] == 1
            r = requests.get(f"{base}{path}", headers=t["auth"], timeout=5)  # full now, for players too
            assert r.status_code == 503 and r.json()["error"]["code"] == "too_many_streams"
            assert app.extensions["mus_hub"].per_table == {t["id"]: 4}
        finally:
            for ev in opened:
                ev.close()


def _boot(html: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="boot">(.*?)</script>', html, re.S)
    assert m, "no boot JSON in the page"
    return json.loads(m.group(1))


def test_the_players_page_streams_in_the_players_reserve_without_their_token(tmp_path) -> None:
    # the players' page streams with a token that is not the players' (no address holds
    # the token that writes); that token still counts the stream as the players', so
    # watchers filling their places do not keep the players' phones off the live view
    with serving({"DATABASE": str(tmp_path / "mus.db"), "SSE_HEARTBEAT": 0.3, "SSE_MAX_SECONDS": 20,
                  "SSE_MAX_STREAMS": 50, "SSE_MAX_PER_TABLE": 4, "SSE_PLAYER_RESERVE": 2}) as (base, app):
        t = new_table(base)
        html = requests.get(f"{base}/t/{t['id']}?token={t['token']}", timeout=5).text
        read = _boot(html)["state"]["stream_token"]
        assert read not in (t["token"], t["watch_token"])
        path = f"/api/tables/{t['id']}/events"
        opened = []
        try:
            for _ in range(2):  # the watchers' places are taken
                opened.append(Events(base, f"{path}?token={t['watch_token']}"))
                assert opened[-1].next_event()[0] == 1
            assert requests.get(f"{base}{path}?token={t['watch_token']}", timeout=5).status_code == 503
            for _ in range(2):  # the players' pages still get theirs
                opened.append(Events(base, f"{path}?token={read}"))
                assert opened[-1].status == 200 and opened[-1].next_event()[0] == 1
            assert app.extensions["mus_hub"].per_table == {t["id"]: 4}
        finally:
            for ev in opened:
                ev.close()
        # it opens the stream only: no read, no write
        assert requests.get(f"{base}/api/tables/{t['id']}?token={read}", timeout=5).status_code == 403
        r = requests.post(f"{base}/api/tables/{t['id']}/mus", headers={"Authorization": f"Bearer {read}"},
                          json={"client_id": "m", "version": 1}, timeout=5)
        assert r.status_code == 403
        # and only this table's: another table's stream token is a bad token here
        other = new_table(base)
        html = requests.get(f"{base}/t/{other['id']}?token={other['token']}", timeout=5).text
        theirs = _boot(html)["state"]["stream_token"]
        assert theirs != read
        assert requests.get(f"{base}{path}?token={theirs}", timeout=5).status_code == 403
        # a watcher's page gets no stream token
        html = requests.get(f"{base}/w/{t['id']}?token={t['watch_token']}", timeout=5).text
        assert read not in html


def test_a_heartbeat_is_a_comment_and_a_ping_an_eventsource_hears(server) -> None:
    """The page's EventSource never sees comments: the heartbeat is also an `event: ping`
    with data (an event with none is not dispatched) and no id (Last-Event-ID stays the
    version), so that a page can tell a stalled stream (nothing for two heartbeats)."""
    base, _ = server
    t = new_table(base)
    ev = Events(base, f"/api/tables/{t['id']}/events", t["auth"])
    try:
        assert ev.next_event()[0] == 1
        block = ev.next_block()
        lines = block.split("\n")
        assert lines[0].startswith(":"), block  # still a comment first, for proxies
        fields = dict(line.split(": ", 1) for line in lines[1:])
        assert fields["event"] == "ping" and fields["data"] and "id" not in fields, block
    finally:
        ev.close()


def test_a_pages_next_stream_takes_the_place_of_its_last_one(tmp_path) -> None:
    """A stream dropped by flaky wifi holds its place until a heartbeat to it fails; the
    page's next stream (the same `client` id, the same kind of token) takes that place at
    once and ends the old one, so that a phone never locks itself out of its table."""
    with serving({"DATABASE": str(tmp_path / "mus.db"), "SSE_HEARTBEAT": 30, "SSE_MAX_SECONDS": 60,
                  "SSE_MAX_STREAMS": 50, "SSE_MAX_PER_TABLE": 3, "SSE_PLAYER_RESERVE": 1}) as (base, app):
        t = new_table(base)
        path = f"/api/tables/{t['id']}/events"
        hub = app.extensions["mus_hub"]
        opened = []
        try:
            watcher = Events(base, f"{path}?token={t['watch_token']}&client=pageA")  # a watcher's own page
            assert watcher.status == 200 and watcher.next_event()[0] == 1
            for client in ("pageA", "pageB"):
                opened.append(Events(base, f"{path}?client={client}", t["auth"]))
                assert opened[-1].status == 200 and opened[-1].next_event()[0] == 1
            opened.append(watcher)
            assert hub.per_table == {t["id"]: 3}
            r = requests.get(f"{base}{path}", headers=t["auth"], timeout=5)  # full
            assert r.status_code == 503 and r.json()["error"]["code"] == "too_many_streams"
            # a watcher's page of the same id takes a watcher's place only: the table stays full for it
            assert requests.get(f"{base}{path}?token={t['watch_token']}&client=pageB",
                                timeout=5).status_code == 503
            old = opened[0]
            again = Events(base, f"{path}?client=pageA", t["auth"])  # pageA's stream again, at once
            opened.append(again)
            assert again.status == 200 and again.next_event()[0] == 1
            with pytest.raises(EOFError):  # the old one ended (not at its next heartbeat, 30 s away)
                while True:
                    old.next_block()
            assert hub.per_table == {t["id"]: 3}
            assert write(base, t, 1)["version"] == 2
            assert again.next_event()[0] == 2 and opened[1].next_event()[0] == 2  # the others still stream
            assert requests.get(f"{base}{path}?client=no/such", headers=t["auth"], timeout=5).status_code == 400
        finally:
            for ev in opened:
                ev.close()


def test_the_hub_forgets_a_pages_stream_once_it_ends(tmp_path) -> None:
    from scorer.storage import Database
    from scorer.storage.tables import TableStore
    from web.live import Hub, stream

    store = TableStore(Database(tmp_path / "m.db"))
    tid = store.create({}).id
    hub = Hub()
    first = stream(store, hub, tid, None, 0.05, 30, ("play", "p1"))
    assert hub.try_open(10, tid, 1, 0, first)
    it = iter(first)
    assert next(it).startswith("retry:") and next(it).startswith("id: 1\n")
    second = stream(store, hub, tid, None, 0.05, 30, ("play", "p1"))
    assert hub.try_open(10, tid, 1, 0, second)  # the table's one place: the page's again
    assert first.evicted and hub.per_table == {tid: 1}
    assert list(it) == []  # the old one ends at once, no heartbeat, counted out once
    watcher = stream(store, hub, tid, None, 0.05, 30, ("watch", "p1"))
    assert not hub.try_open(10, tid, 1, 0, watcher)  # another kind of token: not that page's stream
    second.close()
    assert hub.per_table == {} and hub.streams == 0 and hub._owners == {}
