"""The pages' layout on a 360 px phone in a real browser (Debian's Chromium, Playwright,
the real app on 127.0.0.1): nothing a player needs is cut short or covered.

Without Chromium these tests skip, unless `CI` is set: then they fail.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

pytestmark = pytest.mark.browser

from tests.test_web_browser_table import HANDS, Api, browser, phone, recognizer, server  # noqa: E402, F401 (fixtures)
from web.testing import PHONE, until  # noqa: E402


def clipped(page, selector: str) -> list[str]:
    """The texts of the elements matching `selector` that are cut short (an ellipsis)."""
    return page.evaluate("s => [...document.querySelectorAll(s)].filter(e => e.scrollWidth > e.clientWidth).map(e => e.textContent)",
                         selector)


def test_the_speakers_name_is_not_cut_short_at_a_side_seat(server, browser):  # noqa: F811
    """The default names ("Jugador 4") fit a side seat while that player speaks: the
    speaker's dot sits on the seat's corner, not before the name."""
    api = Api(server.url, {"teams": ["A", "B"], "players": [f"Jugador {n}" for n in (1, 2, 3, 4)], "rules": {}, "esku": 0})
    ctx = phone(browser, "es")
    try:
        page = ctx.new_page()
        for _ in range(3):
            api.act("paso")
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        page.wait_for_selector(".seat[data-seat='3'].is-speaking")
        assert page.inner_text(".seat[data-seat='3'] .seat-name") == "Jugador 4"
        assert clipped(page, ".seat-name") == []
    finally:
        ctx.close()


def a_match_won_by_an_ordago(url: str) -> Api:
    """A one-vaca match that the first team wins at once: an órdago at grande, accepted."""
    api = Api(url, {"teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"],
                    "rules": {"vacas_to_win": 1}, "esku": 0})
    api.act("ordago")
    api.act("quiero")
    api.post("showdown", {"hands": [["12o", "12c", "12e", "11b"], ["1o", "2c", "4e", "5b"],
                                    ["7o", "7c", "10e", "6b"], ["4o", "5c", "6e", "11o"]]})
    return api


@contextmanager
def end_of_match_dialog(server, browser) -> Iterator:  # noqa: F811
    """A phone's page of `a_match_won_by_an_ordago`, its end-of-match dialog open."""
    api = a_match_won_by_an_ordago(server.url)
    ctx = phone(browser, "es")
    try:
        page = ctx.new_page()
        page.goto(api.url())
        page.wait_for_selector("#endgame[open]")
        yield page
    finally:
        ctx.close()


def test_the_end_of_match_dialog_keeps_its_chart_legend_clear_of_the_button(server, browser):  # noqa: F811
    """The dialog that ends a game shows the score, the chart and its legend, then the
    button, which has the focus: its focus ring must not cover the legend's names."""
    with end_of_match_dialog(server, browser) as page:
        legend = page.locator("#endgame .legend").bounding_box()
        button = page.locator("#endgame-close").bounding_box()
        assert button["y"] - (legend["y"] + legend["height"]) >= 8  # the ring is 3 px, 2 px off the button


def test_the_charts_axis_numbers_keep_clear_of_its_first_dots(server, browser):  # noqa: F811
    """The score chart's "0" on the axis does not touch the two teams' first dots (the
    first hand starts at 0-0, right beside it)."""
    with end_of_match_dialog(server, browser) as page:
        gap = page.evaluate("""() => {
          const svg = document.querySelector('#endgame .chart-svg');
          const zero = [...svg.querySelectorAll('text.axis')].find(t => t.textContent === '0').getBBox();
          const dots = [...svg.querySelectorAll('.series circle')].map(c => c.getBBox());
          return Math.min(...dots.filter(d => d.x < 60).map(d => d.x)) - (zero.x + zero.width);
        }""")
        assert gap >= 2


def test_the_history_says_whole_who_won_the_game(server, browser):  # noqa: F811
    """A hand that ended the game says so in its folded line ("Juego para Txuriak"), whole,
    next to who was mano and the score."""
    api = a_match_won_by_an_ordago(server.url)
    ctx = phone(browser, "es")
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}/t/{api.id}/history?token={api.token}")
        assert "Juego para Txuriak" in page.inner_text("#hand-1 .hand-sum")
        assert clipped(page, ".hand-sum, .hand-n, .hand-score") == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
    finally:
        ctx.close()


