"""The page routes without a browser (Flask's test client): tokens checked like the
API, languages, the QR code, history, sheet and the count in words."""

from __future__ import annotations

import json
import re
import string

import pytest

from web import create_app, i18n

HANDS = [["12o", "12c", "3e", "11b"], ["1o", "2c", "4e", "5b"], ["7o", "7c", "10e", "6b"], ["4o", "5c", "6e", "11o"]]
HOLDS = {"pares": [True, True, True, False], "juego": [True, False, False, False]}


@pytest.fixture()
def client(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True})
    with app.test_client() as c:
        yield c


@pytest.fixture()
def table(client):
    r = client.post("/api/tables", json={"teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"],
                                         "rules": {"kings": 8, "target": 40}, "esku": 0})
    assert r.status_code == 201
    return r.get_json()


def _write(client, table, path, body):
    st = client.get(f"/api/tables/{table['id']}?token={table['token']}").get_json()
    r = client.post(f"/api/tables/{table['id']}/{path}?token={table['token']}",
                    json={"client_id": f"{path}-{st['version']}", "version": st["version"], **body})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _play_hand(client, table, bet_at_pares: bool = False):
    """Envido and quiero at grande, then paso to the showdown (with `bet_at_pares`, paso
    at grande, an envido at pares and no quiero to it), pares and juego declared truly."""
    if bet_at_pares:
        st = _write(client, table, "actions", {"action": {"seat": 0, "act": "paso"}})
    else:
        st = _write(client, table, "actions", {"action": {"seat": 0, "act": "envido", "n": 2}})
        st = _write(client, table, "actions", {"action": {"seat": 1, "act": "quiero"}})
    while st["current"]["phase"] not in ("showdown", "over"):
        cur = st["current"]
        acts = {a["act"] for a in cur["legal"]}
        decl = [a for a in cur["legal"] if a["act"] == "declare"]
        seat = cur["to_speak"]
        if decl:
            lance = "pares" if "pares" in decl[0] else "juego"
            action = {"seat": seat, "act": "declare", lance: HOLDS[lance][seat]}
        elif bet_at_pares and cur["phase"] == "pares" and "envido" in acts:
            action = {"seat": seat, "act": "envido", "n": 2}
        elif bet_at_pares and "no_quiero" in acts:
            action = {"seat": seat, "act": "no_quiero"}
        else:
            action = {"seat": seat, "act": "paso"}
        st = _write(client, table, "actions", {"action": action})
    return _write(client, table, "showdown", {"hands": HANDS})


