"""The pages as a player with low vision hears and sees them (a screen reader, large text)
and as a keyboard or switch player works them: Debian's Chromium driven by Playwright on
the real app (the fixtures of test_web_browser_table: one server, one browser). No axe-core:
the checks read Chromium's accessibility tree (CDP), computed styles and the keyboard.

Run: `python -m pytest tests/test_web_browser_a11y.py -q`. Without Chromium these tests
skip, unless `CI` is set: then they fail.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

from tests.test_web_browser_table import HANDS, Api, browser, phone, recognizer, server  # noqa: E402, F401 (fixtures)
from web.i18n import t as words  # noqa: E402
from web.testing import showdown_photo, until  # noqa: E402

# What the live regions of a page say, as each change comes: [region id, its words] per
# change a MutationObserver sees (what a screen reader is handed to read out).
WATCH_LIVE = """() => {
  window.__said = [];
  for (const el of document.querySelectorAll('[aria-live], [role=status], [role=alert]')) {
    new MutationObserver(() => window.__said.push([el.id || el.className, el.textContent]))
      .observe(el, { childList: true, subtree: true, characterData: true });
  }
}"""


# The contrast of two colours (WCAG 2: relative luminance), and the colour behind an element:
# its own background or its nearest ancestor's that is opaque, blended over the ones above.
CONTRAST_JS = """
const rgba = (c) => { const m = /rgba?\\(([^)]+)\\)/.exec(c); const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3])).concat([1]);
const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)]; return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
const behind = (el) => {
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const cs = getComputedStyle(e);
    const stop = /gradient/.test(cs.backgroundImage) && /rgba?\\([^)]+\\)/.exec(cs.backgroundImage);  // a gradient: its first stop
    const c = stop ? rgba(stop[0]) : rgba(cs.backgroundColor);
    if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
  }
  return layers.reverse().reduce((acc, c) => over(c, acc), [255, 255, 255, 1]);
};
"""

# Every text in sight below `root` whose contrast with what is behind it is under 4.5:1 (3:1
# for large text: 24 px, or 18.66 px bold), as [text, ratio]; a disabled control's text, text
# hidden for a screen reader's sake and the photo's drawing aside.
LOW_CONTRAST = f"""root => {{ {CONTRAST_JS}
  const out = [];
  const walk = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
  const seen = new Set();
  while (walk.nextNode()) {{
    const el = walk.currentNode.parentElement;
    if (!walk.currentNode.textContent.trim() || seen.has(el)) continue;
    seen.add(el);
    if (el.closest('svg, script, .sr-only, :disabled, [hidden]') || !el.getClientRects().length) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden') continue;
    let alpha = 1;
    for (let e = el; e; e = e.parentElement) alpha *= Number(getComputedStyle(e).opacity);
    const bg = behind(el), fg = rgba(cs.color);
    const r = ratio(over([fg[0], fg[1], fg[2], fg[3] * alpha], bg), bg);
    const size = parseFloat(cs.fontSize), bold = Number(cs.fontWeight) >= 700;
    if (r < (size >= 24 || (bold && size >= 18.66) ? 3 : 4.5)) out.push([el.textContent.trim().slice(0, 40), Math.round(r * 100) / 100]);
  }}
  return out;
}}"""


def ring(page, selector: str, against: str | None = None) -> float:
    """The contrast of the focus ring of `selector` (the element that has it, focused from
    the keyboard) with what is behind it: its parent's background, or the colour `against`."""
    return page.evaluate(f"""([sel, against]) => {{ {CONTRAST_JS}
      const el = document.querySelector(sel); const cs = getComputedStyle(el);
      if (cs.outlineStyle === 'none' || parseFloat(cs.outlineWidth) < 2) return 0;
      return ratio(rgba(cs.outlineColor), against ? rgba(against) : behind(el.parentElement));
    }}""", [selector, against])


def tab_to(page, selector: str) -> None:
    """The keyboard's focus on `selector`: from the element before it, with Tab (as a
    keyboard player gets there, so that the page shows its ring)."""
    page.evaluate("""sel => { const all = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')]
      .filter((e) => !e.disabled && e.tabIndex >= 0 && e.checkVisibility());
      const el = document.querySelector(sel); const i = all.indexOf(el);
      if (i > 0) all[i - 1].focus(); }""", selector)
    page.keyboard.press("Tab")
    assert page.evaluate("sel => document.activeElement === document.querySelector(sel)", selector), selector


CONTROLS = {"button", "link", "textbox", "combobox", "checkbox", "radio", "switch", "slider", "spinbutton",
            "searchbox", "listbox", "option", "menuitem", "tab", "DisclosureTriangle", "image"}