def test_notes_stand_off_the_table_and_field_above_them_and_links_are_big_enough_to_tap(server, browser):  # noqa: F811
    """The standings' rule under the standings table and the deck page's key note under its
    field keep a gap (the focused field's ring does not cover the note); the deck page's
    way back is at least 40 px tall."""
    import requests

    api = a_match_won_by_an_ordago(server.url)
    tour = requests.post(f"{server.url}/api/tournaments", json={"name": "Liga"}).json()
    requests.post(f"{server.url}/api/tournaments/{tour['id']}/tables", headers={"Authorization": f"Bearer {tour['token']}"},
                  json={"table": api.id, "token": api.token}).raise_for_status()
    ctx = phone(browser, "es")
    try:
        page = ctx.new_page()

        def gap(above: str, below: str) -> float:
            a, b = page.locator(above).first.bounding_box(), page.locator(below).first.bounding_box()
            return b["y"] - (a["y"] + a["height"])

        page.goto(f"{server.url}/c/{tour['id']}?token={tour['token']}")
        assert gap("#standings .sheet-wrap", "#standings .sheet-wrap + p") >= 6
        page.goto(f"{server.url}/decks")
        page.wait_for_selector("#deck-key:not([hidden])")
        assert gap("#deck-key input[name=key]", "#deck-key .hint") >= 6
        assert page.locator(".back-link a").bounding_box()["height"] >= 40
    finally:
        ctx.close()


SEATS = """() => {
  const seat = (n) => document.querySelector(`#mesa .seat[data-seat="${n}"]`);
  const pos = (n) => document.querySelector(`#mesa .seat-pos-${n}`).offsetHeight;  // the speaker's seat is scaled: its layout's
  return {top: pos(2), bottom: pos(0), left: pos(3), right: pos(1), mesa: document.getElementById('mesa').getBoundingClientRect().height,
          badges: [0, 1, 2, 3].map((n) => seat(n).querySelectorAll('.badge').length),
          bubbles: [0, 1, 2, 3].map((n) => !seat(n).querySelector('.bubble').hidden)};
}"""


@pytest.mark.parametrize("esku", [0, 1])
def test_the_seats_facing_each_other_are_as_tall_and_the_table_keeps_its_height(server, browser, esku):  # noqa: F811
    """On the players' page and the watchers' page, the two side seats of the drawn table are
    as tall as each other, and the top and bottom seats too, whatever each holds: the esku's
    badge, what a player just said, the pares and juego each declared (the esku's three
    badges). And the table keeps its height as they come during the hand, so that the
    buttons under it stay where the finger is. The esku at the bottom, then at a side."""
    api = Api(server.url, {"teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"],
                           "rules": {}, "esku": esku})
    ctxs = [phone(browser, "es"), phone(browser, "eu")]
    try:
        pages = {"t": ctxs[0].new_page(), "w": ctxs[1].new_page()}
        for role, page in pages.items():
            page.goto(api.url(role))
            page.wait_for_selector("#live[data-state=live]")
        seen: dict[str, list[dict]] = {"t": [], "w": []}

        def look(ready: str) -> None:
            for role, page in pages.items():
                until(page, ready)
                seen[role].append(page.evaluate(SEATS))

        look(f"document.querySelector('#mesa .seat[data-seat=\"{esku}\"] .badge-esku')")
        api.act("envido", n=2)  # the esku's bubble
        look(f"!document.querySelector('#mesa .seat[data-seat=\"{esku}\"] .bubble').hidden")
        api.act("quiero")
        # on to the juego's declarations, the esku first: three badges on the esku's seat
        api.play_until(lambda cur: any(a["act"] == "declare" and "juego" in a for a in cur["log"]))
        look(f"document.querySelectorAll('#mesa .seat[data-seat=\"{esku}\"] .badge').length === 3")
        for role, states in seen.items():
            assert states[1]["bubbles"][esku] and states[2]["badges"][esku] == 3, states
            for st in states:
                assert st["left"] == st["right"] and st["top"] == st["bottom"], (role, st)
            assert max(st["mesa"] for st in states) - min(st["mesa"] for st in states) < 0.1, (role, states)
    finally:
        for ctx in ctxs:
            ctx.close()


