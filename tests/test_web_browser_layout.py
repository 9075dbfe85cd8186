"""The pages' layout on a 360 px phone in a real browser (Debian's Chromium, Playwright,
the real app on 127.0.0.1): nothing a player needs is cut short or covered.

Without Chromium these tests skip, unless `CI` is set: then they fail.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

from tests.test_web_browser_table import Api, browser, phone, recognizer, server  # noqa: E402, F401 (fixtures)


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