def _boot(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="boot">(.*?)</script>', html, re.S)
    assert m
    return json.loads(m.group(1))


def test_pages_check_the_token_like_the_api(client, table):
    tid = table["id"]
    ok = client.get(f"/t/{tid}?token={table['token']}")
    assert ok.status_code == 200
    boot = _boot(ok.get_data(as_text=True))
    assert boot["role"] == "play" and boot["state"]["id"] == tid
    assert boot["links"]["watch_token"] == table["watch_token"]
    # the watch token reads only: the players' page sends it to the spectators' page
    r = client.get(f"/t/{tid}?token={table['watch_token']}")
    assert r.status_code == 302 and f"/w/{tid}" in r.headers["Location"]
    w = client.get(f"/w/{tid}?token={table['watch_token']}")
    assert w.status_code == 200 and _boot(w.get_data(as_text=True))["role"] == "watch"
    assert 'id="actions"' not in w.get_data(as_text=True)
    assert "watch_token" not in _boot(w.get_data(as_text=True))["state"]
    for path, status in [(f"/t/{tid}", 401), (f"/t/{tid}?token=nope", 403), ("/t/nosuch?token=x", 404),
                         (f"/t/{tid}/history?token=nope", 403), (f"/t/{tid}/sheet", 401),
                         (f"/t/{tid}/qr.svg?token=nope", 403)]:
        assert client.get(path).status_code == status, path


def test_errors_and_pages_speak_the_phones_language(client, table):
    r = client.get(f"/t/{table['id']}?token=nope", headers={"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"})
    assert r.headers["Content-Language"] == "fr"
    assert i18n.t("fr", "err.bad_token") in r.get_data(as_text=True)
    r = client.get("/", headers={"Accept-Language": "eu,es;q=0.8"})
    assert '<html lang="eu">' in r.get_data(as_text=True) and "Mahai berria" in r.get_data(as_text=True)
    r = client.get("/?lang=en", headers={"Accept-Language": "es"})
    assert "New table" in r.get_data(as_text=True)
    assert "mus_lang=en" in r.headers.get("Set-Cookie", "")
    assert "New table" in client.get("/", headers={"Accept-Language": "es"}).get_data(as_text=True)


def test_a_refused_creation_is_said_in_the_phones_language(tmp_path):
    # the new-table page creates tables and tournaments through the API; a 429
    # `too_many_creations` is shown in the page's words for that code (`ApiError.text`)
    app = create_app({"DATABASE": str(tmp_path / "r.db"), "TESTING": True, "CREATE_MAX_PER_ADDRESS": 1})
    c = app.test_client()
    assert c.post("/api/tables", json={}).status_code == 201
    r = c.post("/api/tournaments", json={"name": "Liga"})
    assert r.status_code == 429 and r.json["error"]["code"] == "too_many_creations"
    said = set()
    for lang in ("es", "eu", "fr", "en"):
        html = c.get(f"/?lang={lang}").get_data(as_text=True)
        m = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', html, re.S)
        assert m
        text = json.loads(m.group(1))["err.too_many_creations"]
        assert text == i18n.error_text(lang, "too_many_creations") != i18n.t(lang, "err.generic")
        said.add(text)
    assert len(said) == 4


def test_every_language_has_every_string():
    for lang in ("es", "eu", "fr"):
        missing = [k for k in i18n.EN if k not in i18n._TABLES[lang]]
        assert not missing, (lang, missing)
        unknown = [k for k in i18n._TABLES[lang] if k not in i18n.EN]  # a key English lacks: a typo
        assert not unknown, (lang, unknown)
    assert i18n.parse_accept_language("eu-ES;q=0.9, fr;q=0.95, *;q=0.1") == ["fr", "eu"]
    assert i18n.pick_lang(None, None, "de-DE,de;q=0.9") == "es"


def test_basque_case_endings_follow_the_names_last_letter():
    """A Basque string writes a case ending with both forms ("{name}(e)k"); the name's
    last letter chooses: a vowel -k, a consonant -ek (an r doubled), a team in -ak is a
    plural; the pages' templates fill their strings the same way."""
    assert i18n.t("eu", "table.to_speak", name="Ane") == "Anek hitz egiten du"
    assert i18n.t("eu", "table.to_speak", name="Miren") == "Mirenek hitz egiten du"
    assert i18n.t("eu", "table.to_speak", name="Iker") == "Ikerrek hitz egiten du"
    assert i18n.t("eu", "table.to_speak", name="Iñaki") == "Iñakik hitz egiten du"
    assert i18n.t("eu", "table.to_speak", name="Jon {x}") == "Jon {x}(e)k hitz egiten du"  # braces kept, no letter last
    assert i18n.t("eu", "score.game_won", team="Gorriak") == "Jokoa Gorrientzat"
    assert i18n.t("eu", "score.vaca_won", team="Osasuna") == "Baka Osasunarentzat"
    assert i18n.t("eu", "score.match_won", team="Beltzak") == "Partida Beltzentzat!"
    assert i18n.t("eu", "score.match_won", team="Aitor") == "Partida Aitorrentzat!"
    assert i18n.t("es", "table.to_speak", name="Miren") == "Habla Miren"
    # no string of any language is left showing both forms for a name of letters
    for lang in ("es", "eu", "fr", "en"):
        for key, text in i18n.strings(lang).items():
            if "{name}" in text or "{team}" in text:
                fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
                for value in ("Ane", "Miren", "Gorriak"):
                    said = i18n.fill(text, {f: value for f in fields})
                    assert not re.search(r"\((e|r)\)", said), (lang, key, said)


@pytest.mark.parametrize("lang", ["es", "eu", "fr", "en"])
def test_the_words_of_a_dispute_are_the_engines_alone(client, table, lang):
    """The table page's script says a dispute with the engine's words (the lances' names,
    dispute.*, rule.*, effect.*, in the page's strings) and its patterns (in the boot);
    the pages' own tables do not say any of them again."""
    from scorer.engine.explain import effect_words, grammar, words

    html = client.get(f"/t/{table['id']}?token={table['token']}&lang={lang}").get_data(as_text=True)
    strings = json.loads(re.search(r'<script type="application/json" id="i18n">(.*?)</script>', html, re.S).group(1))
    assert _boot(html)["dispute_grammar"] == grammar()
    w = words(lang)
    engine = {**{f"lance.{lance}": w[lance] for lance in grammar()["lances"]},
              **{k.replace("_", ".", 1): v for k, v in w.items() if k.startswith(("dispute_", "rule_"))},
              **{f"effect.{k}": v for k, v in effect_words(lang).items()}}
    assert "dispute.other" in engine and "effect.reported" in engine and "rule.book_002" in engine
    assert {k: strings.get(k) for k in engine} == engine
    assert not [k for k in i18n._TABLES[lang] if k.split(".")[0] in ("lance", "dispute", "rule", "effect")]


@pytest.mark.parametrize("lang", ["es", "eu", "fr", "en"])
def test_the_unsupported_format_error_names_every_format_a_photo_may_have(lang):
    from scorer.vision.image import SUPPORTED

    said = i18n.t(lang, "err.unsupported_format").lower()
    assert all(fmt.lower() in said for fmt in SUPPORTED), said


@pytest.mark.parametrize("lang", ["es", "eu", "fr", "en"])
def test_file_inputs_sit_behind_a_button_in_the_pages_language(client, table, lang):
    """Every file input of the import forms and the deck page is hidden (the browser's own
    "Choose File / No file chosen" follows the browser's language) behind a label in the page's
    language, its chosen file's name in the element it points to; the four languages say it apart."""
    pages = ["/", f"/t/{table['id']}/history?token={table['token']}", "/decks"]
    for path in pages:
        html = client.get(f"{path}{'&' if '?' in path else '?'}lang={lang}").get_data(as_text=True)
        inputs = re.findall(r"<input type=\"file\"[^>]*>", html)
        assert inputs, path
        for tag in inputs:
            assert 'class="sr-only"' in tag and "required" in tag, tag
            named = re.search(r'aria-describedby="([^"]+)"', tag).group(1)
            assert re.search(rf'id="{named}">{re.escape(i18n.t(lang, "file.none"))}<', html), (path, named)
        if path != "/decks":  # the deck page's tiles name their suit
            assert f"<span>{i18n.t(lang, 'file.choose')}</span>" in html, path
    assert len({i18n.t(code, "file.choose") for code in i18n.LANGS}) == len({i18n.t(code, "file.none") for code in i18n.LANGS}) == 4


def test_qr_code_is_an_svg_of_the_join_and_watch_links(client, table):
    tid = table["id"]
    r = client.get(f"/t/{tid}/qr.svg?token={table['token']}&for=join")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    svg = r.get_data(as_text=True)
    assert svg.startswith("<svg") and f"/t/{tid}?token={table['token']}" in svg
    r = client.get(f"/t/{tid}/qr.svg?token={table['token']}&for=watch")
    assert f"/w/{tid}?token={table['watch_token']}" in r.get_data(as_text=True)
    # spectators can pass on the watch link, never the players' one
    assert client.get(f"/t/{tid}/qr.svg?token={table['watch_token']}&for=join").status_code == 404
    assert client.get(f"/t/{tid}/qr.svg?token={table['watch_token']}&for=watch").status_code == 200


@pytest.mark.parametrize("gpv", [1, 3])
def test_the_sheet_counts_games_beside_vacas_only_where_a_vaca_has_several(client, gpv):
    r = client.post("/api/tables", json={"teams": ["Txuriak", "Beltzak"], "rules": {"games_per_vaca": gpv}, "esku": 0})
    t = r.get_json()
    s = client.get(f"/t/{t['id']}/sheet?token={t['token']}&lang=en").get_data(as_text=True)
    head = s[s.index("Vacas"):s.index("Vacas") + 300]
    # one game a vaca: the games within the vaca are always 0-0, so not shown
    assert ("Vacas / Games" in head and "(0 – 0)" in head) if gpv > 1 else ("Games" not in head and "(0 – 0)" not in head)


@pytest.mark.parametrize(("lang", "one", "many"), [
    ("en", "8 kings, 40 stones, one game a vaca, one vaca to win", "8 kings, 40 stones, 3 games a vaca, 5 vacas to win"),
    ("es", "8 reyes, a 40 piedras, un juego por vaca, una vaca para ganar",
     "8 reyes, a 40 piedras, 3 juegos por vaca, 5 vacas para ganar"),
    ("eu", "8 errege, 40 harri, joko bat bakako, baka bat irabazteko",
     "8 errege, 40 harri, 3 joko bakako, 5 baka irabazteko"),
    ("fr", "8 rois, 40 pierres, un jeu par manche, une manche pour gagner",
     "8 rois, 40 pierres, 3 jeux par manche, 5 manches pour gagner"),
])
def test_the_sheets_rules_say_one_game_and_one_vaca_in_the_singular(client, lang, one, many):
    for rules, said in (({"games_per_vaca": 1, "vacas_to_win": 1}, one), ({"games_per_vaca": 3, "vacas_to_win": 5}, many)):
        t = client.post("/api/tables", json={"rules": {"kings": 8, "target": 40, **rules}, "esku": 0}).get_json()
        page = client.get(f"/t/{t['id']}/sheet?token={t['token']}&lang={lang}").get_data(as_text=True)
        assert said in page, (lang, rules)
        assert not re.search(r"\b1 (vacas|bakak|manches|games|juegos|jeux)\b", page)


def test_history_sheet_and_the_count_in_words(client, table):
    _play_hand(client, table)
    tid, tok = table["id"], table["token"]
    h = client.get(f"/t/{tid}/history?token={tok}", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert "Mano 1" in h and "R-R-R-C" in h and "Rey de oros" in h
    assert "Es mano Ane" in h and "Mano: " not in h  # not "Mano 1 · Mano: Ane": mano is both the hand and its esku
    s = client.get(f"/t/{tid}/sheet?token={tok}").get_data(as_text=True)
    assert "@media print" not in s and "sheet-table" in s and "Txuriak" in s
    # the game's divider beside the Juego column (the lance) is no bare "Juego 1"
    assert '<th colspan="7" class="game-divider">Juego n.º 1' in s and '<th scope="col">Juego</th>' in s
    assert "Juego 1<" not in s and "Juego 1 ·" not in s and '<th scope="col">N.º</th>' in s
    games = client.get(f"/api/tables/{tid}?token={tok}").get_json()["rules"].get("games_per_vaca") or 1
    en = client.get(f"/t/{tid}/sheet?token={tok}&lang=en").get_data(as_text=True)
    assert ("one game a vaca" if games == 1 else f"{games} games a vaca") in en and "(s)" not in en
    assert "Txuriak (left)" in en  # the pairs read left and right, not by colour alone (a printed sheet)
    r = client.get(f"/t/{tid}/hands/1/explain?token={tok}&lang=eu")
    lines = r.get_json()["lines"]
    assert r.status_code == 200 and lines and any("Ane" in line for line in lines)
    # the count names the teams as the table does, not a pair of partners
    teams = client.get(f"/api/tables/{tid}?token={tok}").get_json()["teams"]
    said = " ".join(client.get(f"/t/{tid}/hands/1/explain?token={tok}&lang=en").get_json()["lines"])
    assert any(team in said for team in teams) and " and " not in said.split(":")[0]
    assert client.get(f"/t/{tid}/hands/2/explain?token={tok}").status_code == 404


@pytest.mark.parametrize(("lang", "said"), [("en", "Thu Dec 31, 2026"), ("es", "jue 31 dic 2026"),
                                            ("eu", "2026 abe. 31, og."), ("fr", "jeu. 31 déc. 2026")])
def test_the_sheet_prints_the_day_the_table_was_opened_and_its_id(client, table, lang, said):
    import time

    tid = table["id"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", client.get(f"/api/tables/{tid}?token={table['token']}").get_json()["created"])
    store = client.application.extensions["mus_store"]
    with store.db.write() as conn:
        conn.execute("UPDATE tables SET created = ? WHERE id = ?", (time.mktime((2026, 12, 31, 21, 0, 0, 0, 0, -1)), tid))
    store._forget(tid)
    page = client.get(f"/t/{tid}/sheet?token={table['watch_token']}&lang={lang}").get_data(as_text=True)
    meta = page[page.index('class="sheet-meta"'):]
    meta = meta[:meta.index('class="team-0"')]
    assert f'<time datetime="2026-12-31">{said}</time>' in meta
    assert i18n.t(lang, "sheet.date") in meta and i18n.t(lang, "table.title") in meta and tid in meta


@pytest.mark.parametrize(("lang", "said"), [("en", "Thu Dec 31"), ("es", "jue 31 dic"), ("eu", "abe. 31, og."),
                                            ("fr", "jeu. 31 déc.")])
def test_a_date_in_each_language(lang: str, said: str) -> None:
    from web import i18n

    assert i18n.short_date(lang, "2026-12-31") == said
    for key in ("date.months", "date.weekdays"):  # twelve months, seven days, in every language
        assert len(i18n.t(lang, key).split(",")) == (12 if key == "date.months" else 7)


@pytest.mark.parametrize(("lang", "said"), [("es", "No hay ninguna página"), ("en", "There is no page")])
def test_an_unknown_address_gets_the_apps_own_page_in_the_readers_language(client, lang, said) -> None:
    for path in ("/nope", "/t/", "/c/", "/static/nope.js"):
        r = client.get(f"{path}?lang={lang}")
        page = r.get_data(as_text=True)
        assert r.status_code == 404 and r.mimetype == "text/html", path
        assert said in page and 'name="viewport"' in page and 'data-code="page_not_found"' in page
    r = client.post(f"/?lang={lang}")  # a page that only reads
    assert r.status_code == 405 and "GET" in r.headers["Allow"] and 'class="panel error-panel"' in r.get_data(as_text=True)
    assert client.get("/api/nope").mimetype == "application/json"  # the API keeps its JSON errors


def test_the_history_lists_what_was_said_in_the_order_it_was_said(client, table):
    _play_hand(client, table, bet_at_pares=True)
    page = client.get(f"/t/{table['id']}/history?token={table['token']}&lang=en").get_data(as_text=True)
    said = page[page.index('class="said-list"'):page.index("</ul>", page.index('class="said-list"'))]
    labels = re.findall(r'<span class="said-lance">([^<]+)</span>', said)
    assert labels.index("Pares?") + 1 == labels.index("Pares")  # the declarations, then the bets on them
    assert labels[0] == "Grande" and 'class="hint"' not in said


def _history_of_one_hand(client, lang: str, *, esku: int = 0, pares: list[bool], bets: dict | None = None) -> str:
    """The history page, in `lang`, of a match imported with one hand (the same sixteen
    cards, esku `esku`, the pares declared `pares`, no juego, `bets`)."""
    header = {"format": "mus-match/1", "teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"],
              "rules": {"kings": 8, "target": 40}, "esku": esku}
    hand = {"hands": [["12o", "12c", "4e", "5b"], ["1o", "4o", "6o", "7o"], ["11c", "11e", "6c", "7c"],
                      ["5c", "6e", "7e", "10b"]],
            "declared": {"pares": pares, "juego": [False, False, False, False]}, "bets": bets or {}}
    r = client.post("/api/tables/import", data=json.dumps(header) + "\n" + json.dumps(hand) + "\n",
                    headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 201, r.json
    return client.get(f"/t/{r.json['id']}/history?token={r.json['token']}&lang={lang}").get_data(as_text=True)


def test_the_history_lists_the_declarations_from_the_esku_on(client):
    page = _history_of_one_hand(client, "en", esku=2, pares=[True, False, True, False])
    said = page[page.index('class="said-declare"'):page.index("</li>", page.index('class="said-declare"'))]
    # Iker (seat 2) is esku: he speaks first, then Maite, Ane and Bixente, each in the team's colour
    assert re.findall(r'<b class="tc">([^<]+)</b>', said) == ["Iker", "Maite", "Ane", "Bixente"]
    assert re.findall(r'class="team-(\d) said-act"', said) == ["0", "1", "0", "1"]
    assert said.count("Yes") == 2 and said.count("No") == 2


def test_every_response_carries_the_security_headers(tmp_path) -> None:
    from web import create_app

    app = create_app({"DATABASE": str(tmp_path / "h.db"), "TESTING": True})
    c = app.test_client()
    t = c.post("/api/tables", json={}).json
    for url in ("/", f"/t/{t['id']}/sheet?token={t['watch_token']}", "/api/nothing-here", "/static/style.css",
                f"/api/tables/{t['id']}/export?token={t['token']}"):
        r = c.get(url)
        csp = r.headers.get("Content-Security-Policy", "")
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, url
        assert "unsafe-inline" not in csp, url
        assert r.headers["X-Content-Type-Options"] == "nosniff", url
        assert r.headers["Referrer-Policy"] == "no-referrer", url
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"  # the export
    # pages hold no inline script or style for that CSP to refuse
    for url in ("/", f"/t/{t['id']}/sheet?token={t['watch_token']}", "/decks"):
        html = c.get(url).get_data(as_text=True)
        assert " style=" not in html and " onclick=" not in html, url
        import re

        inline = [m for m in re.findall(r"<script([^>]*)>", html) if "src=" not in m and "application/json" not in m]
        assert inline == [], (url, inline)


def test_the_history_reads_with_the_watch_token(tmp_path) -> None:
    # its export and photo links only read: they carry the watch token, so that a copied
    # link or a proxy's log never holds the token that writes
    from web import create_app

    app = create_app({"DATABASE": str(tmp_path / "w.db"), "TESTING": True})
    c = app.test_client()
    t = c.post("/api/tables", json={}).json
    html = c.get(f"/t/{t['id']}/history?token={t['token']}").get_data(as_text=True)
    assert f"export?token={t['watch_token']}" in html
    assert f"export?token={t['token']}" not in html
    assert f"/t/{t['id']}?token={t['token']}" in html  # the way back is still the players' page
    page = c.get(f"/t/{t['id']}?token={t['token']}").get_data(as_text=True)
    assert t["watch_token"] in page  # the players' page shows the spectators' code with it


def test_a_hands_count_answers_its_errors_in_json(tmp_path) -> None:
    # app.js fetches /t/<id>/hands/<n>/explain: its refusals are the API's JSON errors
    from web import create_app

    app = create_app({"DATABASE": str(tmp_path / "x.db"), "TESTING": True})
    c = app.test_client()
    t = c.post("/api/tables", json={}).json
    for url, status, code in ((f"/t/{t['id']}/hands/1/explain", 401, "missing_token"),
                              (f"/t/{t['id']}/hands/1/explain?token=nope", 403, "bad_token"),
                              (f"/t/{t['id']}/hands/1/explain?token={t['token']}", 404, "not_found"),
                              (f"/t/nope/hands/1/explain?token={t['token']}", 404, "not_found")):
        r = c.get(url)
        assert r.status_code == status and r.mimetype == "application/json", url
        assert r.json["error"]["code"] == code and r.json["error"]["message"], url


def test_the_history_says_a_paso_facing_a_bet_for_my_part_and_no_dispute_as_data(client):
    """A paso said facing a bet reads "Not for me" (the partner still answers), one said
    before any bet "Paso"; a dispute is said in words, never as its JSON."""
    page = _history_of_one_hand(client, "en", pares=[True, True, True, False], bets={"grande": [
        {"seat": 0, "act": "paso"}, {"seat": 1, "act": "envido", "n": 2},
        {"seat": 2, "act": "paso"}, {"seat": 0, "act": "no_quiero"}]})
    grande = page[page.index('<span class="said-lance">Grande</span>'):]
    grande = grande[:grande.index("</li>")]
    words = re.findall(r'<b class="tc">([^<]+)</b> ([^<]+)</span>', grande)
    assert words == [("Ane", "Paso"), ("Bixente", "Envido"), ("Iker", "Not for me"), ("Ane", "No quiero")]
    # the count in words says each dispute in its place; no second block
    assert "Dispute: Bixente declared pares without holding it (club rules art. 13a)" in page
    assert 'class="disputes"' not in page


@pytest.mark.parametrize("lang", ["es", "eu", "fr", "en"])
def test_the_history_says_the_disputes_in_words_where_the_count_in_words_is_missing(client, monkeypatch, lang):
    """Without the count in words, the disputes are said below the events: each the
    sentence the count's "Dispute:" line says, rule and effect, word for word."""
    import html

    import web.pages
    from scorer.engine.explain import words

    counted = re.findall(rf"<li>{words(lang)['dispute']}{words(lang)['colon']}(.*?)</li>",
                         _history_of_one_hand(client, lang, pares=[True, True, True, False]))
    monkeypatch.setattr(web.pages, "explain_lines", lambda *args: [])
    page = _history_of_one_hand(client, lang, pares=[True, True, True, False])
    block = page[page.index('class="disputes"'):]
    block = block[:block.index("</ul>")]
    below = re.findall(r"<li>(.*?)</li>", block)
    assert len(below) == 2 and below == counted, (below, counted)
    assert "kind" not in block and "seed" not in block and "{" not in block
    if lang == "es":
        assert html.unescape(below[0]).startswith("Bixente dijo pares sin tenerlos (reglamento de club art. 13a): ")
        assert html.unescape(below[1]).startswith("Iker tenía juego sin declararlo")


LAN = "192.0.2.2"  # this machine's LAN address, as the pages would find it


def _listening_app(tmp_path, listening: list[str] | None):
    """An app told the addresses `serve` listens on (None: not told)."""
    config = {"DATABASE": str(tmp_path / "mus.db"), "TESTING": True}
    if listening is not None:
        config["LISTEN_ADDRESSES"] = listening
    return create_app(config)


def _links_name(client, base: str, host: str) -> dict:
    """A table's and a tournament's links, QR codes and page, asked for at `base`, all name
    `host`; returns the tournament."""
    table = client.post("/api/tables", json={}, base_url=base).get_json()
    tid = table["id"]
    assert table["join_url"] == f"http://{host}/t/{tid}?token={table['token']}", table
    assert table["watch_url"] == f"http://{host}/w/{tid}?token={table['watch_token']}", table
    links = _boot(client.get(f"/t/{tid}?token={table['token']}", base_url=base).get_data(as_text=True))["links"]
    assert links["join"] == table["join_url"] and links["watch"] == table["watch_url"], links
    svg = client.get(f"/t/{tid}/qr.svg?token={table['token']}&for=join", base_url=base).get_data(as_text=True)
    assert f"<title>{table['join_url']}</title>" in svg
    club = client.post("/api/tournaments", json={"name": "Liga"}, base_url=base).get_json()
    assert club["watch_url"] == f"http://{host}/c/{club['id']}?token={club['watch_token']}", club
    return club


@pytest.mark.parametrize(("listening", "host"), [
    (["127.0.0.1"], "127.0.0.1:37059"),  # `serve --host 127.0.0.1`: nothing answers on the LAN
    (["::1"], "127.0.0.1:37059"),
    (["::"], "127.0.0.1:37059"),  # IPv6 only: the IPv4 LAN address is not listened on
    (None, "127.0.0.1:37059"),  # served some other way: where it listens is not known
    (["0.0.0.0"], f"{LAN}:37059"),  # `serve --host 0.0.0.0`: every IPv4 address
    ([LAN], f"{LAN}:37059"),
])
def test_links_name_the_lan_address_only_where_the_server_listens_there(tmp_path, monkeypatch, listening, host):
    """A page opened at 127.0.0.1 gives the LAN address in its links and QR codes only
    where the server listens there; the API's links are the page's."""
    from web import pages

    monkeypatch.setattr(pages, "_lan_address", lambda: LAN)
    with _listening_app(tmp_path, listening).test_client() as client:
        base = "http://127.0.0.1:37059"
        club = _links_name(client, base, host)
        page = client.get(f"/c/{club['id']}?token={club['token']}", base_url=base).get_data(as_text=True)
        assert f'href="{club["watch_url"]}"' in page
        svg = client.get(f"/c/{club['id']}/qr.svg?token={club['token']}", base_url=base).get_data(as_text=True)
        assert f"<title>{club['watch_url']}</title>" in svg
        # a phone that reached the server at its LAN address is given that address
        other = client.post("/api/tables", json={}, base_url=f"http://{LAN}:37059").get_json()
        assert other["join_url"].startswith(f"http://{LAN}:37059/t/"), other


LAN6 = "2001:db8::2"  # this machine's IPv6 address on the network, as the pages would find it


@pytest.mark.parametrize(("listening", "came_to", "host"), [
    (["::1"], "[::1]:37059", "[::1]:37059"),  # `serve --host ::1`: the loopback one, in brackets
    (None, "[::1]:37059", "[::1]:37059"),
    (["::"], "[::1]:37059", f"[{LAN6}]:37059"),  # `serve --host ::`: every IPv6 address
    (["::"], "[::1]", f"[{LAN6}]"),  # no port: none added
    (["::", "0.0.0.0"], "[::1]:37059", f"[{LAN6}]:37059"),
    ([LAN6], "[::1]:37059", f"[{LAN6}]:37059"),
    (["0.0.0.0"], "[::1]:37059", f"{LAN}:37059"),  # IPv4 only: its LAN address, as before
    (["::"], f"[{LAN6}]:37059", f"[{LAN6}]:37059"),  # reached at its IPv6 address: that one
    (["::"], "[2001:db8::9]:37059", "[2001:db8::9]:37059"),
])
def test_links_to_an_ipv6_address_are_in_brackets(tmp_path, monkeypatch, listening, came_to, host):
    """A page or the API reached at [::1]:PORT (or another IPv6 address) links an address
    in brackets (http://[::1]:PORT/...), never a bare one; where the server listens on
    every IPv6 address, the links name this machine's IPv6 address on the network, where
    phones reach it, as `serve` prints it."""
    from web import pages

    monkeypatch.setattr(pages, "_lan_address", lambda: LAN)
    monkeypatch.setattr(pages, "_lan_address6", lambda: LAN6)
    with _listening_app(tmp_path, listening).test_client() as client:
        base = f"http://{came_to}"
        _links_name(client, base, host)


def test_no_ipv6_network_leaves_the_loopback_link(tmp_path, monkeypatch):
    """`serve --host ::` on a machine with no IPv6 address on a network: a page reached at
    [::1] keeps that address (bracketed), not the IPv4 LAN one, where nothing listens."""
    from scorer.commands import serve
    from web import pages

    monkeypatch.setattr(pages, "_lan_address", lambda: LAN)
    monkeypatch.setattr(serve, "lan_address6", lambda: "::1")  # what serve finds with none
    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "LISTEN_ADDRESSES": ["::"]})
    with app.test_client() as client:
        table = client.post("/api/tables", json={}, base_url="http://[::1]:8000").get_json()
        assert table["join_url"].startswith("http://[::1]:8000/t/"), table


def test_a_public_url_names_every_link_of_the_pages_and_the_api(tmp_path, monkeypatch):
    """`PUBLIC_URL` (`serve --public-url`): the pages' links and QR codes and the API's
    links all name it, its path kept, whatever address the request came to."""
    from web import pages

    monkeypatch.setattr(pages, "_lan_address", lambda: LAN)
    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "LISTEN_ADDRESSES": ["0.0.0.0"],
                      "PUBLIC_URL": "https://mus.example.org/club/"})
    with app.test_client() as client:
        table = client.post("/api/tables", json={}, base_url="http://127.0.0.1:8000").get_json()
        tid = table["id"]
        assert table["join_url"] == f"https://mus.example.org/club/t/{tid}?token={table['token']}", table
        links = _boot(client.get(f"/t/{tid}?token={table['token']}").get_data(as_text=True))["links"]
        assert links["join"] == table["join_url"] and links["watch"] == table["watch_url"], links
        club = client.post("/api/tournaments", json={"name": "Liga"}).get_json()
        assert club["url"] == f"https://mus.example.org/club/c/{club['id']}?token={club['token']}", club
        page = client.get(f"/c/{club['id']}?token={club['token']}").get_data(as_text=True)
        assert f'href="{club["watch_url"]}"' in page and f'data-url="{club["url"]}"' in page


