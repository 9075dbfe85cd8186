"""The app on a phone's home screen: the web app manifest in the reader's language and
the icons drawn by `web.icon`; a real Chromium finds the app installable."""

from __future__ import annotations

import io
import math

import pytest
from PIL import Image

from web import i18n
from web.icon import FELT, SIZES


@pytest.fixture
def client(tmp_path):
    from web import create_app

    return create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True}).test_client()


def _image(client, url: str) -> Image.Image:
    r = client.get(url)
    assert r.status_code == 200 and r.mimetype == "image/png", url
    assert "max-age" in r.headers["Cache-Control"]
    return Image.open(io.BytesIO(r.data)).convert("RGBA")


@pytest.mark.parametrize("lang", i18n.LANGS)
def test_the_manifest_names_the_app_in_the_pages_language(client, lang) -> None:
    page = client.get(f"/?lang={lang}").get_data(as_text=True)
    assert f'<link rel="manifest" href="/manifest.webmanifest?lang={lang}">' in page
    r = client.get(f"/manifest.webmanifest?lang={lang}")
    assert r.status_code == 200 and r.mimetype == "application/manifest+json"
    m = r.get_json(force=True)
    assert m["name"] == i18n.strings(lang)["app.name"] and m["lang"] == lang
    assert m["start_url"] == "/" and m["scope"] == "/" and m["display"] == "standalone"
    assert m["theme_color"] in page  # the same green as the page's theme-color
    assert {"any", "maskable"} == {i["purpose"] for i in m["icons"]}
    assert {(192, "any"), (512, "any")} <= {(int(i["sizes"].split("x")[0]), i["purpose"]) for i in m["icons"]}


def test_every_icon_the_manifest_and_page_name_is_a_png_of_its_size(client) -> None:
    m = client.get("/manifest.webmanifest").get_json(force=True)
    page = client.get("/").get_data(as_text=True)
    assert 'rel="apple-touch-icon" href="/icon-maskable-180.png"' in page
    for url, size in [(i["src"], int(i["sizes"].split("x")[0])) for i in m["icons"]] + [("/icon-maskable-180.png", 180)]:
        assert _image(client, url).size == (size, size), url


def test_the_plain_icon_has_round_transparent_corners_and_the_maskable_one_is_full_bleed(client) -> None:
    plain, full = _image(client, "/icon-512.png"), _image(client, "/icon-maskable-512.png")
    assert plain.getpixel((0, 0))[3] == 0 and plain.getpixel((256, 5)) == FELT
    assert all(full.getpixel(p) == FELT for p in [(0, 0), (511, 0), (0, 511), (511, 511)])
    # the mark (every pixel not the felt) lies inside the maskable safe zone: the centred circle of 80%
    mark = [(x, y) for y in range(0, 512, 4) for x in range(0, 512, 4) if full.getpixel((x, y)) != FELT]
    assert mark and max(math.dist(p, (256, 256)) for p in mark) <= 0.4 * 512
    # the same gold coin in both
    assert plain.getpixel((12 * 16, 17 * 16)) == full.getpixel((round(0.075 * 512 + 12 * 16 * 0.85),
                                                                  round(0.075 * 512 + 17 * 16 * 0.85)))


@pytest.mark.parametrize("url", ["/icon-64.png", "/icon-maskable-1024.png", "/icon-0.png"])
def test_an_icon_size_not_offered_is_not_found(client, url) -> None:
    assert client.get(url).status_code == 404


def test_icon_png_refuses_an_absurd_size() -> None:
    from web.icon import png

    with pytest.raises(ValueError, match="4096"):
        png(4096)
    assert set(SIZES) == {180, 192, 512}


@pytest.mark.browser
def test_chromium_reads_the_manifest_and_finds_the_app_installable(tmp_path) -> None:
    from tests.test_web_browser_table import _need_browser

    _need_browser()
    from playwright.sync_api import sync_playwright

    from web.testing import CHROMIUM, CHROMIUM_ARGS, PHONE, LiveServer

    # a persistent profile: Chromium never offers to install from an incognito one
    with LiveServer() as srv, sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path=CHROMIUM,
                                                    args=CHROMIUM_ARGS, **PHONE)
        try:
            page = ctx.new_page()
            page.goto(f"{srv.url}/?lang=eu")
            cdp = ctx.new_cdp_session(page)
            manifest = cdp.send("Page.getAppManifest")
            assert manifest["errors"] == []
            assert manifest["manifest"]["name"] == i18n.strings("eu")["app.name"]
            assert len(manifest["manifest"]["icons"]) == 4
            assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        finally:
            ctx.close()
