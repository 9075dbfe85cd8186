"""One JSON error shape for every API error.

`{"error": {"status": 409, "code": "stale_version", "message": "...", "field": "version"}}`
(a refusal of several inputs at once, a deck's photos, adds `problems`: one
`{status, code, message, field}` each) for refusals raised by the API and the store, and for Werkzeug's own errors (404, 405,
413, ...), the database's failures (507 `storage_full`, 503 `database_busy`, 500
`database_corrupt`) and unexpected exceptions (500) under `/api/`. Pages keep HTML errors.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from flask import Flask, Response, json, request
from werkzeug.exceptions import HTTPException, InternalServerError

from scorer.storage.db import BUSY_SECONDS, error_code
from scorer.storage.tables import StoreError

# Werkzeug's errors by status, as codes
HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    411: "length_required",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid",
    429: "too_many_requests",
    500: "internal_error",
    503: "unavailable",
}


class ApiError(StoreError):
    """An API refusal: HTTP status, a stable code, a message for people, the field at fault
    (the store's refusals have the same shape, and one handler answers both); `problems`,
    where several inputs are refused at once, each of them as an `ApiError`; `reason` and
    `params` as a `StoreError`'s (a key of `REASONS`, for a page to say in its language)."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None,
                 problems: list[ApiError] | None = None, reason: str | None = None,
                 params: dict[str, Any] | None = None) -> None:
        super().__init__(status, code, message, field, reason, params)
        self.problems = problems


MAX_MESSAGE = 400  # characters of an error message; a long input it quotes is cut in its middle
MAX_FIELD = 100


def _short(text: str, limit: int) -> str:
    """`text`, or its start and its end, `limit` characters together, and how long it was:
    cut in the middle, so that what is wrong still shows where it follows the long input
    it quotes (`"xxx…" is not a key of an action`, `seat: ["xxx…"] is not a seat`)."""
    if len(text) <= limit:
        return text
    tail = limit * 3 // 8
    return f"{text[:limit - tail]}… ({len(text)} characters in all) …{text[-tail:]}"


def _short_param(text: str, limit: int) -> str:
    """A reason's param (a name someone typed), cut as `_short` cuts, its start and its end
    `limit` characters together, but joined by an ellipsis alone: the page puts it in a
    sentence of its own language (`why.<reason>`), where English words would stand out
    ("« ÊÊÊ…ÊÊÊ » dépasse 40 caractères")."""
    if len(text) <= limit:
        return text
    tail = limit * 3 // 8
    return f"{text[:limit - tail - 1]}…{text[-tail:]}"


def error_body(status: int, code: str, message: str, field: str | None = None,
               problems: list[StoreError] | None = None, reason: str | None = None,
               params: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one JSON error shape; a message (or field) that quotes a huge input is cut in its
    middle (`_short`); `problems` (several inputs refused at once) each in the same shape;
    `reason` and `params` where the refusal has them (a page says it in its language; a
    long param is cut with an ellipsis alone, no English words: `_short_param`)."""
    body = {"status": status, "code": code, "message": _short(message, MAX_MESSAGE),
            "field": None if field is None else _short(field, MAX_FIELD)}
    if reason:
        body["reason"] = reason
        body["params"] = {k: _short_param(v, MAX_FIELD) if isinstance(v, str) else v for k, v in (params or {}).items()}
    if problems:
        body["problems"] = [error_body(p.status, p.code, p.message, p.field)["error"] for p in problems]
    return {"error": body}


def error_response(status: int, code: str, message: str, field: str | None = None,
                   problems: list[StoreError] | None = None, reason: str | None = None,
                   params: dict[str, Any] | None = None) -> Response:
    body = error_body(status, code, message, field, problems, reason, params)
    resp = Response(json.dumps(body), status=status, mimetype="application/json")
    resp.headers["Cache-Control"] = "no-store"
    return resp


RETRY_BUSY = 5  # seconds: Retry-After of a 503 database_busy


def storage_refusal(exc: sqlite3.Error) -> tuple[int, str, str] | None:
    """The answer to a failure of the database that is no bug of the app's: (status, code,
    message), or None. The disk full (507 `storage_full`), the file held by another process
    past the busy timeout (503 `database_busy`), the file damaged (500 `database_corrupt`).
    A write that fails so was rolled back: nothing of it is kept."""
    code = error_code(exc)
    write = request.method not in ("GET", "HEAD", "OPTIONS")
    if code == sqlite3.SQLITE_FULL:
        return 507, "storage_full", "the server's disk is full: nothing was recorded; free space and send again"
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return 503, "database_busy", (f"the database is held by another program (a prune, a backup) and did not come "
                                      f"free in {BUSY_SECONDS:g} seconds: {'nothing was recorded; ' if write else ''}"
                                      "send again in a moment")
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return 500, "database_corrupt", (f"the server's database file is damaged ({exc}): "
                                         f"{'nothing was recorded; ' if write else ''}whoever runs the server must "
                                         "stop it and restore the file from a backup")
    return None


def _form_too_big() -> str | None:
    """What a multipart form within the body's limit passed (Werkzeug says only "The data
    value transmitted exceeds the capacity limit."): its parts, or a field's size."""
    parts, size = request.max_form_parts, request.max_form_memory_size
    limits = [f"more than {parts} parts"] if parts else []
    limits += [f"a field that is not a file larger than {size} bytes"] if size else []
    return f"the form is too big to read: {' or '.join(limits)}" if limits else None


