"""The JSON API under `/api/` (CONTRACTS.md, Web).

Tokens: the players' token reads and writes a table, the watch token only reads;
either comes as `Authorization: Bearer <token>` or `?token=`, and is compared in
constant time. Writes carry `client_id` (a retry answers without applying twice)
and `version` (the table's version the phone saw; another one is 409
`stale_version`). A tournament's settings (name, rules, teams, withdrawals, final stage,
results entered without hands) may name the
`revision` they follow likewise (another one is 409 `stale_revision`). Every refusal
is one JSON shape (`web.errors`).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from flask import Blueprint, Response, current_app, request, url_for
from werkzeug.exceptions import RequestEntityTooLarge

from scorer.engine.errors import JSON, TOO_LONG, DuplicateKey, json_problem, json_type, said
from scorer.engine.jsonl import NotText, decode, lines_of
from scorer.storage.tables import (
    Runtime,
    StoreError,
    TableStore,
    check_client_id,
    check_header,
    check_known,
    engine_why,
    photo_digest,
    same,
)
from scorer.storage.tournaments import TournamentStore, role_of
from web import photo_labels
from web.errors import ApiError, error_response
from web.limits import SlidingWindow, client_key, retry_after
from web.live import Hub, stream
from web.pages import public_base

bp = Blueprint("api", __name__, url_prefix="/api")
T = TypeVar("T")

ANNOTATED_SIDE = 2048  # the stored annotated copy of a photo, longer side at most (px)

MIME = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}
"""The formats the reader takes (`scorer.vision.image.SUPPORTED`), as stored."""


def _store() -> TableStore:
    return current_app.extensions["mus_store"]


def _hub() -> Hub:
    return current_app.extensions["mus_hub"]


def _json_answer(text: str, status: int = 200, replayed: bool = False) -> Response:
    resp = Response(text, status=status, mimetype="application/json")
    resp.headers["Cache-Control"] = "no-store"
    if replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp


def _dump(obj: Any, status: int = 200) -> Response:
    return _json_answer(json.dumps(obj, ensure_ascii=False, separators=(",", ":")), status)


def _body() -> dict[str, Any]:
    """The request's JSON object, or a 400 that says where it broke (a 413 past
    `JSON_MAX_BYTES`: no write of this API needs more)."""
    request.max_content_length = _limit("JSON_MAX_BYTES")
    raw = request.get_data(cache=True)
    if not raw.strip():
        raise ApiError(400, "bad_json", "the body is empty; expected a JSON object")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "bad_json", "the body is not UTF-8 text") from None
    try:
        obj = parse_json(text)
    except ValueError as exc:
        raise ApiError(400, "bad_json", f"the body is not JSON that can be read: {exc}") from None
    if not isinstance(obj, dict):
        raise ApiError(400, "bad_json", f"expected a JSON object, got {json_type(obj)}")
    return obj


def _limit(key: str) -> int:
    """A route's body limit: config `key`, within the app's `MAX_CONTENT_LENGTH`."""
    cap = current_app.config.get("MAX_CONTENT_LENGTH")
    return min(int(current_app.config[key]), int(cap)) if cap else int(current_app.config[key])


MAX_DEPTH = 64  # arrays and objects inside one another in a request


def parse_json(text: str) -> Any:
    """`text` as JSON, or a ValueError that says what is wrong with it: where it breaks, a
    number too long to read (`TOO_LONG`), nesting deeper than `MAX_DEPTH`, or a lone
    surrogate escape (`"\\ud800"`), which no UTF-8 text can hold."""
    try:
        obj = JSON.decode(text)  # json.loads, but a key given twice in an object is refused
    except (json.JSONDecodeError, DuplicateKey) as exc:
        raise ValueError(json_problem(exc)) from None
    except RecursionError:
        raise ValueError(f"arrays or objects nested more than {MAX_DEPTH} deep") from None
    except ValueError:  # int() refused a number too long to read safely
        raise ValueError(TOO_LONG) from None
    if _sound(obj):
        return obj
    stack: list[tuple[Any, str, int]] = [(obj, "", 0)]  # again, naming the path to the fault
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                raise ValueError(f"{path or 'the body'}: arrays or objects nested more than {MAX_DEPTH} deep")
            if isinstance(value, dict):
                for key, v in value.items():
                    _utf8(key, f"{path}.{said(key)}" if path else said(key))
                    stack.append((v, f"{path}.{key}" if path else key, depth + 1))
            else:
                stack += [(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
        elif isinstance(value, str):
            _utf8(value, path)
    return obj


def _sound(obj: Any) -> bool:
    """Whether `obj` nests at most `MAX_DEPTH` deep and every string in it is text: one
    pass that builds no paths (those are built only to name a fault)."""
    stack: list[tuple[Any, int]] = [(obj, 0)] if isinstance(obj, dict | list | str) else []
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            if depth >= MAX_DEPTH or not all(map(str.isascii, value)) and not _encodes(*value):
                return False
            stack += [(v, depth + 1) for v in value.values() if isinstance(v, dict | list | str)]
        elif isinstance(value, list):
            if depth >= MAX_DEPTH:
                return False
            stack += [(v, depth + 1) for v in value if isinstance(v, dict | list | str)]
        elif not value.isascii() and not _encodes(value):
            return False
    return True


def _encodes(*texts: str) -> bool:
    try:
        for text in texts:
            text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _utf8(text: str, path: str) -> None:
    """A ValueError naming `path` where `text` holds a lone surrogate."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{path or 'the body'}: a lone surrogate \\u{ord(text[exc.start]):04x}, which is not "
                         "text") from None


# -- tokens --------------------------------------------------------------------
def _token(param: str = "token") -> str | None:
    """The Bearer token of the request, else its `?<param>=`; None without either."""
    auth = request.headers.get("Authorization", "")
    if auth:
        scheme, _, value = auth.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            raise ApiError(401, "bad_token", f"Authorization: expected 'Bearer <{param}>'", param)
        return value.strip()
    return request.args.get(param) or None


def _table(table_id: str, write: bool) -> Runtime:
    """The table, if the request's token may read it (`write`: may change it)."""
    return _table_role(table_id, write)[0]


def _table_role(table_id: str, write: bool, stream: bool = False) -> tuple[Runtime, str]:
    """The table and what the request's token opens of it ("play", "watch", or with
    `stream` "stream": the players' live-stream token), if it may read it (`write`: may
    change it)."""
    token = _token()
    if token is None:
        raise ApiError(401, "missing_token", "a token is needed: 'Authorization: Bearer <token>' or ?token=", "token")
    rt = _store().runtime(table_id)
    if stream and same(token, rt.stream_token()):
        return rt, "stream"
    role = rt.role(token)
    if role == "play" or (role == "watch" and not write):
        return rt, role
    if role == "watch":
        raise ApiError(403, "read_only", "the watch token only reads this table", "token")
    raise ApiError(403, "bad_token", "this token does not open this table", "token")


