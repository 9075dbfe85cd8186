"""What a photo may cost before it is refused: files small on the wire that would take
seconds, or gigabytes, to check or decode (a JPEG of thousands of empty scans, a flood of
empty segments or chunks, a tiny lossless WebP of many megapixels) are refused from their
bytes or header, before Pillow parses or decodes them. Every image is made here, small."""

from __future__ import annotations

import io
import struct
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from scorer.vision import ImageError, open_photo
from scorer.vision import image as image_mod
from web import create_app

sys.path.insert(0, str(Path(__file__).parent))
from vision_helpers import jpeg  # noqa: E402


class _Reads:
    """A recognizer that reads nothing; remembers it was asked."""

    def __init__(self) -> None:
        self.calls = 0

    def scan(self, image: Any, bottom: int = 0) -> dict[str, Any]:
        self.calls += 1
        return {"cards": [], "hands": None, "warnings": [], "size": list(image.size)}


@pytest.fixture()
def rec() -> _Reads:
    return _Reads()


@pytest.fixture()
def client(tmp_path: Path, rec: _Reads):
    return create_app({"DATABASE": str(tmp_path / "m.db"), "TESTING": True, "RECOGNIZER": rec}).test_client()


def _progressive(size: tuple[int, int] = (96, 72)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (30, 120, 60)).save(out, "JPEG", quality=80, progressive=True)
    return out.getvalue()


def _with_scans(total: int, size: tuple[int, int] = (96, 72)) -> bytes:
    """A progressive JPEG holding `total` scans: Pillow's own, then empty AC scans of the
    first component before EOI (each one more pass over every pixel when decoded)."""
    data = _progressive(size)
    extra = total - data.count(b"\xff\xda")
    assert extra >= 0 and data.endswith(b"\xff\xd9")
    sos = b"\xff\xda" + struct.pack(">HB", 8, 1) + b"\x01\x00" + bytes([1, 63, 0x00])
    return data[:-2] + sos * extra + b"\xff\xd9"


# -- a JPEG of too many scans ---------------------------------------------------
def test_a_jpeg_of_thousands_of_empty_scans_is_refused_before_decoding() -> None:
    bomb = _with_scans(5000)
    start = time.perf_counter()
    with pytest.raises(ImageError) as info:
        open_photo(bomb)  # the header check: nothing decoded
    took = time.perf_counter() - start
    assert info.value.code == "corrupt"
    assert str(info.value) == ("the JPEG has 5,000 scans (progressive passes); the limit is 100 "
                               "(a phone's photo has about 10)")
    assert took < 0.5, took


def test_a_progressive_jpeg_within_the_scan_limit_is_read() -> None:
    assert image_mod.MAX_JPEG_SCANS == 100
    photo = open_photo(_with_scans(100))
    assert photo.decode().size == (96, 72)
    assert open_photo(_progressive()).decode().size == (96, 72)
    with pytest.raises(ImageError) as info:
        open_photo(_with_scans(101))
    assert "101 scans" in str(info.value)


def test_scans_after_the_first_picture_of_an_mpo_do_not_count() -> None:
    # the picture decoded ends at its EOI: what follows (a phone's second picture) is not read
    first = jpeg(Image.new("RGB", (96, 72), (200, 30, 30)))
    assert open_photo(first + _with_scans(500)).decode().size == (96, 72)


def test_the_scan_bomb_is_a_400_on_the_open_scan_route(client, rec: _Reads) -> None:
    start = time.perf_counter()
    r = client.post("/api/scan", data=_with_scans(3000, (2000, 1500)), content_type="image/jpeg")
    assert time.perf_counter() - start < 2
    assert r.status_code == 400 and r.json["error"]["code"] == "corrupt_image", r.json
    assert "3,000 scans" in r.json["error"]["message"] and rec.calls == 0