def unnamed(page) -> list[str]:
    """The controls (and images) of `page` that Chromium's accessibility tree gives no name,
    and the controls inside an image (whose children a screen reader does not visit)."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
        by_id = {n["nodeId"]: n for n in nodes}
        role = lambda n: n.get("role", {}).get("value")  # noqa: E731
        bad = []
        for n in nodes:
            if n.get("ignored") or role(n) not in CONTROLS:
                continue
            name = str((n.get("name") or {}).get("value", "")).strip()
            if not name:
                bad.append(f"{role(n)} without a name")
            up = by_id.get(n.get("parentId"))
            while up is not None:
                if role(up) in ("image", "img") and role(n) != "image":
                    bad.append(f"{role(n)} {name!r} inside an image")
                up = by_id.get(up.get("parentId"))
        return bad
    finally:
        cdp.detach()


def said(page) -> list[list[str]]:
    """What the live regions said since the last call (and forget it)."""
    return page.evaluate("(() => { const s = window.__said; window.__said = []; return s; })()")


def test_a_live_region_says_each_change_once(server, browser, tmp_path):  # noqa: F811
    """The showdown's notes, the count of a hand and the adentro line are live regions: a
    change is read out once, and the changes the stream brings that leave their words as
    they were (the cards written back, a mus, a word said) say nothing again."""
    photo = tmp_path / "showdown.jpg"
    photo.write_bytes(showdown_photo(HANDS, bottom=0))
    ctx = phone(browser, "en")
    page = ctx.new_page()
    try:
        api = Api(server.url)
        api.to_showdown()
        page.goto(api.url())
        page.wait_for_selector("#showdown:not([hidden])")
        page.evaluate(WATCH_LIVE)
        page.set_input_files("#photo-input", str(photo))
        page.wait_for_selector("#photo-boxes g.box >> nth=15")
        until(page, "document.querySelector('#photo-status').textContent.includes('15 cards read')")
        page.wait_for_timeout(600)  # the cards written back, the table's answer drawn
        lines = said(page)
        for region in ("photo-status", "missing"):
            mine = [text for where, text in lines if where == region]
            assert mine and all(a != b for a, b in zip(mine, mine[1:], strict=False)), (region, lines)

        api = Api(server.url)
        api.act("envido", n=30)  # Ane's three kings win grande
        api.act("quiero")
        api.to_showdown()
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        page.evaluate(WATCH_LIVE)
        api.post("showdown", {"hands": HANDS})  # 35-1: Txuriak adentro
        until(page, "document.querySelector('#settlement:not([hidden]) .explain li')")
        page.wait_for_timeout(300)
        lines = said(page)
        counts = [text for where, text in lines if where == "settlement"]
        assert len(counts) == 1 and "Cards: Ane R-R-R-C" in counts[0], lines  # once, in words
        assert [text for where, text in lines if where == "banner"] == ["Adentro! Txuriak"], lines
        api.post("mus", {})
        version = api.act("paso")["version"]
        until(page, f"window.musTable.state.version === {version}")
        page.wait_for_timeout(300)
        again = [(where, text) for where, text in said(page) if where in ("banner", "settlement")]
        assert again == [], again
        assert page.is_visible("#banner")
    finally:
        ctx.close()


def test_the_status_line_says_the_word_the_turn_and_a_new_score_once(server, browser):  # noqa: F811
    """The status line (role=status) says, at each word said on any phone, that word and who
    speaks now; the score only as the page opens and when it changes; nothing again for a
    change that leaves them as they were (another phone's cards written back at showdown)."""
    api = Api(server.url)
    ctx = phone(browser, "en")
    page = ctx.new_page()
    try:
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        assert page.inner_text("#sr-status") == "Txuriak 0, Beltzak 0. Ane speaks"
        page.evaluate(WATCH_LIVE)
        page.click(".act[data-act=paso]")
        until(page, "document.querySelector('#sr-status').textContent.includes('Bixente')")
        api.act("envido", n=2)
        until(page, "document.querySelector('#sr-status').textContent.includes('Iker speaks')")
        api.act("no_quiero")  # Iker refuses for Txuriak: the deje, 1 stone to Beltzak, at once
        until(page, "document.querySelector('#sr-status').textContent.includes('No quiero')")
        page.wait_for_timeout(300)
        assert [text for where, text in said(page) if where == "sr-status"] == [
            "Ane: Paso. Bixente speaks",
            "Bixente: Envido. Iker speaks",
            "Txuriak 0, Beltzak 1. Iker: No quiero. Ane speaks",
        ]
        api.to_showdown()
        until(page, "document.querySelector('#sr-status').textContent.endsWith('Showdown')")
        said(page)
        version = api.post("shown", {"hands": [HANDS[0], [None] * 4, [None] * 4, [None] * 4], "bottom": 0})["version"]
        until(page, f"window.musTable.state.version === {version}")
        page.wait_for_timeout(300)
        assert [text for where, text in said(page) if where == "sr-status"] == []
    finally:
        ctx.close()


def test_the_focus_ring_stands_out_on_every_control(server, browser, tmp_path):  # noqa: F811
    """A keyboard player sees where the focus is: the ring of the controls the page draws
    itself (a choice of two, a switch, the esku's seat, the seat a photo was taken from, a
    card's box on the photo) has at least 3:1 against what surrounds it."""
    photo = tmp_path / "showdown.jpg"
    photo.write_bytes(showdown_photo(HANDS, bottom=0))
    ctx = phone(browser, "en")
    page = ctx.new_page()
    try:
        page.goto(server.url + "/")
        for focus, shown in (("input[name=kings][value='8']", "input[name=kings][value='8'] + span"),
                             ("input[name=real31]", "input[name=real31] + .switch-track"),
                             ("input[name=esku][value='0']", "input[name=esku][value='0'] + span"),
                             ("#player0", "#player0")):
            tab_to(page, focus)
            assert ring(page, shown) >= 3, shown
        api = Api(server.url)
        api.to_showdown()
        page.goto(api.url())
        page.wait_for_selector("#showdown:not([hidden])")
        page.set_input_files("#photo-input", str(photo))
        page.wait_for_selector("#photo-boxes g.box >> nth=15")
        tab_to(page, "#bottom-seat input:checked")
        assert ring(page, "#bottom-seat input:checked + span") >= 3
        tab_to(page, "#photo-boxes g.box[data-k='1']")
        # on the cloth the photo shows round the cards (the test photo's green felt)
        assert ring(page, "#photo-boxes g.box[data-k='1']", "rgb(30, 77, 58)") >= 3
        assert ring(page, ".card-slot[data-seat='0'][data-slot='0']") == 0  # not focused: no ring
        tab_to(page, ".card-slot[data-seat='0'][data-slot='0']")
        assert ring(page, ".card-slot[data-seat='0'][data-slot='0']") >= 3
    finally:
        ctx.close()


def test_text_reads_at_4_5_to_1(server, browser, tmp_path):  # noqa: F811
    """Every text in sight, the buttons' included, reads at 4.5:1 or more (3:1 large): the
    new-table page; the table with its words, the declarations on the seats, the showdown
    read from a photo and the card picker (a card another seat holds on that team's colour);
    a team adentro (its name on the card's tint), the count."""
    photo = tmp_path / "showdown.jpg"
    photo.write_bytes(showdown_photo(HANDS, bottom=0))
    ctx = phone(browser, "en")
    page = ctx.new_page()
    page.emulate_media(reduced_motion="reduce")  # no text caught halfway through a fade
    try:
        page.goto(server.url + "/")
        assert page.evaluate(LOW_CONTRAST, "body") == []
        api = Api(server.url)
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        assert page.evaluate(LOW_CONTRAST, "body") == []
        api.act("envido", n=30)  # Ane's three kings win grande: Txuriak adentro at the count
        until(page, "document.querySelector('.act[data-act=quiero]')")
        assert page.evaluate(LOW_CONTRAST, "body") == []
        api.act("quiero")
        api.to_showdown()
        page.wait_for_selector("#showdown:not([hidden])")
        page.set_input_files("#photo-input", str(photo))
        page.wait_for_selector("#photo-boxes g.box >> nth=15")
        assert page.locator(".badge-decl.yes").count() >= 4
        assert page.evaluate(LOW_CONTRAST, "body") == []
        page.click(".card-slot[data-seat='1'][data-slot='2']")
        page.wait_for_selector("#picker[open]")
        assert page.locator("#picker .pick.held").count() >= 10
        assert page.evaluate(LOW_CONTRAST, "#picker") == []
        page.keyboard.press("Escape")
        api.post("showdown", {"hands": HANDS})
        page.wait_for_selector(".team-card.is-adentro")
        page.wait_for_selector("#settlement:not([hidden])")
        assert page.evaluate(LOW_CONTRAST, "body") == []
    finally:
        ctx.close()


# What large text or a page zoomed in loses: a control or a word of the table page that lies
# off the screen, or a word cut short (an ellipsis, or a box narrower than its text).
LOST = """() => {
  const out = [];
  const W = document.documentElement.clientWidth;
  const seen = (e) => e.getClientRects().length && !e.closest('[hidden], .sr-only, dialog:not([open])');
  for (const e of document.querySelectorAll('.topbar a, .topbar button, .topbar summary, #actions button, #actions summary, #showdown button, #showdown label')) {
    const r = e.getBoundingClientRect();
    if (seen(e) && (r.left < -1 || r.right > W + 1)) out.push(['off screen', e.textContent.trim() || e.getAttribute('aria-label')]);
  }
  for (const e of document.querySelectorAll('.lance, .seat-name, .act, #actions .btn, .segmented span, .hand-who, .speaker')) {
    if (seen(e) && (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)) out.push(['cut', e.textContent.trim()]);
  }
  return out;
}"""


@pytest.mark.parametrize("zoom", ["text", "page"])
def test_large_text_loses_no_word_and_no_button(server, browser, tmp_path, zoom):  # noqa: F811
    """Text at twice its size on a 360-px phone (the browser's text size), or the whole page
    zoomed to 200% (180 CSS px across): every button of the top bar, the words, the steppers,
    Mus and Undo, and the showdown's stay on the screen, and the lances, the seats' and the
    hands' names and the words on the buttons are not cut short."""
    photo = tmp_path / "showdown.jpg"
    photo.write_bytes(showdown_photo(HANDS, bottom=0))
    size = {"width": 360, "height": 740} if zoom == "text" else {"width": 180, "height": 370}
    ctx = browser.new_context(viewport=size, device_scale_factor=2, is_mobile=True, has_touch=True, locale="es",
                              extra_http_headers={"Accept-Language": "es"})
    ctx.set_default_timeout(8000)
    page = ctx.new_page()
    bigger = "document.documentElement.style.fontSize = '200%'" if zoom == "text" else "0"
    try:
        api = Api(server.url)
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]", state="attached")
        page.evaluate(bigger)
        checks = page.evaluate(LOST)
        api.act("envido", n=2)  # Bixente answers: two steppers' worth of words
        until(page, "document.querySelector('.act[data-act=quiero]')")
        checks += page.evaluate(LOST)
        api.act("quiero")
        api.play_until(lambda cur: cur["phase"].endswith("_declare"))
        until(page, "document.querySelector('.act[data-act=declare]')")
        checks += page.evaluate(LOST)
        api.to_showdown()
        page.wait_for_selector("#showdown:not([hidden])")
        page.set_input_files("#photo-input", str(photo))
        page.wait_for_selector("#photo-boxes g.box >> nth=15")
        checks += page.evaluate(LOST)  # a hand's four cards took 250 px: off the screen at 180
        page.click(".card-slot[data-seat='1'][data-slot='2']")
        page.wait_for_selector("#picker[open]")
        checks += page.evaluate(PICKER_LOST)
        assert checks == [], checks
    finally:
        ctx.close()