# -- how fast one client creates -----------------------------------------------
def creation_limited(view: Callable[..., Response]) -> Callable[..., Response]:
    """`view` creates a table or a tournament: counted against the client's
    `CREATE_MAX_PER_ADDRESS` creations per `CREATE_WINDOW_SECONDS` (`web.limits`), past
    them a 429 `too_many_creations` with `Retry-After`, before the body is read. A
    creation refused afterwards (a 4xx, an error) does not count. 0 or None: no limit."""

    @functools.wraps(view)
    def limited(*args: Any, **kwargs: Any) -> Response:
        cfg = current_app.config
        limit = int(cfg.get("CREATE_MAX_PER_ADDRESS") or 0)
        window = float(cfg.get("CREATE_WINDOW_SECONDS") or 0)
        if limit <= 0 or window <= 0:
            return view(*args, **kwargs)
        window_log: SlidingWindow = current_app.extensions["mus_creations"]
        key = client_key(request.remote_addr)
        ok, when = window_log.take(key, limit, window)
        if not ok:
            resp = error_response(429, "too_many_creations",
                                  f"this address created {limit} tables or tournaments in the last "
                                  f"{window:g} seconds, the most allowed; try again in {retry_after(when)} s")
            resp.headers["Retry-After"] = retry_after(when)
            return resp
        try:
            resp = view(*args, **kwargs)
        except BaseException:
            window_log.give_back(key, when)
            raise
        if resp.status_code >= 300:  # nothing was created
            window_log.give_back(key, when)
        return resp

    return limited


# -- tables --------------------------------------------------------------------
def _links(rt: Runtime) -> dict[str, Any]:
    base = public_base()  # the same address as the pages' links and QR codes
    return {
        "id": rt.id,
        "token": rt.token,
        "watch_token": rt.watch_token,
        "join_url": f"{base}/t/{rt.id}?token={rt.token}",
        "watch_url": f"{base}/w/{rt.id}?token={rt.watch_token}",
        "version": rt.version,
    }


@bp.post("/tables")
@creation_limited
def create_table() -> Response:
    """A new table: `{teams, players, rules, esku}` -> 201 with its tokens and links."""
    rt = _store().create(_body(), strict=True)
    resp = _dump(_links(rt), 201)
    resp.headers["Location"] = url_for("api.get_table", table_id=rt.id)
    return resp


@bp.get("/tables/<table_id>")
def get_table(table_id: str) -> Response:
    rt = _table(table_id, write=False)
    etag = f'"v{rt.version}"'
    if etag in request.headers.get("If-None-Match", ""):
        resp = Response(status=304)
    else:
        resp = _json_answer(rt.state_json())
    resp.headers["ETag"] = etag
    resp.headers["Cache-Control"] = "no-cache"
    return resp


@bp.patch("/tables/<table_id>")
def rename_table(table_id: str) -> Response:
    """Rename the teams and/or players `{client_id, version, teams?, players?}` (checked as at creation)."""
    _table(table_id, write=True)
    body, client_id, version = _write_args()
    check_known(body, ("client_id", "version", "teams", "players"))
    return _answer(_store().rename(table_id, client_id, version, body.get("teams"), body.get("players")))


def _write_args() -> tuple[dict[str, Any], Any, Any]:
    body = _body()
    if "client_id" not in body:
        raise ApiError(400, "invalid", "client_id: missing (a fresh id per write, the same on a retry)", "client_id")
    if "version" not in body:
        raise ApiError(400, "invalid", "version: missing (the table version this write follows)", "version")
    return body, body["client_id"], body["version"]


def _answer(result: tuple[Runtime, bool]) -> Response:
    rt, replayed = result
    return _json_answer(rt.state_json(), replayed=replayed)


@bp.post("/tables/<table_id>/actions")
def post_action(table_id: str) -> Response:
    """Apply one action `{client_id, version, action}`; the engine checks it."""
    _table(table_id, write=True)
    body, client_id, version = _write_args()
    if "action" not in body:
        raise ApiError(400, "invalid", "action: missing", "action")
    return _answer(_store().act(table_id, client_id, version, body["action"]))


@bp.post("/tables/<table_id>/undo")
def post_undo(table_id: str) -> Response:
    _table(table_id, write=True)
    _, client_id, version = _write_args()
    return _answer(_store().undo(table_id, client_id, version))


@bp.post("/tables/<table_id>/mus")
def post_mus(table_id: str) -> Response:
    _table(table_id, write=True)
    _, client_id, version = _write_args()
    return _answer(_store().mus(table_id, client_id, version))


@bp.post("/tables/<table_id>/esku")
def post_esku(table_id: str) -> Response:
    """Choose the current hand's esku `{client_id, version, seat}` (mus corrido), before anything is said."""
    _table(table_id, write=True)
    body, client_id, version = _write_args()
    check_known(body, ("client_id", "version", "seat"))
    if "seat" not in body:
        raise ApiError(400, "invalid", "seat: missing (the seat 0..3 that is esku this hand)", "seat")
    return _answer(_store().set_esku(table_id, client_id, version, body["seat"]))


@bp.post("/tables/<table_id>/showdown")
def post_showdown(table_id: str) -> Response:
    """Settle the hand with the 16 cards `{client_id, version, hands, photo_id?}`."""
    _table(table_id, write=True)
    body, client_id, version = _write_args()
    if "hands" not in body:
        raise ApiError(400, "invalid", "hands: missing (four lists of four cards, by seat)", "hands")
    return _answer(_store().showdown(table_id, client_id, version, body["hands"], body.get("photo_id")))


@bp.post("/tables/<table_id>/shown")
def post_shown(table_id: str) -> Response:
    """Keep the showdown not yet settled `{client_id, version, hands, photo_id?, bottom?}`:
    the cards named so far and its photo, for every phone (`current.shown`)."""
    _table(table_id, write=True)
    body, client_id, version = _write_args()
    check_known(body, ("client_id", "version", "hands", "photo_id", "bottom"))
    if "hands" not in body:
        raise ApiError(400, "invalid", "hands: missing (four lists of four places by seat, a card or null)", "hands")
    return _answer(_store().set_shown(table_id, client_id, version, body["hands"], body.get("photo_id"),
                                      body.get("bottom")))


CHECK_NEEDS = {"photo_id": "a photo of the showdown kept", "seat": "the seat 0..3 that holds the card",
               "place": "its place 0..3 in that seat's hand", "card": "the card confirmed there"}


