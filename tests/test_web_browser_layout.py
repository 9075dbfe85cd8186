"""The pages' layout on a 360 px phone in a real browser (Debian's Chromium, Playwright,
the real app on 127.0.0.1): nothing a player needs is cut short or covered.

Without Chromium these tests skip, unless `CI` is set: then they fail.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

pytestmark = pytest.mark.browser

from tests.test_web_browser_table import HOLDS, Api, browser, phone, recognizer, server  # noqa: E402, F401 (fixtures)
from web.testing import until  # noqa: E402


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
        for _ in range(40):  # on to the juego's declarations, the esku first: three badges on the esku's seat
            cur = api.state()["current"]
            if any(a["act"] == "declare" and "juego" in a for a in cur["log"]):
                break
            decl = [a for a in cur["legal"] if a["act"] == "declare"]
            if decl:
                lance = "pares" if "pares" in decl[0] else "juego"
                api.act("declare", **{lance: HOLDS[lance][cur["to_speak"]]})
            else:
                api.act("paso")
        look(f"document.querySelectorAll('#mesa .seat[data-seat=\"{esku}\"] .badge').length === 3")
        for role, states in seen.items():
            assert states[1]["bubbles"][esku] and states[2]["badges"][esku] == 3, states
            for st in states:
                assert st["left"] == st["right"] and st["top"] == st["bottom"], (role, st)
            assert max(st["mesa"] for st in states) - min(st["mesa"] for st in states) < 0.1, (role, states)
    finally:
        for ctx in ctxs:
            ctx.close()

