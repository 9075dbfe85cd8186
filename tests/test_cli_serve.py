"""`mus-scorer serve` refuses bad options in one line (`mus-scorer serve: WHY`, exit
status 2, the value quoted), before it opens anything: never a traceback, never a port or
a thread count other than the one asked for."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.commands import serve

pytestmark = pytest.mark.webapi  # `-k web` selects the backend's tests too

ROOT = Path(__file__).resolve().parents[1]


def run_serve(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`mus-scorer serve ARGS` (on 127.0.0.1, a free port and a database in `tmp_path`
    unless ARGS name others); killed after 30 s (subprocess.run kills it), so no server
    outlives the test."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "scorer", "serve", "--no-qr", "--host", "127.0.0.1", "--port", "0",
                           "--db", str(tmp_path / "mus.db"), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=30)


def assert_refused(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert proc.stderr.startswith("mus-scorer serve: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in proc.stderr, proc.stderr
    return proc.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--port", "-1"], ["--port -1: not a port"]),
        (["--port", "99999"], ["--port 99999: not a port (1 to 65535, or 0"]),
        (["--port", "65536"], ["--port 65536"]),
        (["--threads", "0"], ["--threads 0: "]),
        (["--threads", "-5"], ["--threads -5: "]),
        (["--threads", "100000000"], ["--threads 100000000: "]),
        (["--create-limit", "-3"], ["--create-limit -3: ", "0: no limit"]),
        (["--host", "999.1.1.1"], ["--host '999.1.1.1': "]),
        (["--host", ""], ["--host '': "]),
        (["--trusted-proxy", "notanaddr"], ["--trusted-proxy 'notanaddr': not an IP address"]),
        (["--trusted-proxy", "*"], ["--trusted-proxy '*': not an IP address"]),
        (["--trusted-proxy", "10.0.0.0/8"], ["--trusted-proxy '10.0.0.0/8': a network"]),
        (["--model", "/nonexistent/models"], ["--model '/nonexistent/models': no such folder"]),
    ],
)
def test_a_bad_option_is_one_line_and_status_2(tmp_path: Path, args: list[str], words: list[str]) -> None:
    assert_refused(run_serve(tmp_path, *args), *words)
    assert not (tmp_path / "mus.db").exists()  # refused before anything was opened


def test_a_model_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"x")
    assert_refused(run_serve(tmp_path, "--model", str(tmp_path / "model.onnx")), "not a folder")


@pytest.mark.parametrize("db", ["/proc/nope/x.db", "FILE/x.db", "FILE/a/b/x.db", "DIR"])
def test_a_database_where_none_can_be_made_is_refused(tmp_path: Path, db: str) -> None:
    (tmp_path / "file").write_text("not a folder")
    (tmp_path / "dir").mkdir()
    db = db.replace("FILE", str(tmp_path / "file")).replace("DIR", str(tmp_path / "dir"))
    err = assert_refused(run_serve(tmp_path, "--db", db))
    assert db in err


def test_a_port_in_use_is_refused_before_the_app_is_set_up(tmp_path: Path) -> None:
    """The port is bound first: taken, it is said at once, before the database is opened
    or made and the app (its models, its decks) set up."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        err = assert_refused(run_serve(tmp_path, "--port", str(port)))
    assert f"--port {port}: already in use on '127.0.0.1'" in err
    assert not (tmp_path / "mus.db").exists()


def test_bind_takes_the_port_given_and_refuses_one_in_use_by_name() -> None:
    """`bind` takes the address and port given (0: a free one) and refuses one in use
    (OSError EADDRINUSE, which `listen_problem` says as such)."""
    import errno

    sockets = serve.bind("127.0.0.1", 0)
    try:
        assert len(sockets) == 1 and sockets[0].getsockname()[0] == "127.0.0.1"
        port = sockets[0].getsockname()[1]
        assert port != 0
        sockets[0].listen()
        with pytest.raises(OSError) as refused:
            serve.bind("127.0.0.1", port)
        assert refused.value.errno == errno.EADDRINUSE
        assert "already in use" in serve.listen_problem(refused.value, namespace(port=port, host="127.0.0.1"))
    finally:
        for sock in sockets:
            sock.close()


def test_an_address_not_of_this_machine_is_refused(tmp_path: Path) -> None:
    assert_refused(run_serve(tmp_path, "--host", "8.8.8.8", "--port", "0"),
                   "--host '8.8.8.8': not an address of this machine")


