"""The table web app: `create_app(config)` (Flask app factory).

Config keys: `DATABASE` (SQLite file; default `$XDG_DATA_HOME/mus-scorer/mus.db`;
`:memory:` keeps nothing: a throwaway file, deleted when the database is closed),
`MODEL_DIR` (card models; default the shipped ones), `TESTING`, `MAX_CONTENT_LENGTH` (a
photo, default 25 MB; a multipart upload's body may be 64 KB more, for its envelope and
form fields: `web.api.FORM_HEADROOM`), `JSON_MAX_BYTES` and `IMPORT_MAX_BYTES` (a JSON write's body,
256 KB, and an imported match file's, 4 MB), `PHOTO_MIN_FREE_BYTES` (free disk below which
a photo is refused, 1 GB), `RECOGNIZER` (an object with `.scan`, for tests),
`DECKS_DIR` (decks taught from photos; default
`decks/` beside the database), `ADMIN_KEY` (for teaching a deck; default kept in
`admin.key` beside the database), `TEACH_ARGS` (extra `datasets.heads` arguments),
`TEACH_REFINE_HOURS` (hours per reader when a deck is refined; default 0.4),
`TEACH_REFINE_ARGS` (extra `datasets.adapt` arguments),
`SSE_HEARTBEAT` (seconds), `SSE_MAX_SECONDS` (a stream's life before the browser
reconnects), `SSE_MAX_STREAMS` (open streams at most), `SSE_MAX_PER_TABLE` (open streams of one
table at most), `SSE_PLAYER_RESERVE` (of those, the places watchers leave to the players'
phones, 8), `CLIENT_TIMEOUT` (seconds the table page waits for an answer to a write or a
read before it takes the connection for stalled and sends it again, 8; a photo gets
several times as long), `SCAN_CONCURRENCY`, `CREATE_MAX_PER_ADDRESS` and `CREATE_WINDOW_SECONDS` (tables
and tournaments one client address may create in that many seconds, 30 in 600, then 429
`too_many_creations`; 0 or None: no limit), `PUBLIC_URL` (the address every link and QR
code of the pages and the API names, `serve --public-url`; unset: the request's own, see
`web.pages.public_base`) and `LISTEN_ADDRESSES` (the addresses the server's sockets listen
on, set by `serve`: a page opened at a loopback address links to the LAN address only
where these hold 0.0.0.0 or that address; unset: never).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, request

DEFAULTS: dict[str, Any] = {
    "DATABASE": None,
    "MODEL_DIR": None,
    "RECOGNIZER": None,
    "MAX_CONTENT_LENGTH": 25 * 1024 * 1024,  # a photo (a multipart upload's body: 64 KB more)
    "JSON_MAX_BYTES": 256 * 1024,  # a JSON write (a table, a word, a showdown, a tournament's teams)
    "IMPORT_MAX_BYTES": 4 * 1024 * 1024,  # a mus-match/1 file imported (a long match is about 100 KB)
    "PHOTO_MIN_FREE_BYTES": 1024 * 1024 * 1024,  # photos are refused (507) below this much free disk
    "SSE_HEARTBEAT": 15.0,
    "SSE_MAX_SECONDS": 300.0,
    "SSE_MAX_STREAMS": 1000,
    "SSE_MAX_PER_TABLE": 32,  # a table's four players and its watchers, with room to spare
    "SSE_PLAYER_RESERVE": 8,  # of those, kept for the players' phones: watchers get 24 at most
    "CLIENT_TIMEOUT": 8.0,  # the table page: no answer in this many seconds is a stalled connection
    "SCAN_CONCURRENCY": 2,
    # tables (new or imported) and tournaments one address may create in the window: far more
    # than a club's evening needs (an internet IPv6 client by its /64; 0 or None: no limit)
    "CREATE_MAX_PER_ADDRESS": 30,
    "CREATE_WINDOW_SECONDS": 600.0,
    "JSON_SORT_KEYS": False,
}


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the app: the API and page blueprints on one SQLite store."""
    from scorer.storage import Database, default_db_path
    from scorer.storage.tables import TableStore
    from web import api, decks, errors, live, pages

    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    if not app.config["DATABASE"]:
        app.config["DATABASE"] = str(default_db_path())
    app.json.sort_keys = False  # type: ignore[attr-defined]

    store = TableStore(Database(app.config["DATABASE"]))
    hub = live.Hub()
    api.init_app_state(app, store, hub)
    decks.init_app(app)
    errors.register(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(decks.bp)
    app.register_blueprint(pages.bp)
    app.after_request(_security_headers)
    return app


# Pages load their scripts, styles and images from this server only (photos shown before
# upload are blob: URLs; the icon is a data: URL); no page may be framed by another site,
# and no address (a table's token may be in it) goes out in a Referer.
CSP = ("default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; "
       "frame-ancestors 'none'; form-action 'self'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}


def _security_headers(response: Any) -> Any:
    """The security headers of every response; exports (a match, a tournament's zip) are
    not kept in caches; a 204 or 304, which has no content, says no content type."""
    for key, value in HEADERS.items():
        response.headers.setdefault(key, value)
    if response.status_code in (204, 304):  # no content: no type (Flask's default says text/html)
        response.headers.pop("Content-Type", None)
    if request.path.endswith("/export"):
        response.headers["Cache-Control"] = "no-store"
    return response
