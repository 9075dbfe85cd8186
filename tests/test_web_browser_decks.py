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


@pytest.mark.parametrize("lang", ["es", "fr"])
def test_every_bad_photo_is_named_at_once_with_the_photos_own_limit(tmp_path, lang) -> None:
    """Four bad photos sent: the page names the four, each by its suit and why, in one
    submit, and marks their tiles; a photo too large is told the photo's limit (25 MB and
    50 megapixels), not a match file's. A photo chosen again loses its mark."""
    _need_browser()
    from PIL import Image
    from playwright.sync_api import sync_playwright

    from web import i18n
    from web.decks import PHOTO_LIMIT
    from web.testing import until

    files = {s: tmp_path / f"{s}.jpg" for s in SUITS}
    files["oros"].write_bytes(b"\xff" * (PHOTO_LIMIT + 1))
    files["copas"].write_bytes(b"not a picture at all")
    Image.new("RGB", (20, 20), "red").save(files["espadas"], "JPEG")
    layout_photos(6, "naipes-libres")[3].save(files["bastos"], quality=90)
    files["bastos"].write_bytes(files["bastos"].read_bytes()[:5000])  # cut short: does not decode
    with LiveServer({"ADMIN_KEY": KEY}) as srv, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(**PHONE)
        page.goto(f"{srv.url}/decks?lang={lang}#key={KEY}")
        page.wait_for_selector("#deck-app:not([hidden])")
        for suit, path in files.items():
            page.set_input_files(f"#deck-new input[name={suit}]", str(path))
        page.click("#deck-new button[type=submit]")
        until(page, "document.querySelectorAll('#deck-new .form-error li').length === 4")
        said = page.locator("#deck-new .form-error li").all_inner_texts()

        def line(suit: str, why: str) -> str:
            return i18n.t(lang, "decks.photo_problem", suit=i18n.t(lang, f"decks.suit_{suit}"), why=why)

        assert said == [line("oros", i18n.t(lang, "decks.photo_too_large")),
                        line("copas", i18n.t(lang, "err.not_image")),
                        line("espadas", i18n.t(lang, "err.too_small_image")),
                        line("bastos", i18n.t(lang, "err.corrupt_image"))], said
        assert "4 M" not in page.inner_text("#deck-new .form-error")
        assert page.locator(".deck-photo-cell.is-bad").count() == 4
        assert page.locator("#deck-new input[aria-invalid=true]").count() == 4
        again = tmp_path / "espadas-again.jpg"
        layout_photos(6, "naipes-libres")[2].save(again, quality=90)
        page.set_input_files("#deck-new input[name=espadas]", str(again))
        until(page, "document.querySelectorAll('.deck-photo-cell.is-bad').length === 3")
        assert page.get_attribute("#deck-new input[name=espadas]", "aria-invalid") is None
        browser.close()


def test_a_server_given_a_model_folder_says_it_reads_that_and_lets_the_deck_chosen_before_go(tmp_path) -> None:
    """`serve --model DIR` after a deck was chosen: the page says the server reads the models
    it was started with, not the deck (no "reading now"), and that deck may be removed."""
    _need_browser()
    import json

    from playwright.sync_api import expect, sync_playwright

    from web import i18n

    root, deck_id = tmp_path / "decks", "abcdef012345"
    (root / deck_id / "models").mkdir(parents=True)
    (root / deck_id / "models" / "cards-det.onnx").write_bytes(b"taught")
    (root / deck_id / "job.json").write_text(json.dumps({
        "id": deck_id, "name": "Club deck", "state": "ready", "created": "2026-11-24T10:00:00Z", "minutes": 14.2,
        "agree": 40, "check": None, "verdict": None, "refine": False, "refined": None, "refine_error": None}))
    (root / "active").write_text(deck_id + "\n")
    (tmp_path / "given").mkdir()
    with LiveServer({"ADMIN_KEY": KEY, "DECKS_DIR": str(root), "MODEL_DIR": str(tmp_path / "given")}) as srv, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(**PHONE)
        page.goto(f"{srv.url}/decks?lang=en#key={KEY}")
        expect(page.locator(".deck-now-text")).to_have_text(i18n.t("en", "decks.now_given"))
        expect(page.locator("#use-shipped")).to_be_hidden()
        item = page.locator(".deck-item").first
        expect(item.locator("h3")).to_have_text("Club deck")
        expect(item.locator(".badge")).to_have_count(0)
        expect(item.get_by_role("button", name="Read photos with this deck")).to_be_visible()
        page.once("dialog", lambda d: d.accept())
        item.get_by_role("button", name="Remove").click()
        expect(page.locator(".deck-item")).to_have_count(0)
        assert not (root / deck_id).exists() and not (root / "active").exists()
        browser.close()


