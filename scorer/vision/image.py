"""Loading photos: format checks, size limits before decoding, EXIF orientation.

`open_photo` reads only the header, so a decompression bomb is refused before a pixel
is decoded; `Photo.decode(reduce)` then decodes at a fraction of the full size (JPEG
through `Image.draft`, i.e. DCT scaling, which is much faster than a full decode).
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

MAX_PIXELS = 50_000_000
SUPPORTED = ("JPEG", "PNG", "WEBP")
ORIENTATION_TAG = 0x0112
_TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
# leading bytes of formats we name when refusing them
_OTHER_MAGIC = (
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"BM", "BMP"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"8BPS", "PSD"),
    (b"\x00\x00\x01\x00", "ICO"),
    (b"%PDF", "PDF"),
    (b"\xff\x0a", "JPEG XL"),
    (b"\x00\x00\x00\x0cJXL ", "JPEG XL"),
)
_HEIF_BRANDS = {b"heic": "HEIC", b"heix": "HEIC", b"hevc": "HEIC", b"heim": "HEIC", b"heis": "HEIC",
                b"mif1": "HEIF", b"msf1": "HEIF", b"avif": "AVIF", b"avis": "AVIF"}


class ImageError(ValueError):
    """A photo that cannot be read; `.code` is `empty`, `not_image`,
    `unsupported_format`, `too_large` or `corrupt`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _sniff(data: bytes) -> str | None:
    """The format named by the file's first bytes, or None."""
    if data[:3] == b"\xff\xd8\xff":
        return "JPEG"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "PNG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    if data[4:8] == b"ftyp":
        return _HEIF_BRANDS.get(data[8:12], "ISO media (" + data[8:12].decode("latin-1") + ")")
    for magic, name in _OTHER_MAGIC:
        if data.startswith(magic):
            return name
    return None


def _unsupported(name: str) -> ImageError:
    return ImageError("unsupported_format", f"{name} images are not supported: send a JPEG, PNG or WebP photo")


@dataclass(frozen=True)
class Photo:
    """A photo whose header has been checked; decode it with `decode`."""

    data: bytes
    format: str
    raw_size: tuple[int, int]  # as stored, before EXIF orientation
    orientation: int

    @property
    def size(self) -> tuple[int, int]:
        """Width and height once upright (EXIF orientation applied)."""
        w, h = self.raw_size
        return (h, w) if self.orientation in (5, 6, 7, 8) else (w, h)

    def decode(self, reduce: int = 1) -> Image.Image:
        """The upright RGB image at about 1/`reduce` of the full size (JPEG: 1, 2, 4 or 8
        through DCT scaling; other formats: box reduction)."""
        reduce = max(1, int(reduce))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                img = Image.open(io.BytesIO(self.data), formats=[self.format])
                if self.format == "JPEG" and reduce > 1:
                    w, h = img.size
                    img.draft("RGB" if img.mode in ("RGB", "YCbCr") else None,
                              (max(1, w // min(reduce, 8)), max(1, h // min(reduce, 8))))
                img.load()
        except Image.DecompressionBombError as exc:
            raise ImageError("too_large", f"image refused as a decompression bomb: {exc}") from None
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            raise ImageError("corrupt", f"the {self.format} image is damaged or truncated ({exc})") from None
        done = round(self.raw_size[0] / img.width) if img.width else 1
        if reduce > done and reduce // done > 1:
            img = img.reduce(reduce // done)
        if img.mode != "RGB":
            if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
                back = Image.new("RGB", img.size, (255, 255, 255))
                back.paste(img.convert("RGBA"), mask=img.convert("RGBA").getchannel("A"))
                img = back
            else:
                img = img.convert("RGB")
        if self.orientation in _TRANSPOSE:
            img = img.transpose(_TRANSPOSE[self.orientation])
        return img


def open_photo(data: bytes | str | Path) -> Photo:
    """Check a photo's format and size from its header, without decoding it.
    A path is read from disk (an `OSError` if it cannot be)."""
    if isinstance(data, (str, Path)):
        data = Path(data).read_bytes()
    data = bytes(data)
    if not data:
        raise ImageError("empty", "the file is empty")
    sniffed = _sniff(data)
    if sniffed is not None and sniffed not in SUPPORTED:
        raise _unsupported(sniffed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        raise ImageError("too_large", f"image refused as a decompression bomb: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - Pillow raises many kinds on bad headers
        if sniffed in SUPPORTED:
            raise ImageError("corrupt", f"the {sniffed} image is damaged or truncated ({exc})") from None
        raise ImageError("not_image", "the file is not an image (JPEG, PNG or WebP expected)") from None
    with img:
        fmt = img.format or "unknown"
        if fmt == "MPO":  # phones' multi-picture JPEG: its first picture is the photo
            fmt = "JPEG"
        if fmt not in SUPPORTED:
            raise _unsupported(fmt)
        w, h = img.size
        if w < 1 or h < 1:
            raise ImageError("corrupt", f"the {fmt} image has no pixels ({w}x{h})")
        if w * h > MAX_PIXELS:
            raise ImageError(
                "too_large", f"the image is {w}x{h} ({w * h / 1e6:.0f} megapixels); the limit is {MAX_PIXELS // 10**6}"
            )
        try:
            orientation = int(img.getexif().get(ORIENTATION_TAG, 1))
        except Exception:  # noqa: BLE001 - a damaged EXIF block: read the photo as stored
            orientation = 1
    return Photo(data, fmt, (w, h), orientation if orientation in range(1, 9) else 1)


def load_image(data: bytes | str | Path) -> Image.Image:
    """The photo as an upright RGB image (EXIF orientation applied); `ImageError` if it
    is empty, not an image, of an unsupported format, too large or corrupt."""
    return open_photo(data).decode(1)