def phone_of(browser, lang: str, size: tuple[int, int]):  # noqa: F811
    """A phone `size` wide and tall (CSS px), in `lang`, its motion reduced: the seats and
    bubbles are measured where they come to rest, not half-way through their pop."""
    ctx = browser.new_context(**{**PHONE, "viewport": {"width": size[0], "height": size[1]}}, locale=lang,
                              extra_http_headers={"Accept-Language": lang}, reduced_motion="reduce")
    ctx.set_default_timeout(8000)
    return ctx


BUBBLES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; };
  const seats = [0, 1, 2, 3].map((n) => document.querySelector(`#mesa .seat[data-seat="${n}"]`));
  return seats.map((s) => ({seat: box(s), bubble: s.querySelector('.bubble').hidden ? null : box(s.querySelector('.bubble')),
                            said: s.querySelector('.bubble').textContent, speaking: s.classList.contains('is-speaking')}));
}"""


@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
def test_a_side_seats_bubble_stays_on_its_own_seat(server, browser, size):  # noqa: F811
    """What a player said hangs off the top and bottom seats' lower edge; on a side seat (left
    or right of the felt) it sits inside the seat, on its lower edge: hung below it, it sat
    between that seat and the bottom one, which reaches into the corner, and even over it. Every
    bubble stays within its seat's width and touches no other seat's box, on the players' page
    (Spanish) and the watchers' (Basque, the longer words), a side seat speaking (its box grown) or not."""
    api = Api(server.url, {"teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"],
                           "rules": {}, "esku": 0})
    ctxs = [phone_of(browser, "es", size), phone_of(browser, "eu", size)]
    try:
        pages = {"t": ctxs[0].new_page(), "w": ctxs[1].new_page()}
        for role, page in pages.items():
            page.goto(api.url(role))
            page.wait_for_selector("#live[data-state=live]")

        def check(speaker: int) -> None:
            for role, page in pages.items():
                until(page, "[...document.querySelectorAll('#mesa .bubble')].every((b) => !b.hidden)"
                            f" && document.querySelector('#mesa .seat[data-seat=\"{speaker}\"]').classList.contains('is-speaking')")
                seats = page.evaluate(BUBBLES)
                for n, st in enumerate(seats):
                    b, own = st["bubble"], st["seat"]
                    where = (role, size, n, st["said"], seats)
                    assert own["l"] <= b["l"] and b["r"] <= own["r"], where
                    if n in (1, 3):  # a side seat's: inside it, on its lower edge
                        assert own["t"] <= b["t"] and b["b"] <= own["b"] + 0.5 and own["b"] - b["b"] <= 3, where
                    for m, other in enumerate(seats):
                        o = other["seat"]
                        if m != n:
                            assert b["r"] <= o["l"] or o["r"] <= b["l"] or b["b"] <= o["t"] or o["b"] <= b["t"], (where, m)

        # grande: Ane passes, Bixente (right) says envido, Iker and Maite (left) raise it: a bubble on every seat
        api.act("paso")
        api.act("envido", n=2)
        api.act("mas", n=2)
        api.act("mas", n=2)
        check(speaker=0)
        api.act("mas", n=2)  # Ane raises again: Bixente speaks, his seat grown, his bubble on it
        check(speaker=1)
    finally:
        for ctx in ctxs:
            ctx.close()


FELT = """() => {
  const felt = document.querySelector('#mesa .felt'), label = document.getElementById('felt-phase');
  const text = (e) => { const r = document.createRange(); r.selectNodeContents(e); return r; };
  return {height: felt.getBoundingClientRect().height, label: label.textContent, bet: document.getElementById('felt-bet').textContent,
          font: parseFloat(getComputedStyle(label).fontSize),
          lines: [...felt.children].map((e) => new Set([...text(e).getClientRects()].map((q) => Math.round(q.top))).size),
          cut: [...felt.children].filter((e) => text(e).getBoundingClientRect().width > e.getBoundingClientRect().width)
                                 .map((e) => e.textContent)};  // wider than its line, even by a fraction of a pixel: an ellipsis
}"""