def namespace(**given: object) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    args = parser.parse_args([])
    for key, value in given.items():
        setattr(args, key, value)
    return args


@pytest.mark.parametrize(("given", "taken"), [("127.0.0.1", "127.0.0.1"), (" 10.0.0.2 ", "10.0.0.2"),
                                              ("0:0:0:0:0:0:0:1", "::1"), ("192.168.1.5/32", "192.168.1.5")])
def test_the_trusted_proxy_is_taken_as_waitress_compares_it(given: str, taken: str) -> None:
    args = namespace(trusted_proxy=given, host="127.0.0.1")
    assert serve.check_arguments(args) is None
    assert args.trusted_proxy == taken


@pytest.mark.parametrize("args", [{"port": 0}, {"port": 1}, {"port": 65535}, {"threads": 1}, {"create_limit": 0},
                                  {"host": "localhost"}, {"host": "::1"}])
def test_the_edges_are_taken(args: dict[str, object]) -> None:
    assert serve.check_arguments(namespace(**{"host": "127.0.0.1", **args})) is None


def test_a_damaged_database_is_refused_at_startup(tmp_path: Path) -> None:
    """A file damaged past its first pages opened, and each request that reached the damage
    failed: `serve` now checks it (`PRAGMA quick_check`) and refuses it in one line."""
    import random

    from scorer.storage import Database
    from scorer.storage.tables import TableStore

    db = tmp_path / "mus.db"
    store = TableStore(Database(db))
    for n in range(60):
        store.create({"teams": [f"Team {n}", "Other"]})
    store.db.close()
    data = db.read_bytes()
    half = len(data) // 2
    db.write_bytes(data[:half] + random.Random(3).randbytes(len(data) - half))
    before = db.read_bytes()
    err = assert_refused(run_serve(tmp_path, "--port", "0"), f"{db}: the database is damaged (", "backup")
    assert "Traceback" not in err and db.read_bytes() == before


@pytest.mark.parametrize(("url", "words"), [
    ("mus.example.org", "not an http:// or https:// address"),
    ("ftp://mus.example.org", "not an http:// or https:// address"),
    ("https://", "not an http:// or https:// address"),
    ("https://mus.example.org:99999", "not an address"),
    ("https://mus.example.org/?a=1", "no ?query nor #fragment"),
    ("https://mus.example.org/#top", "no ?query nor #fragment"),
])
def test_a_public_url_that_is_no_address_is_refused(url: str, words: str) -> None:
    why = serve.check_arguments(namespace(host="127.0.0.1", public_url=url))
    assert why is not None and why.startswith(f"--public-url {url!r}: ") and words in why, why


def test_a_public_url_is_kept_without_its_last_slash() -> None:
    args = namespace(host="127.0.0.1", public_url=" https://mus.example.org/club/ ")
    assert serve.check_arguments(args) is None and args.public_url == "https://mus.example.org/club"


