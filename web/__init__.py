"""The table web app: `create_app(config)` (Flask app factory).

Config keys: `DATABASE` (SQLite file; default `$XDG_DATA_HOME/mus-scorer/mus.db`),
`MODEL_DIR` (card models; default the shipped ones), `TESTING`, `MAX_CONTENT_LENGTH`
(request body limit, default 25 MB), `RECOGNIZER` (an object with `.scan`, for tests),
`DECKS_DIR` (decks taught from photos; default
`decks/` beside the database), `ADMIN_KEY` (for teaching a deck; default kept in
`admin.key` beside the database), `TEACH_ARGS` (extra `datasets.heads` arguments),
`TEACH_REFINE_HOURS` (hours per reader when a deck is refined; default 0.4),
`TEACH_REFINE_ARGS` (extra `datasets.adapt` arguments),
`SSE_HEARTBEAT` (seconds), `SSE_MAX_SECONDS` (a stream's life before the browser
reconnects), `SSE_MAX_STREAMS` (open streams at most), `SCAN_CONCURRENCY`.
"""

from __future__ import annotations

from typing import Any

from flask import Flask

DEFAULTS: dict[str, Any] = {
    "DATABASE": None,
    "MODEL_DIR": None,
    "RECOGNIZER": None,
    "MAX_CONTENT_LENGTH": 25 * 1024 * 1024,
    "SSE_HEARTBEAT": 15.0,
    "SSE_MAX_SECONDS": 300.0,
    "SSE_MAX_STREAMS": 1000,
    "SCAN_CONCURRENCY": 2,
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
    return app
