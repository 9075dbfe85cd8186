"""`mus-scorer serve`: the table web app on waitress, with a QR code of its LAN address."""

from __future__ import annotations

import argparse
import errno
import os
import signal
import socket
import sqlite3
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scorer.commands._io import shown


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: the whole LAN)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--db", default=None, help="SQLite file (default $XDG_DATA_HOME/mus-scorer/mus.db)")
    parser.add_argument("--model", default=None, help="card model folder (default the shipped models, or $MUS_MODEL_DIR)")
    parser.add_argument("--threads", type=int, default=1024,
                        help=f"worker threads (each open live view holds one; default 1024, enough for 200 tables of "
                             f"4 phones; 1 to {MAX_THREADS}, fewer than 4 taken as 4)")
    parser.add_argument("--create-limit", type=int, default=None, metavar="N",
                        help="tables and tournaments one client address may create in 10 minutes "
                             "(default 30; 0: no limit)")
    parser.add_argument("--trusted-proxy", default=None, metavar="ADDR",
                        help="the IP address of a reverse proxy in front (e.g. 127.0.0.1): its X-Forwarded-For, "
                             "-Proto, -Host and -Port are believed, so each phone counts as itself and links "
                             "name the proxy's address; from any other address they are dropped")
    parser.add_argument("--public-url", default=None, metavar="URL",
                        help="the address phones open the server at (e.g. https://mus.example.org), for every "
                             "link and QR code, where it is not the one they reach it by (a proxy, a port "
                             "forwarded); by default the address each request came to, or this machine's LAN "
                             "address where that request came to 127.0.0.1 and the server listens on the LAN")
    parser.add_argument("--no-qr", action="store_true", help="do not print the QR code")


MAX_THREADS = 10_000  # waitress starts them all at once