# What the card picker loses: a card, a button or the dialog itself off the screen, a card's
# name or its holder's cut, or the dialog scrolled sideways.
PICKER_LOST = """() => {
  const out = [];
  const W = document.documentElement.clientWidth;
  const dlg = document.getElementById('picker');
  if (dlg.scrollWidth > dlg.clientWidth + 1) out.push(['sideways', dlg.scrollWidth, dlg.clientWidth]);
  for (const e of [dlg, ...dlg.querySelectorAll('button, h2')]) {
    const r = e.getBoundingClientRect();
    if (r.left < -1 || r.right > W + 1) out.push(['off screen', e.dataset.card || e.textContent.trim() || e.getAttribute('aria-label')]);
  }
  for (const e of dlg.querySelectorAll('.pick, h2')) {
    if (e.scrollWidth > e.clientWidth + 1) out.push(['cut', e.textContent.trim()]);
  }
  return out;
}"""


def test_every_control_is_named_and_each_seat_says_its_team_in_every_language(server, browser, tmp_path):  # noqa: F811
    """In each language, at the showdown with its photo read and the card picker open: every
    control has a name, and none lies inside an image; the photo's boxes are a group named
    in words, with a button a card; each seat of the drawn table says its team (its colour
    shows it) and its declarations in words ("Pares: yes", not a check mark); the picker says
    which card the place holds now."""
    photo = tmp_path / "showdown.jpg"
    photo.write_bytes(showdown_photo(HANDS, bottom=0))
    api = Api(server.url)
    api.to_showdown()  # Ane declares pares and juego, Maite neither
    for lang in ("es", "eu", "fr", "en"):
        ctx = phone(browser, lang)
        page = ctx.new_page()
        try:
            page.goto(api.url())
            page.wait_for_selector("#showdown:not([hidden])")
            if lang == "es":
                page.set_input_files("#photo-input", str(photo))
            page.wait_for_selector("#photo-boxes g.box >> nth=15")  # the others: the photo the table keeps
            assert unnamed(page) == [], lang
            boxes = page.get_by_role("group", name=words(lang, "show.boxes"))
            assert boxes.get_by_role("button").count() == 16, lang
            colon = words(lang, "punct.colon").replace("\xa0", " ")  # the snapshot says a no-break space as a space
            seat = page.locator("#mesa .seat[data-seat='0']").aria_snapshot()
            assert "Txuriak" in seat, (lang, seat)
            for lance in ("pares", "juego"):
                assert f"{words(lang, 'lance.' + lance)}{colon}{words(lang, 'act.declare_yes')}" in seat, (lang, seat)
            maite = page.locator("#mesa .seat[data-seat='3']").aria_snapshot()
            assert "Beltzak" in maite and f"{words(lang, 'lance.pares')}{colon}{words(lang, 'act.declare_no')}" in maite
            assert "✓" not in seat and "✗" not in maite
            page.click(".card-slot[data-seat='1'][data-slot='2']")
            page.wait_for_selector("#picker[open]")
            assert unnamed(page) == [], lang
            assert page.eval_on_selector_all("#picker [aria-current=true]", "els => els.map(e => e.dataset.card)") == [HANDS[1][2]]
        finally:
            ctx.close()