def started(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[str], list[str]]:
    """`mus-scorer serve --host 127.0.0.1 --port 0 ARGS` running, and what it printed up to
    "Ctrl-C to stop." (the caller kills it)."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"), "PYTHONUNBUFFERED": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-m", "scorer", "serve", "--no-qr", "--host", "127.0.0.1", "--port", "0",
                             "--threads", "8", "--db", str(tmp_path / "mus.db"), *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    while line := proc.stdout.readline():  # type: ignore[union-attr]
        lines.append(line)
        if line.startswith("Ctrl-C"):
            return proc, lines
    proc.kill()
    raise AssertionError("serve did not start: " + "".join(lines))


def test_serve_on_127_0_0_1_links_where_it_listens(tmp_path: Path) -> None:
    """`serve --host 127.0.0.1`: the page's links and QR codes and the API's name
    127.0.0.1 and the port it listens on, never the LAN address, where nothing answers."""
    import re

    import requests

    from web.pages import _lan_address

    proc, lines = started(tmp_path)
    try:
        port = re.search(r"listening on 127\.0\.0\.1:(\d+)", "".join(lines)).group(1)  # type: ignore[union-attr]
        base = f"http://127.0.0.1:{port}"
        table = requests.post(f"{base}/api/tables", json={}, timeout=10).json()
        assert table["join_url"] == f"{base}/t/{table['id']}?token={table['token']}", table
        page = requests.get(f"{base}/t/{table['id']}?token={table['token']}", timeout=10).text
        qr = requests.get(f"{base}/t/{table['id']}/qr.svg?token={table['token']}&for=join", timeout=10).text
        assert f"<title>{table['join_url']}</title>" in qr
        assert f'"join": "{table["join_url"]}"' in page or f'"join":"{table["join_url"]}"' in page
        lan = _lan_address()
        if lan:  # (a machine on no network has none to name)
            assert f"{lan}:" not in page + qr
    finally:
        proc.kill()
        proc.wait(10)


def test_serve_with_a_public_url_prints_it_and_links_it(tmp_path: Path) -> None:
    import requests

    proc, lines = started(tmp_path, "--public-url", "https://mus.example.org/")
    try:
        out = "".join(lines)
        assert "mus-scorer serving on https://mus.example.org/  (listening on 127.0.0.1:" in out, out
        assert "teach the reader your own deck: https://mus.example.org/decks#key=" in out, out
        port = out.split("listening on 127.0.0.1:")[1].split(")")[0]
        table = requests.post(f"http://127.0.0.1:{port}/api/tables", json={}, timeout=10).json()
        assert table["join_url"].startswith("https://mus.example.org/t/"), table
    finally:
        proc.kill()
        proc.wait(10)


def test_the_address_printed_is_one_a_phone_can_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """Listening on every address, `serve` prints one of this machine's: the LAN address
    for 0.0.0.0, the IPv6 address on the network for :: (never http://[::]:PORT/, which no
    phone opens), the loopback one where the machine has none; --public-url above all."""
    monkeypatch.setattr(serve, "lan_address", lambda: "192.0.2.2")
    monkeypatch.setattr(serve, "lan_address6", lambda: "2001:db8::2")
    assert serve.printed_url("0.0.0.0", 8000) == "http://192.0.2.2:8000/"
    assert serve.printed_url("::", 8000) == "http://[2001:db8::2]:8000/"
    assert serve.printed_url("0:0:0:0:0:0:0:0", 8000) == "http://[2001:db8::2]:8000/"
    assert serve.printed_url("::1", 8000) == "http://[::1]:8000/"
    assert serve.printed_url("127.0.0.1", 8000) == "http://127.0.0.1:8000/"
    assert serve.printed_url("localhost", 8000) == "http://localhost:8000/"
    assert serve.printed_url("::", 8000, "https://mus.example.org/club") == "https://mus.example.org/club/"
    monkeypatch.setattr(serve, "lan_address6", lambda: "::1")  # a machine on no IPv6 network
    assert serve.printed_url("::", 8000) == "http://[::1]:8000/"


def test_the_ipv6_address_found_is_never_link_local(monkeypatch: pytest.MonkeyPatch) -> None:
    """lan_address6 gives an address a browser can open: a link-local one (fe80::, which
    needs its interface) is ::1, as is no IPv6 route at all."""

    class Fake:
        def __init__(self, name: str | None) -> None:
            self.name = name

        def connect(self, _address: object) -> None:
            if self.name is None:
                raise OSError(101, "Network is unreachable")

        def getsockname(self) -> tuple[str, int, int, int]:
            return (self.name or "", 5000, 0, 0)

        def close(self) -> None:
            pass

    for name, found in (("fe80::1%eth0", "::1"), (None, "::1"), ("fd00::2", "fd00::2"), ("2001:db8::7", "2001:db8::7")):
        monkeypatch.setattr(serve.socket, "socket", lambda *_a, name=name: Fake(name))
        assert serve.lan_address6() == found, name


def test_serve_on_every_ipv6_address_prints_an_address_that_answers(tmp_path: Path) -> None:
    """A real `serve --host ::`: the address printed is not [::], and the server answers there."""
    import requests

    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::", 0))
    except OSError:
        pytest.skip("no IPv6 on this machine")
    proc, lines = started(tmp_path, "--host", "::")
    try:
        out = "".join(lines)
        url = out.split("mus-scorer serving on ")[1].split()[0]
        assert "[::]" not in url and url.startswith("http://["), out
        assert "(listening on [::]:" in out, out
        table = requests.post(f"{url}api/tables", json={}, timeout=10)
        assert table.status_code == 201 and table.json()["join_url"].startswith(url + "t/"), table.text
    finally:
        proc.kill()
        proc.wait(10)