def check_arguments(args: argparse.Namespace) -> str | None:
    """What is wrong with the options, quoting the value (`mus-scorer serve: WHY`, exit
    status 2), checked before anything is opened; None when nothing is. The trusted proxy
    is put in the form waitress compares the peer's address with ("::1" for
    "0:0:0:0:0:0:0:1")."""
    import ipaddress

    if not 0 <= args.port <= 65535:
        return f"--port {args.port}: not a port (1 to 65535, or 0 for a free one, which is printed)"
    if not 1 <= args.threads <= MAX_THREADS:
        return f"--threads {args.threads}: not a number of threads (1 to {MAX_THREADS})"
    if args.create_limit is not None and args.create_limit < 0:
        return f"--create-limit {args.create_limit}: not a number of tables (0: no limit)"
    if args.trusted_proxy is not None:
        given = args.trusted_proxy
        try:
            args.trusted_proxy = str(ipaddress.ip_address(given.strip()))
        except ValueError:
            try:
                net = ipaddress.ip_network(given.strip(), strict=False)
            except ValueError:
                return f"--trusted-proxy {given!r}: not an IP address (the proxy's, as in 127.0.0.1 or ::1)"
            if net.num_addresses != 1:
                return (f"--trusted-proxy {given!r}: a network, not one address (the proxy's, as in 127.0.0.1: "
                        "forwarded headers are believed from that address only)")
            args.trusted_proxy = str(net.network_address)
    if args.public_url is not None:
        if why := url_problem(args.public_url):
            return f"--public-url {args.public_url!r}: {why}"
        args.public_url = args.public_url.strip().rstrip("/")
    if args.db:  # the folders a new database would be made in: the first there must be a folder
        there = Path(os.path.abspath(args.db)).parent
        while not there.exists() and there != there.parent:
            there = there.parent
        if not there.is_dir():
            return f"--db {args.db!r}: {str(there)!r} is a file, not a folder to put the database in"
    if args.model is not None and not os.path.isdir(args.model):
        what = "not a folder" if os.path.exists(args.model) else "no such folder"
        return f"--model {args.model!r}: {what} (the card model's folder, with cards-det.onnx in it)"
    if not args.host.strip():
        return f"--host {args.host!r}: no address (0.0.0.0 listens on the whole LAN, 127.0.0.1 on this machine only)"
    try:  # as waitress resolves it
        socket.getaddrinfo(args.host, args.port, socket.AF_UNSPEC, socket.SOCK_STREAM, socket.IPPROTO_TCP,
                           socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"--host {args.host!r}: not an address of this machine nor a name it resolves ({why})"
    return None


def url_problem(url: str) -> str | None:
    """What keeps `url` from being the address phones open the server at, else None: an
    http or https address with a host, maybe a port and a path, nothing after them."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - a port out of range or not a number raises here
    except ValueError as exc:
        return f"not an address ({exc})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "not an http:// or https:// address with a host, as in https://mus.example.org"
    if parts.query or parts.fragment or "?" in url or "#" in url:
        return "an address ends at its path (no ?query nor #fragment): the links add their own"
    return None


def listen_problem(exc: OSError, args: argparse.Namespace) -> str:
    """Why the server could not listen on `--host` and `--port` (`exc` from binding)."""
    why = exc.strerror or str(exc)
    if exc.errno == errno.EADDRINUSE:
        return f"--port {args.port}: already in use on {args.host!r} (another server listens there; pick another port)"
    if exc.errno == errno.EACCES:
        return f"--port {args.port}: {why} (ports below 1024 need more rights; pick a port from 1024)"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"--host {args.host!r}: not an address of this machine ({why})"
    return f"cannot listen on {args.host!r} port {args.port}: {why}"


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent), or 127.0.0.1."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.254.254.254", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def lan_address6() -> str:
    """This machine's IPv6 address on the network (no packet is sent), one a phone can open
    (not link-local, which a browser cannot take without its interface), or ::1."""
    import ipaddress

    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    try:
        s.connect(("2001:db8::1", 1))  # (documentation prefix: routed as any global address)
        address = ipaddress.ip_address(s.getsockname()[0].split("%")[0])
    except (OSError, ValueError):
        return "::1"
    finally:
        s.close()
    return "::1" if address.is_link_local or address.is_loopback or address.is_unspecified else str(address)


def printed_url(host: str, port: int, public_url: str | None = None) -> str:
    """The address `serve` prints and shows as a QR code: `--public-url` where given; else
    one a phone can open: for 0.0.0.0 (every IPv4 address) this machine's LAN address, for
    :: (every IPv6 address) its IPv6 address on the network, each else the loopback one;
    else the host given. An IPv6 address in brackets."""
    import ipaddress

    if public_url:
        return public_url.rstrip("/") + "/"
    try:
        given = ipaddress.ip_address(host)
    except ValueError:
        given = None
    if given is not None and given.is_unspecified:
        host = lan_address() if given.version == 4 else lan_address6()
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def _raise_file_limit(need: int) -> None:
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < need:
            resource.setrlimit(resource.RLIMIT_NOFILE, (need if hard == resource.RLIM_INFINITY else min(need, hard), hard))
    except (ImportError, ValueError, OSError):  # not on this platform: keep the limit
        pass


def _warm_up(app: Any) -> tuple[str, threading.Thread | None]:
    """Check that the card model is there; load it in the background so the first photo is quick.

    Returns what to print and the loading thread, which the caller joins before exiting
    (onnxruntime aborts the process if it exits while a session is being created)."""
    from pathlib import Path

    from scorer import vision

    folder = Path(app.config["MODEL_DIR"]) if app.config.get("MODEL_DIR") else vision.default_model_dir()
    if not (folder / "cards-det.onnx").exists():
        return f"none in {folder} (photos cannot be read; cards can be typed)", None

    def load() -> None:
        with app.app_context():
            try:
                from web.api import _recognizer

                _recognizer()
            except Exception as exc:  # noqa: BLE001 - reported, and each scan reports it again
                print(f"card model: cannot load ({exc})", flush=True)

    thread = threading.Thread(target=load, name="model-warm-up", daemon=True)
    thread.start()
    return str(folder) + adapted_note(folder), thread


def adapted_note(folder: Any) -> str:
    """What `ADAPTED.json` (written by `python -m datasets.adapt`) says of a model folder:
    how many of a club's photos adapted it and whether held-out photos read better."""
    import json

    path = folder / "ADAPTED.json"
    if not path.is_file():
        return ""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        n, held_n, verdict = int(info["photos"]["adapt"]), int(info["photos"]["check"]), info.get("verdict")
        deck = (info.get("deck") or {}).get("folder")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return f" (its {path.name} cannot be read)"
    on = [f"{n} photos"] if n else []
    on += [f"the faces of its cards ({Path(deck).name})"] if deck else []
    measured = "synthetic showdowns of the deck" if deck and not held_n else "held-out photos"
    held = f"{measured} read {verdict}" if verdict else f"not measured on {measured}"
    return f" (adapted to a club's deck on {' and '.join(on) or 'nothing'}; {held})"


def proxy_settings(address: str | None) -> dict[str, Any]:
    """waitress's settings for a reverse proxy at `address` (none: no forwarded header is
    believed): one hop; the client's address, scheme, host and port as the proxy says, and
    those headers dropped from any other sender."""
    if not address:
        return {}
    return {"trusted_proxy": address, "trusted_proxy_count": 1,
            "trusted_proxy_headers": {"x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port"},
            "clear_untrusted_proxy_headers": True}


def chunked_limits(app: Any) -> Callable[[str], int | None]:
    """The most bytes a request's body sent chunked (no Content-Length) may carry, by its
    path: the largest upload the app takes there. A photo with its form at the photo
    uploads (`POST /api/tables/{id}/photos`, `/api/scan`: `MAX_CONTENT_LENGTH` and
    `web.api.FORM_HEADROOM`; None, no photo limit: waitress's own); a match file at the
    imports (`/api/tables/import`, `/api/tables/{id}/import`: `IMPORT_MAX_BYTES`); a deck's
    four photos at `/api/decks` (`web.decks.UPLOAD_LIMIT`); anywhere else a JSON write
    (`JSON_MAX_BYTES`), the most any other route reads. The import's and JSON's are within
    `MAX_CONTENT_LENGTH`, as the app takes them (`web.api._limit`)."""
    import re

    from web.api import FORM_HEADROOM
    from web.decks import UPLOAD_LIMIT

    photo = app.config.get("MAX_CONTENT_LENGTH")

    def within(key: str) -> int:
        return min(int(app.config[key]), int(photo)) if photo else int(app.config[key])

    limits: list[tuple[re.Pattern[str], int | None]] = [
        (re.compile(r"/api/(tables/[^/]+/photos|scan)"), int(photo) + FORM_HEADROOM if photo else None),
        (re.compile(r"/api/tables/([^/]+/)?import"), within("IMPORT_MAX_BYTES")),
        (re.compile(r"/api/decks"), UPLOAD_LIMIT),
    ]
    json_limit = within("JSON_MAX_BYTES")

    def limit(path: str) -> int | None:
        path = path.rstrip("/")
        return next((most for pattern, most in limits if pattern.fullmatch(path)), json_limit)

    return limit


def api_error_channel(chunked_limit: Callable[[str], int | None] | None = None) -> type:
    """waitress's connection class, its own refusals of a request under /api/ answered in
    the app's one JSON error shape (`web.errors`) rather than in waitress's plain text;
    a page's stay as waitress writes them.

    waitress reads a request's whole body before the app is called, so no app nor WSGI
    middleware sees a body over `max_request_body_size`: waitress refuses it itself (413),
    from its Content-Length as soon as the headers are in, never reading the body, and
    this answers that refusal. A body sent chunked has no length to refuse it by: it is
    read until it passes `chunked_limit(path)` (its bytes unchunked; None: until it passes
    `max_request_body_size`), then refused so, the rest unread."""
    import json

    from waitress.channel import HTTPChannel
    from waitress.parser import HTTPRequestParser
    from waitress.task import ErrorTask
    from waitress.utilities import RequestEntityTooLarge

    from web.errors import HTTP_CODES, error_body

    class LimitedParser(HTTPRequestParser):
        body_limit: int | None = None  # a chunked body's, by its path

        def parse_header(self, header_plus: bytes) -> None:
            super().parse_header(header_plus)
            if self.chunked and chunked_limit is not None:
                self.body_limit = chunked_limit(self.path or "")

        def received(self, data: bytes) -> int:
            consumed = super().received(data)
            body = self.body_rcv
            if (self.body_limit is not None and self.chunked and body is not None and self.error is None
                    and len(body) > self.body_limit):
                self.error = RequestEntityTooLarge(f"exceeds max_body of {self.body_limit}")
                self.completed = True
            return consumed

    class ApiErrorTask(ErrorTask):
        def execute(self) -> None:
            error, path = self.request.error, getattr(self.request, "path", "") or ""
            if path != "/api" and not path.startswith("/api/"):
                return super().execute()
            status = error.code
            code = HTTP_CODES.get(status, error.reason.lower().replace(" ", "_"))
            if status == 413 and getattr(self.request, "body_limit", None) is not None:
                message = (f"the request body, sent chunked, is larger than the server's limit of "
                           f"{self.request.body_limit} bytes for {path}")
            elif status == 413:
                limit = self.channel.server.adj.max_request_body_size - 1  # waitress refuses from the limit on
                length = self.request.content_length  # 0 where it was sent chunked
                message = (f"the request body{f' ({length} bytes)' if length else ''} is larger than the "
                           f"server's limit of {limit} bytes for any request")
            else:
                message = f"{error.reason}: {error.body}"
            body = json.dumps(error_body(status, code, message)).encode("utf-8")
            self.status = f"{status} {error.reason}"
            self.response_headers.extend([("Content-Type", "application/json"), ("Cache-Control", "no-store")])
            self.set_close_on_finish()  # the body, unread, is not taken for the next request
            self.content_length = len(body)
            self.write(body)
            return None

    class ApiErrorChannel(HTTPChannel):
        error_task_class = ApiErrorTask
        parser_class = LimitedParser

    return ApiErrorChannel


def print_qr(url: str) -> None:
    import qrcode

    qr = qrcode.QRCode(border=1)
    qr.add_data(url)
    qr.make(fit=True)
    qr.print_ascii(out=sys.stdout, invert=True)


def bind(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to `host` and `port` as waitress would bind them (one for each address
    the host resolves to, an IPv6 one for IPv6 only), not yet listening: waitress listens
    on them once the app is made. OSError where one cannot be bound (the port taken, the
    host not this machine's), ValueError where the host does not resolve."""
    from waitress.adjustments import Adjustments

    bound: list[socket.socket] = []
    try:
        for family, kind, proto, address in Adjustments(host=host, port=port).listen:
            sock = socket.socket(family, kind, proto)
            bound.append(sock)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            if os.name == "posix":  # the port of a server stopped just before (elsewhere it would share a port)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
    except BaseException:
        for sock in bound:
            sock.close()
        raise
    return bound


def run(args: argparse.Namespace) -> int:
    if why := check_arguments(args):
        print(shown(f"mus-scorer serve: {why}"), file=sys.stderr)
        return 2
    try:  # first: a port in use is said at once, not after the database and the app are set up
        sockets = bind(args.host, args.port)
    except (OSError, ValueError) as exc:
        why = (listen_problem(exc, args) if isinstance(exc, OSError)
               else f"cannot listen on {args.host!r} port {args.port}: {exc}")
        print(shown(f"mus-scorer serve: {why}"), file=sys.stderr)
        return 2
    try:
        return _serve(args, sockets)
    finally:
        for sock in sockets:  # (closed with the server already, unless refused before it)
            sock.close()


def _serve(args: argparse.Namespace, sockets: list[socket.socket]) -> int:
    """`run` once the options are checked and `sockets` bound to `--host` and `--port`."""
    from waitress.server import BaseWSGIServer, create_server

    from scorer.storage import SchemaError, default_db_path
    from scorer.storage.db import damaged, not_a_database
    from web import create_app
    from web.decks import UPLOAD_LIMIT

    db = os.path.abspath(args.db) if args.db else str(default_db_path())
    if why := not_a_database(db, new_ok=True):
        print(shown(f"mus-scorer serve: {why}"), file=sys.stderr)
        return 2
    if os.path.isfile(db) and os.path.getsize(db) and (why := damaged(db)):
        print(shown(f"mus-scorer serve: {db}: the database is damaged ({why}): stop, and restore it from a backup"),
              file=sys.stderr)
        return 2
    # where the server listens (the links name the LAN address only where it does) and,
    # where given, the address phones open it at
    config: dict[str, Any] = {"DATABASE": db, "LISTEN_ADDRESSES": [sock.getsockname()[0] for sock in sockets]}
    if args.public_url:
        config["PUBLIC_URL"] = args.public_url
    if args.model:
        config["MODEL_DIR"] = os.path.abspath(args.model)
    threads = max(4, args.threads)  # a few for the writes, whatever was asked
    _raise_file_limit(4 * threads + 256)  # a socket per phone and live view, SQLite files
    # keep a few threads for writes whatever the number of live views
    config["SSE_MAX_STREAMS"] = max(1, threads - 8)
    if args.create_limit is not None:
        config["CREATE_MAX_PER_ADDRESS"] = args.create_limit
    try:
        app = create_app(config)
    except SchemaError as exc:
        print(shown(f"mus-scorer serve: {exc}"), file=sys.stderr)
        return 2
    except (OSError, sqlite3.Error) as exc:  # its folder cannot be made, the file cannot be opened or written
        why = (f"{exc.strerror} ({exc.filename})" if isinstance(exc, OSError) and exc.strerror and exc.filename
               else getattr(exc, "strerror", None) or str(exc))
        given = f"--db {db!r}" if args.db else repr(db)
        print(shown(f"mus-scorer serve: {given}: cannot open the database there: {why}"), file=sys.stderr)
        return 2
    listeners: dict[int, Any] = {}  # waitress's socket map: its servers, one a listening address
    try:
        server = create_server(
            app, map=listeners, sockets=sockets, threads=threads, channel_timeout=60,
            connection_limit=max(100, threads * 2), ident="mus-scorer",
            asyncore_use_poll=True,  # select() stops at 1024 sockets
            # waitress reads a whole body before the app sees it: bound that, leaving the app's
            # own 413 for bodies up to twice its limit (and for the four photos of a deck being
            # taught, up to 25 MB each); past it waitress refuses from the headers, in the
            # same JSON shape under /api/ (api_error_channel; a chunked body, with no length
            # to refuse it by, once past the largest upload its path takes: chunked_limits)
            max_request_body_size=max(2 * int(app.config["MAX_CONTENT_LENGTH"] or 25 * 1024 * 1024),
                                      UPLOAD_LIMIT + 1024 * 1024),
            **proxy_settings(args.trusted_proxy),
        )
    except (OSError, ValueError) as exc:  # the sockets cannot listen
        why = (listen_problem(exc, args) if isinstance(exc, OSError)
               else f"cannot listen on {args.host!r} port {args.port}: {exc}")
        print(shown(f"mus-scorer serve: {why}"), file=sys.stderr)
        app.extensions["mus_teacher"].stop()
        app.extensions["mus_store"].db.close()
        return 2
    channel = api_error_channel(chunked_limits(app))
    for listener in list(listeners.values()):
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = channel

    def stop(signum: int, _frame: Any) -> None:
        print(f"\nstopping ({signal.Signals(signum).name})", flush=True)
        app.extensions["mus_hub"].close()  # live views end now
        raise SystemExit(0)  # waitress's loop catches it and shuts its threads down

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    warm_up: threading.Thread | None = None
    try:
        port = sockets[0].getsockname()[1]  # the first address's (waitress's server of several has no port)
        url = printed_url(args.host, port, args.public_url)  # where the phones open it
        listening = f"[{args.host}]" if ":" in args.host else args.host
        print(f"mus-scorer serving on {url}  (listening on {listening}:{port})", flush=True)
        print(f"database: {db}", flush=True)
        if not args.no_qr:
            print_qr(url)
        model_note, warm_up = _warm_up(app)
        print(f"card model: {model_note}", flush=True)
        print(f"teach the reader your own deck: {url}decks#key={app.config['ADMIN_KEY']}", flush=True)
        print("Ctrl-C to stop.", flush=True)
        server.run()
    except SystemExit:  # a signal before the loop started
        server.task_dispatcher.shutdown()  # type: ignore[union-attr]
    finally:
        app.extensions["mus_hub"].close()
        app.extensions["mus_teacher"].stop()  # a deck being taught is not left running alone
        server.close()
        if warm_up is not None:
            warm_up.join(timeout=30)
        app.extensions["mus_store"].db.close()
    print("stopped", flush=True)
    return 0
