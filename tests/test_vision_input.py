"""Every way a photo comes in, and what it may cost: the web routes check the header first
and decode, read and annotate inside a scan slot; 16-bit greyscale is scaled, not
clipped; a deck's photos are checked by suit before any job starts; messages say the
problem in the product's terms; a photo too small to hold a card is refused and one with
no card found says so; the command line refuses a FIFO, a device, a file too big and an
--annotate folder it cannot make. Every image is made here."""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import threading
import warnings
import wave
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from scorer.vision import ImageError, annotate, check_scannable, combine, load_image, open_photo
from scorer.vision import image as image_mod
from scorer.vision.layout import Card, layout
from web import create_app
from web.api import SCAN_THREAD

sys.path.insert(0, str(Path(__file__).parent))
from vision_helpers import encoded, jpeg, jpeg_header, png_header  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LIMIT = "the limit is 52,000,000 pixels (about 50 megapixels)"
INTERNALS = ("_io.BytesIO", "0x7f", "178956970", "decompression bomb DOS", "cannot identify")


def _noise(w: int, h: int, seed: int = 0) -> Image.Image:
    return Image.fromarray((np.random.default_rng(seed).random((h, w, 3)) * 255).astype(np.uint8))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png16_rgb(w: int, h: int, rgb16: tuple[int, int, int]) -> bytes:
    """A PNG of 16 bits a channel (Pillow writes none), every pixel `rgb16`."""
    row = b"\0" + struct.pack(">" + "H" * 3 * w, *(rgb16 * w))
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(row * h)) + _chunk(b"IEND", b""))


def _grey16(w: int = 256, h: int = 100) -> bytes:
    """A 16-bit greyscale PNG (mode I;16): a ramp from 0 to 65535 left to right."""
    ramp = np.broadcast_to(np.linspace(0, 65535, w).astype(np.uint16), (h, w)).copy()
    img = Image.fromarray(ramp)
    assert img.mode == "I;16"
    return encoded(img, "PNG")


def _wav() -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"\0\1" * 800)
    return out.getvalue()


def _broken_ihdr_crc() -> bytes:
    data = bytearray(encoded(Image.new("RGB", (200, 100), (9, 9, 9)), "PNG"))
    data[29] ^= 0xFF  # the IHDR chunk's CRC
    return bytes(data)


def _photo(size: tuple[int, int] = (640, 480), fmt: str = "JPEG") -> bytes:
    return encoded(Image.new("RGB", size, (30, 110, 60)), fmt)


# -- 16-bit greyscale ----------------------------------------------------------
def test_sixteen_bit_greyscale_is_scaled_not_clipped_to_white() -> None:
    img = load_image(_grey16())
    grey = np.asarray(img)
    assert img.mode == "RGB" and img.size == (256, 100)
    assert grey.min() == 0 and grey.max() == 255  # the whole ramp, not solid white
    assert abs(int(grey[50, 128, 0]) - 128) <= 2 and (grey[..., 0] == grey[..., 2]).all()
    assert np.all(np.diff(grey[0, :, 0].astype(int)) >= 0)  # still a ramp, left to right
    small = np.asarray(open_photo(_grey16()).decode(4))  # reduced too (I;16 cannot be box-reduced as is)
    assert small.shape == (25, 64, 3) and small.min() < 10 and small.max() > 245


def test_sixteen_bit_rgb_keeps_its_colours() -> None:
    img = load_image(_png16_rgb(120, 80, (30000, 60000, 1000)))
    assert img.getpixel((5, 5)) == (30000 >> 8, 60000 >> 8, 1000 >> 8)


def test_palette_and_grey_alpha_pngs_decode_reduced_on_white() -> None:
    pal = Image.new("P", (300, 200))
    pal.info["transparency"] = 0
    assert open_photo(encoded(pal, "PNG")).decode(2).getpixel((3, 3)) == (255, 255, 255)
    assert load_image(encoded(Image.new("LA", (100, 100), (0, 0)), "PNG")).getpixel((3, 3)) == (255, 255, 255)


