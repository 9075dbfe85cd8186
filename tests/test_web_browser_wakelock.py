"""A phone at the table keeps its screen on while the match goes on (a screen wake lock),
takes it again when the page comes back into view, and lets it go once the match is won.

Headless Chromium grants no real wake lock, so the page runs with a stand-in
`navigator.wakeLock` that counts what it is asked; the app and its server are real.
Without Chromium this skips, unless `CI` is set: then it fails.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

from tests.test_web_browser_table import Api, browser, phone, recognizer, server  # noqa: E402, F401 (fixtures)
from web.testing import until  # noqa: E402

# navigator.wakeLock as the page sees it: requests and releases counted; the page's
# visibility set from the test (a browser hides the page, and drops the lock, when the
# phone locks or another app comes up)
STAND_IN = """
window.__wake = { requests: 0, released: 0, held: null, visible: true };
Object.defineProperty(document, "visibilityState", { get: () => window.__wake.visible ? "visible" : "hidden" });
Object.defineProperty(navigator, "wakeLock", { value: { request: async (type) => {
  if (type !== "screen") throw new TypeError("not a screen lock: " + type);
  window.__wake.requests += 1;
  const lock = new EventTarget();
  lock.released = false;
  lock.release = async () => {
    if (lock.released) return;
    lock.released = true; window.__wake.released += 1; window.__wake.held = null;
    lock.dispatchEvent(new Event("release"));
  };
  window.__wake.held = lock;
  return lock;
} } });
window.__hide = async () => { window.__wake.visible = false; if (window.__wake.held) await window.__wake.held.release();
                              document.dispatchEvent(new Event("visibilitychange")); };
window.__show = () => { window.__wake.visible = true; document.dispatchEvent(new Event("visibilitychange")); };
"""


@pytest.mark.parametrize("role", ["t", "w"])
def test_the_screen_stays_on_through_the_match_and_not_after(server, browser, role):  # noqa: F811
    api = Api(server.url, {"teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"],
                           "rules": {"vacas_to_win": 1}, "esku": 0})
    ctx = phone(browser, "es")
    try:
        ctx.add_init_script(STAND_IN)
        page = ctx.new_page()
        page.goto(api.url(role))
        page.wait_for_selector("#live[data-state=live]")
        assert until(page, "() => window.__wake.held !== null")
        api.act("paso")  # a live update asks for no second lock while one is held
        until(page, "() => document.querySelector('.seat.is-speaking')?.dataset.seat === '1'")
        assert page.evaluate("() => window.__wake.requests") == 1

        page.evaluate("() => window.__hide()")  # the phone locked: the browser let the lock go
        assert page.evaluate("() => [window.__wake.held, window.__wake.released]") == [None, 1]
        page.evaluate("() => window.__show()")  # back at the table: taken again
        assert until(page, "() => window.__wake.held !== null && window.__wake.requests === 2")

        api.act("ordago")
        api.act("quiero")
        api.post("showdown", {"hands": [["12o", "12c", "12e", "11b"], ["1o", "2c", "4e", "5b"],
                                        ["7o", "7c", "10e", "6b"], ["4o", "5c", "6e", "11o"]]})
        assert api.state()["winner"] == 0
        assert until(page, "() => window.__wake.held === null && window.__wake.released === 2")
        page.evaluate("() => window.__hide()")
        page.evaluate("() => window.__show()")  # the match is over: the screen may sleep
        page.wait_for_timeout(300)
        assert page.evaluate("() => [window.__wake.requests, window.__wake.held]") == [2, None]
    finally:
        ctx.close()


def test_a_page_without_wake_lock_plays_on(server, browser):  # noqa: F811
    """An http address on a phone gives no wake lock (`navigator.wakeLock` is missing, or
    refuses): the table works as before."""
    api = Api(server.url, {"teams": ["A", "B"], "rules": {}, "esku": 0})
    ctx = phone(browser, "es")
    try:
        ctx.add_init_script("Object.defineProperty(navigator, 'wakeLock', { value: { request: async () => {"
                            " throw new DOMException('no', 'NotAllowedError'); } } });")
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(api.url())
        page.wait_for_selector("#live[data-state=live]")
        page.click(".act[data-act=paso]")
        until(page, "() => document.querySelector('.seat.is-speaking')?.dataset.seat === '1'")
        assert errors == []
    finally:
        ctx.close()
