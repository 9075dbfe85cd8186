"""`mus-scorer serve` as a real process: SIGKILL loses nothing that was answered 200; clean stops."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

pytestmark = pytest.mark.webapi  # `-k web` selects the backend's tests too

ROOT = Path(__file__).resolve().parents[1]
DECK = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]
DEAL = [DECK[0:4], DECK[10:14], DECK[20:24], DECK[30:34]]


class Serve:
    """`python -m scorer serve` on 127.0.0.1 and a free port."""

    def __init__(self, db: Path, *args: str) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "scorer", "serve", "--host", "127.0.0.1", "--port", "0", "--db", str(db),
             "--threads", "8", *args],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        self.out: list[str] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()  # type: ignore[union-attr]
            if not line:
                break
            self.out.append(line)
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if m:
                self.base = f"http://127.0.0.1:{m.group(1)}"
            if line.startswith("Ctrl-C"):
                return
        self.proc.kill()
        raise AssertionError("serve did not start: " + "".join(self.out))

    def rest(self, timeout: float = 10) -> str:
        out, _ = self.proc.communicate(timeout=timeout)
        return "".join(self.out) + (out or "")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture()
def db(tmp_path) -> Path:
    return tmp_path / "mus.db"


@pytest.fixture()
def serve(db) -> Iterator[Any]:
    started: list[Serve] = []

    def start(*args: str) -> Serve:
        s = Serve(db, *args)
        started.append(s)
        return s

    yield start
    for s in started:
        s.kill()


def test_sigkill_keeps_every_answered_write(serve, db) -> None:
    s = serve()
    t = requests.post(f"{s.base}/api/tables", json={"teams": ["A", "B"]}, timeout=5).json()
    auth = {"Authorization": f"Bearer {t['token']}"}
    url = f"{s.base}/api/tables/{t['id']}"
    state = requests.get(url, headers=auth, timeout=5).json()
    answered = []
    hands_done = 0
    for i in range(60):  # one hand settled, then part of the next
        cur = state["current"]
        if cur["phase"] in ("showdown", "over"):
            r = requests.post(f"{url}/showdown", headers=auth, timeout=5,
                              json={"client_id": f"s{i}", "version": state["version"], "hands": DEAL})
            hands_done += 1
        else:
            last = {"client_id": f"a{i}", "version": state["version"], "action": cur["legal"][0]}
            r = requests.post(f"{url}/actions", headers=auth, timeout=5, json=last)
        assert r.status_code == 200, r.text
        state = r.json()
        answered.append(state["version"])
        if hands_done == 1 and len(state["current"]["log"]) >= 3:
            break
    assert hands_done == 1
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait(10)
    s2 = serve()
    again = requests.get(f"{s2.base}/api/tables/{t['id']}", headers=auth, timeout=5).json()
    assert again == state
    assert again["version"] == answered[-1]
    # a retry of the last write (its answer lost with the process) does not apply twice
    assert last["version"] == answered[-2]
    r = requests.post(f"{s2.base}/api/tables/{t['id']}/actions", headers=auth, timeout=5, json=last)
    assert r.status_code == 200 and r.json()["version"] == answered[-1]
    # the same client_id with another action is not taken for that retry
    other = {**last, "action": {"seat": 0, "act": "ordago"}}
    r = requests.post(f"{s2.base}/api/tables/{t['id']}/actions", headers=auth, timeout=5, json=other)
    assert r.status_code == 409 and r.json()["error"]["code"] == "client_id_reused"
    s2.kill()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_clean_stop(serve, db, sig) -> None:
    s = serve()
    out = "".join(s.out)
    assert str(db) in out and "database:" in out
    key = (db.parent / "admin.key").read_text().strip()  # the deck page's address carries the admin key
    assert f"/decks#key={key}" in out
    assert requests.get(f"{s.base}/api/decks", headers={"Authorization": f"Bearer {key}"}, timeout=5).status_code == 200
    t = requests.post(f"{s.base}/api/tables", json={}, timeout=5).json()
    # a live view open while stopping must not hold the stop
    stream = requests.get(f"{s.base}/api/tables/{t['id']}/events?token={t['token']}", stream=True, timeout=5)
    assert stream.status_code == 200
    s.proc.send_signal(sig)
    rest = s.rest(timeout=15)  # (waits for the exit: a stop held by the live view fails here)
    assert s.proc.returncode == 0, rest
    assert "stopped" in rest
    # the live view was ended by the stop, not left hanging (its read would time out after 5 s)
    assert b"".join(stream.iter_content(None)).startswith(b"retry: 1000\n\n")
    stream.close()


def test_serve_prints_lan_address_and_qr(serve) -> None:
    from scorer.commands.serve import lan_address

    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", lan_address())
    s = serve()
    out = "".join(s.out)
    assert "█" in out or "▀" in out  # the ASCII QR code
    s.proc.send_signal(signal.SIGTERM)
    s.rest()


def test_serve_answers_json_413_for_a_huge_photo(serve) -> None:
    s = serve()
    t = requests.post(f"{s.base}/api/tables", json={}, timeout=5).json()
    big = b"\xff\xd8\xff" + b"\x00" * (26 * 1024 * 1024)
    r = requests.post(f"{s.base}/api/tables/{t['id']}/photos?token={t['token']}", data=big,
                      headers={"Content-Type": "image/jpeg"}, timeout=30)
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
    state = requests.get(f"{s.base}/api/tables/{t['id']}?token={t['token']}", timeout=5).json()
    assert state["version"] == 1
    s.proc.send_signal(signal.SIGTERM)
    s.rest()


def raw_answer(base: str, head: str) -> tuple[int, dict[str, str], bytes]:
    """Send the request line and headers `head` on a socket of its own, and no body; the
    answer's status, headers (lower-case names) and body, read until the server closes."""
    import socket
    from urllib.parse import urlsplit

    where = urlsplit(base)
    with socket.create_connection((where.hostname, where.port), timeout=30) as sock:
        sock.sendall(head.encode("latin-1") + b"\r\n")
        got = b""
        while chunk := sock.recv(65536):  # (a server waiting for the body would time out here)
            got += chunk
    top, _, body = got.partition(b"\r\n\r\n")
    status_line, *lines = top.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def test_serve_refuses_a_body_over_its_limit_in_the_json_shape_before_reading_it(serve) -> None:
    """A Content-Length past the server's limit for any request (past which waitress, not
    the app, refuses it): 413 in the app's JSON error shape under /api/, answered from the
    headers alone (no body is sent), and the server serves on."""
    s = serve()
    t = requests.post(f"{s.base}/api/tables", json={}, timeout=5).json()
    huge = 10**12
    status, headers, body = raw_answer(
        s.base, f"POST /api/tables/{t['id']}/photos?token={t['token']} HTTP/1.1\r\nHost: x\r\n"
                f"Content-Type: image/jpeg\r\nContent-Length: {huge}\r\n")
    assert status == 413, body
    assert headers["content-type"] == "application/json" and headers["cache-control"] == "no-store"
    error = json.loads(body)["error"]
    assert error["status"] == 413 and error["code"] == "too_large" and error["field"] is None, error
    assert f"({huge} bytes)" in error["message"] and "limit of " in error["message"], error
    assert set(error) == {"status", "code", "message", "field"}
    # a page's refusal stays waitress's own (pages never answer JSON)
    status, headers, body = raw_answer(s.base, f"POST /t/{t['id']} HTTP/1.1\r\nHost: x\r\nContent-Length: {huge}\r\n")
    assert status == 413 and headers["content-type"].startswith("text/plain"), (status, headers)
    state = requests.get(f"{s.base}/api/tables/{t['id']}?token={t['token']}", timeout=5)
    assert state.status_code == 200 and state.json()["version"] == 1
    s.proc.send_signal(signal.SIGTERM)
    s.rest()


