"""The pages players see on their phones.

`bp` is registered by `web.create_app`. Pages are thin: the server renders the frame,
the strings and the table's state at that moment; `static/app.js` then keeps the page
live through the API and its server-sent events. Every table page checks its token the
way the API does, by asking the API for the table with that token, so a page never shows
what the API would refuse.

Routes:
- `/`: a new table (teams, players around a drawn table, rules, first esku) or an import.
- `/t/<id>?token=`: the table on a player's phone.
- `/w/<id>?token=<watch>`: the same table for spectators (read only).
- `/t/<id>/history`, `/t/<id>/sheet`: every hand; the printable match sheet.
- `/t/<id>/qr.svg?token=&for=join|watch`: the QR code of the join or watch link.
- `/c/<id>?token=`: a tournament's standings and matches (the organiser's token adds
  tables; the watch token only reads); `/c/<id>/qr.svg?token=`: its watch link's QR code.
- `/?tournament=<id>&ttoken=`: a new table that counts in that tournament.
- `/decks#key=`: teach the card reader a club's own deck from four photos (`web.decks`).
- `/manifest.webmanifest?lang=`, `/icon-<n>.png`, `/icon-maskable-<n>.png`: the app on a
  phone's home screen (`web.icon` draws the icons).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import re
import socket
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from markupsafe import Markup, escape

from scorer.engine.explain import dispute_text, grammar
from scorer.engine.rules import Rules
from scorer.engine.standings import team_key, tie_breaks
from scorer.storage.tables import MAX_NAME, MAX_PHOTOS, StoreError
from scorer.vision.image import MAX_PIXELS
from scorer.vision.layout import LOW_CONFIDENCE
from web import i18n
from web import icon as app_icon

bp = Blueprint("pages", __name__, template_folder="templates", static_folder="static", static_url_path="/assets")

SEATS = (0, 1, 2, 3)
LANCES = ("grande", "chica", "pares", "juego", "punto")


# ---------------------------------------------------------------- language


def current_lang() -> str:
    return i18n.pick_lang(
        request.args.get("lang"), request.cookies.get(i18n.COOKIE), request.headers.get("Accept-Language")
    )


_RUN = re.compile(r"((?<![\w-])(?:\w{1,2}[-–])+\w{1,2}(?![\w-]))")  # R-R-C-S, 1-4-5-6, 4–22


def keep_runs(line: str) -> Markup:
    """A line of the count with its cards and scores kept whole ("R-R-C-S", "4–22") in a
    nowrap span each: a 360-px phone broke them at their hyphens. The page's script the same."""
    parts = _RUN.split(str(line))
    return Markup("").join(Markup('<span class="nw">{}</span>').format(p) if i % 2 else p for i, p in enumerate(parts))


_SCORES = re.compile(r"\(\d+–\d+\)")  # a tie-break's two values, "(2–0)"


def keep_scores(text: str) -> Markup:
    """`text` (escaped) with each "(a–b)" in a nowrap span: a line wrapping at its dash left
    "(2–" at one line's end and "0)" on the next (the tournament's tie-breaks)."""
    return Markup(_SCORES.sub(lambda m: f'<span class="nw">{m.group(0)}</span>', str(escape(text))))


def _render(template: str, status: int = 200, **ctx) -> Response:
    lang = current_lang()
    strings = i18n.strings(lang)

    def t(key: str, **values) -> str:
        return i18n.fill(strings.get(key, key), values)

    def lang_url(code: str) -> str:
        args = request.args.to_dict()
        args["lang"] = code
        return request.path + "?" + urlencode(args)

    body = render_template(
        template,
        lang=lang,
        t=t,
        langs=i18n.LANG_NAMES,
        lang_url=lang_url,
        # a dispute in a sentence: the engine's one composition (the table page's script says it the same)
        dispute_text=lambda dispute, players: dispute_text(dispute, list(players or []), lang),
        # an event's reason in the page's words (the table page's script says it the same: whyText)
        why_text=lambda event, team: i18n.why_text(lang, event, team),
        strings_json=Markup(_script_json(strings)),
        keep_runs=keep_runs,
        keep_scores=keep_scores,
        name_max=MAX_NAME,  # a team's or player's name, said while typed past it
        **ctx,
    )
    resp = make_response(body, status)
    if request.args.get("lang", "").lower() in i18n.LANGS:
        resp.set_cookie(i18n.COOKIE, lang, max_age=365 * 86400, samesite="Lax")
    resp.headers["Content-Language"] = lang
    resp.headers.setdefault("Cache-Control", "no-store")
    resp.vary.add("Accept-Language")
    resp.vary.add("Cookie")
    return resp