def test_the_count_keeps_its_card_runs_and_scores_whole() -> None:
    """A line of the count: each card run and score in a nowrap span (a phone broke
    "R-R-C-S" at its hyphens), the rest escaped as text."""
    from web.pages import keep_runs

    line = "Grande: envido 5, quiero: gana <Mikel> con R-R-C-S, +5 → 4–27 (5 amarracos y 2, klub-araudia)"
    assert str(keep_runs(line)) == ('Grande: envido 5, quiero: gana &lt;Mikel&gt; con <span class="nw">R-R-C-S</span>, '
                                    '+5 → <span class="nw">4–27</span> (5 amarracos y 2, klub-araudia)')


def test_the_pages_scripts_hold_no_regex_lookbehind() -> None:
    """A regex lookbehind (`(?<!`, `(?<=`) is a syntax error to Safari before 16.4 (iOS
    15, 16.0-16.3): it stops the whole module, so the table page did nothing at all there
    (app.js keepRuns matched the count's card runs so). A named group `(?<name>` is fine."""
    import re
    from pathlib import Path

    static = Path(__file__).parents[1] / "web" / "static"
    found = [f"{js.name}:{n}" for js in sorted(static.glob("*.js"))
             for n, line in enumerate(js.read_text(encoding="utf-8").splitlines(), 1) if re.search(r"\(\?<[=!]", line)]
    assert found == []


