"""The deck page in a real browser (Debian's Chromium, Playwright) on the real server: the
admin key from the address, four photos chosen, the deck taught for real (tiny settings),
then the server's photos read with it. Without Chromium this skips, unless `CI` is set."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser
pytest.importorskip("cv2", reason="teaching a deck needs OpenCV (the enroll or train extra)")
pytest.importorskip("onnx", reason="teaching a deck needs onnx (the enroll or train extra)")

from datasets.render import layout_photos  # noqa: E402
from tests.test_web_browser_table import _need_browser  # noqa: E402
from web.decks import SUITS  # noqa: E402
from web.testing import CHROMIUM, CHROMIUM_ARGS, PHONE, LiveServer  # noqa: E402

KEY = "browser-test-key-0123456789"


def test_a_club_teaches_its_deck_from_a_phone_and_the_server_reads_with_it(tmp_path) -> None:
    _need_browser()
    from playwright.sync_api import expect, sync_playwright

    photos = []
    for suit, image in zip(SUITS, layout_photos(6, "naipes-libres"), strict=True):
        photos.append(tmp_path / f"{suit}.jpg")
        image.save(photos[-1], quality=90)
    with LiveServer({"ADMIN_KEY": KEY, "TEACH_ARGS": ["--scenes", "3", "--check", "1", "--epochs", "2",
                                                      "--hidden", "32", "--workers", "1"]}) as srv, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(**PHONE)
        page.goto(f"{srv.url}/decks?lang=en#key=wrong-key-wrong-key")
        expect(page.locator("#deck-key .form-error")).to_have_text("That is not this server's key.")
        assert "key=" not in page.url  # the key never stays in the address bar
        page.fill("#deck-key input[name=key]", KEY)
        page.click("#deck-key button[type=submit]")
        expect(page.locator(".deck-now-text")).to_have_text("the shipped models")
        expect(page.locator("#use-shipped")).to_be_hidden()
        refine = page.locator("#deck-refine")  # offered where the server can tune with torch; off unless chosen
        from web.decks import refine_unavailable

        (expect(refine).to_be_visible() if refine_unavailable() is None else expect(refine).to_be_hidden())
        expect(page.locator("#deck-new input[name=refine]")).not_to_be_checked()

        page.click("#deck-new button[type=submit]")  # no photos yet
        expect(page.locator("#deck-new .form-error")).to_contain_text("Oros")
        for suit, path in zip(SUITS, photos, strict=True):
            page.set_input_files(f"#deck-new input[name={suit}]", str(path))
        page.fill("#deck-new input[name=name]", "Fournier of the peña")
        page.click("#deck-new button[type=submit]")
        item = page.locator(".deck-item").first
        expect(item.locator("h3")).to_have_text("Fournier of the peña")
        # about a minute alone; a wait, not a timing: a machine shared with other work took over four
        expect(item.locator(".deck-state")).to_have_text(re.compile(r"^Ready, taught in"), timeout=600_000)
        expect(item.locator(".deck-sheet img")).to_be_visible()
        # fetched with the key in a header, shown from a blob: the key is in no address
        assert item.locator(".deck-sheet img").get_attribute("src").startswith("blob:")
        assert item.locator(".deck-sheet").get_attribute("href").startswith("blob:")
        expect(item).to_contain_text("test showdowns of this deck")

        item.get_by_role("button", name="Read photos with this deck").click()
        expect(page.locator(".deck-now-text")).to_have_text("the models taught your deck “Fournier of the peña”")
        expect(item.locator(".badge")).to_have_text("reading now")
        deck_id = item.get_attribute("data-id")
        assert srv.app.config["MODEL_DIR"].endswith(f"{deck_id}/models")

        page.reload()  # the key is remembered on this phone
        expect(page.locator(".deck-now-text")).to_contain_text("Fournier of the peña")
        page.click("#use-shipped")
        expect(page.locator(".deck-now-text")).to_have_text("the shipped models")
        page.once("dialog", lambda d: d.accept())
        item.get_by_role("button", name="Remove").click()
        expect(page.locator(".deck-item")).to_have_count(0)
        browser.close()