@bp.post("/tables/<table_id>/shown/checks")
def post_shown_check(table_id: str) -> Response:
    """Confirm an unsure read of the showdown kept `{client_id, version, photo_id, seat,
    place, card, undo?}`: every phone shows it confirmed (`current.shown.checked`); with
    `undo: true`, that confirmation taken back: every phone shows the card unsure again."""
    _table(table_id, write=True)
    body, client_id, version = _write_args()
    check_known(body, ("client_id", "version", *CHECK_NEEDS, "undo"))
    for key, what in CHECK_NEEDS.items():
        if key not in body:
            raise ApiError(400, "invalid", f"{key}: missing ({what})", key)
    return _answer(_store().check_shown(table_id, client_id, version, body["photo_id"], body["seat"], body["place"],
                                        body["card"], body.get("undo", False)))


# -- photos --------------------------------------------------------------------
FORM_HEADROOM = 64 * 1024
"""Bytes a multipart photo upload may carry besides the photo (its envelope, the part
headers, `client_id`, `with`, `bottom`): the photo itself may weigh `MAX_CONTENT_LENGTH`."""


def _photo_limit() -> int | None:
    """The most bytes a photo may weigh: `MAX_CONTENT_LENGTH` (25 MB; None: no limit)."""
    cap = current_app.config.get("MAX_CONTENT_LENGTH")
    return int(cap) if cap else None


def _photo_body_limit() -> None:
    """This request's body limit, set before the body is read: a raw photo's is the
    photo's; a multipart upload's has `FORM_HEADROOM` more, so that a photo at the limit
    is not refused for its envelope (`_photo_bytes` checks the photo itself)."""
    limit = _photo_limit()
    if limit is not None and (request.mimetype or "").startswith("multipart/"):
        request.max_content_length = limit + FORM_HEADROOM


def _photo_form() -> Any:
    """A multipart photo upload's form (parsed here, the body within `_photo_body_limit`);
    an upload longer than that limit is a 413 `too_large` on `photo` naming the photo's
    size (its upload's length, the form's few bytes with it: the photo is not read), as a
    photo over the limit read whole is (`_photo_bytes`). Empty for another body."""
    if not (request.mimetype or "").startswith("multipart/"):
        return {}
    length, limit = request.content_length, _photo_limit()
    over = limit is not None and length is not None and length > (request.max_content_length or length)
    try:
        if over:
            raise RequestEntityTooLarge()
        return request.form
    except RequestEntityTooLarge:
        if limit is None or (length is not None and not over):
            raise  # too many parts or too big a field, within the length: the app's 413 says which
        size = f"about {length:,} bytes (with its form)" if length is not None else "larger than the upload may be"
        raise ApiError(413, "too_large", f"the photo is {size}, over the limit of {limit:,} bytes "
                       f"({limit / 2**20:g} MB)", "photo") from None


def _photo_bytes() -> bytes:
    """The uploaded photo: multipart field `photo`, or the raw body; a 413 `too_large`
    naming its size when it weighs more than `_photo_limit`."""
    limit = _photo_limit()
    ctype = request.mimetype or ""
    if ctype.startswith("multipart/"):
        f = request.files.get("photo")
        if f is None:
            raise ApiError(400, "missing_photo", "photo: missing (send the image as the multipart field 'photo')",
                           "photo")
        data = f.read() if limit is None else f.read(limit + 1)
        size = len(data)
        if limit is not None and size > limit:
            try:
                size = f.stream.seek(0, os.SEEK_END)  # parsed already: its whole size, without reading it
            except (OSError, ValueError):
                pass
    else:
        data = request.get_data(cache=False)  # within the body limit, the photo's
        size = len(data)
    if limit is not None and size > limit:
        raise ApiError(413, "too_large", f"the photo is {size:,} bytes, over the limit of {limit:,} bytes "
                       f"({limit / 2**20:g} MB)", "photo")
    return data


_IMAGE_STATUS = {"empty": 400, "not_image": 415, "unsupported_format": 415, "too_large": 413, "corrupt": 400,
                 "too_small": 400}


def image_error(exc: Exception, field: str = "photo", prefix: str = "") -> ApiError:
    """A photo's `ImageError` as the API's refusal (`empty_image`, `corrupt_image`,
    `too_small_image`: 400; `too_large`: 413; `not_image`, `unsupported_format`: 415)."""
    code = getattr(exc, "code", "corrupt")
    return ApiError(_IMAGE_STATUS.get(code, 400),
                    f"{code}_image" if code in ("empty", "corrupt", "too_small") else code,
                    prefix + (getattr(exc, "message", None) or str(exc)), field)


def open_upload(data: bytes, field: str = "photo", prefix: str = "") -> Any:
    """The uploaded photo's header checked (`scorer.vision.Photo`): its format, at most
    about 50 megapixels (`scorer.vision.image.MAX_PIXELS`), big enough to hold a card;
    nothing decoded yet. A 4xx naming `field`."""
    from scorer import vision

    try:
        photo = vision.open_photo(data)
        vision.check_scannable(photo.size)
    except vision.ImageError as exc:
        raise image_error(exc, field, prefix) from None
    return photo


def _reduction(photo: Any, side: int | None) -> int:
    """The decode that checks a photo whole: a JPEG at the smallest DCT scale keeping its
    longer side at least `side` (1/8 without one: every byte is still decoded), another
    format whole (no scaled decode: the reader would decode it whole anyway)."""
    if photo.format != "JPEG":
        return 1
    if not side:
        return 8
    return max(k for k in (1, 2, 4, 8) if k == 1 or max(photo.size) / k >= side)


SCAN_THREAD = "mus-scan"
"""The name the scan workers' threads start with."""