def _script_json(obj) -> str:
    """JSON safe inside a <script type="application/json"> element."""
    return json.dumps(obj, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# ---------------------------------------------------------------- tables and tokens


def _token_arg() -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip() or None
    return request.args.get("token") or None


def _table_or_error(table_id: str, json_errors: bool = False):
    """`(state, token, role, None)`, or `(None, token, None, error page)` (with
    `json_errors`, the API's JSON error instead of a page).

    The token is checked as the API checks it: the players' token reads and writes,
    the watch token only reads. `role` is `play` or `watch`; a players' page also
    gets the watch token, to show the spectators' QR code.
    """
    from scorer.storage.tables import StoreError

    fail = _json_error if json_errors else _error_page
    token = _token_arg()
    if not token:
        return None, token, None, fail(401, "missing_token")
    try:
        rt = current_app.extensions["mus_store"].runtime(table_id)
    except StoreError as exc:
        return None, token, None, fail(exc.status, exc.code)
    role = rt.role(token)
    if role is None:
        return None, token, None, fail(403, "bad_token")
    state = json.loads(rt.state_json())
    if role == "play":
        state["watch_token"] = rt.watch_token
        state["stream_token"] = rt.stream_token()  # the live stream's, counted as the players'
    return state, token, role, None


def _json_error(status: int, code: str) -> Response:
    """The API's JSON error, in the reader's language (for the pages' JSON routes)."""
    from web.errors import error_response

    return error_response(status, code, i18n.error_text(current_lang(), code))


def _error_page(status: int, code: str, words: str | None = None) -> Response:
    """The error page for an API error `code`, said with the i18n key `words` where given."""
    lang = current_lang()
    message = i18n.t(lang, words) if words else i18n.error_text(lang, code)
    return _render("error.html", status=status, message=message, code=code, page="error")


# ---------------------------------------------------------------- links and QR codes


def _lan_address() -> str | None:
    """This machine's address on the local network (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            addr = s.getsockname()[0]
    except OSError:
        return None
    return None if addr.startswith("127.") else addr


def _lan_address6() -> str | None:
    """This machine's IPv6 address on the network, one a phone can open (not link-local
    nor loopback: `mus-scorer serve`'s, no packet sent), or None."""
    from scorer.commands.serve import lan_address6

    found = lan_address6()
    return None if found == "::1" else found


def _loopback(host: str) -> bool:
    """Whether `host` (a URL's host name) is this machine only: localhost, 127.x, ::1."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _listens_on(address: str) -> bool:
    """Whether the server listens on `address`: `LISTEN_ADDRESSES` (set by `mus-scorer
    serve`, its sockets' addresses) holds it, or 0.0.0.0 (every IPv4 address) for an IPv4
    one, :: (every IPv6 address) for an IPv6 one. Unset (the app served some other way),
    nothing is known, so no."""
    listening = current_app.config.get("LISTEN_ADDRESSES") or ()
    return ("::" if ":" in address else "0.0.0.0") in listening or address in listening


def public_base() -> str:
    """The address other phones open this server at, without a trailing slash, for every
    link a page or the API gives: `PUBLIC_URL` where set (`serve --public-url`); else this
    request's scheme and host, a loopback host replaced by this machine's LAN address only
    where the server listens there too (`_listens_on`), so that no link names an address
    where nothing answers: for ::1 its IPv6 address on the network first (`serve --host ::`),
    else its IPv4 one. An IPv6 address in brackets."""
    base = current_app.config.get("PUBLIC_URL")
    if base:
        return base.rstrip("/")
    parts = urlsplit(request.host_url)
    netloc, host = parts.netloc, parts.hostname or ""
    if _loopback(host):
        found = (_lan_address6(), _lan_address()) if ":" in host else (_lan_address(),)
        if lan := next((a for a in found if a and _listens_on(a)), None):
            netloc = (f"[{lan}]" if ":" in lan else lan) + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def public_url(path: str, **query) -> str:
    """An absolute link another phone can open: `path` and `query` at `public_base()`."""
    parts = urlsplit(public_base())
    return urlunsplit((parts.scheme, parts.netloc, parts.path + path, urlencode(query), ""))


def qr_svg(text: str, label: str = "") -> str:
    """An SVG QR code of `text`: one path, crisp at any size, quiet zone included."""
    import qrcode

    qr = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    qr.add_data(text)
    qr.make(fit=True)
    matrix = qr.get_matrix()
    size = len(matrix)
    runs = []
    for y, row in enumerate(matrix):
        x = 0
        while x < size:
            if row[x]:
                start = x
                while x < size and row[x]:
                    x += 1
                runs.append(f"M{start} {y}h{x - start}v1h-{x - start}z")
            else:
                x += 1
    title = f"<title>{Markup.escape(label)}</title>" if label else ""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size} {size}" shape-rendering="crispEdges" '
        f'role="img">{title}<rect width="{size}" height="{size}" fill="#fff"/>'
        f'<path fill="#1d1a16" d="{"".join(runs)}"/></svg>'
    )


def _links(table_id: str, state: dict, token: str | None, role: str) -> dict:
    join = public_url(f"/t/{table_id}", token=token) if role == "play" and token else None
    watch_token = state.get("watch_token") or (token if role == "watch" else None)
    watch = state.get("watch_url") or (public_url(f"/w/{table_id}", token=watch_token) if watch_token else None)
    if watch and not watch.startswith("http"):
        watch = public_url(watch)
    return {"join": join, "watch": watch, "watch_token": watch_token}


# ---------------------------------------------------------------- routes


@bp.get("/")
def new_table():
    tournament = None
    if request.args.get("tournament"):
        row, err = _tournament_or_error(request.args["tournament"], request.args.get("ttoken"), organiser=True)
        if err:
            return err
        state = current_app.extensions["mus_tournaments"].state(row["id"])
        tournament = {"id": row["id"], "name": row["name"], "token": row["token"], "teams": _known_teams(state),
                      "rules": state["rules"]}
    # a fixture's names whole: a name longer than a team's may be is said so when the table is
    # asked for (as the league's form says it), never cut here to some other team's name
    prefill = [request.args.get(f"team{k}", "").strip() if tournament else "" for k in (0, 1)]
    # a tournament's table is opened with the tournament's rules (another is flagged on its page)
    rules = tournament["rules"] if tournament else Rules().to_json()
    return _render("new.html", page="new", seats=SEATS, tournament=tournament, prefill=prefill, rules=rules,
                   rules_line=i18n.rules_text(current_lang(), rules),
                   vacas_choices=sorted({1, 2, 3, 4, 5, rules["vacas_to_win"]}),
                   boot=Markup(_script_json({"tournament": tournament})))


def _known_teams(state: dict[str, Any]) -> list[str]:
    """The team names a tournament's new table offers (its datalist): the teams the organiser
    entered (the league's, its groups', the final stage's) as entered, then those that played
    under another spelling, one of each name (`engine.team_key`), in alphabetical order."""
    entered = [*(state.get("teams") or []), *((state.get("knockout") or {}).get("teams") or [])]
    played = [r["team"] for r in state.get("standings") or []]
    known: dict[str, str] = {}
    for name in (*entered, *played):
        known.setdefault(team_key(name), name)
    return sorted(known.values(), key=lambda name: (name.casefold(), name))


@bp.get("/manifest.webmanifest")
def manifest():
    """The web app manifest: a phone adds the app to its home screen under its name, in
    the reader's language, opening on the new-table page (which lists the recent tables)."""
    lang = current_lang()
    name = i18n.strings(lang)["app.name"]
    icons = [{"src": url_for(endpoint, size=n), "sizes": f"{n}x{n}", "type": "image/png", "purpose": purpose}
             for endpoint, purpose in (("pages.icon", "any"), ("pages.icon_maskable", "maskable"))
             for n in app_icon.SIZES if n != 180]  # 180 is Apple's, named by the page
    body = {"name": name, "short_name": "Mus", "lang": lang, "dir": "ltr", "id": "/",
            "start_url": url_for("pages.new_table"), "scope": "/", "display": "standalone",
            "background_color": "#f8f2e7", "theme_color": "#1e4d3a",
            "icons": icons}
    resp = make_response(json.dumps(body, ensure_ascii=False))
    resp.mimetype = "application/manifest+json"
    resp.headers["Cache-Control"] = "no-cache"
    resp.vary.add("Accept-Language")
    resp.vary.add("Cookie")
    return resp


def _icon_response(size: int, maskable: bool) -> Response:
    if size not in app_icon.SIZES:
        abort(404)
    resp = make_response(app_icon.png(size, maskable))
    resp.mimetype = "image/png"
    resp.headers["Cache-Control"] = "public, max-age=86400"
    return resp


@bp.get("/icon-<int:size>.png")
def icon(size: int):
    """The app's icon (180: Apple's touch icon; 192 and 512: the manifest's)."""
    return _icon_response(size, maskable=False)


@bp.get("/icon-maskable-<int:size>.png")
def icon_maskable(size: int):
    """The icon filling its square, for launchers that cut their own shape."""
    return _icon_response(size, maskable=True)


def _tournament_or_error(tournament_id: str, token: str | None, organiser: bool = False):
    """`(row with role, None)`, or `(None, error page)`: the token checked as the API does."""
    from scorer.storage.tables import StoreError
    from scorer.storage.tournaments import role_of

    if not token:
        return None, _error_page(401, "missing_token", "tour.missing_token")
    try:
        row = current_app.extensions["mus_tournaments"].get(tournament_id)
    except StoreError:
        return None, _error_page(404, "tournament_not_found")
    role = role_of(row, token)
    if role == "organise" or (role == "watch" and not organiser):
        return {**row, "role": role}, None
    if role == "watch":
        return None, _error_page(403, "read_only")
    return None, _error_page(403, "bad_token", "tour.bad_token")


@bp.get("/c/<tournament_id>")
def tournament(tournament_id: str):
    """A tournament: standings, matches; for its organiser, new tables and links."""
    token = _token_arg()
    row, err = _tournament_or_error(tournament_id, token)
    if err:
        return err
    organiser = row["role"] == "organise"
    state = current_app.extensions["mus_tournaments"].state(tournament_id, watch_links=organiser)
    # each table in play, watched read-only: the organiser's answer carries every table's
    # watch token; a watcher's page gets those of the tables still played (never the players')
    watch_tokens = {m["table"]: m["watch_token"] for m in state["matches"] if m.get("watch_token")}
    if not organiser:
        store = current_app.extensions["mus_store"]
        for m in state["matches"]:
            if not m["finished"]:
                with contextlib.suppress(StoreError):  # deleted since it was listed
                    watch_tokens[m["table"]] = store.runtime(m["table"]).watch_token
    boot = {"id": tournament_id, "token": token, "role": row["role"], "state": state,
            "api": f"/api/tournaments/{tournament_id}"}
    return _render(
        "tournament.html",
        page="tournament",
        state=state,
        role=row["role"],
        token=token,
        watch_url=public_url(f"/c/{tournament_id}", token=row["watch_token"]),
        organiser_url=public_url(f"/c/{tournament_id}", token=row["token"]) if organiser else None,
        qr=url_for("pages.tournament_qr", tournament_id=tournament_id, token=token),
        new_table=url_for("pages.new_table", tournament=tournament_id, ttoken=token) if organiser else None,
        knockout_teams=_knockout_teams(state),
        withdraw_choices=_withdraw_choices(state),
        # a cup played as a knockout only: no league teams entered, no league match for a withdrawal's results to touch
        cup=not state["teams"] and not any(m["stage"] == "league" for m in state["matches"]),
        watch_tokens=watch_tokens,
        tie_breaks=tie_breaks,
        rules_differ_text=lambda differ: i18n.rules_differ_text(current_lang(), differ),
        rules_text=lambda rules: i18n.rules_text(current_lang(), rules),
        rules=state["rules"],  # the organiser's form of them
        vacas_choices=sorted({1, 2, 3, 4, 5, state["rules"]["vacas_to_win"]}),
        round_labels=[i18n.short_date(current_lang(), d) for d in state["round_dates"] or []],
        return_legs=_return_legs(row, state),
        boot=Markup(_script_json(boot)),
    )


def _return_legs(row: dict[str, Any], state: dict[str, Any]) -> dict[int, str]:
    """Where the fixtures' return leg starts, as the draw has it: `{round index: heading}`,
    "Segunda vuelta" where every group's starts at one round, else one heading per round
    naming the groups whose return leg starts there ("Segunda vuelta · Grupo A"). Not half
    the rounds: groups of other sizes, or a leg kept longer when a team was taken out,
    give legs of other lengths."""
    from scorer.engine.tournament import GROUP_NAMES

    if state["legs"] != 2 or not state["fixtures"]:
        return {}
    starts: dict[int, list[str]] = {}
    for name, legs in zip(GROUP_NAMES, row["draw"], strict=False):
        if len(legs) == 2 and legs[1]:
            starts.setdefault(len(legs[0]), []).append(name)
    lang = current_lang()
    leg2 = i18n.t(lang, "tour.leg2")
    if len(starts) == 1 or not state["groups"]:
        return {min(starts): leg2} if starts else {}
    return {k: leg2 + " · " + ", ".join(i18n.t(lang, "tour.group", name=n) for n in names)
            for k, names in starts.items()}


def _knockout_teams(state: dict[str, Any]) -> list[str]:
    """The final stage's seeds as drawn, else the teams a bracket would take from the
    league or its groups (`qualifiers`), for the organiser to put right."""
    from scorer.engine.tournament import qualifiers

    if state["knockout"]:
        return state["knockout"]["teams"]
    return qualifiers(state)


def _withdraw_choices(state: dict[str, Any]) -> list[str]:
    """The teams the withdrawal form offers: the league's entered teams, then the final
    stage's seeds that are none of them (`storage.tournaments.withdrawable`: a cup played
    as a knockout only), but for those withdrawn already (by `team_key`)."""
    from scorer.storage.tournaments import withdrawable

    gone = {team_key(w["team"]) for w in state["withdrawn"]}
    seeds = state["knockout"]["teams"] if state["knockout"] else None
    return [t for t in withdrawable(state["teams"], seeds) if team_key(t) not in gone]


@bp.get("/c/<tournament_id>/qr.svg")
def tournament_qr(tournament_id: str):
    row, err = _tournament_or_error(tournament_id, _token_arg())
    if err:
        return err
    url = public_url(f"/c/{tournament_id}", token=row["watch_token"])
    resp = Response(qr_svg(url, url), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "private, max-age=300"
    return resp


@bp.get("/decks")
def decks():
    """Teach the reader a club's deck (the API asks for the admin key; the page asks for it).
    `?from=` the table page that linked here (its unfamiliar-deck warning): "Volver a la
    mesa" goes back to it; without one, or one that is not a table page, to the tables."""
    from web.decks import SUITS

    return _render("decks.html", page="decks", suits=SUITS, back=_table_path(request.args.get("from")))


_TABLE_PATH = re.compile(r"/[tw]/[A-Za-z0-9_-]{1,64}")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,128}")


def _table_path(value: str | None) -> str | None:
    """A table page's own path on this server (`/t/<id>?token=…`, `/w/<id>?token=…`) from a
    `from=` address, rebuilt from its parts (its token kept, nothing else); None for any other
    address (another site's, `//host/…`, a scheme, another page): no open redirect."""
    if not value or len(value) > 512:
        return None
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or not _TABLE_PATH.fullmatch(parts.path):
        return None
    tokens = parse_qs(parts.query).get("token") or []
    if len(tokens) > 1 or (tokens and not _TOKEN.fullmatch(tokens[0])):
        return None
    return parts.path + (f"?{urlencode({'token': tokens[0]})}" if tokens else "")


@bp.get("/t/<table_id>")
def table(table_id: str):
    state, token, role, err = _table_or_error(table_id)
    if err:
        return err
    if role == "watch":
        return redirect(url_for("pages.watch", table_id=table_id, token=token))
    return _table_page(table_id, state, token, role)


@bp.get("/w/<table_id>")
def watch(table_id: str):
    state, token, role, err = _table_or_error(table_id)
    if err:
        return err
    return _table_page(table_id, state, token, "watch")


def _photo_bytes_limit() -> int | None:
    """The most bytes a photo may weigh (`MAX_CONTENT_LENGTH`, as the API takes it; None: no limit)."""
    cap = current_app.config.get("MAX_CONTENT_LENGTH")
    return int(cap) if cap else None


def _table_page(table_id: str, state: dict, token: str | None, role: str) -> Response:
    links = _links(table_id, state, token, role)
    boot = {
        "table_id": table_id,
        "token": token,
        "role": role,
        "state": state,
        "links": links,
        "api": f"/api/tables/{table_id}",
        "qr": {
            "join": url_for("pages.qr", table_id=table_id, token=token, **{"for": "join"}) if links["join"] else None,
            # the watchers' code is fetched with the watch token: a read carries no players' token
            "watch": url_for("pages.qr", table_id=table_id, token=links["watch_token"] or token, **{"for": "watch"})
            if links["watch"]
            else None,
        },
        "history": url_for("pages.history", table_id=table_id, token=token),
        "sheet": url_for("pages.sheet", table_id=table_id, token=token),
        "low_confidence": LOW_CONFIDENCE,  # a card read less sure than this is shown for a person to check
        "max_photos": MAX_PHOTOS,  # photos of one showdown read together
        # the largest photo taken, for the page's words refusing one: bytes (None: no limit), megapixels
        "photo_limit": {"bytes": _photo_bytes_limit(), "megapixels": int(round(MAX_PIXELS / 1e6, -1))},
        "dispute_grammar": grammar(),  # how dispute.js reads a dispute's rule and effect, as the engine does
        # a stream silent past two heartbeats is stalled; an answer later than the timeout is lost
        "live": {"heartbeat_ms": round(float(current_app.config["SSE_HEARTBEAT"]) * 1000),
                 "timeout_ms": round(float(current_app.config["CLIENT_TIMEOUT"]) * 1000)},
    }
    return _render(
        "table.html",
        tournaments=current_app.extensions["mus_tournaments"].names_for(table_id),
        page="watch" if role == "watch" else "table",
        state=state,
        boot=Markup(_script_json(boot)),
        table_id=table_id,
        role=role,
        links=links,
        token=token,
    )


@bp.get("/t/<table_id>/qr.svg")
def qr(table_id: str):
    state, token, role, err = _table_or_error(table_id)
    if err:
        return err
    links = _links(table_id, state, token, role)
    which = request.args.get("for", "join")
    url = links.get("watch" if which == "watch" else "join")
    if not url:
        abort(404)
    resp = Response(qr_svg(url, url), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "private, max-age=300"
    return resp


@bp.get("/t/<table_id>/hands/<int:n>/explain")
def hand_explain(table_id: str, n: int):
    """`{"n": n, "lines": [...]}`: hand `n`'s count in the page's language."""
    state, token, role, err = _table_or_error(table_id, json_errors=True)
    if err:
        return err
    hands = state.get("hands") or []
    if not 1 <= n <= len(hands):
        return _json_error(404, "not_found")
    resp = jsonify({"n": n, "lines": explain_lines(state, hands[n - 1], current_lang())})
    resp.headers["Cache-Control"] = "private, max-age=60"
    return resp


@bp.get("/t/<table_id>/history")
def history(table_id: str):
    state, token, role, err = _table_or_error(table_id)
    if err:
        return err
    back = url_for("pages.watch" if role == "watch" else "pages.table", table_id=table_id, token=token)
    return _render(
        "history.html",
        page="history",
        state=state,
        table_id=table_id,
        token=token,
        read_token=state.get("watch_token") or token,  # links that only read carry the watch token
        role=role,
        back=back,
        hands=list(reversed(_with_photos(table_id, _hand_rows(state)))),
        card_name=_card_namer(),
        boot=Markup(_script_json({"table_id": table_id, "token": token, "role": role})),
    )


@bp.get("/t/<table_id>/sheet")
def sheet(table_id: str):
    state, token, role, err = _table_or_error(table_id)
    if err:
        return err
    back = url_for("pages.watch" if role == "watch" else "pages.table", table_id=table_id, token=token)
    return _render(
        "sheet.html",
        page="sheet",
        tournaments=current_app.extensions["mus_tournaments"].names_for(table_id),
        state=state,
        table_id=table_id,
        token=token,
        back=back,
        games=_games(state),
        date=i18n.long_date(current_lang(), state["created"]) if state.get("created") else None,
    )


# ---------------------------------------------------------------- shaping the state for templates


def _card_namer():
    lang = current_lang()

    def name(card: str | None) -> str:
        return i18n.card_name(lang, card)

    return name


def explain_lines(state: dict, hand: dict, lang: str) -> list[str]:
    """The engine's count of a settled hand in words (empty if it cannot say)."""
    from scorer.engine import explain

    try:
        return list(explain(hand.get("settlement") or {}, hand.get("record") or {}, list(state.get("players") or []),
                            lang, list(state.get("teams") or []) or None))
    except Exception:  # the words are a nicety; the page shows the events anyway
        current_app.logger.exception("explain failed")
        return []


def _for_my_part(actions: list) -> list:
    """A lance's actions, each `paso` said facing a bet marked `mine`: "for my part" (para
    mí no, nere gatik tira), where the partner still answers."""
    out, bet = [], False
    for a in actions:
        if isinstance(a, dict):
            out.append({**a, "mine": True} if bet and a.get("act") == "paso" else a)
            bet = bet or a.get("act") in ("envido", "mas", "ordago")
    return out


def _hand_rows(state: dict) -> list[dict]:
    """One row per played hand: its number, esku, record, settlement, what was said by
    lance, the points each team took in each lance, the count in words."""
    lang = current_lang()
    rows = []
    for i, hand in enumerate(state.get("hands") or []):
        record = hand.get("record") or {}
        settlement = hand.get("settlement") or {}
        bets = record.get("bets") or {}
        declared = record.get("declared") or {}
        # what was said in the order it is said at the table: each declaration before its
        # lance's bets, each lance's declarations from the esku on, as (seat, yes/no/None)
        said: list[tuple[str, str, list]] = []
        esku = record.get("esku") if record.get("esku") in range(4) else 0
        for lance in LANCES:
            if lance in ("pares", "juego") and declared.get(lance):
                said.append(("declare", lance, [((esku + k) % 4, declared[lance][(esku + k) % 4])
                                                for k in range(len(declared[lance]))]))
            if bets.get(lance):
                said.append(("bets", lance, _for_my_part(bets[lance])))
        points = {lance: [0, 0] for lance in LANCES}
        for ev in settlement.get("events") or []:
            lance, team = ev.get("lance"), ev.get("team")
            if lance in points and team in (0, 1):
                points[lance][team] += int(ev.get("stones") or 0)
        rows.append(
            {
                "n": hand.get("n", i + 1),
                "esku": record.get("esku"),
                "record": record,
                "settlement": settlement,
                "said": said,
                "quiet": not any(bets.get(lance) for lance in LANCES),
                "hands": record.get("hands"),
                "points": points,
                "photo_id": hand.get("photo_id"),
                "explain": hand.get("explain") or settlement.get("explain") or explain_lines(state, hand, lang),
                "score": settlement.get("score"),
                "game_over": bool(settlement.get("game_over")),
                "winner": settlement.get("winner"),
            }
        )
    return rows


def _with_photos(table_id: str, rows: list[dict]) -> list[dict]:
    """Each row with `photo_ids`: all the photos of its showdown, first first."""
    from scorer.storage.tables import StoreError

    store = current_app.extensions["mus_store"]
    for row in rows:
        try:
            row["photo_ids"] = [p for p, _ in store.photo_set(table_id, row["photo_id"], scans=False)] \
                if row["photo_id"] else []
        except StoreError:  # gone since the state was read
            row["photo_ids"] = []
    return rows


def _games(state: dict) -> list[dict]:
    """The hands cut into games (a game ends with a settlement whose `game_over`)."""
    games: list[dict] = [{"n": 1, "rows": [], "winner": None}]
    for row in _hand_rows(state):
        games[-1]["rows"].append(row)
        if row["game_over"]:
            games[-1]["winner"] = row["winner"]
            games.append({"n": len(games) + 1, "rows": [], "winner": None})
    if not games[-1]["rows"] and len(games) > 1:
        games.pop()
    return games