def test_a_refused_form_says_why_by_its_field(server, browser, tmp_path):  # noqa: F811
    """A form refused (a match file with a bad line, a link that is no table's, a team typed
    twice) says why in its own line, an alert that stays until it is sent again, and the
    field at fault is marked invalid, described by that line and focused; sent again
    right, the line goes and the field is as it was."""
    import requests

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "mus-match/1"}\nnot json\n', encoding="utf-8")
    tour = requests.post(f"{server.url}/api/tournaments", json={"name": "Liga"}).json()
    ctx = phone(browser, "en")
    page = ctx.new_page()

    def tied(field: str, line: str) -> None:
        page.wait_for_selector(f"{line}:not([hidden])")
        assert page.get_attribute(line, "role") == "alert" and page.inner_text(line)
        assert page.get_attribute(field, "aria-invalid") == "true"
        assert line[1:] in page.get_attribute(field, "aria-describedby").split()
        assert page.evaluate("f => document.activeElement === document.querySelector(f)", field)

    try:
        page.goto(server.url + "/")
        page.click("details.import summary")
        page.set_input_files("#import-match input[type=file]", str(bad))
        page.click("#import-match button[type=submit]")
        tied("#import-match input[type=file]", "#import-match-error")
        assert page.inner_text("#import-match-file") == "bad.jsonl"  # the file's name still beside its button

        page.goto(f"{server.url}/c/{tour['id']}?token={tour['token']}")
        page.click("#add-table >> xpath=.. >> summary")
        page.fill("#add-table input[name=link]", "http://example.org/nothing")
        page.click("#add-table button[type=submit]")
        tied("#add-table input[name=link]", "#add-table-error")
        page.click("#league-teams summary")
        page.fill("#set-teams textarea", "Gorriak\nTxuriak\ngorriak")
        page.click("#set-teams button[type=submit]")
        tied("#set-teams textarea", "#set-teams-error")
        page.fill("#set-teams textarea", "Gorriak\nTxuriak")
        page.click("#set-teams button[type=submit]")
        page.wait_for_selector("#set-teams-error", state="hidden")
        assert page.get_attribute("#set-teams textarea", "aria-invalid") is None
        assert page.get_attribute("#set-teams textarea", "aria-describedby") is None
    finally:
        ctx.close()


def test_the_tournament_page_keeps_the_keyboards_place_as_it_follows_the_tables(server, browser):  # noqa: F811
    """The tournament's page draws its standings and matches again as a table's hand is
    counted: the keyboard's focus stays on the link it was on (a match's "Watch"), not
    dropped to the top of the page."""
    import requests

    tour = requests.post(f"{server.url}/api/tournaments", json={"name": "Liga"}).json()
    api = Api(server.url)
    requests.post(f"{server.url}/api/tournaments/{tour['id']}/tables", json={"table": api.id, "token": api.token},
                  headers={"Authorization": f"Bearer {tour['token']}"}).raise_for_status()
    ctx = phone(browser, "en")
    page = ctx.new_page()
    try:
        page.goto(f"{server.url}/c/{tour['id']}?token={tour['token']}")
        watch = f"#matches .match-row[data-table='{api.id}'] a.watch-table"
        tab_to(page, watch)
        api.to_showdown()
        api.post("showdown", {"hands": HANDS})
        page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")  # as the phone comes back to it
        until(page, "document.querySelector('#matches').textContent.includes('hands played: 1')")
        assert page.evaluate("w => document.activeElement === document.querySelector(w)", watch)
        page.keyboard.press("Tab")  # on to the next control of that match, as before
        assert page.evaluate("document.activeElement.classList.contains('remove-table')")
    finally:
        ctx.close()


def test_the_history_and_the_count_are_read_in_words_not_run_together(server, browser):  # noqa: F811
    """A screen reader reads a hand's history and its count as sentences: each lance's words
    after its name and a colon ("Grande: Ane Paso", not "GrandeAne"), a hand's score with its
    teams' names, each card once by its name (not "12 Rey of oros"); the count's events
    (shown while its words are not here) as "Grande: Txuriak +1, …"."""
    import re

    api = Api(server.url)
    api.to_showdown()
    api.post("showdown", {"hands": HANDS})
    ctx = phone(browser, "en")
    page = ctx.new_page()
    try:
        page.goto(f"{server.url}/t/{api.id}/history?token={api.token}")
        said = page.locator("#hand-1 .said-list").aria_snapshot()  # a hidden part stands apart: "Grande : Ane"
        assert re.search(r"Grande ?: Ane Paso", said) and re.search(r"Pares\? ?: Ane Yes", said), said
        assert re.search(r"Txuriak 6 ?, Beltzak 1", page.locator("#hand-1 .hand-score").aria_snapshot())
        cards = page.locator("#hand-1 .cards-row").first.aria_snapshot()
        assert "Rey of oros" in cards and "12" not in cards, cards
        page.route(re.compile(r".*/hands/\d+/explain.*"), lambda route: route.abort())
        page.goto(api.url())
        page.wait_for_selector("#settlement:not([hidden]) .ev")
        count = page.locator("#settlement .explain").aria_snapshot()
        assert re.search(r"Grande ?: Txuriak", count) and 'text: ", all passed' in count, count
    finally:
        ctx.close()