def test_the_felt_keeps_its_height_through_the_hand_in_every_language(server, browser):  # noqa: F811
    """The felt, the drawn table's middle, keeps its height from the first word to the showdown:
    its lines keep to one line each. The showdown's label ("Cartas a la vista", the longest)
    wrapped onto a second line and the felt grew 9 px; a lance's bets ("Enbido · 2 gehiago ·
    2 gehiago") wrapped too. Now a long label is set smaller, whole and readable, and the first
    bets give way to "…". In the four languages on a 360 px phone, and in Spanish on a 390 px one
    and on a 360 px window in a desktop's wide font (DejaVu Sans, a tenth wider than a phone's:
    "Cartas a la vista" needs the label at 57%, where it stopped at 60% and was cut)."""
    from web import i18n

    api = Api(server.url, {"teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"],
                           "rules": {}, "esku": 0})
    phones = [(lang, (360, 740), "t") for lang in i18n.LANGS] + [("es", (390, 844), "w"), ("es", (360, 740), "w")]
    wide = len(phones) - 1  # the desktop's font
    ctxs = [phone_of(browser, lang, size) for lang, size, _ in phones]
    try:
        pages = []
        for k, (ctx, (_, _, role)) in enumerate(zip(ctxs, phones, strict=True)):
            page = ctx.new_page()
            page.goto(api.url(role))
            page.wait_for_selector("#live[data-state=live]")
            if k == wide:
                page.evaluate("document.body.style.setProperty('font-family', \"'DejaVu Sans'\", 'important')")
            pages.append(page)
        seen: list[list[dict]] = [[] for _ in pages]

        def look(phase: str) -> None:
            for page, states in zip(pages, seen, strict=True):
                until(page, f"window.musTable.state.current.phase === '{phase}'"
                            f" && window.musTable.state.current.log.length === {len(api.state()['current']['log'])}")
                states.append({"phase": phase, **page.evaluate(FELT)})

        look("grande")
        api.act("envido", n=2)
        api.act("mas", n=2)
        api.act("mas", n=2)  # three bets: too long for one line of the felt
        look("grande")
        api.act("quiero")
        api.play_until(lambda cur: cur["phase"] == "pares_declare")
        look("pares_declare")
        api.to_showdown()
        look("showdown")
        for k, ((lang, size, _), states) in enumerate(zip(phones, seen, strict=True)):
            where = (lang, size, states)
            assert max(st["height"] for st in states) - min(st["height"] for st in states) < 0.1, where
            for st in states:
                assert max(st["lines"]) <= 1 and st["cut"] == [], where
            said, bet = " · ".join([i18n.t(lang, "act.envido")] + [i18n.t(lang, "act.mas_n", n=2)] * 2), states[1]["bet"]
            assert bet == said or (bet.startswith("… ") and said.endswith(f" · {bet[2:]}")), where  # the last ones said
            shown = states[-1]
            # whole, and 12 px or more on a phone (10 px or more in the desktop's wide font)
            assert shown["label"] == i18n.t(lang, "phase.showdown") and shown["font"] >= (10 if k == wide else 12), where
    finally:
        for ctx in ctxs:
            ctx.close()


NAMES = """() => [...document.querySelectorAll('#scoreboard .team-card')].map((card) => {
  const name = card.querySelector('.team-name'), text = document.createRange();
  text.selectNodeContents(name);
  return {title: name.title, cut: name.scrollHeight > name.clientHeight + 4 || name.scrollWidth > name.clientWidth,  // a line hidden
          lines: new Set([...text.getClientRects()].map((q) => Math.round(q.top))).size,
          card: card.getBoundingClientRect().height, klass: name.className};
})"""