def _png_with(img: Image.Image, chunk: bytes, damage_pixels: bool = False) -> bytes:
    """`img` as PNG with `chunk` added after its pixels (before IEND); `damage_pixels`:
    its compressed pixels overwritten, the chunk's CRC still right."""
    data = encoded(img, "PNG")
    at = data.index(b"IDAT") - 4
    if damage_pixels:
        n = int.from_bytes(data[at:at + 4], "big")
        data = data[:at] + _chunk(b"IDAT", b"\x78\x9c" + b"\xff" * (n - 2)) + data[at + 12 + n:]
    end = data.rindex(b"IEND") - 4
    return data[:end] + chunk + data[end:]


def test_a_png_header_is_checked_without_decoding_its_pixels() -> None:
    """Pillow's `getexif` on a PNG decodes it whole to look for an eXIf chunk after the
    pixels: checking the header must not (a 50 MP PNG is 150 MB decoded)."""
    exif = Image.Exif()
    exif[0x0112] = 6
    raw = exif.tobytes()
    damaged = _png_with(_noise(120, 80), _chunk(b"eXIf", raw), damage_pixels=True)
    photo = open_photo(damaged)  # would fail here if the pixels were decoded
    assert photo.orientation == 6 and photo.size == (80, 120)
    with pytest.raises(ImageError) as info:
        photo.decode()
    assert info.value.code == "corrupt"
    turned = open_photo(_png_with(_noise(120, 80), _chunk(b"eXIf", raw)))
    assert turned.orientation == 6 and turned.decode().size == (80, 120)
    assert open_photo(encoded(_noise(120, 80), "PNG")).orientation == 1


# -- messages in the product's terms ------------------------------------------
@pytest.mark.parametrize("data, code, said", [
    (png_header(100000, 100000), "too_large", "the image is 100000x100000 (10,000,000,000 pixels); " + LIMIT),
    (png_header(8000, 7000), "too_large", "the image is 8000x7000 (56,000,000 pixels); " + LIMIT),
    (jpeg_header(8000, 6625), "too_large", "the image is 8000x6625 (53,000,000 pixels); " + LIMIT),
    (b"\xff\xd8\xff\xe0" + b"\0" * 100, "corrupt", "not a readable JPEG image (damaged or truncated)"),
    (png_header(100, 100)[:20], "corrupt", "not a readable PNG image (damaged or truncated)"),
    (_broken_ihdr_crc(), "corrupt", "not a readable PNG image (damaged or truncated)"),
])
def test_refusals_say_the_problem_without_pillows_words(data: bytes, code: str, said: str) -> None:
    with pytest.raises(ImageError) as info:
        load_image(data)
    assert info.value.code == code and str(info.value) == said