def _is_api() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def register(app: Flask) -> None:
    """Install the error handlers on the app."""

    @app.errorhandler(StoreError)
    def _refusal(exc: StoreError) -> Response:
        return error_response(exc.status, exc.code, exc.message, exc.field, getattr(exc, "problems", None),
                              getattr(exc, "reason", None), getattr(exc, "params", None))

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Any:
        if not _is_api():
            return _page(exc.code or 500, exc)
        status = exc.code or 500
        code = HTTP_CODES.get(status, (exc.name or "error").lower().replace(" ", "_"))
        message = exc.description or exc.name
        if status == 413:
            limit = request.max_content_length  # this route's, else MAX_CONTENT_LENGTH
            length = request.content_length
            if request.mimetype.startswith("multipart/") and length is not None and (not limit or length <= limit):
                message = _form_too_big() or message  # the body is within its limit: a limit of the form's was passed
            elif limit:
                message = f"the request body is larger than the limit of {limit} bytes"
        if status == 405:
            message = f"{request.method} is not allowed on {request.path}"
        resp = error_response(status, code, message, None)
        if status == 405 and getattr(exc, "valid_methods", None):
            resp.headers["Allow"] = ", ".join(exc.valid_methods)
        return resp

    @app.errorhandler(sqlite3.Error)
    def _storage(exc: sqlite3.Error) -> Any:
        refusal = storage_refusal(exc)
        if refusal is None:
            return _unexpected(exc)
        status, code, message = refusal
        app.logger.error("%s on %s %s: %s", code, request.method, request.path, exc,
                         exc_info=code == "database_corrupt")
        if not _is_api():
            return _page(status, InternalServerError())
        resp = error_response(status, code, message, None)
        if code == "database_busy":
            resp.headers["Retry-After"] = str(RETRY_BUSY)
        return resp

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Any:
        app.logger.exception("unexpected error on %s %s", request.method, request.path)
        if not _is_api():
            return _page(500, InternalServerError())
        return error_response(500, "internal_error", "internal server error", None)

    def _page(status: int, exc: HTTPException) -> Any:
        """The app's own error page, in the reader's language (Werkzeug's plain one if
        even that cannot be drawn)."""
        from web.pages import _error_page

        code = {404: "page_not_found", 500: "internal"}.get(status, "generic")
        try:
            resp = _error_page(status, code)
        except Exception:  # the page itself failed: say it plainly
            app.logger.exception("the error page could not be drawn")
            return exc
        resp.status_code = status
        if status == 405 and getattr(exc, "valid_methods", None):
            resp.headers["Allow"] = ", ".join(exc.valid_methods)
        return resp