def test_a_long_team_name_is_read_whole_on_the_score_card(server, browser):  # noqa: F811
    """A team's name too long for its score card's line at 360 px ("Gorriak Txapel…") wraps
    onto a second line; one longer still ends in an ellipsis there, says its whole self as
    its title, and a tap shows it whole (a second folds it again). The cards stay side by
    side, as tall as each other, and the felt keeps its height."""
    tables = [Api(server.url, {"teams": teams, "players": ["Ane", "Bixente", "Iker", "Maite"], "rules": {}, "esku": 0})
              for teams in (["Gorriak", "Urdinak"], ["Gorriak Txapeldunak", "Urdinak"],
                            ["Gorriak Txapeldunak eta Lagun Zaharrak", "Urdinak"])]
    ctx = phone_of(browser, "eu", (360, 740))
    try:
        page = ctx.new_page()
        seen, felts = [], []
        for api in tables:
            page.goto(api.url())
            page.wait_for_selector("#live[data-state=live]")
            seen.append(page.evaluate(NAMES))
            felts.append(page.evaluate("document.querySelector('#mesa .felt').getBoundingClientRect().height"))
            assert page.evaluate("document.documentElement.scrollWidth") <= 360
        short, two, long = (names[0] for names in seen)
        assert short["lines"] == 1 and not short["cut"] and short["title"] == "Gorriak"
        assert two["lines"] == 2 and not two["cut"] and two["title"] == "Gorriak Txapeldunak"
        assert long["cut"] and "is-cut" in long["klass"] and long["card"] == two["card"]  # two lines, then an ellipsis
        assert long["title"] == "Gorriak Txapeldunak eta Lagun Zaharrak"
        for names in seen:
            assert names[0]["card"] == names[1]["card"], names  # side by side, as tall
        assert max(felts) - min(felts) < 0.1, felts
        page.click(".team-card.team-0 .team-name")
        whole = page.evaluate(NAMES)[0]
        assert not whole["cut"] and whole["card"] > long["card"] and "is-whole" in whole["klass"], whole
        assert page.evaluate("document.querySelector('#mesa .felt').getBoundingClientRect().height") == felts[-1]
        page.click(".team-card.team-0 .team-name")
        assert page.evaluate(NAMES)[0]["cut"]
    finally:
        ctx.close()


def played_match(url: str) -> str:
    """A match of one hand played, as `Export` saves it (mus-match/1)."""
    api = Api(url)
    api.to_showdown()
    api.post("showdown", {"hands": HANDS})
    r = api.http.get(f"{url}/api/tables/{api.id}/export")
    r.raise_for_status()
    return r.text


@pytest.mark.parametrize("where", ["new", "history"])
def test_a_match_file_is_chosen_in_the_pages_words_and_imported(server, browser, tmp_path, where):  # noqa: F811
    """The browser's own file input says "Choose File / No file chosen" in the browser's
    language: the import forms hide it behind a button in the page's language (Basque here, in a
    browser set to English), the chosen file's name beside it. The hidden input still takes the
    keyboard's focus (the button shows the ring), is still required (the page's words say so), and
    the chosen file is imported: a new table, or this table's hands."""
    from web import i18n

    match = tmp_path / "partida.jsonl"
    match.write_text(played_match(server.url), encoding="utf-8")
    ctx = browser.new_context(**PHONE, locale="en-US", extra_http_headers={"Accept-Language": "en-US,en;q=0.9"})
    ctx.set_default_timeout(8000)
    try:
        page = ctx.new_page()
        if where == "new":
            form = "#import-match"
            page.goto(f"{server.url}/?lang=eu")
        else:
            form, api = "#import-into", Api(server.url)
            page.goto(f"{server.url}/t/{api.id}/history?token={api.token}&lang=eu")
        page.click("details.import summary")
        button, name, field = f"{form} .file-btn", f"{form} .file-name", f"{form} input[type=file]"
        assert page.inner_text(button) == i18n.t("eu", "file.choose")
        assert page.inner_text(name) == i18n.t("eu", "file.none")
        seen = page.locator(field).bounding_box()
        assert seen["width"] <= 1 and seen["height"] <= 1  # the browser's own, out of sight
        # the keyboard reaches it, from the summary; the button shows where the focus is
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.type") == "file"
        assert page.eval_on_selector(button, "b => getComputedStyle(b).outlineStyle") == "solid"
        # still required: a submit without a file is stopped, and the bubble speaks the page's language
        before = page.url
        page.click(f"{form} button[type=submit]")
        assert page.eval_on_selector(field, "i => i.validity.valueMissing")
        assert page.eval_on_selector(field, "i => i.validationMessage") == i18n.t("eu", "err.missing_file")
        page.wait_for_timeout(300)
        assert page.url == before
        # the button opens the chooser; the file's name shows beside it
        with page.expect_file_chooser() as chooser:
            page.click(button)
        chooser.value.set_files(str(match))
        assert page.inner_text(name) == "partida.jsonl"
        assert page.eval_on_selector(field, "i => i.validity.valid")
        page.click(f"{form} button[type=submit]")
        if where == "new":
            page.wait_for_url(re.compile(r"/t/\w+\?"))
            page.wait_for_selector("#live[data-state=live]")
            assert page.locator("#scoreboard .team-card").count() == 2
            felt = until(page, "document.getElementById('felt-hand').textContent")
            assert felt.startswith(i18n.t("eu", "table.hand_n", n=2)), felt  # the hand imported, the next to play
        else:
            page.wait_for_selector("#hand-1")
            assert len(api.state()["hands"]) == 1
    finally:
        ctx.close()