def test_a_dialog_takes_the_focus_keeps_it_and_gives_it_back(server, browser):  # noqa: F811
    """From the keyboard: Enter on the QR codes' button opens the dialog with the focus in
    it, Tab stays in it, Escape closes it and the focus is back on the button; the card
    picker likewise gives the focus back to the place it was opened from."""
    api = Api(server.url)
    ctx = phone(browser, "eu")
    page = ctx.new_page()
    inside = "id => document.getElementById(id).contains(document.activeElement)"
    # past its last control Tab goes to the browser's own bar (the body here), then back in
    kept = "id => document.getElementById(id).contains(document.activeElement) || document.activeElement === document.body"
    try:
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        tab_to(page, "#open-invite")
        page.keyboard.press("Enter")
        page.wait_for_selector("#invite[open]")
        assert page.evaluate(inside, "invite")
        for _ in range(12):
            page.keyboard.press("Tab")
            assert page.evaluate(kept, "invite")
        page.keyboard.press("Escape")
        page.wait_for_selector("#invite", state="hidden")
        assert page.evaluate("document.activeElement.id") == "open-invite"
        api.to_showdown()
        page.wait_for_selector("#showdown:not([hidden])")
        slot = ".card-slot[data-seat='2'][data-slot='1']"
        tab_to(page, slot)
        page.keyboard.press("Enter")
        page.wait_for_selector("#picker[open]")
        assert page.evaluate(inside, "picker")
        page.keyboard.press("Escape")
        page.wait_for_selector("#picker", state="hidden")
        assert page.evaluate("s => document.activeElement === document.querySelector(s)", slot)
    finally:
        ctx.close()


def test_each_page_says_its_language_and_keeps_still_when_asked(server, browser):  # noqa: F811
    """The page's `lang` is the language it is written in (a screen reader's voice follows
    it), by the phone's or as chosen; asked for reduced motion, nothing blinks or pops."""
    for lang in ("es", "eu", "fr", "en"):
        ctx = phone(browser, "es")
        page = ctx.new_page()
        try:
            page.goto(f"{server.url}/?lang={lang}")
            assert page.evaluate("document.documentElement.lang") == lang
            page.goto(f"{server.url}/t/nope?token=x&lang={lang}")
            assert page.evaluate("document.documentElement.lang") == lang
        finally:
            ctx.close()
    api = Api(server.url)
    ctx = phone(browser, "en")
    page = ctx.new_page()
    speaking = "getComputedStyle(document.querySelector('.seat.is-speaking'), '::before').animationName"
    try:
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        assert page.evaluate(speaking) == "blink"
        page.emulate_media(reduced_motion="reduce")
        assert page.evaluate(speaking) == "none"
        assert page.evaluate("getComputedStyle(document.getElementById('toast')).transitionDuration") == "0s"
    finally:
        ctx.close()


def test_the_card_picker_is_worked_with_the_arrow_keys(server, browser):  # noqa: F811
    """In the card picker the arrow keys move among the cards as they are laid out (five a
    row, a suit's rows under the one before), past a card another place of the same seat
    holds; Home and End reach the first and the last; Enter names the card."""
    api = Api(server.url)
    api.to_showdown()
    api.post("shown", {"hands": [["1o", None, None, None], [None] * 4, [None] * 4, [None] * 4], "bottom": 0})
    ctx = phone(browser, "en")
    page = ctx.new_page()
    focused = "document.activeElement.dataset.card"
    try:
        page.goto(api.url())
        page.wait_for_selector(".card-slot[data-seat='0'][data-slot='0'][aria-label$='As of oros']")
        tab_to(page, ".card-slot[data-seat='0'][data-slot='1']")
        page.keyboard.press("Enter")
        page.wait_for_selector("#picker[open]")
        assert page.is_disabled("#picker .pick[data-card='1o']")  # Ane's first place holds it
        page.focus("#picker .pick[data-card='2o']")
        page.keyboard.press("ArrowLeft")  # the As of oros is Ane's already: nothing before it to go to
        assert page.evaluate(focused) == "2o"
        page.keyboard.press("ArrowDown")
        assert page.evaluate(focused) == "7o"  # 1 2 3 4 5 / 6 7 10 11 12: five a row
        page.keyboard.press("ArrowDown")
        assert page.evaluate(focused) == "2c"  # on into copas
        page.keyboard.press("ArrowRight")
        assert page.evaluate(focused) == "3c"
        page.keyboard.press("End")
        assert page.evaluate(focused) == "12b"
        page.keyboard.press("ArrowUp")
        assert page.evaluate(focused) == "5b"
        page.keyboard.press("Home")
        assert page.evaluate(focused) == "2o"
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
        page.wait_for_selector("#picker", state="hidden")
        until(page, "document.querySelector(\".card-slot[data-seat='0'][data-slot='1']\").getAttribute('aria-label').endsWith('3 of oros')")
    finally:
        ctx.close()


def test_an_arrow_key_in_a_group_of_seats_keeps_the_focus_there(server, browser, tmp_path):  # noqa: F811
    """A radio group is worked with the arrow keys: each arrow chooses (the esku, the seat
    the photo was taken from) and the group is drawn again; the focus stays on the seat
    chosen, so the next arrow goes on from there (it fell to the page)."""
    photo = tmp_path / "showdown.jpg"
    photo.write_bytes(showdown_photo(HANDS, bottom=0))
    api = Api(server.url)
    ctx = phone(browser, "en")
    page = ctx.new_page()
    on = "v => document.activeElement.matches(`input[type=radio][value='${v}']:checked`)"
    try:
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        tab_to(page, "#esku-q")
        page.keyboard.press("Enter")  # the question opens
        page.keyboard.press("Tab")
        assert page.evaluate(on, "0")
        for seat in (1, 2):
            page.keyboard.press("ArrowRight")
            until(page, f"window.musTable.state.current.esku === {seat}")
            page.wait_for_timeout(100)
            assert page.evaluate(on, str(seat)), seat
        api.to_showdown()
        page.wait_for_selector("#showdown:not([hidden])")
        page.set_input_files("#photo-input", str(photo))
        page.wait_for_selector("#photo-boxes g.box >> nth=15")
        tab_to(page, "#bottom-seat input:checked")
        page.keyboard.press("ArrowRight")
        until(page, "window.musTable.state.current.shown?.bottom === 1")  # the photo seated again, kept
        page.wait_for_timeout(100)
        assert page.evaluate(on, "1")
        assert page.evaluate("document.activeElement.closest('#bottom-seat') !== null")
    finally:
        ctx.close()