def test_one_photo_chosen_for_every_suit_is_told_for_each_before_anything_is_taught(tmp_path) -> None:
    """The oros photo chosen four times: each suit's line says it is the same photo as
    another suit's, the four tiles are marked, and no deck appears."""
    _need_browser()
    from playwright.sync_api import expect, sync_playwright

    from web import i18n
    from web.testing import until

    photo = tmp_path / "oros.jpg"
    layout_photos(6, "naipes-libres")[0].save(photo, quality=90)
    with LiveServer({"ADMIN_KEY": KEY}) as srv, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(**PHONE)
        page.goto(f"{srv.url}/decks?lang=es#key={KEY}")
        page.wait_for_selector("#deck-app:not([hidden])")
        for suit in SUITS:
            page.set_input_files(f"#deck-new input[name={suit}]", str(photo))
        page.click("#deck-new button[type=submit]")
        until(page, "document.querySelectorAll('#deck-new .form-error li').length === 4")
        assert page.locator("#deck-new .form-error li").all_inner_texts() == [
            i18n.t("es", "decks.photo_problem", suit=i18n.t("es", f"decks.suit_{s}"), why=i18n.t("es", "err.same_photo"))
            for s in SUITS]
        assert page.locator(".deck-photo-cell.is-bad").count() == 4
        expect(page.locator("#deck-list-panel")).to_be_hidden()
        assert srv.app.extensions["mus_teacher"].decks() == []
        browser.close()


def test_a_deck_stopped_with_its_server_is_told_in_the_pages_language_and_a_given_deck_has_no_way_back(
        tmp_path) -> None:
    """A deck interrupted, and one whose refining was stopped, by a restart: said in Spanish
    from their codes, not in the server's English; the server started with that deck's own
    models (`serve --model <deck>/models`): no button back to them, a note instead."""
    _need_browser()
    from playwright.sync_api import expect, sync_playwright

    from tests.test_web_decks_jobs import left_deck
    from web import i18n

    root = tmp_path / "decks"
    left_deck(root, "a" * 12, "refining", models="models", name="Refinada", created="2026-11-24T10:08:00Z")
    left_deck(root, "b" * 12, "teaching", name="Cortada", created="2026-11-24T10:07:00Z")
    with LiveServer({"ADMIN_KEY": KEY, "DECKS_DIR": str(root), "MODEL_DIR": str(root / ("a" * 12) / "models")}) as srv, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(**PHONE)
        page.goto(f"{srv.url}/decks?lang=es#key={KEY}")
        refined = page.locator(".deck-item", has_text="Refinada")
        expect(refined.locator(".deck-warn")).to_have_text(i18n.t("es", "decks.refine_stopped"))
        cut = page.locator(".deck-item", has_text="Cortada")
        expect(cut.locator(".deck-state")).to_have_text(
            i18n.t("es", "decks.state_interrupted", error=i18n.t("es", "decks.error_stopped")))
        expect(page.locator("#use-shipped")).to_be_hidden()
        expect(page.locator("#deck-given-note")).to_have_text(i18n.t("es", "decks.given_is_deck"))
        browser.close()
