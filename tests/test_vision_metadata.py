"""scorer.vision.metadata: a photo stored without GPS, phone and comments, upright, with
its pixels untouched (JPEG, PNG and WebP made at test time)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, PngImagePlugin

from scorer.vision.image import load_image, open_photo, png_chunks
from scorer.vision.metadata import strip

GPS_IFD = 0x8825


def _exif(orientation: int) -> Image.Exif:
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x0110] = "Phone 15"  # Model
    exif.get_ifd(GPS_IFD).update({1: "N", 2: (43.0, 18.0, 30.0), 3: "W", 4: (1.0, 59.0, 0.0)})
    return exif


def _photo(fmt: str, orientation: int = 6) -> bytes:
    rng = np.random.default_rng(1)
    img = Image.fromarray(rng.integers(0, 255, (60, 90, 3), dtype=np.uint8))
    buf = io.BytesIO()
    if fmt == "JPEG":
        img.save(buf, "JPEG", exif=_exif(orientation), comment=b"taken at Bar Txoko", quality=90)
    elif fmt == "PNG":
        info = PngImagePlugin.PngInfo()
        info.add_text("Comment", "taken at Bar Txoko")
        img.save(buf, "PNG", exif=_exif(orientation), pnginfo=info)
    else:
        img.save(buf, "WEBP", exif=_exif(orientation), xmp=b"<x:xmpmeta>Bar Txoko</x:xmpmeta>", lossless=True)
    return buf.getvalue()


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_metadata_goes_and_the_photo_stays_upright(fmt: str) -> None:
    data = _photo(fmt)
    assert b"Bar Txoko" in data and b"PhoneMaker" in data
    photo = open_photo(data)
    kept = strip(data, photo.format, photo.orientation)
    assert b"Bar Txoko" not in kept and b"PhoneMaker" not in kept
    with Image.open(io.BytesIO(kept)) as img:
        exif = img.getexif()
        assert exif.get(0x0112) == 6 and not exif.get_ifd(GPS_IFD) and 0x010F not in exif
        assert img.format == fmt
    assert open_photo(kept).orientation == 6
    before, after = np.asarray(load_image(data)), np.asarray(load_image(kept))
    assert before.shape == after.shape == (90, 60, 3)  # turned upright, as before
    assert np.array_equal(before, after)  # the pixels untouched


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_an_upright_photo_keeps_no_exif_at_all(fmt: str) -> None:
    data = _photo(fmt, orientation=1)
    kept = strip(data, fmt)
    with Image.open(io.BytesIO(kept)) as img:
        assert dict(img.getexif()) == {}
    assert np.array_equal(np.asarray(load_image(data)), np.asarray(load_image(kept)))


def test_what_does_not_parse_is_left_as_it_came() -> None:
    for junk in (b"", b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n\x00\x00\x00\xffIHDR", b"RIFF\x00\x00\x00\x00WEBPVP8X"):
        assert strip(junk, "JPEG" if junk[:1] == b"\xff" else "PNG" if junk[:1] == b"\x89" else "WEBP", 6) == junk


def test_png_chunks_walk_a_png_and_a_damaged_one_is_left_as_it_came() -> None:
    """One walker (`png_chunks`) for the orientation's eXIf and for the stripping: every
    chunk in order, IEND the last; a chunk that runs past the end is the last walked,
    and `strip` leaves such a PNG unchanged."""
    data = _photo("PNG")
    chunks = list(png_chunks(data))
    assert chunks[0][:2] == (b"IHDR", 8) and chunks[0][2] == 13 and chunks[-1] == (b"IEND", len(data) - 12, 0)
    assert {b"eXIf", b"tEXt", b"IDAT"} <= {k for k, _, _ in chunks}
    assert all(i + 12 + n == j for (_, i, n), (_, j, _) in zip(chunks, chunks[1:], strict=False))
    assert [k for k, _, _ in png_chunks(data + b"trailing")] == [k for k, _, _ in chunks]  # nothing after IEND
    _, at, length = next(c for c in chunks if c[0] == b"tEXt")
    for damaged in (data[:at + 10],  # truncated inside a chunk
                    data[:at] + (len(data)).to_bytes(4, "big") + data[at + 4:],  # a length past the end
                    data[:-12]):  # no IEND
        walked = list(png_chunks(damaged))
        assert walked[-1][0] != b"IEND"
        assert strip(damaged, "PNG", 6) == damaged
