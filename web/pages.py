"""Page routes (the web UI replaces this file); a bare index until then."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> str:
    return "<!doctype html><title>mus-scorer</title><h1>mus-scorer</h1><p>API: <a href=/api/openapi.json>/api/openapi.json</a></p>"
