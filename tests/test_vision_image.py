"""Loading photos: formats, EXIF orientation, size limits, damaged files."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from scorer.vision import ImageError, load_image, open_photo

sys.path.insert(0, str(Path(__file__).parent))
from vision_helpers import encoded, jpeg, jpeg_header, png_header  # noqa: E402


def _marked() -> Image.Image:
    """A 60x40 image, red in its top-left quarter, so orientation can be checked."""
    img = Image.new("RGB", (60, 40), (0, 0, 255))
    img.paste((255, 0, 0), (0, 0, 30, 20))
    return img


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_supported_formats_load_as_rgb(fmt: str) -> None:
    img = load_image(encoded(_marked(), fmt))
    assert img.mode == "RGB" and img.size == (60, 40)
    assert img.getpixel((5, 5))[0] > 200


def test_path_and_bytes_alike(tmp_path: Path) -> None:
    p = tmp_path / "photo.png"
    p.write_bytes(encoded(_marked(), "PNG"))
    assert load_image(p).tobytes() == load_image(str(p)).tobytes() == load_image(p.read_bytes()).tobytes()


@pytest.mark.parametrize(
    "orientation, size, red_at",
    [(1, (60, 40), (5, 5)), (3, (60, 40), (55, 35)), (6, (40, 60), (35, 5)), (8, (40, 60), (5, 55)),
     (2, (60, 40), (55, 5)), (5, (40, 60), (5, 5))],
)
def test_exif_orientation_applied(orientation: int, size: tuple[int, int], red_at: tuple[int, int]) -> None:
    data = jpeg(_marked(), orientation=orientation, quality=95)
    photo = open_photo(data)
    assert photo.orientation == orientation and photo.size == size
    img = load_image(data)
    assert img.size == size
    r, g, b = img.getpixel(red_at)
    assert r > 180 and b < 80


def test_jpeg_reduced_decode_keeps_orientation() -> None:
    big = _marked().resize((1600, 1200), Image.Resampling.NEAREST)
    photo = open_photo(jpeg(big, orientation=6))
    small = photo.decode(8)
    assert small.size == (150, 200)  # 1200 / 8 by 1600 / 8, turned
    assert small.getpixel((140, 10))[0] > 180  # red top-left quarter now top-right


def test_png_reduced_decode() -> None:
    photo = open_photo(encoded(_marked().resize((600, 400)), "PNG"))
    assert photo.decode(4).size == (150, 100)


def test_transparent_png_on_white() -> None:
    img = Image.new("RGBA", (10, 10), (0, 0, 0, 0))
    assert load_image(encoded(img, "PNG")).getpixel((3, 3)) == (255, 255, 255)


def _code(data: bytes) -> str:
    with pytest.raises(ImageError) as info:
        load_image(data)
    assert str(info.value)
    return info.value.code


def test_empty() -> None:
    assert _code(b"") == "empty"


@pytest.mark.parametrize("data", [b"hello, this is not a photo\n" * 10, b"\x00" * 100, b"{\"cards\": []}"])
def test_not_an_image(data: bytes) -> None:
    assert _code(data) == "not_image"


def test_truncated_jpeg_and_png() -> None:
    noise = Image.fromarray((np.random.default_rng(0).random((120, 160, 3)) * 255).astype(np.uint8))
    full = jpeg(noise)
    assert _code(full[: len(full) // 2]) == "corrupt"
    assert _code(full[:40]) == "corrupt"
    png = encoded(noise, "PNG")
    assert _code(png[: len(png) // 2]) == "corrupt"


@pytest.mark.parametrize("fmt, name", [("GIF", "GIF"), ("BMP", "BMP"), ("TIFF", "TIFF")])
def test_unsupported_formats_named(fmt: str, name: str) -> None:
    with pytest.raises(ImageError) as info:
        load_image(encoded(_marked(), fmt))
    assert info.value.code == "unsupported_format" and name in str(info.value)


def test_heic_named() -> None:
    heic = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64
    with pytest.raises(ImageError) as info:
        load_image(heic)
    assert info.value.code == "unsupported_format" and "HEIC" in str(info.value)


@pytest.mark.parametrize("w, h", [(8000, 7000), (30000, 30000), (200000, 200000)])
def test_huge_dimensions_refused_before_decoding(w: int, h: int) -> None:
    for data in (png_header(w, h), jpeg_header(min(w, 65535), min(h, 65535))):
        with pytest.raises(ImageError) as info:
            open_photo(data)
        assert info.value.code == "too_large"


def test_about_fifty_megapixels_is_the_limit() -> None:
    # header only: the check must not decode; the limit is 52,000,000 pixels
    assert open_photo(png_header(10000, 5200)).size == (10000, 5200)
    with pytest.raises(ImageError):
        open_photo(png_header(10000, 5201))


def test_multi_picture_jpeg_from_phones_reads_as_jpeg() -> None:
    import io

    out = io.BytesIO()
    frames = [_marked(), Image.new("RGB", (60, 40), (0, 255, 0))]
    frames[0].save(out, "MPO", save_all=True, append_images=frames[1:])
    assert Image.open(io.BytesIO(out.getvalue())).format == "MPO"
    photo = open_photo(out.getvalue())
    assert photo.format == "JPEG"
    assert photo.decode().getpixel((5, 5))[0] > 200