def test_the_arrow_keys_move_the_esku_and_save_it_once_chosen(server, browser):  # noqa: F811
    """From Ane to Maite with the arrow keys the esku is saved once, as Maite, when the
    choice settles (not Bixente and Iker on the way, a write each); the focus stays on the
    seat chosen. Enter saves the choice at once, and so does a tap."""
    api = Api(server.url)
    ctx = phone(browser, "en")
    page = ctx.new_page()
    sent: list[int] = []
    esku = lambda r: r.method == "POST" and r.url.endswith("/esku")  # noqa: E731
    page.on("request", lambda r: sent.append(r.post_data_json["seat"]) if esku(r) else None)
    on = "v => document.activeElement.matches(`input[type=radio][value='${v}']:checked`)"
    try:
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        tab_to(page, "#esku-q")
        page.keyboard.press("Enter")  # the question opens
        page.keyboard.press("Tab")
        for seat in (1, 2, 3):
            page.keyboard.press("ArrowRight")
            assert page.evaluate(on, str(seat)), seat
        until(page, "window.musTable.state.current.esku === 3")
        page.wait_for_timeout(1200)
        assert sent == [3]
        assert page.evaluate(on, "3")
        page.keyboard.press("ArrowLeft")
        with page.expect_request(esku, timeout=500):
            page.keyboard.press("Enter")  # at once
        until(page, "window.musTable.state.current.esku === 2")
        assert page.evaluate(on, "2")
        with page.expect_request(esku, timeout=500):
            page.click("#esku-seats label:first-child")  # a tap: at once
        until(page, "window.musTable.state.current.esku === 0")
        page.wait_for_timeout(1200)
        assert sent == [3, 2, 0]
    finally:
        ctx.close()


def test_the_arrow_keys_move_the_photos_seat_and_save_it_once_chosen(server, browser, tmp_path):  # noqa: F811
    """From Ane to Iker with the arrow keys, the seat the photo was taken from is saved once,
    as Iker, when the choice settles (not Bixente on the way, a write each); the cards turn
    at each arrow and the focus stays on the seat chosen. Enter saves at once, and so does
    a tap."""
    photo = tmp_path / "showdown.jpg"
    photo.write_bytes(showdown_photo(HANDS, bottom=0))
    api = Api(server.url)
    ctx = phone(browser, "en")
    page = ctx.new_page()
    sent: list[int] = []
    shown = lambda r: r.method == "POST" and r.url.endswith("/shown")  # noqa: E731
    page.on("request", lambda r: sent.append(r.post_data_json["bottom"]) if shown(r) else None)
    on = "v => document.activeElement.matches(`input[type=radio][value='${v}']:checked`)"
    try:
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        api.to_showdown()
        page.wait_for_selector("#showdown:not([hidden])")
        page.set_input_files("#photo-input", str(photo))
        page.wait_for_selector("#photo-boxes g.box >> nth=15")
        until(page, "window.musTable.state.current.shown?.photo_id != null")
        page.wait_for_timeout(300)
        sent.clear()
        tab_to(page, "#bottom-seat input:checked")
        for seat in (1, 2):
            page.keyboard.press("ArrowRight")
            assert page.evaluate(on, str(seat)), seat
        until(page, "window.musTable.state.current.shown?.bottom === 2")
        page.wait_for_timeout(1200)
        assert sent == [2], sent
        assert page.evaluate(on, "2")
        page.keyboard.press("ArrowLeft")
        with page.expect_request(shown, timeout=500):
            page.keyboard.press("Enter")  # at once
        until(page, "window.musTable.state.current.shown?.bottom === 1")
        assert page.evaluate(on, "1")
        with page.expect_request(shown, timeout=500):
            page.click("#bottom-seat label:first-child")  # a tap: at once
        until(page, "window.musTable.state.current.shown?.bottom === 0")
        page.wait_for_timeout(1200)
        assert sent == [2, 1, 0], sent
    finally:
        ctx.close()


def test_a_lost_connection_is_said_and_so_is_its_return_once_each(browser):  # noqa: F811
    """The wifi stalls: a screen reader is told, once and politely, that the connection is
    lost and the score may be out of date (the top bar's "Reconnecting…" is no live
    region), and once, as it comes back, that the score is live again."""
    from web.testing import LiveServer, Relay

    with LiveServer({"SSE_HEARTBEAT": 1.0, "CLIENT_TIMEOUT": 1.0}) as srv, Relay(srv.port) as relay:
        api = Api(srv.url)
        ctx = phone(browser, "en")
        page = ctx.new_page()
        try:
            page.goto(api.url().replace(srv.url, relay.url))
            page.wait_for_selector("#live[data-state=live]")
            page.evaluate(WATCH_LIVE)
            relay.stall()
            until(page, "document.getElementById('live').dataset.state === 'offline'", timeout=6000)
            page.wait_for_timeout(3000)  # the stream tried again meanwhile, and the table read
            relay.flow()
            until(page, "document.getElementById('live').dataset.state === 'live'", timeout=8000)
            page.wait_for_timeout(2500)
            lines = [(where, text) for where, text in said(page) if where != "sr-status"]
            lost, back = ("sr-live", words("en", "table.offline_said")), ("sr-live", words("en", "table.online_said"))
            # once per change: lost, back (a loaded machine's 1 s heartbeat may miss once more
            # on its own, said as lost and back again, never a line twice in a row)
            assert lines[:2] == [lost, back] and lines[-1] == back, lines
            assert all(a != b for a, b in zip(lines, lines[1:], strict=False)) and set(lines) == {lost, back}, lines
            assert page.get_attribute("#sr-live", "aria-live") == "polite"
        finally:
            ctx.close()


