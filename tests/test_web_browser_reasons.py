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
        until(page, "() => document.getElementById('import-match-error').textContent.includes('2')")
        card = i18n.t("es", "card.of", rank=i18n.t("es", "rank.12"), suit=i18n.t("es", "suit.o"))
        why = i18n.t("es", "why.card_twice", card=card)
        assert page.inner_text("#import-match-error") == f"{i18n.t('es', 'err.file_line', n=2)} ({why})"
        assert "Rey de oros" in why and "twice" not in page.inner_text("#import-match-error")
    finally:
        ctx.close()


def _common_js(app, chromium, lang: str, body: str):
    """What `body` returns, run in a phone's page of `app` (the server) in `lang` with the page's common.js as `m`."""
    ctx = phone(chromium, lang)
    try:
        page = ctx.new_page()
        page.goto(app.url + "/")
        return page.evaluate("async () => { const m = await import('/static/common.js');" + body + "\n}")
    finally:
        ctx.close()


@pytest.mark.parametrize("lang, said", [
    ("es", "Ahora se apuesta a pares, no se declara."),
    ("fr", "On mise maintenant à la phase paires, on n'annonce plus."),
    ("eu", "Orain pareak jokaldian apustua egiten da, ez aitorpena."),
])
def test_a_lance_in_a_refusal_is_said_within_the_sentence(server, browser, lang: str, said: str) -> None:  # noqa: F811
    # the page's own ApiError says a refusal's lance in lower case, inside its sentence
    text = _common_js(server, browser, lang, """
        return new m.ApiError(422, 'illegal', 'seat: ...', 'seat', null, 'declare_in_betting',
                              {lance: 'pares'}).text;""")
    assert text == said


@pytest.mark.parametrize("lang", ["fr", "es", "eu", "en"])
def test_the_pages_script_says_a_score_and_a_card_as_the_server(server, browser, lang: str) -> None:  # noqa: F811
    """The scoreboard's words for a screen reader (the score and its target, a singular
    where the page's language has one: French 0 and 1) and a card's name (French "As
    d'épées") are the server's (i18n.t, i18n.card_name)."""
    from web import i18n

    said = _common_js(server, browser, lang, """
        return [[0, 1, 2, 12].map((n) => m.t(m.plural('score.of_target', n), {n, target: 40})),
                ['1e', '11e', '12o'].map(m.cardName)];""")
    one = {"fr": (0, 1), "eu": (1,), "es": (1,), "en": (1,)}[lang]
    assert said[0] == [i18n.t(lang, "score.of_target_one" if n in one else "score.of_target", n=n, target=40)
                       for n in (0, 1, 2, 12)]
    assert said[1] == [i18n.card_name(lang, c) for c in ("1e", "11e", "12o")]
    if lang == "fr":
        assert said == [["0 pierre sur 40", "1 pierre sur 40", "2 pierres sur 40", "12 pierres sur 40"],
                        ["As d'épées", "Cavalier d'épées", "Roi de deniers"]]


@pytest.mark.parametrize("lang", ["fr", "es", "eu", "en"])
def test_a_refusal_counting_one_says_it_in_the_singular(server, browser, lang: str) -> None:  # noqa: F811
    """The page said a refusal's count in the plural whatever it was: "1 fixtures already
    played or begun would move". A `why.<reason>_one` is picked as a score's is."""
    from web import i18n

    said = _common_js(server, browser, lang, """
        return [1, 2].map((count) => new m.ApiError(409, 'fixtures_would_move', 'move_played: ...', 'move_played',
                                                     null, 'fixtures_would_move', {count, moves: [], gone: []}).text);""")
    words = [i18n.t(lang, "why.fixtures_would_move_one", count=1), i18n.t(lang, "why.fixtures_would_move", count=2)]
    assert said == [f"{w[0].upper()}{w[1:]}." for w in words]


WHYS = [  # the engine's reasons of every kind (scorer/engine/README.md, ruling 10), and some it never writes
    {"lance": "grande", "team": 0, "why": "deje: envido refused"},
    {"lance": "grande", "team": 1, "why": "deje: envido 3, 2 more, ordago refused"},
    {"lance": "chica", "team": 1, "why": "envido 2, 2 more, accepted; best chica seat 1"},
    {"lance": "chica", "team": 0, "why": "ordago, accepted"},
    {"lance": "pares", "team": 0, "why": "false pares of seat 1 (seed 004 art. 13a): seat 0 pareja, seat 2 pareja"},
    {"lance": "punto", "team": 1, "why": "undeclared juego of seat 2 (seed 002 art. 18, seed 004 art. 16a): tira 2"},
    {"lance": "juego", "team": 0, "why": "only team 0 has juego: seat 2 33"},
    {"lance": "punto", "team": 1, "why": "punto after refused bet on juego"},
    {"lance": "pares", "team": 0, "why": "bonus after refused bet: seat 0 medias"},
    {"lance": "pares", "team": 1, "why": "all passed; best pares seat 1"},
    {"lance": "grande", "team": 0, "why": "deje: 3 less refused"},
    {"lance": "grande", "team": 0, "why": "something new"},
    {"lance": "grande", "team": 0},
]


@pytest.mark.parametrize("lang", ["fr", "es", "eu", "en"])
def test_the_pages_script_says_an_events_reason_as_the_server(server, browser, lang: str) -> None:  # noqa: F811
    """The table page's count says each event's reason with its script (common.js whyText);
    the history says it from the server (i18n.why_text), for a page without script: word for
    word the same, a reason neither reads left out of both."""
    from web import i18n

    teams = ["Gorriak", "Ane"]  # a Basque plural and a name in a vowel
    said = _common_js(server, browser, lang, f"""
        const teams = {json.dumps(teams)};
        return {json.dumps(WHYS)}.map((ev) => m.whyText(ev, teams[ev.team]));""")
    assert said == [i18n.why_text(lang, ev, teams[ev["team"]]) for ev in WHYS]
    assert said[-3:] == ["", "", ""] and all(said[:-3]), said