def _history_of_a_hand_half_declared(client, lang: str) -> str:
    """The history page, in `lang`, of one imported hand whose record says the pares
    declared and not the juego (read from the cards), with a deje at grande (envido, no
    quiero) and a bet seen at chica (envido, 2 más, quiero): Bixente's pares are false."""
    header = {"format": "mus-match/1", "teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"],
              "rules": {"kings": 8, "target": 40}, "esku": 0}
    hand = {"hands": [["12o", "12c", "4e", "5b"], ["1o", "4o", "6o", "7o"], ["11c", "11e", "6c", "7c"],
                      ["5c", "6e", "7e", "10b"]],
            "declared": {"pares": [True, True, True, False]},
            "bets": {"grande": [{"seat": 0, "act": "envido", "n": 3}, {"seat": 1, "act": "no_quiero"},
                                {"seat": 3, "act": "no_quiero"}],
                     "chica": [{"seat": 0, "act": "envido", "n": 2}, {"seat": 1, "act": "mas", "n": 2},
                               {"seat": 2, "act": "quiero"}]}}
    r = client.post("/api/tables/import", data=json.dumps(header) + "\n" + json.dumps(hand) + "\n",
                    headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 201, r.json
    return client.get(f"/t/{r.json['id']}/history?token={r.json['token']}&lang={lang}").get_data(as_text=True)


@pytest.mark.parametrize("lang", ["es", "eu", "fr", "en"])
def test_the_historys_reasons_are_in_the_page_without_script(client, monkeypatch, lang):
    """Without the count in words, each event of a hand settled by the rules (a false pares,
    the juego not said) shows its reason in the page's words in the HTML itself, as the
    table page's script says it (common.js whyText): a page without JavaScript reads them
    too. Never the engine's English for machines."""
    import html

    import web.pages
    from scorer.engine.explain import words

    monkeypatch.setattr(web.pages, "explain_lines", lambda *args: [])
    page = _history_of_a_hand_half_declared(client, lang)
    count = page[page.index('class="explain"'):]
    count = count[:count.index("</ol>")]
    events = re.findall(r'<li class="ev team-(\d)" data-lance="(\w+)">(.*?)</li>', count)
    assert [(team, lance) for team, lance, _ in events] == [("0", "grande"), ("1", "chica"), ("0", "pares"),
                                                            ("0", "juego")]
    whys = [re.findall(r'<span class="ev-why">(.*?)</span>', body) for _, _, body in events]
    w = words(lang)
    assert [html.unescape(s) for one in whys for s in one] == [
        f"{w['envido']}, {w['no_quiero']}",
        f"{w['envido']}, {w['mas'].format(n=2)}, {w['quiero']}",
        i18n.t(lang, "count.annulled", t="Txuriak"),
        i18n.t(lang, "count.only_team", t="Txuriak", l=w["juego"].lower()),
    ] and all(len(one) == 1 for one in whys), whys  # once each
    assert "data-why" not in count and not re.search(r"\b(seat|best|refused|accepted|false pares)\b", count), count
    if lang == "es":
        assert html.unescape(whys[2][0]) == "declaración falsa, apuestas anuladas: para Txuriak"
        assert html.unescape(whys[3][0]) == "solo Txuriak con juego"
    # the page's script says no reason again: the server's are the page's
    from pathlib import Path

    script = (Path(web.pages.__file__).parent / "static" / "history.js").read_text(encoding="utf-8")
    assert "whyText(" not in script and "ev-why" not in script


def test_an_events_reason_the_server_cannot_read_is_left_out() -> None:
    """A reason not of the engine's kinds is left out ("", never the English); a tira
    not declared says its stones."""
    ev = {"lance": "punto", "team": 1, "why": "undeclared juego of seat 2 (seed 002 art. 18): tira 2"}
    assert i18n.why_text("en", ev, "Beltzak") == "tira 2 to Beltzak: a combination not declared"
    assert i18n.why_text("en", {"lance": "grande", "team": 0, "why": "something new"}, "Txuriak") == ""
    assert i18n.why_text("en", {"lance": "grande", "team": 0, "why": "deje: 3 less refused"}, "Txuriak") == ""
    assert i18n.why_text("es", {"lance": "grande", "team": 0, "why": "envido 5, accepted; best grande seat 0"},
                         "Txuriak") == "envido 5, quiero"


def test_the_readme_names_the_result_forms_buttons_as_the_spanish_page_says_them() -> None:
    """The README tells an organiser which buttons enter a result without hands; the form's
    heading was renamed ("Anotar un resultado: en papel, o no presentada") while the README
    still sent them to "Introducir un resultado sin jugar", which no page shows."""
    from pathlib import Path

    from web import i18n

    readme = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8").split())
    m = re.search(r'is entered without hands \("([^"]+)", or a pairing\'s "([^"]+)"\)', readme)
    assert m, "the README's sentence on results entered without hands"
    spanish = set(i18n.strings("es").values())
    assert m.group(1) in spanish and m.group(2) in spanish, m.groups()