def test_a_truncated_photo_is_refused_in_plain_words_even_when_decoded_small() -> None:
    whole = jpeg(_noise(640, 480))
    for cut in (whole[: len(whole) // 2], whole[:200]):
        for reduce in (1, 8):
            with pytest.raises(ImageError) as info:
                open_photo(cut).decode(reduce)
            assert info.value.code == "corrupt" and not any(s in str(info.value) for s in INTERNALS)


def test_a_damaged_exif_block_is_read_past_without_a_warning() -> None:
    data = bytearray(jpeg(Image.new("RGB", (200, 150), (20, 120, 40)), orientation=6))
    tiff = data.find(b"Exif\x00\x00") + 6
    data[tiff + 8: tiff + 10] = struct.pack(">H" if data[tiff:tiff + 2] == b"MM" else "<H", 400)  # entries past the end
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        photo = open_photo(bytes(data))
        img = photo.decode()
    assert img.size == photo.size and [str(w.message) for w in seen] == []


# -- too small, and nothing found ----------------------------------------------
@pytest.mark.parametrize("size", [(1, 1), (60000, 1), (63, 800), (800, 63)])
def test_a_photo_too_small_to_hold_a_card_is_refused_naming_the_floor(size: tuple[int, int]) -> None:
    with pytest.raises(ImageError) as info:
        check_scannable(size)
    assert info.value.code == "too_small" and f"{size[0]}x{size[1]}" in str(info.value) and "64 px" in str(info.value)
    check_scannable((64, 64))  # the floor itself is enough


def test_no_card_found_is_a_warning_and_a_card_found_unread_is_not() -> None:
    empty = layout([], 0)
    assert [w["code"] for w in empty["warnings"]] == ["no_cards"] and empty["warnings"][0]["message"]
    unread = layout([], 0, [(10, 10, 60, 90)])
    assert "no_cards" not in [w["code"] for w in unread["warnings"]]
    one = layout([Card("12o", 0.97, (100, 100, 400, 560))], 0)
    assert "no_cards" not in [w["code"] for w in one["warnings"]]
    both = combine([empty, empty])
    assert [w["code"] for w in both["warnings"]] == ["no_cards"] and "2 photos" in both["warnings"][0]["message"]
    assert "no_cards" not in [w["code"] for w in combine([empty, one])["warnings"]]


def test_the_reader_warns_when_it_finds_no_card_and_refuses_a_strip(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    from vision_helpers import write_fake_models

    from scorer.vision import Recognizer

    rec = Recognizer(write_fake_models(tmp_path / "models", []))  # a detector that finds nothing
    for img in (Image.new("RGB", (800, 600)), Image.new("RGBA", (800, 600), (0, 0, 0, 0))):
        result = rec.scan(open_photo(encoded(img, "PNG")))
        assert result["cards"] == [] and [w["code"] for w in result["warnings"]] == ["no_cards"]
    with pytest.raises(ImageError) as info:
        rec.scan(open_photo(encoded(Image.new("RGB", (6000, 1)), "PNG")))
    assert info.value.code == "too_small"


# -- the web routes: header first, then the slot --------------------------------
W = f"{SCAN_THREAD}_0"
"""The one scan worker's thread where `SCAN_CONCURRENCY` is 1."""


def _on_a_worker() -> str | None:
    """The scan worker's thread this runs on, or None on any other thread."""
    name = threading.current_thread().name
    return name if name.startswith(SCAN_THREAD) else None


class SlotWatcher:
    """A reader that says which scan worker it read on (None: not on one), and what it got."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[int, int], str | None]] = []

    def held(self) -> str | None:
        return _on_a_worker()

    def scan(self, image: Any, bottom: int = 0) -> dict[str, Any]:
        kind = "Photo" if isinstance(image, image_mod.Photo) else "Image" if isinstance(image, Image.Image) else "?"
        self.calls.append((kind, tuple(image.size), self.held()))
        w, h = image.size
        return {"cards": [{"card": "1o", "conf": 0.97, "box": [w // 4, h // 4, w // 2, h // 2], "seat": None}],
                "hands": None, "warnings": [], "size": [w, h]}


@pytest.fixture()
def watched(tmp_path, monkeypatch):
    rec = SlotWatcher()
    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": rec,
                      "SCAN_CONCURRENCY": 1})
    decodes: list[tuple[int, str | None]] = []
    annotated: list[str | None] = []
    real_decode, real_annotate = image_mod.Photo.decode, annotate

    def decode(self, reduce: int = 1):
        decodes.append((reduce, rec.held()))
        return real_decode(self, reduce)

    def watch_annotate(*args, **kw):
        annotated.append(rec.held())
        return real_annotate(*args, **kw)

    monkeypatch.setattr(image_mod.Photo, "decode", decode)
    monkeypatch.setattr("scorer.vision.annotate", watch_annotate)
    client = app.test_client()
    t = client.post("/api/tables", json={}).json
    return app, client, t, rec, decodes, annotated


def test_a_photo_is_decoded_read_and_annotated_inside_the_slot(watched) -> None:
    app, client, t, rec, decodes, annotated = watched
    big = jpeg(Image.new("RGB", (4800, 3600), (30, 110, 60)), quality=70)
    r = client.post(f"/api/tables/{t['id']}/photos?token={t['token']}", data=big, content_type="image/jpeg")
    assert r.status_code == 201, r.json
    # the JPEG goes to the reader undecoded (it decodes at its own scales, as the command line does) ...
    assert rec.calls == [("Photo", (4800, 3600), W)]
    # ... and is decoded here once, at half size (4800 / 2 >= 2048 > 4800 / 4), on the worker
    assert decodes == [(2, W)] and annotated == [W]
    ann = Image.open(io.BytesIO(client.get(r.json["annotated_url"] + f"?token={t['token']}").data))
    assert ann.size == (2048, 1536)
    # the card's box, drawn where the reader put it in the full photo (1200..2400 wide -> 512..1024)
    row = np.abs(np.asarray(ann.convert("RGB")).astype(int)[576] - (30, 110, 60)).sum(1)  # the box's middle
    assert row[509:516].max() > 100 and row[1021:1028].max() > 100  # its edges, at 512 and 1024
    assert row[700] < 30 and row[1195:1206].max() < 30  # plain inside, and nothing at the unscaled 1200
    # another format is decoded whole, on the worker, and read from that image
    r = client.post("/api/scan", data=_photo((300, 200), "PNG"), content_type="image/png")
    assert r.status_code == 200 and rec.calls[-1] == ("Image", (300, 200), W)
    assert decodes[-1] == (1, W) and len(annotated) == 1  # /api/scan stores no annotated copy
    assert r.json["size"] == [300, 200]
    r = client.post("/api/scan", data=_photo((300, 200)), content_type="image/jpeg")
    assert r.status_code == 200 and rec.calls[-1] == ("Photo", (300, 200), W) and decodes[-1] == (8, W)


@pytest.mark.parametrize("data, status, code, said", [
    (png_header(100000, 100000), 413, "too_large", "the image is 100000x100000 (10,000,000,000 pixels); " + LIMIT),
    (jpeg_header(8000, 6625), 413, "too_large", "the image is 8000x6625 (53,000,000 pixels); " + LIMIT),
    (_photo((1, 1), "PNG"), 400, "too_small_image", "the image is 1x1"),
    (_photo((60000, 1), "PNG"), 400, "too_small_image", "the image is 60000x1"),
    (b"\xff\xd8\xff\xe0" + b"\0" * 100, 400, "corrupt_image", "not a readable JPEG image (damaged or truncated)"),
    (_broken_ihdr_crc(), 400, "corrupt_image", "not a readable PNG image (damaged or truncated)"),
    (_wav(), 415, "not_image", "the file is not an image"),
])
def test_a_photo_refused_by_its_header_is_never_decoded_nor_read(watched, data, status, code, said) -> None:
    app, client, t, rec, decodes, annotated = watched
    for url in (f"/api/tables/{t['id']}/photos?token={t['token']}", "/api/scan"):
        r = client.post(url, data=data, content_type="application/octet-stream")
        err = r.json["error"]
        assert (r.status_code, err["code"], err["field"]) == (status, code, "photo"), err
        assert err["message"].startswith(said) and not any(s in err["message"] for s in INTERNALS)
    assert rec.calls == [] and decodes == [] and annotated == []
    assert app.extensions["mus_store"].counts(t["id"])["photos"] == 0


def test_a_truncated_photo_is_refused_in_the_slot_before_it_is_read(watched) -> None:
    app, client, t, rec, decodes, annotated = watched
    whole = jpeg(_noise(640, 480))
    r = client.post(f"/api/tables/{t['id']}/photos?token={t['token']}", data=whole[: len(whole) // 2],
                    content_type="image/jpeg")
    assert (r.status_code, r.json["error"]["code"]) == (400, "corrupt_image")
    assert r.json["error"]["message"] == "not a readable JPEG image (damaged or truncated)"
    assert decodes == [(1, W)] and rec.calls == [] and annotated == []
    assert app.extensions["mus_store"].counts(t["id"])["photos"] == 0


def test_uploads_at_once_are_decoded_one_slot_at_a_time(watched) -> None:
    """Four uploads in parallel with one worker: every decode and read ran on that one
    thread, so no two photos were ever decoded at once, and no request thread held one."""
    app, client, t, rec, decodes, annotated = watched
    data = jpeg(Image.new("RGB", (1600, 1200), (30, 110, 60)))
    codes: list[int] = []

    def upload() -> None:
        c = app.test_client()
        codes.append(c.post("/api/scan", data=data, content_type="image/jpeg").status_code)

    threads = [threading.Thread(target=upload) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert codes == [200] * 4 and len(rec.calls) == 4 and {on for *_, on in rec.calls} == {W}
    assert len(decodes) == 4 and {on for _, on in decodes} == {W}


def test_an_unreadable_sixteen_bit_photo_through_the_api_is_not_white(tmp_path) -> None:
    seen: list[np.ndarray] = []

    class Looker:
        def scan(self, image: Any, bottom: int = 0) -> dict[str, Any]:
            seen.append(np.asarray(image))
            return {"cards": [], "hands": None, "warnings": [], "size": list(image.size)}

    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": Looker()})
    r = app.test_client().post("/api/scan", data=_grey16(), content_type="image/png")
    assert r.status_code == 200 and seen[0].min() == 0 and seen[0].max() == 255


def test_annotating_a_reduced_copy_draws_the_boxes_where_the_full_photo_has_them() -> None:
    full = Image.new("RGB", (1600, 1200), (90, 90, 90))
    result = {"cards": [{"card": "1o", "conf": 0.9, "box": [400, 300, 800, 900], "seat": 0}], "hands": None,
              "warnings": []}
    out = Image.open(io.BytesIO(annotate(full.reduce(2), result, full=(1600, 1200)))).convert("RGB")
    assert out.size == (800, 600)
    px = np.asarray(out).astype(int)
    grey = np.abs(px - 90).sum(2)
    assert grey[300, 199:202].max() > 100  # the box's left edge: 400 / 2
    assert grey[300, 300] < 30 and grey[300, 395:405].max() > 100  # inside it plain; its right edge at 400
    assert full.getpixel((400, 300)) == (90, 90, 90)  # the caller's image untouched


# -- a deck's photos -----------------------------------------------------------
@pytest.fixture()
def decks(tmp_path, monkeypatch):
    import web.decks as decks_mod

    monkeypatch.setattr(decks_mod, "unavailable", lambda: None)  # whatever this machine has installed
    started: list[dict[str, tuple[bytes, str]]] = []

    def start(self, name, photos, refine=False):
        started.append(photos)
        return {"id": "abcdefabcdef", "name": name, "state": "queued"}

    monkeypatch.setattr(decks_mod.Teacher, "start", start)
    key = "k" * 24
    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "ADMIN_KEY": key,
                      "DECKS_DIR": str(tmp_path / "decks")})
    return app.test_client(), {"Authorization": f"Bearer {key}"}, started, tmp_path / "decks"


def _four(**instead: tuple[bytes, str]) -> dict[str, tuple[io.BytesIO, str]]:
    """Four good photos, each its own (one photo sent for two suits is refused: `same_photo`)."""
    files = {suit: (encoded(Image.new("RGB", (640, 480), (30, 110, 60 + 40 * i)), "JPEG"), f"{suit}.jpg")
             for i, suit in enumerate(("oros", "copas", "espadas", "bastos"))}
    files.update(instead)
    return {suit: (io.BytesIO(data), name) for suit, (data, name) in files.items()}


_TRUNCATED = jpeg(_noise(640, 480))


@pytest.mark.parametrize("suit, data, name, status, code, said", [
    ("copas", _TRUNCATED[: len(_TRUNCATED) // 2], "c.jpg", 400, "corrupt_image", "not a readable JPEG image"),
    ("espadas", _TRUNCATED[:200], "e.jpg", 400, "corrupt_image", "not a readable JPEG image"),
    ("oros", _broken_ihdr_crc(), "o.png", 400, "corrupt_image", "not a readable PNG image"),
    ("bastos", encoded(Image.new("RGB", (640, 480)), "BMP"), "b.bmp", 415, "unsupported_format", "BMP images"),
    ("copas", _wav(), "c.webp", 415, "not_image", "the file is not an image"),
    ("oros", png_header(100000, 100000), "o.png", 413, "too_large", "the image is 100000x100000"),
    ("espadas", jpeg_header(8000, 6625), "e.jpg", 413, "too_large", "the image is 8000x6625 (53,000,000 pixels)"),
    ("bastos", _photo((1, 1), "PNG"), "b.png", 400, "too_small_image", "the image is 1x1"),
    ("bastos", _photo((60000, 1), "PNG"), "b.png", 400, "too_small_image", "the image is 60000x1"),
])
def test_a_deck_photo_is_checked_as_a_table_photo_and_refused_by_its_suit(decks, suit, data, name, status, code,
                                                                          said) -> None:
    client, auth, started, root = decks
    r = client.post("/api/decks", headers=auth, data=_four(**{suit: (data, name)}), content_type="multipart/form-data")
    err = r.get_json()["error"]
    assert (r.status_code, err["code"], err["field"]) == (status, code, suit), err
    assert err["message"].startswith(f"{suit}: {said}"), err["message"]
    assert not any(s in err["message"] for s in (*INTERNALS, str(root), "/tmp"))
    assert started == [] and (not root.exists() or not any(root.iterdir()))


def test_good_deck_photos_start_the_job_kept_under_their_own_format(decks) -> None:
    client, auth, started, _ = decks
    photos = _four(copas=(_photo(fmt="PNG"), "copas.jpg"), bastos=(_photo(fmt="WEBP"), "bastos.png"))
    r = client.post("/api/decks", headers=auth, data=photos, content_type="multipart/form-data")
    assert r.status_code == 202, r.get_json()
    assert {suit: ext for suit, (_, ext) in started[0].items()} == {"oros": "jpg", "copas": "png", "espadas": "jpg",
                                                                   "bastos": "webp"}


# -- the command line ----------------------------------------------------------
def test_a_path_that_is_not_a_regular_file_is_refused_unread(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jpg"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "FIFO"), ("/dev/zero", "device"), (tmp_path, "folder")):
        with pytest.raises(ImageError) as info:
            open_photo(path)
        assert info.value.code == "not_a_file" and kind in str(info.value) and str(path) in str(info.value)


def test_a_path_is_read_up_to_the_cap_only(tmp_path: Path, monkeypatch) -> None:
    photo = tmp_path / "p.jpg"
    photo.write_bytes(_photo())
    monkeypatch.setattr(image_mod, "MAX_FILE_BYTES", len(photo.read_bytes()))
    assert open_photo(photo).size == (640, 480)  # exactly the cap: read
    photo.write_bytes(photo.read_bytes() + b"\0")
    with pytest.raises(ImageError) as info:
        open_photo(photo)
    assert info.value.code == "too_large" and "about 50 megapixels" in str(info.value)
    assert image_mod.MAX_FILE_BYTES == len(photo.read_bytes()) - 1


def test_the_file_cap_admits_a_png_at_the_pixel_limit() -> None:
    # an 8-bit RGB PNG at the limit holds at most its raw pixels, a filter byte a row and zlib's overhead
    w, h = 10000, image_mod.MAX_PIXELS // 10000
    assert w * h * 3 + h + (w * h * 3) // 1000 + 1024 < image_mod.MAX_FILE_BYTES


class _NoModels:
    def __init__(self, *_: Any) -> None:
        pass

    def scan(self, photo: Any, bottom: int = 0) -> dict[str, Any]:
        return {"cards": [], "hands": None, "warnings": [], "size": list(photo.size)}


def test_scan_annotate_to_a_path_it_cannot_use_is_a_usage_error(tmp_path: Path, monkeypatch, capsys) -> None:
    import scorer.vision
    from scorer.cli import main

    monkeypatch.setattr(scorer.vision, "Recognizer", _NoModels)
    img = tmp_path / "t.jpg"
    img.write_bytes(_photo())
    a_file = tmp_path / "taken"
    a_file.write_text("x")
    for target, why in ((a_file, "exists and is not a folder"), (a_file / "sub", "cannot make the folder")):
        assert main(["scan", "--annotate", str(target), str(img)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"mus-scorer scan: --annotate {target}: {why}") and "Traceback" not in err
    assert main(["scan", "--annotate", str(tmp_path / "out"), str(img)]) == 0
    assert (tmp_path / "out" / "t.annotated.jpg").is_file()


def test_scan_refuses_a_fifo_and_a_device_without_hanging_or_reading_them(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    from vision_helpers import write_fake_models

    models = write_fake_models(tmp_path / "models", [])
    fifo = tmp_path / "pipe.jpg"
    os.mkfifo(fifo)
    good = tmp_path / "felt.png"
    good.write_bytes(_photo((800, 600), "PNG"))
    proc = subprocess.run([sys.executable, "-m", "scorer", "scan", "/dev/zero", str(fifo), str(good), "--model-dir",
                           str(models)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 1
    assert "/dev/zero: error (not_a_file): /dev/zero is a device" in proc.stderr
    assert f"{fifo}: error (not_a_file): {fifo} is a FIFO" in proc.stderr
    assert proc.stdout.startswith(f"{good}: 0 cards") and "warning (no_cards)" in proc.stdout