def stream_chunked(base: str, head: str, most: int) -> tuple[int, dict[str, str], bytes, bool]:
    """Send the request line and headers `head`, then a body chunked in 64 KB chunks, up to
    `most` bytes, as long as the server reads it and has not answered; then end the body (if
    nothing was answered yet) and read the answer until the server closes: its status,
    headers, body, and whether it answered before the body ended."""
    import select
    import socket
    from urllib.parse import urlsplit

    where = urlsplit(base)
    chunk = b"x" * 65536
    frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
    with socket.create_connection((where.hostname, where.port), timeout=30) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
        sock.sendall(head.encode("latin-1") + b"Transfer-Encoding: chunked\r\n\r\n")
        sent, early, pending = 0, False, b""
        while sent < most or pending:
            readable, writable, _ = select.select([sock], [sock], [], 30)  # (30 s: a server stuck fails here)
            assert readable or writable, f"the server neither reads nor answers, {sent} bytes sent"
            if readable:
                early = True
                break
            if not pending:
                pending, sent = frame, sent + len(chunk)
            try:
                pending = pending[sock.send(pending):]
            except (BrokenPipeError, ConnectionResetError):  # it answered and closed meanwhile
                early = True
                break
        if not early:
            sock.sendall(b"0\r\n\r\n")
        got = b""
        try:
            while data := sock.recv(65536):
                got += data
        except ConnectionResetError:  # the rest of the body, unread, resets the connection
            pass
    top, _, body = got.partition(b"\r\n\r\n")
    status_line, *lines = top.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body, early