def a_hand_of_four_reasons(url: str) -> Api:
    """A hand counted whose four events each have a reason of its own kind: a deje at grande
    (envido, no quiero), a bet seen at chica (envido 3, quiero), pares all passed, and juego
    Ane's alone."""
    api = Api(url)
    api.act("envido", n=2)
    api.act("no_quiero")  # grande: the deje to Txuriak
    api.act("envido", n=3)
    api.act("quiero")  # chica: Bixente's 1-2 wins it
    api.to_showdown()  # pares: all pass; juego: Ane's alone
    api.post("showdown", {"hands": HANDS})
    return api


def four_reasons(lang: str) -> list[str]:
    """The reasons of `a_hand_of_four_reasons`' events in `lang`'s words."""
    from scorer.engine.explain import words as engine

    w = engine(lang)
    return [f"{w['envido']}, {w['no_quiero']}", f"{w['envido_n'].format(n=3)}, {w['quiero']}", w["all_passed"],
            w["only_team"].format(t="Txuriak", l=w["juego"].lower())]


def test_the_counts_reasons_without_its_words_are_said_in_the_pages_language(server, browser):  # noqa: F811
    """The count's words not here (their request failed), the count shows its events: each
    one's reason is said in the page's language ("envido, no quiero", "todos pasan"), not
    the engine's English for machines ("deje: envido refused", "all passed; best pares
    seat 0; bonus: ..."), in every language."""
    import re

    api = a_hand_of_four_reasons(server.url)
    for lang in ("es", "eu", "fr", "en"):
        ctx = phone(browser, lang)
        page = ctx.new_page()
        try:
            page.route(re.compile(r".*/hands/\d+/explain.*"), lambda route: route.abort())
            page.goto(api.url())
            page.wait_for_selector("#settlement:not([hidden]) .ev")
            whys = page.eval_on_selector_all("#settlement .ev", "els => els.map(e => e.querySelector('.ev-why')?.textContent)")
            assert whys == four_reasons(lang), (lang, whys)
            text = page.inner_text("#settlement")
            assert not re.search(r"\b(seat|best|refused|accepted|bonus)\b", text), (lang, text)
        finally:
            ctx.close()


def test_the_historys_reasons_without_its_words_are_said_in_the_pages_language(server, browser, monkeypatch):  # noqa: F811
    """A hand of the history whose count in words is missing shows its events: each one's
    reason is said in the page's language, as the table page's count says it, not the
    engine's English for machines ("all passed; best pares seat 0; ..."), in every language."""
    import re

    import web.pages

    api = a_hand_of_four_reasons(server.url)
    monkeypatch.setattr(web.pages, "explain_lines", lambda *args: [])
    for lang in ("es", "eu", "fr", "en"):
        ctx = phone(browser, lang)
        page = ctx.new_page()
        try:
            page.goto(f"{server.url}/t/{api.id}/history?token={api.token}")
            page.wait_for_selector("#hand-1 .explain .ev")
            whys = page.eval_on_selector_all("#hand-1 .explain .ev", "els => els.map(e => e.querySelector('.ev-why')?.textContent)")
            assert whys == four_reasons(lang), (lang, whys)
            # said once each: the server's words, the page's script adding none again
            assert page.eval_on_selector_all("#hand-1 .explain .ev", "els => els.map(e => e.querySelectorAll('.ev-why').length)") == [1] * 4
            text = page.inner_text("#hand-1 .explain")
            assert not re.search(r"\b(seat|best|refused|accepted|bonus)\b", text), (lang, text)
        finally:
            ctx.close()


def test_a_count_whose_words_fail_at_once_shows_its_events_without_waiting_for_another_change(server, browser):  # noqa: F811
    """The count waits for its words up to 1.5 s (a live region read once, in words); where
    their request fails sooner (the bar's wifi gone for a moment), its events show then, not
    only at the next change the stream brings: the hand counted on another phone was left
    hidden until someone said a word."""
    import re
    import time

    api = Api(server.url)
    ctx = phone(browser, "en")
    page = ctx.new_page()

    def fail_soon(route):
        time.sleep(0.3)  # answered before the 1.5 s wait is over
        route.abort()

    try:
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        page.route(re.compile(r".*/hands/\d+/explain.*"), fail_soon)
        api.to_showdown()
        api.post("showdown", {"hands": HANDS})  # counted on another phone: the stream brings it
        page.wait_for_selector("#settlement:not([hidden]) .ev", timeout=4000)
    finally:
        ctx.close()


def test_the_end_of_a_game_another_phone_counted_gives_the_focus_back_to_the_game(server, browser):  # noqa: F811
    """Another phone counts the hand that ends the game: the dialog that says so takes the
    keyboard's focus, and closed, gives it to the new game's first word (it was left on the
    page's body, from where a keyboard player starts over), whether the focus was on a word
    before or nowhere."""
    for before in ("word", None):
        api = Api(server.url)
        ctx = phone(browser, "en")
        page = ctx.new_page()
        try:
            page.goto(api.url())
            page.wait_for_selector("#live[data-state=live]")
            if before:
                tab_to(page, ".act[data-act=paso]")
            api.act("ordago")
            api.act("quiero")
            api.to_showdown()
            api.post("showdown", {"hands": HANDS})  # Ane's three kings: the game to Txuriak
            page.wait_for_selector("#endgame[open]")
            assert page.evaluate("document.getElementById('endgame').contains(document.activeElement)")
            page.keyboard.press("Enter")
            page.wait_for_selector("#endgame", state="hidden")
            page.wait_for_timeout(200)
            assert page.evaluate("document.activeElement.matches('#action-grid button')"), (
                before, page.evaluate("document.activeElement.outerHTML.slice(0, 80)"))
            page.keyboard.press("Tab")  # on from there, in the words
            assert page.evaluate("document.getElementById('actions').contains(document.activeElement)")
        finally:
            ctx.close()