def test_the_deck_photos_are_chosen_in_the_pages_words_and_sent(browser, tmp_path):  # noqa: F811
    """The deck page's four photo tiles hide the browser's file inputs too: each tile names its
    suit, with the chosen file's name under it (else "Aucun fichier", the page's French in a
    browser set to English); the hidden input takes the keyboard's focus (its tile shows the
    ring); a missing photo is named by its suit; the four photos chosen are sent."""
    from web import i18n
    from web.decks import SUITS
    from web.testing import LiveServer, showdown_photo

    key = "layout-test-key-0123456789"
    photos = {suit: tmp_path / f"{suit}.jpg" for suit in SUITS}
    for path in photos.values():
        path.write_bytes(showdown_photo(HANDS))
    sent: list[bytes] = []

    def decks_api(route) -> None:
        """Sent photos are kept here, not taught; the server says it can teach (the extra or not)."""
        if route.request.method == "POST":
            sent.append(route.request.post_data_buffer or b"")
            route.fulfill(status=202, json={"id": "taught-here"})
            return
        answer = route.fetch()
        route.fulfill(response=answer, json={**answer.json(), "available": True, "why": None})

    with LiveServer({"ADMIN_KEY": key}) as srv:
        ctx = browser.new_context(**PHONE, locale="en-US", extra_http_headers={"Accept-Language": "en-US,en;q=0.9"})
        ctx.set_default_timeout(8000)
        try:
            page = ctx.new_page()
            page.route(re.compile(r"/api/decks$"), decks_api)
            page.goto(f"{srv.url}/decks?lang=fr#key={key}")
            page.wait_for_selector("#deck-app:not([hidden])")
            cells = page.locator(".deck-photo-cell")
            assert cells.locator(".deck-photo-name").all_inner_texts() == [i18n.t("fr", f"decks.suit_{s}") for s in SUITS]
            assert cells.locator(".file-name").all_inner_texts() == [i18n.t("fr", "file.none")] * 4
            oros, copas = (f"#deck-new input[name={s}]" for s in SUITS[:2])
            seen = page.locator(oros).bounding_box()
            assert seen["width"] <= 1 and seen["height"] <= 1
            page.focus(copas)
            page.keyboard.press("Shift+Tab")
            assert page.evaluate("document.activeElement.name") == SUITS[0]
            assert page.eval_on_selector(".deck-photo-tile", "t => getComputedStyle(t).outlineStyle") == "solid"
            with page.expect_file_chooser() as chooser:
                page.click(".deck-photo-tile >> nth=0")
            chooser.value.set_files(str(photos[SUITS[0]]))
            assert cells.first.locator(".file-name").inner_text() == f"{SUITS[0]}.jpg"
            assert page.is_visible(".deck-photo-tile >> nth=0 >> img")
            page.click("#deck-new button[type=submit]")
            error = i18n.t("fr", "decks.photo_missing", suit=i18n.t("fr", f"decks.suit_{SUITS[1]}"))
            assert page.inner_text("#deck-new .form-error") == error
            for suit in SUITS[1:]:
                page.set_input_files(f"#deck-new input[name={suit}]", str(photos[suit]))
            assert cells.locator(".file-name").all_inner_texts() == [f"{s}.jpg" for s in SUITS]
            page.click("#deck-new button[type=submit]")
            until(page, "document.querySelector('.deck-photo-cell .file-name').textContent !== 'oros.jpg'")
            assert len(sent) == 1 and all(f'name="{s}"; filename="{s}.jpg"'.encode() in sent[0] for s in SUITS)
            assert cells.locator(".file-name").all_inner_texts() == [i18n.t("fr", "file.none")] * 4  # sent: the tiles empty
        finally:
            # a poll of /api/decks still in the handler when the context closes would fail there
            # ("Response has been disposed") and surface in the next test's first call
            for open_page in ctx.pages:
                open_page.unroute_all(behavior="ignoreErrors")
            ctx.close()


