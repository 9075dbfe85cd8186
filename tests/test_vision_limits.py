"""What a photo may cost before it is refused: files small on the wire that would take
seconds, or gigabytes, to check or decode (a JPEG of thousands of empty scans, a flood of
empty segments or chunks, a tiny lossless WebP of many megapixels) are refused from their
bytes or header, before Pillow parses or decodes them. Every image is made here, small.
What the refusals cost in time and memory is measured by `bench/bench_limits.py`; these
tests check what makes them cheap: Pillow never opens the file, and a flood is refused at
the limit, before its end is read."""

from __future__ import annotations

import io
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from scorer.vision import ImageError, open_photo
from scorer.vision import image as image_mod
from web import create_app

sys.path.insert(0, str(Path(__file__).parent))
from vision_helpers import (  # noqa: E402
    jpeg,
    jpeg_header,
    jpeg_with_scans,
    jpeg_with_segments,
    png_header,
    png_with_chunks,
    progressive_jpeg,
    webp_with_chunks,
)


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


@pytest.fixture()
def opened(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the files that Pillow was asked to open (parse) from now on."""
    calls: list[int] = []
    real = image_mod.Image.open

    def counted(fp: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(fp.getbuffer()) if isinstance(fp, io.BytesIO) else -1)
        return real(fp, *args, **kwargs)

    monkeypatch.setattr(image_mod.Image, "open", counted)
    return calls


# -- a JPEG of too many scans ---------------------------------------------------
def test_a_jpeg_of_thousands_of_empty_scans_is_refused_before_decoding(opened: list[int]) -> None:
    bomb = jpeg_with_scans(5000)
    with pytest.raises(ImageError) as info:
        open_photo(bomb)  # the header check: nothing decoded
    assert info.value.code == "corrupt"
    assert str(info.value) == ("the JPEG has 5,000 scans (progressive passes); the limit is 100 "
                               "(a phone's photo has about 10)")
    assert opened == []  # not even parsed by Pillow
    open_photo(progressive_jpeg())
    assert len(opened) == 1  # (the fixture sees what Pillow opens)


def test_a_progressive_jpeg_within_the_scan_limit_is_read() -> None:
    assert image_mod.MAX_JPEG_SCANS == 100
    photo = open_photo(jpeg_with_scans(100))
    assert photo.decode().size == (96, 72)
    assert open_photo(progressive_jpeg()).decode().size == (96, 72)
    with pytest.raises(ImageError) as info:
        open_photo(jpeg_with_scans(101))
    assert "101 scans" in str(info.value)


def test_scans_after_the_first_picture_of_an_mpo_do_not_count() -> None:
    # the picture decoded ends at its EOI: what follows (a phone's second picture) is not read
    first = jpeg(Image.new("RGB", (96, 72), (200, 30, 30)))
    assert open_photo(first + jpeg_with_scans(500)).decode().size == (96, 72)


def test_the_scan_bomb_is_a_400_on_the_open_scan_route(client, rec: _Reads, opened: list[int]) -> None:
    r = client.post("/api/scan", data=jpeg_with_scans(3000, (2000, 1500)), content_type="image/jpeg")
    assert r.status_code == 400 and r.json["error"]["code"] == "corrupt_image", r.json
    assert "3,000 scans" in r.json["error"]["message"] and rec.calls == 0 and opened == []


def _refused(data: bytes) -> ImageError:
    """The refusal of `data` by `open_photo`."""
    with pytest.raises(ImageError) as info:
        open_photo(data)
    return info.value


@pytest.mark.parametrize("where", ["header", "between scans"])
def test_a_jpeg_of_a_flood_of_empty_segments_is_refused_unparsed(where: str, opened: list[int]) -> None:
    assert image_mod.MAX_JPEG_SEGMENTS == 1000
    assert open_photo(jpeg_with_segments(900, where)).decode().size == (96, 72)  # many, still a photo's
    opened.clear()
    flood = jpeg_with_segments(200_000, where)  # 800 KB
    message = "the JPEG has more than 1,000 marker segments (a photo has a few dozen)"
    error = _refused(flood)
    assert error.code == "corrupt" and str(error) == message
    # refused at the limit: a flood cut off after 1,100 segments is refused the same way, its
    # cut end never reached (a check that walked or kept every segment would see it cut)
    at = flood.find(b"\xff\xec") + 4 * 1100
    assert str(_refused(flood[:at] + b"\xff\xec\x7f")) == message
    assert opened == []  # Pillow never parsed a segment of it


@pytest.mark.parametrize("kind, where", [(b"prVt", "header"), (b"prVt", "after the pixels"), (b"IDAT", "header")])
def test_a_png_of_a_flood_of_empty_chunks_is_refused_unparsed(kind: bytes, where: str, opened: list[int]) -> None:
    assert image_mod.MAX_CHUNKS == 10_000
    assert open_photo(png_with_chunks(9_000, kind, where)).decode().size == (96, 72)
    opened.clear()
    flood = png_with_chunks(100_000, kind, where)  # 1.2 MB: the limit is 10,000 + 1 a KB
    limit = 10_000 + len(flood) // 1024
    error = _refused(flood)
    assert error.code == "corrupt" and str(error).startswith(f"the PNG has more than {limit:,} chunks")
    # refused at the limit: the same flood with its last bytes cut (no IEND, a chunk cut short)
    assert str(_refused(flood[:-20])).startswith(f"the PNG has more than {limit:,} chunks")
    assert opened == []


def test_a_webp_of_a_flood_of_empty_chunks_is_refused() -> None:
    assert open_photo(webp_with_chunks(100)).decode().size == (96, 72)
    with pytest.raises(ImageError) as info:
        open_photo(webp_with_chunks(100_000))
    assert info.value.code == "corrupt" and str(info.value).startswith("the WebP has more than")


def test_real_photos_pass_the_structure_check() -> None:
    out = io.BytesIO()
    frames = [Image.new("RGB", (96, 72), c) for c in ((200, 0, 0), (0, 200, 0), (0, 0, 200))]
    frames[0].save(out, "WEBP", save_all=True, append_images=frames[1:])
    assert open_photo(out.getvalue()).size == (96, 72)  # an animated WebP: its first frame
    out = io.BytesIO()
    frames[0].save(out, "MPO", save_all=True, append_images=frames[1:])
    assert open_photo(out.getvalue()).format == "JPEG"
    out = io.BytesIO()
    Image.new("RGB", (2000, 1500), (30, 120, 60)).save(out, "JPEG", progressive=True, optimize=True,
                                                       icc_profile=b"\0" * 300_000)  # the ICC in 5 segments
    assert open_photo(out.getvalue()).size == (2000, 1500)


def test_a_flood_is_a_400_on_the_open_scan_route(client, rec: _Reads, opened: list[int]) -> None:
    for data, ctype in ((jpeg_with_segments(300_000), "image/jpeg"), (png_with_chunks(300_000), "image/png")):
        r = client.post("/api/scan", data=data, content_type=ctype)
        assert r.status_code == 400 and r.json["error"]["code"] == "corrupt_image", r.json
    assert rec.calls == 0 and opened == []


# -- the pixel limit: about 50 megapixels, said exactly ---------------------------
@pytest.mark.parametrize("w, h", [(8192, 6144), (8160, 6144), (8165, 6124), (8160, 6120)])
def test_a_fifty_megapixel_cameras_photo_passes(w: int, h: int) -> None:
    # 8192x6144 is 50.3 million pixels: a 50 MP sensor's photo, refused under a limit of 50,000,000
    assert open_photo(jpeg_header(w, h)).size == (w, h)


def test_a_photo_just_over_the_limit_is_told_so_in_exact_counts() -> None:
    assert image_mod.MAX_PIXELS == 52_000_000
    with pytest.raises(ImageError) as info:
        open_photo(png_header(8165, 6369))  # 52,002,885 pixels: "52 megapixels" either way when rounded
    assert info.value.code == "too_large"
    assert str(info.value) == ("the image is 8165x6369 (52,002,885 pixels); the limit is 52,000,000 pixels "
                               "(about 50 megapixels)")


# -- a WebP's own, lower pixel limit ---------------------------------------------------
def webp_header(w: int, h: int) -> bytes:
    """A lossless WebP whose header claims `w` x `h` pixels (a tiny one's, its size bits
    patched: opened, not decodable)."""
    out = io.BytesIO()
    Image.new("RGB", (16, 16), (30, 120, 60)).save(out, "WEBP", lossless=True)
    data = bytearray(out.getvalue())
    assert data[12:16] == b"VP8L" and data[20] == 0x2F
    bits = int.from_bytes(data[21:25], "little") & ~((1 << 28) - 1)
    data[21:25] = (bits | (w - 1) | ((h - 1) << 14)).to_bytes(4, "little")
    return bytes(data)


def test_a_webp_may_have_about_50_megapixels_as_the_other_formats() -> None:
    # issue 2: "JPEG, PNG and WebP, up to 50 megapixels"
    assert open_photo(webp_header(8192, 6144)).size == (8192, 6144)
    with pytest.raises(ImageError) as info:
        open_photo(webp_header(8192, 6400))
    assert info.value.code == "too_large"
    assert str(info.value) == ("the image is 8192x6400 (52,428,800 pixels); the limit is 52,000,000 pixels "
                               "(about 50 megapixels)")


def _together(photo_data: bytes, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether three threads decoding the photo can all be inside its decode at once (the
    decode itself replaced by a meeting point that waits up to 3 s for all three)."""
    meet = threading.Barrier(3, timeout=3)
    met: list[bool] = []

    def decode(self, reduce: int) -> Image.Image:
        try:
            meet.wait()
            met.append(True)
        except threading.BrokenBarrierError:
            met.append(False)
        return Image.new("RGB", (8, 8))

    monkeypatch.setattr(image_mod.Photo, "_decode", decode)
    photo = open_photo(photo_data)
    threads = [threading.Thread(target=photo.decode, args=(4,)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return all(met) and len(met) == 3


def test_webps_over_25_megapixels_are_decoded_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # decoded, a WebP takes about 16 bytes a pixel (a 2 KB one of 50 MP took 810 MB, two at once 1.7 GB)
    assert image_mod.BIG_WEBP_PIXELS == 25_000_000
    assert _together(webp_header(5000, 5000), monkeypatch)
    assert _together(png_header(8192, 6144), monkeypatch)
    # one at a time: the first inside waits for the others in vain, holding the lock, and
    # they come in one by one after it, each alone
    assert not _together(webp_header(8192, 6144), monkeypatch)
    inside: list[int] = []
    monkeypatch.setattr(image_mod.Photo, "_decode",
                        lambda self, reduce: inside.append(image_mod._BIG_WEBP.locked()) or Image.new("RGB", (8, 8)))
    open_photo(webp_header(8192, 6144)).decode(4)
    open_photo(webp_header(5000, 5000)).decode(4)
    assert inside == [True, False]


def test_a_webp_of_50_megapixels_reaches_the_reader(client, rec: _Reads, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(image_mod.Photo, "_decode", lambda self, reduce: Image.new("RGB", (8192, 6144)))
    r = client.post("/api/scan", data=webp_header(8192, 6144), content_type="image/webp")
    assert r.status_code == 200 and rec.calls == 1, r.json


# -- a path's file too large is refused unread ----------------------------------
def test_a_file_over_the_cap_is_refused_by_its_size_unread(tmp_path: Path, monkeypatch) -> None:
    big = tmp_path / "huge.jpg"
    with open(big, "wb") as f:  # sparse: 300 MB on no disk
        f.write(jpeg(Image.new("RGB", (96, 72))))
        f.truncate(300 * 2**20)
    reads: list[int] = []
    real = image_mod.os.fdopen

    def counted(fd: int, *args: Any, **kwargs: Any) -> Any:
        reads.append(fd)
        return real(fd, *args, **kwargs)

    monkeypatch.setattr(image_mod.os, "fdopen", counted)
    with pytest.raises(ImageError) as info:
        open_photo(big)
    assert info.value.code == "too_large" and reads == []  # 200 MB were read before it was refused
    assert str(info.value) == ("the file is 314,572,800 bytes, over the 209,715,200 bytes (200 MB) a photo (up to "
                               "about 50 megapixels) may weigh")
    with open(big, "r+b") as f:  # one byte over is not said to be at the limit
        f.truncate(image_mod.MAX_FILE_BYTES + 1)
    with pytest.raises(ImageError) as info:
        open_photo(big)
    assert str(info.value).startswith("the file is 209,715,201 bytes, over the 209,715,200 bytes"), info.value
    small = tmp_path / "small.jpg"
    small.write_bytes(jpeg(Image.new("RGB", (96, 72))))
    assert open_photo(small).size == (96, 72) and len(reads) == 1  # a file within the cap: read