def test_serve_stops_reading_a_chunked_body_past_the_largest_upload(serve) -> None:
    """A body sent chunked (no Content-Length to refuse it by) is read only until it passes
    the largest upload the server takes there (a photo with its form: 25 MB and 64 KB; a
    JSON write, 256 KB; a match file imported, 4 MB), not up to waitress's limit for any
    request (101 MB): then a 413 in the app's JSON shape under /api/, naming that limit,
    answered while the body is still being sent. The server serves on; a deck's upload
    (four photos) may still be longer."""
    from web import DEFAULTS
    from web.api import FORM_HEADROOM

    limit = DEFAULTS["MAX_CONTENT_LENGTH"] + FORM_HEADROOM
    s = serve()
    t = requests.post(f"{s.base}/api/tables", json={}, timeout=5).json()
    status, headers, body, early = stream_chunked(
        s.base, f"POST /api/tables/{t['id']}/photos?token={t['token']} HTTP/1.1\r\nHost: x\r\n"
                "Connection: close\r\nContent-Type: multipart/form-data; boundary=b\r\n", 3 * limit)
    assert early, "the server read the whole body (3 times the limit) before answering"
    assert status == 413, body
    assert headers["content-type"] == "application/json" and headers["cache-control"] == "no-store"
    error = json.loads(body)["error"]
    assert error["code"] == "too_large" and error["field"] is None, error
    assert f"sent chunked, is larger than the server's limit of {limit} bytes" in error["message"], error
    # a JSON write's path, and an import's, take far less than a photo: read until past theirs
    # (under a photo's limit, so read whole were it a photo's)
    for path, most in ((f"/api/tables/{t['id']}/actions?token={t['token']}", DEFAULTS["JSON_MAX_BYTES"]),
                       ("/api/tables/import", DEFAULTS["IMPORT_MAX_BYTES"]),
                       (f"/api/tables/{t['id']}/import?token={t['token']}&client_id=c&version=1",
                        DEFAULTS["IMPORT_MAX_BYTES"])):
        status, headers, body, early = stream_chunked(
            s.base, f"POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                    "Content-Type: application/json\r\n", 16 * 2**20)
        assert early, f"{path}: the server read the whole body (16 MB) before answering"
        assert status == 413 and headers["content-type"] == "application/json", (path, body)
        error = json.loads(body)["error"]
        assert error["code"] == "too_large", error
        assert f"sent chunked, is larger than the server's limit of {most} bytes for {path.split('?')[0]}" \
            in error["message"], error
    # a deck's four photos: past a photo's limit, the body is read whole and the app answers it
    status, _, body, early = stream_chunked(
        s.base, "POST /api/decks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                "Content-Type: multipart/form-data; boundary=b\r\n",
        limit + 4 * 2**20)
    assert not early and status == 401 and json.loads(body)["error"]["code"] == "admin_key_required", body
    state = requests.get(f"{s.base}/api/tables/{t['id']}?token={t['token']}", timeout=5)
    assert state.status_code == 200 and state.json()["version"] == 1
    s.proc.send_signal(signal.SIGTERM)
    s.rest()


def test_a_chunked_body_is_cut_off_at_the_largest_upload_its_path_takes(tmp_path) -> None:
    """`serve.chunked_limits`, path by path: a photo's upload and /api/scan a photo with
    its form; the imports a match file; /api/decks four photos; any other path (a JSON
    write, a read, a page) a JSON write's body. The import's and JSON's within
    MAX_CONTENT_LENGTH, as the app takes them; no photo limit, none for a photo."""
    from scorer.commands.serve import chunked_limits
    from web import DEFAULTS, create_app
    from web.api import FORM_HEADROOM
    from web.decks import UPLOAD_LIMIT

    photo, json_max, import_max = DEFAULTS["MAX_CONTENT_LENGTH"], DEFAULTS["JSON_MAX_BYTES"], DEFAULTS["IMPORT_MAX_BYTES"]
    limit = chunked_limits(create_app({"DATABASE": str(tmp_path / "a.db"), "TESTING": True}))
    for path in ("/api/tables/abc/photos", "/api/tables/abc/photos/", "/api/scan"):
        assert limit(path) == photo + FORM_HEADROOM, path
    for path in ("/api/tables/import", "/api/tables/abc/import"):
        assert limit(path) == import_max, path
    assert limit("/api/decks") == limit("/api/decks/") == UPLOAD_LIMIT
    for path in ("/api/tables", "/api/tables/abc/actions", "/api/tables/abc/shown", "/api/tournaments/x/teams",
                 "/api/tables/abc/photos/p/annotated", "/api/decks/d/use", "/api/scans", "/t/abc", "/", ""):
        assert limit(path) == json_max, path
    small = chunked_limits(create_app({"DATABASE": str(tmp_path / "b.db"), "TESTING": True,
                                       "MAX_CONTENT_LENGTH": 100_000}))
    assert small("/api/scan") == 100_000 + FORM_HEADROOM
    assert small("/api/tables/import") == small("/api/tables") == 100_000
    unlimited = chunked_limits(create_app({"DATABASE": str(tmp_path / "c.db"), "TESTING": True,
                                           "MAX_CONTENT_LENGTH": None}))
    assert unlimited("/api/scan") is None and unlimited("/api/tables") == json_max


def test_serve_create_limit_sets_how_many_tables_an_address_creates(serve) -> None:
    s = serve("--create-limit", "2")
    assert all(requests.post(f"{s.base}/api/tables", json={}, timeout=5).status_code == 201 for _ in range(2))
    r = requests.post(f"{s.base}/api/tournaments", json={"name": "Liga"}, timeout=5)
    assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_creations"
    assert 590 <= int(r.headers["Retry-After"]) <= 600
    s.proc.send_signal(signal.SIGTERM)
    s.rest()


def test_serve_behind_a_trusted_proxy_counts_each_phone_and_links_the_proxy(serve) -> None:
    s = serve("--create-limit", "1", "--trusted-proxy", "127.0.0.1")
    via = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "mus.example.org", "X-Forwarded-Port": "443"}
    first = requests.post(f"{s.base}/api/tables", json={}, timeout=5,
                          headers={**via, "X-Forwarded-For": "203.0.113.5"})
    assert first.status_code == 201
    assert first.json()["watch_url"].startswith("https://mus.example.org/w/"), first.json()
    # another phone behind the same proxy has its own allowance; the first has spent its one
    other = requests.post(f"{s.base}/api/tables", json={}, timeout=5,
                          headers={**via, "X-Forwarded-For": "203.0.113.6"})
    again = requests.post(f"{s.base}/api/tables", json={}, timeout=5,
                          headers={**via, "X-Forwarded-For": "203.0.113.5"})
    assert other.status_code == 201 and again.status_code == 429
    s.proc.send_signal(signal.SIGTERM)
    s.rest()


def test_serve_without_a_trusted_proxy_believes_no_forwarded_header(serve) -> None:
    s = serve("--create-limit", "1")
    for addr, code in (("203.0.113.5", 201), ("203.0.113.6", 429)):  # both are 127.0.0.1
        r = requests.post(f"{s.base}/api/tables", json={}, timeout=5,
                          headers={"X-Forwarded-For": addr, "X-Forwarded-Host": "evil.example"})
        assert r.status_code == code
        if code == 201:
            assert "evil.example" not in r.json()["watch_url"]
    s.proc.send_signal(signal.SIGTERM)
    s.rest()


def test_serve_default_database_under_xdg_data_home(tmp_path) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"), "PYTHONUNBUFFERED": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-m", "scorer", "serve", "--host", "127.0.0.1", "--port", "0", "--no-qr"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        for _ in range(10):
            line = proc.stdout.readline()  # type: ignore[union-attr]
            lines.append(line)
            if line.startswith("Ctrl-C") or not line:
                break
        expected = tmp_path / "xdg" / "mus-scorer" / "mus.db"
        assert f"database: {expected}" in "".join(lines)
        assert expected.exists()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