def test_the_history_prints_every_hand_whole_and_not_its_buttons(server, browser):  # noqa: F811
    """Printed (the print media), the history shows what every hand holds, the folded ones
    too, and leaves out the way back and the export; back on the screen, the folded hands
    fold again."""
    import json

    import requests

    header = {"format": "mus-match/1", "teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"],
              "rules": {"kings": 8, "target": 40}, "esku": 0}
    hand = {"hands": [["12o", "12c", "4e", "5b"], ["1o", "4o", "6o", "7o"], ["11c", "11e", "6c", "7c"],
                      ["5c", "6e", "7e", "10b"]]}
    r = requests.post(f"{server.url}/api/tables/import", data="\n".join(json.dumps(x) for x in (header, hand, hand, hand)),
                      headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 201, r.text
    table = r.json()
    ctx = phone(browser, "en")
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}/t/{table['id']}/history?token={table['token']}")
        page.wait_for_selector("#hand-3[open]")  # the latest hand, open; hands 1 and 2 folded
        assert not page.is_visible("#hand-1 .explain") and not page.is_visible("#hand-2 .cards-table")
        page.emulate_media(media="print")
        until(page, "[...document.querySelectorAll('details.hand-card')].every(d => d.open)")
        for n in (1, 2, 3):
            assert page.is_visible(f"#hand-{n} .cards-table") and page.is_visible(f"#hand-{n} .explain"), n
            assert "Txuriak" in page.inner_text(f"#hand-{n} .explain") or "Beltzak" in page.inner_text(f"#hand-{n} .explain")
        assert not page.is_visible("#export") and not page.is_visible(".page-head a.btn-ghost")
        page.emulate_media(media="screen")
        until(page, "!document.querySelector('#hand-1').open && !document.querySelector('#hand-2').open")
        assert page.is_visible("#hand-3 .explain") and page.is_visible("#export")
    finally:
        ctx.close()
    # the print CSS alone (no script) shows the folded hands' content too
    ctx = browser.new_context(java_script_enabled=False)
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}/t/{table['id']}/history?token={table['token']}")
        page.emulate_media(media="print")
        assert page.is_visible("#hand-1 .explain") and not page.is_visible("#export")
    finally:
        ctx.close()


def test_the_test_browser_measures_with_a_phones_font(browser):  # noqa: F811
    """The layout tests measure text in the app's font stack (system-ui first); a phone's
    font is about as wide as Arial, and tests/fonts.conf makes the test browser's
    system-ui and sans-serif Liberation Sans (Arial's metrics). Where it is not, a wide
    default font (DejaVu Sans) fails the layout tests for a font no phone has."""
    page = browser.new_page()
    try:
        page.set_content("".join(f'<span style="font: 700 20px {family}">Cartas a la vista</span><br>'
                                 for family in ("system-ui", "sans-serif", "'Liberation Sans'", "'DejaVu Sans'")))
        ui, sans, liberation, dejavu = page.evaluate(
            "[...document.querySelectorAll('span')].map(e => e.getBoundingClientRect().width)")
    finally:
        page.close()
    assert dejavu > liberation * 1.1, "no Liberation Sans here? apt-get install fonts-liberation"
    assert ui == sans == liberation, (ui, sans, liberation, "FONTCONFIG_FILE", os.environ.get("FONTCONFIG_FILE"))