def in_scan_slot(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` run on one of the `SCAN_CONCURRENCY` (2) scan workers, the caller
    waiting its turn: every photo is decoded, read and annotated there, for a table's
    photos, `/api/scan` and a deck's photos alike. So no more photos are decoded at once
    than there are workers, and only those threads ever hold a decoded photo: the memory
    the C allocator keeps for a thread after a big photo is freed is kept by two threads,
    not by every request's (on 8 uploads at once, 1.1 GB against 0.35 GB)."""
    return current_app.extensions["mus_scan_workers"].submit(work, *args).result()


def _recognizer() -> Any:
    rec = current_app.config.get("RECOGNIZER")
    if rec is not None:
        return rec
    ext = current_app.extensions
    with ext["mus_scan_lock"]:
        if ext.get("mus_recognizer") is None:
            from scorer import vision

            model_dir = current_app.config.get("MODEL_DIR")
            if model_dir:
                from pathlib import Path

                ext["mus_recognizer"] = vision.Recognizer(Path(model_dir))
            else:
                ext["mus_recognizer"] = vision.default_recognizer()
        return ext["mus_recognizer"]


def _no_scan() -> dict[str, Any]:
    """The scan of a photo stored without one: nothing read."""
    return {"cards": [], "hands": None, "warnings": []}


def _scan(data: bytes, bottom: int, annotate_side: int | None = None,
          players: list[str] | None = None) -> tuple[Any, dict[str, Any], bytes | None, str | None]:
    """Check, decode and read a photo whose bottom edge is the seat `bottom` (`_bottom`):
    `(photo, scan, annotated JPEG or None, the labels it was drawn with)` (its seats named
    `players`, `web.photo_labels`; without, the reader's labels: None); bad images are
    clear 4xx errors. The header
    is checked first (format, megapixels, least size); the decode, the reading and the
    annotation all happen inside one of the `in_scan_slot` workers, so no more photos are
    decoded at once than there are slots."""
    from scorer import vision

    photo = open_upload(data)
    try:
        recognizer = _recognizer()
    except vision.ModelError as exc:
        current_app.logger.error("no card recognizer: %s", exc)  # the path is for the server's log only
        raise ApiError(503, "recognizer_unavailable",
                       "the card recognizer is not available on this server (no card model); type the cards instead",
                       None) from None
    try:  # bounded: decoding and reading are CPU and memory heavy
        scan, annotated, labels = in_scan_slot(_read_photo, recognizer, photo, bottom, annotate_side, players)
    except vision.ImageError as exc:
        raise image_error(exc) from None
    scan = {**scan, "bottom": bottom}  # kept with the photo: its labels' seats follow from it
    return photo, scan, annotated, labels


def _bottom() -> str:
    """The seat at the photo's bottom edge, "0" to "3": `?bottom=`, or a multipart upload's
    form field `bottom` (the table page sends both); "0" without either. A 400 naming
    `bottom` for another value, or for a query and a form field that differ."""
    given = {"the query": request.args.get("bottom")}
    if (request.mimetype or "").startswith("multipart/"):
        given["the form field"] = request.form.get("bottom")
    given = {where: value for where, value in given.items() if value is not None}
    for where, value in given.items():
        if value not in ("0", "1", "2", "3"):
            raise ApiError(400, "invalid", f"bottom: expected the seat 0..3 at the photo's bottom edge, got "
                           f"{said(value[:20])}" + (f" in {where}" if len(given) > 1 else ""), "bottom")
    if len(set(given.values())) > 1:
        raise ApiError(400, "invalid", f"bottom: the query says {given['the query']}, the form field "
                       f"{given['the form field']}: send one", "bottom")
    return next(iter(given.values()), "0")


def _read_photo(recognizer: Any, photo: Any, bottom: int, annotate_side: int | None,
                players: list[str] | None = None) -> tuple[dict, bytes | None, str | None]:
    """On a scan worker: the photo decoded whole, so that a damaged file is refused before
    it is read (a JPEG at the scale its annotated copy needs, the reader decoding it at its
    own scales as the command line does; another format at full size, which the reader
    then reads), read, and annotated when `annotate_side` is given: its seats named
    `players`, its cards as read (a photo alone, nothing corrected yet), with the labels'
    key (`photo_labels.key`; None drawn without `players`)."""
    from scorer import vision

    image = photo.decode(_reduction(photo, annotate_side))
    scan = recognizer.scan(photo if photo.format == "JPEG" else image, bottom=bottom)
    if not annotate_side:
        return scan, None, None
    labels = photo_labels.photo_labels([scan], 0, None, players) if players else None
    annotated = vision.annotate(image, scan, max_side=annotate_side, full=photo.size,
                                **(photo_labels.for_annotate(labels) if labels else {}))
    return scan, annotated, photo_labels.key(labels) if labels else None


def _room_for(size: int) -> None:
    """A 507 `storage_full` where keeping a photo of `size` bytes would leave the disk of
    the database with less than `PHOTO_MIN_FREE_BYTES` free: the host's disk never fills
    with photos (the hand can still be settled by typing the cards)."""
    need = int(current_app.config["PHOTO_MIN_FREE_BYTES"]) + 2 * size  # the photo and its annotated copy, at most
    free = shutil.disk_usage(Path(_store().db.file).resolve().parent).free
    if free < need:
        raise ApiError(507, "storage_full", f"the server's disk has {free // 2**20} MB free, under the "
                       f"{need // 2**20} MB a photo may not go below: type the cards; prune old photos", None)


@bp.post("/tables/<table_id>/photos")
def post_photo(table_id: str) -> Response:
    """Store a showdown photo and read its cards -> 201 `{photo_id, scan}`; with `with=<a
    photo id>` it is another photo of that showdown, and `together` reads them as one."""
    taken = time.time()  # the photo is of the hand being played now, however long it takes to read
    _photo_body_limit()
    rt = _table(table_id, write=True)
    form = _photo_form()
    # the query's when it has one, even empty (refused as an empty form field is, not left out)
    client_id = request.args["client_id"] if "client_id" in request.args else form.get("client_id")
    with_id = request.args["with"] if "with" in request.args else form.get("with")
    data = _photo_bytes()
    # `bottom` is read once, where it was always checked: before a retry's digest, else before the read
    digest: str | None = None
    bottom: int | None = None
    if client_id is not None:
        bottom = int(_bottom())
        digest = photo_digest(data, with_id, bottom)  # hashed once, for the retry check and the record
        done = _store().photo_for(table_id, client_id, digest)
        if done is not None:  # a retry: the photo is stored and read already
            return _dump(_photo_links(table_id, done), 201)
    if rt.live is None:  # as every write of a hand: refused before the photo is read
        raise ApiError(409, "match_over", "the match is over: no more hands (no showdown photo to take)", None)
    if with_id is not None:
        _store().first_photo(table_id, with_id, adding=True)  # before the work of reading it
    _room_for(len(data))
    photo, scan, annotated, labels = _scan(data, int(_bottom()) if bottom is None else bottom, ANNOTATED_SIDE,
                                           list(rt.header["players"]))
    from scorer.vision.metadata import strip

    # kept without where it was taken, by which phone, when: watchers and exports see it
    kept = strip(data, photo.format, photo.orientation)
    out, _ = _store().add_photo(table_id, client_id, MIME[photo.format], kept, annotated, scan, with_id, digest, taken,
                                labels)
    return _dump(_photo_links(table_id, out), 201)


def _photo_links(table_id: str, out: dict[str, Any]) -> dict[str, Any]:
    """The upload's answer with its links, and `together` when its showdown has more photos."""
    out = {**out, "url": url_for("api.get_photo", table_id=table_id, photo_id=out["photo_id"]),
           "annotated_url": url_for("api.get_photo_annotated", table_id=table_id, photo_id=out["photo_id"])}
    try:
        photos = _store().photo_set(table_id, out["photo_id"])
    except StoreError:  # a retry's photo dropped since (older than the last showdowns kept): as it was stored
        photos = []
    if len(photos) > 1:
        from scorer import vision

        out["together"] = {"photo_ids": [p for p, _ in photos],
                           "scan": vision.combine([scan or _no_scan() for _, scan in photos])}
    return out


def _photo_response(table_id: str, photo_id: str, annotated: bool) -> Response:
    rt = _table(table_id, write=False)
    if annotated:
        # drawn again where the photo is seated again (`set_shown`), a card corrected or a
        # player renamed (`_labels`): the same address, its copy checked each time (a 304
        # while it stands)
        resp = Response(_annotated(rt, photo_id), mimetype="image/jpeg")
        resp.headers["Cache-Control"] = "private, no-cache"
        resp.add_etag()
        return resp.make_conditional(request)
    mime, data = _store().photo(table_id, photo_id)
    resp = Response(data, mimetype=mime)
    resp.headers["Cache-Control"] = "private, max-age=86400, immutable"
    return resp


class AnnotatedCopies:
    """The annotated copies being drawn again (`_annotated`), one at a time for each photo:
    the phones and watchers that ask for one at once wait for the one drawing it rather
    than each decoding the photo again on the two scan workers; and the last `most` drawn
    that could not be stored (a read-only database, a full disk), each with the scan and
    labels it was drawn from, so that it is not drawn again for every request (a photo
    seated again has another scan, one corrected other labels: its copy is drawn anew)."""

    def __init__(self, most: int = 8) -> None:
        self.most = most
        self._lock = threading.Lock()
        self._drawing: dict[tuple[str, str], list[Any]] = {}  # (table, photo) -> [its lock, how many use it]
        self._kept: OrderedDict[tuple[str, str], tuple[Any, bytes]] = OrderedDict()

    @contextmanager
    def one_at_a_time(self, table_id: str, photo_id: str) -> Iterator[None]:
        """Held while no other request draws this photo's copy (the others wait)."""
        key = (table_id, photo_id)
        with self._lock:
            entry = self._drawing.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                yield
        finally:
            with self._lock:
                entry[1] -= 1
                if not entry[1]:
                    del self._drawing[key]

    def kept(self, table_id: str, photo_id: str, scan: Any) -> bytes | None:
        """The copy kept here of this photo, where it was drawn from `scan` (its scan and labels)."""
        with self._lock:
            got = self._kept.get((table_id, photo_id))
            if got is None or got[0] != scan:
                return None
            self._kept.move_to_end((table_id, photo_id))
            return got[1]

    def keep(self, table_id: str, photo_id: str, scan: Any, jpeg: bytes) -> None:
        with self._lock:
            self._kept[(table_id, photo_id)] = (scan, jpeg)
            self._kept.move_to_end((table_id, photo_id))
            while len(self._kept) > self.most:
                self._kept.popitem(last=False)


def _kept_copy(copies: AnnotatedCopies, table_id: str, photo_id: str, labels: str,
               photo: bool = True) -> tuple[bytes | None, bytes | None, str | None]:
    """`(the annotated copy, None, None)` where one drawn with `labels` is kept, in the
    database or in `copies`; else `(None, the photo, its scan as stored)` to draw it from
    (without `photo`, its bytes not read: None)."""
    jpeg, data, scan = _store().annotated_photo(table_id, photo_id, photo, labels)
    if jpeg is None:
        jpeg = copies.kept(table_id, photo_id, (scan, labels))
    return (jpeg, None, None) if jpeg is not None else (None, data, scan)


def _labels(rt: Runtime, photo_id: str) -> dict[str, list[Any]]:
    """What the annotated copy of the photo says now (`web.photo_labels`): its seats by the
    players' names, its cards as the table holds them, the cards of the hand settled with
    its showdown or of the showdown being corrected (`shown`), a correction struck over
    the read."""
    try:
        photos = _store().photo_set(rt.id, photo_id)
    except StoreError:
        raise ApiError(404, "not_found", f"no photo {said(photo_id)} at this table", None) from None
    first = photos[0][0]
    held = next((h["record"].get("hands") for h in rt.hands if h["photo_id"] == first), None)
    if held is None and rt.shown and rt.shown.get("photo_id") == first:
        held = rt.shown.get("hands")
    return photo_labels.photo_labels([scan or _no_scan() for _, scan in photos], [p for p, _ in photos].index(photo_id),
                                     held, list(rt.header["players"]))


def _annotated(rt: Runtime, photo_id: str) -> bytes:
    """The photo's annotated copy, as stored; where it has none drawn with its labels now
    (`_labels`: seated again since it was drawn, its seats, colours and hands are the
    scan's now; a card corrected, a player renamed), drawn from the photo and its scan as
    stored, on a scan worker (the cards are not read again), and kept: in the database,
    else (it cannot be written) in memory (`AnnotatedCopies`). Requests for it at once
    wait for the one drawing it."""
    table_id = rt.id
    copies: AnnotatedCopies = current_app.extensions["mus_annotated"]
    labels = _labels(rt, photo_id)
    key = photo_labels.key(labels)
    jpeg = _kept_copy(copies, table_id, photo_id, key, photo=False)[0]  # the photo read only by the one drawing
    if jpeg is not None:
        return jpeg
    with copies.one_at_a_time(table_id, photo_id):
        jpeg, data, scan = _kept_copy(copies, table_id, photo_id, key)  # drawn meanwhile, by the one before?
        if jpeg is not None:
            return jpeg
        from scorer import vision

        read = json.loads(scan or "null") or _no_scan()
        try:
            jpeg = in_scan_slot(_draw_annotated, open_upload(data or b""), read, labels)
        except (ApiError, vision.ImageError):  # not a photo that can be drawn on (never here: it was read)
            raise ApiError(404, "not_found", f"no annotated copy of photo {said(photo_id)} at this table", None) from None
        if not _store().set_annotated(table_id, photo_id, jpeg, scan, key):
            copies.keep(table_id, photo_id, (scan, key), jpeg)
        return jpeg


def _draw_annotated(photo: Any, scan: dict[str, Any], labels: dict[str, list[Any]] | None = None) -> bytes:
    """On a scan worker: the annotated copy of a photo, as an upload draws it (`_read_photo`),
    with `labels` (`web.photo_labels`)."""
    from scorer import vision

    image = photo.decode(_reduction(photo, ANNOTATED_SIDE))
    return vision.annotate(image, scan, max_side=ANNOTATED_SIDE, full=photo.size,
                           **(photo_labels.for_annotate(labels) if labels else {}))


@bp.get("/tables/<table_id>/photos/<photo_id>/scan")
def get_photo_scan(table_id: str, photo_id: str) -> Response:
    """What the photos of the showdown `photo_id` is of read, as their upload answered:
    `{photos: [{photo_id, url, annotated_url, scan}], scan}` (the first photo first; `scan`
    what they read together). The table page reads it again for a showdown undone."""
    _table(table_id, write=False)
    try:
        photos = _store().photo_set(table_id, photo_id)
    except StoreError:
        raise ApiError(404, "not_found", f"no photo {said(photo_id)} at this table", None) from None
    out = [{"photo_id": pid, "url": url_for("api.get_photo", table_id=table_id, photo_id=pid),
            "annotated_url": url_for("api.get_photo_annotated", table_id=table_id, photo_id=pid),
            "scan": scan or _no_scan()} for pid, scan in photos]
    if len(out) > 1:
        from scorer import vision

        together = vision.combine([p["scan"] for p in out])
    else:
        together = out[0]["scan"]
    return _dump({"photos": out, "scan": together})


@bp.get("/tables/<table_id>/photos/<photo_id>")
def get_photo(table_id: str, photo_id: str) -> Response:
    return _photo_response(table_id, photo_id, annotated=False)


@bp.get("/tables/<table_id>/photos/<photo_id>/annotated")
def get_photo_annotated(table_id: str, photo_id: str) -> Response:
    return _photo_response(table_id, photo_id, annotated=True)


@bp.post("/scan")
def post_scan() -> Response:
    """Read the cards in a photo (nothing stored) -> the `scan --json` object."""
    _photo_body_limit()
    _photo_form()
    _, scan, _, _ = _scan(_photo_bytes(), int(_bottom()))
    return _dump(scan)


# -- live ----------------------------------------------------------------------
LAST_EVENT_ID_DIGITS = 18
"""The most ASCII digits a `Last-Event-ID` (or `?last_event_id=`) may have (the OpenAPI
document's maximum, 999999999999999999, follows from it)."""


@bp.get("/tables/<table_id>/events")
def events(table_id: str) -> Response:
    """Server-sent events: `id: <version>`, `data: <state>`; `Last-Event-ID` catches up."""
    # the stream token: the players' page, with a token derived from theirs, counted as theirs
    watcher = _table_role(table_id, write=False, stream=True)[1] == "watch"
    client = request.args.get("client")  # the page's own id: its next stream replaces this one
    if client is not None and not (1 <= len(client) <= 64 and client.isascii()
                                   and all(c.isalnum() or c in "-_" for c in client)):
        raise ApiError(400, "invalid", "client: expected the page's id, 1 to 64 letters, digits, '-' or '_'",
                       "client")
    # the header, else (none, or empty) the query's: a refusal names the one it came from
    field = "Last-Event-ID" if request.headers.get("Last-Event-ID") else "last_event_id"
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    last_id = None
    if raw:
        last_id = _ascii_int(raw, signed=False) if len(raw) <= LAST_EVENT_ID_DIGITS else None
        if last_id is None:
            raise ApiError(400, "invalid", f"{field}: expected a version number, 0 to {LAST_EVENT_ID_DIGITS} "
                           f"digits, got {said(raw)}", field)
    hub = _hub()
    cfg = current_app.config
    # watchers leave the table's last SSE_PLAYER_RESERVE places to its players' phones
    reserved = int(cfg.get("SSE_PLAYER_RESERVE") or 0) if watcher else 0
    gen = stream(_store(), hub, table_id, last_id, float(cfg["SSE_HEARTBEAT"]), float(cfg["SSE_MAX_SECONDS"]),
                 ("watch" if watcher else "play", client) if client else None)
    if not hub.try_open(int(cfg["SSE_MAX_STREAMS"]), table_id, int(cfg["SSE_MAX_PER_TABLE"] or 0), reserved, gen):
        resp = error_response(503, "too_many_streams",
                              "too many live connections (to this table, or in all); poll GET /api/tables/{id}")
        resp.headers["Retry-After"] = "5"
        return resp
    resp = Response(gen, mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp


# -- export and import ---------------------------------------------------------
@bp.get("/tables/<table_id>/export")
def export(table_id: str) -> Response:
    """The match as `mus-match/1` JSON Lines."""
    rt = _table(table_id, write=False)
    resp = Response(rt.match_file(), mimetype="application/jsonl")
    resp.headers["Content-Disposition"] = f'attachment; filename="mus-{table_id}.jsonl"'
    return resp


def _import_lines() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The uploaded `mus-match/1` file, checked: (header for the table, hand records)."""
    from scorer import engine

    request.max_content_length = _limit("IMPORT_MAX_BYTES")  # read as a file or as the body
    if (request.mimetype or "").startswith("multipart/"):
        f = request.files.get("file")
        if f is None:
            raise ApiError(400, "missing_file", "file: missing (send the .jsonl as the multipart field 'file')", "file")
        raw = f.read()
    else:
        raw = request.get_data(cache=False)
    try:
        text = decode(raw)
    except NotText:
        raise ApiError(400, "bad_file", "the file is not UTF-8 text", None) from None
    lines = lines_of(text)  # as the command line splits it: at LF, CRLF or CR, not at U+2028
    objs: list[tuple[int, dict[str, Any]]] = []
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = parse_json(line)
        except ValueError as exc:
            raise ApiError(422, "invalid", f"line {i}: not JSON: {exc}", f"line {i}") from None
        if not isinstance(obj, dict):
            raise ApiError(422, "invalid", f"line {i}: expected a JSON object", f"line {i}")
        objs.append((i, obj))
    if not objs:
        raise ApiError(422, "invalid", "line 1: the file is empty; expected a mus-match/1 header", "line 1")
    first_line, head = objs[0]
    if head.get("format") != "mus-match/1":
        raise ApiError(422, "invalid", f'line {first_line}: format: expected "mus-match/1", got {said(head.get("format"))}',
                       f"line {first_line}")
    try:
        header = check_header(head)
    except StoreError as exc:  # a name refused says why as at a table's creation
        raise ApiError(422, "invalid", f"line {first_line}: {exc.message}", f"line {first_line}",
                       reason=exc.reason, params=exc.params) from None
    try:
        engine.Match.from_lines(lines)
    except engine.MusError as exc:
        raise ApiError(422, "invalid", str(exc), exc.field or None, **engine_why(exc, header["players"])) from None
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:  # input the engine did not foresee
        current_app.logger.warning("import: the engine could not read the file: %r", exc)
        raise ApiError(422, "invalid", f"the file could not be read as mus-match/1 ({exc})", None) from None
    return header, [obj for _, obj in objs[1:]]


@bp.post("/tables/import")
@creation_limited
def import_new() -> Response:
    """A new table from a `mus-match/1` file -> 201 like `POST /api/tables`."""
    header, records = _import_lines()
    rt = _store().create(header, records)
    resp = _dump({**_links(rt), "hands": len(rt.hands)}, 201)
    resp.headers["Location"] = url_for("api.get_table", table_id=rt.id)
    return resp


def _ascii_int(raw: str, signed: bool = True) -> int | None:
    """`raw` as an integer where it is ASCII digits (after one "-" where `signed`), else
    None: int() alone would also read " 1", "1_0", "+1" and other scripts' digits ("١")."""
    digits = raw[1:] if signed and raw.startswith("-") else raw
    if not (digits.isascii() and digits.isdigit()):
        return None
    try:
        return int(raw)
    except ValueError:  # past int()'s 4,300 digits
        return None


@bp.post("/tables/<table_id>/import")
def import_into(table_id: str) -> Response:
    """Replace this table's match by a `mus-match/1` file (`?client_id=&version=`); the state.
    A file of other teams than the table's is a 409 `teams_differ` unless `?rename=1`."""
    _table(table_id, write=True)
    client_id = request.args.get("client_id")
    raw_version = request.args.get("version")
    if client_id is None:
        raise ApiError(400, "invalid", "client_id: missing (?client_id=)", "client_id")
    check_client_id(client_id)  # empty or too long: refused before the file is read
    if raw_version is None:
        raise ApiError(400, "invalid", "version: missing (?version=)", "version")
    version = _ascii_int(raw_version, signed=False)
    if version is None:
        raise ApiError(400, "invalid", f"version: expected the table's version, a whole number, got "
                       f"{said(raw_version)}", "version")
    raw_rename = request.args.get("rename", "0")
    if raw_rename not in ("0", "1", "true", "false"):
        raise ApiError(400, "invalid", f"rename: expected 1 (take the file's teams) or 0, got {said(raw_rename)}",
                       "rename")
    header, records = _import_lines()
    return _answer(_store().replace(table_id, client_id, version, header, records,
                                    rename=raw_rename in ("1", "true")))


# -- tournaments ---------------------------------------------------------------
def _tournaments() -> TournamentStore:
    return current_app.extensions["mus_tournaments"]


def _tournament(tournament_id: str, write: bool) -> tuple[dict[str, Any], bool]:
    """The tournament and whether the request holds the organiser's token (`write`: must)."""
    token = _token()
    if token is None:
        raise ApiError(401, "missing_token", "a token is needed: 'Authorization: Bearer <token>' or ?token=", "token")
    row = _tournaments().get(tournament_id)
    role = role_of(row, token)
    if role == "organise" or (role == "watch" and not write):
        return row, role == "organise"
    if role == "watch":
        raise ApiError(403, "read_only", "the watch token only reads this tournament", "token")
    raise ApiError(403, "bad_token", "this token does not open this tournament", "token")


def _revision(body: dict[str, Any] | None = None) -> int | None:
    """The tournament revision a write follows: `revision` in its JSON body, else
    `?revision=` (a DELETE has no body); None where it names none (it follows any)."""
    if body is not None and "revision" in body:
        value = body["revision"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ApiError(400, "invalid", f"revision: expected the tournament's revision, a whole number, got "
                           f"{said(value)}", "revision")
        return value
    raw = request.args.get("revision")
    if raw is None:
        return None
    value = _ascii_int(raw, signed=False)
    if value is None:
        raise ApiError(400, "invalid", f"revision: expected the tournament's revision, a whole number, got {said(raw)}",
                       "revision")
    return value


def _tournament_links(row: dict[str, Any]) -> dict[str, Any]:
    base = public_base()  # the same address as the pages' links and QR codes
    return {
        "id": row["id"],
        "name": row["name"],
        "token": row["token"],
        "watch_token": row["watch_token"],
        "url": f"{base}/c/{row['id']}?token={row['token']}",
        "watch_url": f"{base}/c/{row['id']}?token={row['watch_token']}",
    }


@bp.post("/tournaments")
@creation_limited
def create_tournament() -> Response:
    """A new tournament: `{name, rules?}` -> 201 with its tokens and links."""
    row = _tournaments().create(_body())
    resp = _dump(_tournament_links(row), 201)
    resp.headers["Location"] = url_for("api.get_tournament", tournament_id=row["id"])
    return resp


@bp.get("/tournaments/<tournament_id>")
def get_tournament(tournament_id: str) -> Response:
    """Its matches as they stand and the standings (the organiser also gets each table's watch token)."""
    _, organiser = _tournament(tournament_id, write=False)
    return _dump(_tournaments().state(tournament_id, watch_links=organiser))


@bp.patch("/tournaments/<tournament_id>")
def rename_tournament(tournament_id: str) -> Response:
    """A new name `{name}` (the organiser's token) -> the tournament."""
    _tournament(tournament_id, write=True)
    body = _body()
    _tournaments().rename(tournament_id, body, _revision(body))
    return _dump(_tournaments().state(tournament_id, watch_links=True))


@bp.delete("/tournaments/<tournament_id>")
def delete_tournament(tournament_id: str) -> Response:
    """Delete the tournament (the organiser's token); its tables stay -> 204."""
    _tournament(tournament_id, write=True)
    _tournaments().delete(tournament_id, _revision())
    return Response(status=204)


@bp.post("/tournaments/<tournament_id>/tables")
def add_tournament_table(tournament_id: str) -> Response:
    """Enrol a table: `{table, token}` with the table's players' token -> the tournament
    (201 when the table was added, 200 when it was in already)."""
    _tournament(tournament_id, write=True)
    body = _body()
    check_known(body, ("table", "token"))
    table_id, table_token = body.get("table"), body.get("token")
    if table_id is None:
        raise ApiError(400, "invalid", "table: missing (the id of the table to enrol)", "table")
    if not isinstance(table_id, str) or not table_id:
        raise ApiError(400, "invalid", f"table: {said(table_id)} is not a table id", "table")
    if table_token is None:
        raise ApiError(400, "invalid", "token: missing (the table's players' token)", "token")
    if not isinstance(table_token, str) or not table_token:
        raise ApiError(400, "invalid", f"token: {said(table_token)} is not a token (the table's players' token)", "token")
    rt = _store().runtime(table_id)
    if same(table_token, rt.watch_token):  # the spectators' link pasted for the players'
        raise ApiError(403, "bad_token", "token: it is the table's watch token, which only reads it; send its "
                       "players' token (the players' link)", "token", reason="watch_link")
    if not same(table_token, rt.token):
        raise ApiError(403, "bad_token", "token: it does not open this table for its players", "token")
    added = _tournaments().add_table(tournament_id, table_id)
    return _dump(_tournaments().state(tournament_id, watch_links=True), 201 if added else 200)


@bp.put("/tournaments/<tournament_id>/rules")
def set_tournament_rules(tournament_id: str) -> Response:
    """The tournament's rules `{rules: {kings, target, real31, games_per_vaca, vacas_to_win}}`
    (the organiser's token; a rule left out takes the default) -> the tournament."""
    _tournament(tournament_id, write=True)
    body = _body()
    _tournaments().set_rules(tournament_id, body, _revision(body))
    return _dump(_tournaments().state(tournament_id, watch_links=True))


@bp.put("/tournaments/<tournament_id>/teams")
def set_tournament_teams(tournament_id: str) -> Response:
    """The league's teams `{teams: [...]}` (the organiser's token) -> the tournament, with its fixtures."""
    _tournament(tournament_id, write=True)
    body = _body()
    _tournaments().set_teams(tournament_id, body, _revision(body))
    return _dump(_tournaments().state(tournament_id, watch_links=True))


@bp.post("/tournaments/<tournament_id>/withdrawals")
def withdraw_tournament_team(tournament_id: str) -> Response:
    """A league team, or a seed of the final stage (a cup played as a knockout only),
    withdraws `{team, results: "annulled" (default) | "stand"}` (the organiser's token) ->
    the tournament; its pairings not played are not played, those of the bracket lost by
    walkover."""
    _tournament(tournament_id, write=True)
    body = _body()
    _tournaments().withdraw(tournament_id, body, _revision(body))
    return _dump(_tournaments().state(tournament_id, watch_links=True))


@bp.delete("/tournaments/<tournament_id>/withdrawals/<path:team>")
def reinstate_tournament_team(tournament_id: str, team: str) -> Response:
    """Undo a team's withdrawal (the organiser's token) -> the tournament."""
    _tournament(tournament_id, write=True)
    _tournaments().reinstate(tournament_id, team, _revision())
    return _dump(_tournaments().state(tournament_id, watch_links=True))


@bp.post("/tournaments/<tournament_id>/results")
def add_tournament_result(tournament_id: str) -> Response:
    """A finished match's result entered without hands `{teams, vacas, stones?, winner?}`,
    or a walkover `{teams, walkover}` (the organiser's token) -> 201 the tournament; it
    takes its pairing as a finished table does (`storage.tournaments.check_result`)."""
    _tournament(tournament_id, write=True)
    body = _body()
    _tournaments().add_result(tournament_id, body, _revision(body))
    return _dump(_tournaments().state(tournament_id, watch_links=True), 201)


@bp.put("/tournaments/<tournament_id>/results/<result_id>")
def correct_tournament_result(tournament_id: str, result_id: str) -> Response:
    """Put right a result entered without hands, the same body as POST's (the organiser's
    token) -> the tournament; it keeps its id and its time added, so its pairing."""
    _tournament(tournament_id, write=True)
    body = _body()
    _tournaments().correct_result(tournament_id, result_id, body, _revision(body))
    return _dump(_tournaments().state(tournament_id, watch_links=True))


@bp.delete("/tournaments/<tournament_id>/results/<result_id>")
def remove_tournament_result(tournament_id: str, result_id: str) -> Response:
    """Take out a result entered without hands (the organiser's token) -> the tournament."""
    _tournament(tournament_id, write=True)
    _tournaments().remove_result(tournament_id, result_id, _revision())
    return _dump(_tournaments().state(tournament_id, watch_links=True))


@bp.put("/tournaments/<tournament_id>/knockout")
def set_tournament_knockout(tournament_id: str) -> Response:
    """Draw the final stage `{teams: [best seed first]}` (2 to 16, the top seeds getting
    byes short of 4, 8 or 16; the organiser's token) -> the tournament; the tables added
    from then on play it (or are friendlies), never the league."""
    _tournament(tournament_id, write=True)
    body = _body()
    _tournaments().set_knockout(tournament_id, body, _revision(body))
    return _dump(_tournaments().state(tournament_id, watch_links=True))


@bp.delete("/tournaments/<tournament_id>/knockout")
def clear_tournament_knockout(tournament_id: str) -> Response:
    """Remove the final stage (the organiser's token; its tables count in the league again)."""
    _tournament(tournament_id, write=True)
    _tournaments().clear_knockout(tournament_id, _revision())
    return _dump(_tournaments().state(tournament_id, watch_links=True))


@bp.get("/tournaments/<tournament_id>/export")
def export_tournament(tournament_id: str) -> Response:
    """The whole tournament as a zip (the organiser's token): the standings as CSV and
    JSON, each table's match as a `mus-match/1` file, and in `excel/` the standings and
    every match's result as spreadsheets in the request's language (`?lang=`, the page's
    cookie, then Accept-Language: `web.sheets`)."""
    from web import i18n, sheets

    _, organiser = _tournament(tournament_id, write=False)
    if not organiser:
        raise ApiError(403, "read_only", "only the organiser's token exports the tournament (its tables' hands)",
                       "token")
    lang = i18n.pick_lang(request.args.get("lang"), request.cookies.get(i18n.COOKIE),
                          request.headers.get("Accept-Language"))

    def runtime(table_id: str) -> Any:
        try:
            return _store().runtime(table_id)
        except StoreError:  # deleted since it was listed
            return None

    def games(table_id: str) -> list[int] | None:  # the games each team won over the whole match
        rt = runtime(table_id)
        if rt is None:
            return None
        won = [0, 0]
        for entry in rt.match.history:
            if entry["settlement"].get("game_over"):
                won[entry["settlement"]["winner"]] += 1
        return won

    def dates(table_id: str) -> str | None:  # the day the table was opened
        rt = runtime(table_id)
        return rt.created if rt is not None else None

    data, filename = _tournaments().export(
        tournament_id, extra=lambda state: sheets.excel_files(state, lang, games, dates))
    resp = Response(data, mimetype="application/zip")
    resp.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.delete("/tournaments/<tournament_id>/tables/<table_id>")
def remove_tournament_table(tournament_id: str, table_id: str) -> Response:
    """Take a table out of the tournament (the organiser's token; the table stays) -> the tournament."""
    _tournament(tournament_id, write=True)
    _tournaments().remove_table(tournament_id, table_id)
    return _dump(_tournaments().state(tournament_id, watch_links=True))


@bp.get("/openapi.json")
def openapi() -> Response:
    from web.openapi import document

    return _dump(document())


def init_app_state(app: Any, store: TableStore, hub: Hub) -> None:
    """Attach the store and hub to the app, and publish every write to the hub."""
    app.extensions["mus_store"] = store
    app.extensions["mus_tournaments"] = TournamentStore(store.db, store)
    app.extensions["mus_hub"] = hub
    app.extensions["mus_creations"] = SlidingWindow()  # who created what when (`creation_limited`)
    app.extensions["mus_scan_lock"] = threading.Lock()
    app.extensions["mus_annotated"] = AnnotatedCopies()  # drawn again one at a time; kept where not stored
    app.extensions["mus_scan_workers"] = ThreadPoolExecutor(max(1, int(app.config.get("SCAN_CONCURRENCY", 2))),
                                                            thread_name_prefix=SCAN_THREAD)
    app.extensions.setdefault("mus_recognizer", None)
    store.listeners.append(hub.publish)