def test_a_skip_link_leads_past_the_top_bar_to_the_game(server, browser):  # noqa: F811
    """The first Tab on the table page shows a link, in the page's language, that skips the
    top bar's controls (the QR codes, the history, the sheet, the language...): Enter, then
    Tab, and the keyboard is in the words. Unfocused, it is not seen."""
    api = Api(server.url)
    for lang in ("es", "eu", "fr", "en"):
        ctx = phone(browser, lang)
        page = ctx.new_page()
        try:
            page.goto(api.url())
            page.wait_for_selector("#live[data-state=live]")
            link = page.locator("a.skip-link")
            box = link.bounding_box()
            assert box is None or box["y"] + box["height"] <= 0 or box["width"] <= 1, (lang, box)  # out of sight
            page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.classList.contains('skip-link')"), lang
            assert link.inner_text() == words(lang, "table.skip")
            box = link.bounding_box()
            assert box["y"] >= 0 and box["x"] >= 0 and box["x"] + box["width"] <= 360 and box["height"] >= 24, (lang, box)
            assert ring(page, "a.skip-link", "rgb(30, 77, 58)") >= 3  # on the top bar
            page.keyboard.press("Enter")
            page.keyboard.press("Tab")
            assert page.evaluate("document.getElementById('actions').contains(document.activeElement)"), (
                lang, page.evaluate("document.activeElement.outerHTML.slice(0, 80)"))
        finally:
            ctx.close()


# Each stepper's buttons in the order they are read and tabbed through (the page's), and in
# the order they are seen (by rows, top to bottom, then left to right), by what they do.
STEPPER_ORDER = """() => [...document.querySelectorAll('.mas-stepper')].map((s) => {
  const read = [...s.querySelectorAll('button')];
  const at = (b) => b.getBoundingClientRect();
  const seen = [...read].sort((a, b) => (Math.abs(at(a).top - at(b).top) > 4 ? at(a).top - at(b).top : at(a).left - at(b).left));
  const name = (b) => b.dataset.step || b.dataset.act;
  return [read.map(name), seen.map(name)];
})"""


def test_a_steppers_buttons_are_read_in_the_order_they_are_seen(server, browser):  # noqa: F811
    """A stepper is −, its word, + in a row; with large text its word sits over its − and +,
    and then it is read and tabbed through in that order too (it went −, the word, +). The
    text back to its size, the row again, read as seen."""
    api = Api(server.url)
    ctx = phone(browser, "en")
    page = ctx.new_page()
    try:
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        assert page.evaluate(STEPPER_ORDER) == [[["less", "envido", "more"]] * 2]
        page.evaluate("document.documentElement.style.fontSize = '200%'")
        page.wait_for_timeout(200)
        assert page.evaluate(STEPPER_ORDER) == [[["envido", "less", "more"]] * 2]
        tab_to(page, ".envido-stepper .act")
        page.keyboard.press("Tab")  # past − (2 stones: no fewer)
        assert page.evaluate("document.activeElement.dataset.step") == "more"
        page.keyboard.press("Enter")  # one stone more: drawn again, the focus kept, the order too
        page.keyboard.press("Enter")
        page.keyboard.press("Shift+Tab")
        assert page.evaluate("document.activeElement.dataset.step") == "less"
        page.keyboard.press("Enter")
        page.keyboard.press("Shift+Tab")
        assert page.evaluate("document.activeElement.dataset.act") == "envido"
        assert page.inner_text(".envido-stepper .act") == "Envido 3"
        assert page.evaluate(STEPPER_ORDER) == [[["envido", "less", "more"]] * 2]
        api.act("envido", n=2)  # Bixente answers: "más" has its stepper
        until(page, "document.querySelector('.act[data-act=mas]')")
        assert page.evaluate(STEPPER_ORDER) == [[["mas", "less", "more"]] * 2]
        page.evaluate("document.documentElement.style.fontSize = ''")
        page.wait_for_timeout(200)
        assert page.evaluate(STEPPER_ORDER) == [[["less", "mas", "more"]] * 2]
    finally:
        ctx.close()


def test_the_chart_of_the_game_is_read_as_a_table_of_the_scores(server, browser):  # noqa: F811
    """The chart ("The game, hand by hand") is a drawing that says nothing to a screen
    reader: a table it can read (hidden to the eye) gives the score after each hand of the
    game, by the teams' names, in every language, under the chart and in the dialog that
    ends the game; the drawing itself is left out of what it reads."""
    api = Api(server.url)
    for _ in range(2):
        api.to_showdown()
        api.post("showdown", {"hands": HANDS})
    scores = [hand["settlement"]["score"] for hand in api.state()["hands"]]
    for lang in ("es", "eu", "fr", "en"):
        ctx = phone(browser, lang)
        page = ctx.new_page()
        try:
            page.goto(api.url())
            page.wait_for_selector("#chart:not([hidden])")
            table = page.locator("#chart").get_by_role("table", name=words(lang, "score.chart"))
            rows = table.locator("tr").evaluate_all("rows => rows.map(r => [...r.cells].map(c => c.textContent))")
            assert rows == [["", "Txuriak", "Beltzak"]] + [
                [words(lang, "table.hand_n", n=i + 1), str(a), str(b)] for i, (a, b) in enumerate(scores)], (lang, rows)
            assert table.evaluate("t => t.closest('.sr-only').getBoundingClientRect().width") <= 1  # hidden to the eye
            assert page.get_attribute("#chart svg", "aria-hidden") == "true"
        finally:
            ctx.close()
    api.act("ordago")
    api.act("quiero")
    api.to_showdown()
    api.post("showdown", {"hands": HANDS})  # the game to Txuriak
    ctx = phone(browser, "en")
    page = ctx.new_page()
    try:
        page.goto(api.url())
        page.wait_for_selector("#endgame[open]")
        rows = page.locator("#endgame").get_by_role("table", name="The game, hand by hand").locator("tbody tr")
        cells = rows.evaluate_all("rows => rows.map(r => [...r.cells].map(c => c.textContent))")
        last = api.state()["hands"][-1]["settlement"]["score"]
        assert cells[-1] == ["Hand 3", str(last[0]), str(last[1])] and len(cells) == 3, cells
    finally:
        ctx.close()
