"""An engine refusal said in the page's language in a real browser (Debian's Chromium,
Playwright, the real app on 127.0.0.1): a match file whose hand shows a card twice,
imported from a Spanish page, is told in Spanish with the card's Spanish name.

Without Chromium this test skips, unless `CI` is set: then it fails.
"""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

from tests.test_web_browser_table import browser, import_file, phone  # noqa: E402, F401 (browser: a fixture)
from tests.test_web_browser_tournament import server  # noqa: E402, F401 (a fixture: the app on its own)
from web.testing import until  # noqa: E402


def test_a_card_twice_in_an_imported_file_is_said_in_spanish(server, browser, tmp_path) -> None:  # noqa: F811
    from web import i18n

    hands = [["12o", "4o", "5o", "6o"], ["12o", "4c", "5c", "6c"], ["1e", "4e", "5e", "6e"], ["1b", "4b", "5b", "6b"]]
    bad = tmp_path / "twice.jsonl"
    bad.write_text(json.dumps({"format": "mus-match/1"}) + "\n" + json.dumps({"hands": hands}) + "\n", encoding="utf-8")
    ctx = phone(browser, "es")
    try:
        page = ctx.new_page()
        page.goto(server.url + "/")
        import_file(page, "#import-match", bad)
        until(page, "() => document.getElementById('toast').textContent.includes('2')")
        card = i18n.t("es", "card.of", rank=i18n.t("es", "rank.12"), suit=i18n.t("es", "suit.o"))
        why = i18n.t("es", "why.card_twice", card=card)
        assert page.inner_text("#toast") == f"{i18n.t('es', 'err.file_line', n=2)} ({why})"
        assert "Rey de oros" in why and "twice" not in page.inner_text("#toast")
    finally:
        ctx.close()


@pytest.mark.parametrize("lang, said", [
    ("es", "Ahora se apuesta a pares, no se declara."),
    ("fr", "On mise maintenant au lance paires, on n'annonce plus."),
    ("eu", "Orain pareak lancean apustua egiten da, ez aitorpena."),
])
def test_a_lance_in_a_refusal_is_said_within_the_sentence(server, browser, lang: str, said: str) -> None:  # noqa: F811
    # the page's own ApiError says a refusal's lance in lower case, inside its sentence
    ctx = phone(browser, lang)
    try:
        page = ctx.new_page()
        page.goto(server.url + "/")
        text = page.evaluate("""async () => {
            const m = await import('/static/common.js');
            return new m.ApiError(422, 'illegal', 'seat: ...', 'seat', null, 'declare_in_betting',
                                  {lance: 'pares'}).text;
        }""")
        assert text == said
    finally:
        ctx.close()
