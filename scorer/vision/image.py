"""Loading photos: format checks, size limits before decoding, EXIF orientation.

`open_photo` reads only the header, so a decompression bomb is refused before a pixel
is decoded; `Photo.decode(reduce)` then decodes at a fraction of the full size (JPEG
through `Image.draft`, i.e. DCT scaling, which is much faster than a full decode).
A path is read only when it is a regular file, and at most `MAX_FILE_BYTES` of it;
`check_scannable` refuses a photo too small to hold a card (`MIN_SIDE`). Before Pillow
sees a photo, its structure is walked (`_check_structure`, nothing decoded, nothing kept):
a JPEG of more than `MAX_JPEG_SCANS` scans is refused (its decode would pass over every
pixel that many times), and so is a flood of empty segments or chunks that Pillow would
parse one by one in Python (`MAX_JPEG_SEGMENTS`, `MAX_CHUNKS`). The messages speak of
the photo in the product's terms, never of Pillow's.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import struct
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

MAX_PIXELS = 52_000_000
"""The most pixels a photo may have, "about 50 megapixels": a 50 MP camera's photo is
8160x6120 to 8192x6144 (50.3 million pixels), and passes. Decoded, a JPEG of as many takes
about 200 MB, an RGBA PNG about 450 MB."""
BIG_WEBP_PIXELS = 25_000_000
"""A WebP of more pixels is decoded alone (`_BIG_WEBP`: one at a time in the process).
Pillow decodes a WebP through libwebp's animation decoder, about 16 bytes a pixel at the
peak against a JPEG's 4: a 2 KB lossless WebP of 50 MP took 810 MB, and two scans at once
1.7 GB; one at a time, a second waits instead, and the peak stays that of one."""
_BIG_WEBP = threading.Lock()
MAX_FILE_BYTES = 200 * 1024 * 1024
"""The most bytes read from a path: more than any photo of up to `MAX_PIXELS` holds (a
52 MP PNG of noise is about 160 MB)."""
MIN_SIDE = 64
"""The least shorter side, px, of a photo whose cards are read: in less, no card's corner
index can be read (`check_scannable`)."""
MAX_JPEG_SCANS = 100
"""The most scans (SOS markers) a JPEG may hold: a phone's progressive photo has about 10,
and libjpeg-turbo's own tools refuse more than 100 by default. Each scan is a pass over
every pixel, so a 300 KB file of 50 MP holding thousands of empty scans took 10 s to a
minute to decode."""
MAX_JPEG_SEGMENTS = 1_000
"""The most marker segments besides scans (APPn, COM, DQT, DHT, ...) a JPEG may hold: a
photo has a few dozen (an ICC profile in 64 KB pieces included). Pillow parses the
header's one by one in Python: 25 MB of empty APP12 segments took 12 s and 860 MB."""
MAX_CHUNKS = 10_000
"""The most chunks a PNG or WebP may hold besides one for every `CHUNK_BYTES` of the file
(a PNG's pixel data comes in chunks of 8 to 64 KB; a photo has a few dozen others). Pillow
reads a PNG's chunks one by one in Python: 2 million empty ones took 6 s to open and
4 s more to decode."""
CHUNK_BYTES = 1024
SUPPORTED = ("JPEG", "PNG", "WEBP")
ORIENTATION_TAG = 0x0112
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
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
    `unsupported_format`, `too_large`, `corrupt`, `too_small` (`check_scannable`) or
    `not_a_file` (a path to a folder, a FIFO or a device)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _sniff(data: bytes) -> str | None:
    """The format named by the file's first bytes, or None."""
    if data[:3] == b"\xff\xd8\xff":
        return "JPEG"
    if data[:8] == PNG_SIGNATURE:
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


def _corrupt(fmt: str | None) -> ImageError:
    name = {"JPEG": "JPEG", "PNG": "PNG", "WEBP": "WebP"}.get(fmt or "", "JPEG/PNG/WebP")
    return ImageError("corrupt", f"not a readable {name} image (damaged or truncated)")


_JPEG_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")
"""A JPEG marker: 0xFF and a code that is not a stuffed zero, a restart (RST0-7) or a fill
byte; entropy-coded data holds none, so a search skips a scan's data at C speed."""
_JPEG_STANDALONE = frozenset((0x01, 0xD8))  # TEM, SOI: no length follows


def _check_structure(data: bytes, fmt: str | None) -> None:
    """`ImageError("corrupt")` when the photo's structure would make it slow to open or
    decode: see `_check_jpeg`, and, for a PNG or WebP, more than `MAX_CHUNKS` chunks plus
    one for every `CHUNK_BYTES` of the file."""
    if fmt == "JPEG":
        _check_jpeg(data)
        return
    if fmt not in ("PNG", "WEBP"):
        return
    limit = MAX_CHUNKS + len(data) // CHUNK_BYTES
    chunks = 0
    for _ in png_chunks(data) if fmt == "PNG" else _riff_chunks(data):
        chunks += 1
        if chunks > limit:
            name = "PNG" if fmt == "PNG" else "WebP"
            raise ImageError("corrupt", f"the {name} has more than {limit:,} chunks, more than a photo of "
                                        f"{len(data) / 2**20:.1f} MB holds (a few dozen, and its pixels in chunks "
                                        f"of kilobytes)")


def _riff_chunks(data: bytes) -> Iterator[int]:
    """The offsets of a WebP's (RIFF's) chunks, in order; only their sizes are read."""
    i = 12
    while i + 8 <= len(data):
        yield i
        size = int.from_bytes(data[i + 4:i + 8], "little")
        i += 8 + size + (size & 1)


def _check_jpeg(data: bytes) -> None:
    """`ImageError("corrupt")` when the JPEG (its first picture, up to EOI) holds more than
    `MAX_JPEG_SCANS` scans or `MAX_JPEG_SEGMENTS` other segments. Only the markers are
    read, each segment skipped by its length and a scan's data by a search for the next
    marker, nothing kept; a damaged or truncated file is left to the decoder to refuse."""
    i, scans, segments = 2, 0, 0
    while (m := _JPEG_MARKER.search(data, i)) is not None:
        code, i = data[m.end() - 1], m.end()
        if code == 0xD9:  # EOI: what follows (an MPO's other pictures) is not decoded
            return
        if code in _JPEG_STANDALONE:
            continue
        if i + 2 > len(data):
            return
        length = int.from_bytes(data[i:i + 2], "big")
        if length < 2:
            return
        if code == 0xDA:
            scans += 1
            if scans > MAX_JPEG_SCANS:
                # the rest counted at C speed, for the message: FF DA is no scan's data
                scans += data.count(b"\xff\xda", i + length)
                raise ImageError("corrupt", f"the JPEG has {scans:,} scans (progressive passes); the limit is "
                                            f"{MAX_JPEG_SCANS} (a phone's photo has about 10)")
        else:
            segments += 1
            if segments > MAX_JPEG_SEGMENTS:
                raise ImageError("corrupt", f"the JPEG has more than {MAX_JPEG_SEGMENTS:,} marker segments "
                                            f"(a photo has a few dozen)")
        i += length


LIMIT_SAID = f"{MAX_PIXELS:,} pixels (about 50 megapixels)"


def _too_large(w: int, h: int) -> ImageError:
    """The refusal of a photo of `w` x `h` pixels, the counts exact: rounded to megapixels,
    a photo just over the limit would read as being at it."""
    return ImageError("too_large", f"the image is {w}x{h} ({w * h:,} pixels); the limit is {LIMIT_SAID}")


def _bomb(data: bytes, fmt: str | None, exc: Exception) -> ImageError:
    """Pillow's decompression-bomb refusal in the product's words: the size the header
    declares (read again by the format's plugin, which leaves the check to `Image.open`),
    else the pixel count Pillow's message gives."""
    try:
        Image.init()
        w, h = Image.OPEN[fmt or ""][0](io.BytesIO(data)).size
        return _too_large(w, h)
    except Exception:  # noqa: BLE001 - only the message is at stake
        pass
    found = re.search(r"\((\d+) pixels\)", str(exc))
    many = f"{int(found.group(1)):,} pixels" if found else "too large"
    return ImageError("too_large", f"the image is {many}; the limit is {LIMIT_SAID}")


@contextmanager
def _quiet() -> Iterator[None]:
    """Pillow's warnings silenced: the pixel count is checked here (`MAX_PIXELS`), and a
    damaged EXIF block ("Corrupt EXIF data", a tag past the end) is read past: the photo
    is read as stored."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        warnings.filterwarnings("ignore", category=UserWarning, module=r"PIL(\.|$)")
        yield


def check_scannable(size: tuple[int, int]) -> None:
    """`ImageError("too_small")` when a photo of `size` (w, h) is too small to hold a card
    whose index can be read (shorter side under `MIN_SIDE`)."""
    w, h = size
    if min(w, h) < MIN_SIDE:
        raise ImageError("too_small", f"the image is {w}x{h}: too small to read cards in; a photo needs at least "
                                      f"{MIN_SIDE} px on its shorter side")


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
        through DCT scaling; other formats: box reduction). 16-bit greyscale is scaled to
        8 bits, not clipped; transparency lies on white."""
        alone = self.format == "WEBP" and self.raw_size[0] * self.raw_size[1] > BIG_WEBP_PIXELS
        with _BIG_WEBP if alone else contextlib.nullcontext():  # its peak and its reduction alike
            return self._decode(max(1, int(reduce)))

    def _decode(self, reduce: int) -> Image.Image:
        try:
            with _quiet():
                img = Image.open(io.BytesIO(self.data), formats=[self.format])
                if self.format == "JPEG" and reduce > 1:
                    w, h = img.size
                    img.draft("RGB" if img.mode in ("RGB", "YCbCr") else None,
                              (max(1, w // min(reduce, 8)), max(1, h // min(reduce, 8))))
                img.load()
        except Image.DecompressionBombError as exc:
            raise _bomb(self.data, self.format, exc) from None
        except (OSError, ValueError, SyntaxError, EOFError, struct.error):
            raise _corrupt(self.format) from None
        img = _eight_bit(img)
        done = round(self.raw_size[0] / img.width) if img.width else 1
        if reduce > done and reduce // done > 1:
            img = img.reduce(reduce // done)
        img = _rgb(img)
        if self.orientation in _TRANSPOSE:
            img = img.transpose(_TRANSPOSE[self.orientation])
        return img


def _eight_bit(img: Image.Image) -> Image.Image:
    """`img` in a mode of 8-bit bands that `Image.reduce` takes: L, LA, RGB or RGBA.
    Greyscale of 16 bits (I;16, or I as older Pillow opens it) is scaled down (>> 8):
    `convert` would clip every value over 255 to white."""
    if img.mode in ("L", "LA", "RGB", "RGBA"):
        return img
    if img.mode.startswith("I;16") or img.mode == "I":
        grey = np.asarray(img)
        if grey.dtype.kind != "u":  # I: 32-bit signed, holding 0..65535
            grey = np.clip(grey, 0, 65535)
        return Image.fromarray((grey >> 8).astype(np.uint8))
    alpha = img.mode in ("PA", "La", "RGBa") or (img.mode == "P" and "transparency" in img.info)
    return img.convert("RGBA" if alpha else "RGB")


def _rgb(img: Image.Image) -> Image.Image:
    """An L, LA, RGB or RGBA image as RGB, what is transparent on white."""
    if img.mode == "RGB":
        return img
    if img.mode in ("LA", "RGBA"):
        back = Image.new("RGB", img.size, (255, 255, 255))
        back.paste(img.convert("RGB") if img.mode == "LA" else img, mask=img.getchannel("A"))
        return back
    return img.convert("RGB")


def _read(path: str | Path) -> bytes:
    """The bytes of the file at `path`: a regular file of at most `MAX_FILE_BYTES`
    (an `OSError` if it cannot be opened). A FIFO, a device, a folder or a file larger
    than that (by its size on disk) is refused before a byte is read (opened without
    blocking, so a FIFO with no writer does not hang)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    mode = info.st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "not a regular file")
        raise ImageError("not_a_file", f"{path} is {kind}, not a photo file")
    if info.st_size > MAX_FILE_BYTES:  # refused unread
        os.close(fd)
        raise _file_too_large(f"is {info.st_size:,} bytes")
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)  # at most: it may have grown since
    if len(data) > MAX_FILE_BYTES:
        raise _file_too_large(f"is larger than {MAX_FILE_BYTES:,} bytes")
    return data


def _file_too_large(what: str) -> ImageError:
    return ImageError("too_large", f"the file {what}, over the {MAX_FILE_BYTES:,} bytes ({MAX_FILE_BYTES // 2**20} "
                                   f"MB) a photo (up to about 50 megapixels) may weigh")


def open_photo(data: bytes | str | Path) -> Photo:
    """Check a photo's format and size from its header, without decoding it.
    A path is read from disk (see `_read`; an `OSError` if it cannot be)."""
    if isinstance(data, (str, Path)):
        data = _read(data)
    data = bytes(data)
    if not data:
        raise ImageError("empty", "the file is empty")
    sniffed = _sniff(data)
    if sniffed is not None and sniffed not in SUPPORTED:
        raise _unsupported(sniffed)
    _check_structure(data, sniffed)
    try:
        with _quiet():
            img = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError as exc:
        raise _bomb(data, sniffed, exc) from None
    except Exception:  # noqa: BLE001 - Pillow raises many kinds on bad headers
        if sniffed in SUPPORTED:
            raise _corrupt(sniffed) from None
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
            raise _too_large(w, h)
        try:
            with _quiet():
                orientation = _orientation(img, data, fmt)
        except Exception:  # noqa: BLE001 - a damaged EXIF block: read the photo as stored
            orientation = 1
    return Photo(data, fmt, (w, h), orientation if orientation in range(1, 9) else 1)


def _orientation(img: Image.Image, data: bytes, fmt: str) -> int:
    """The EXIF orientation tag, 1 without one. A PNG's eXIf chunk may follow its pixels,
    and Pillow's `getexif` then decodes them all to reach it: it is looked for here among
    the chunks instead, so that checking a photo's header decodes nothing."""
    if fmt == "PNG" and "exif" not in img.info:
        raw = _png_chunk(data, b"eXIf")
        if raw is None:
            return 1
        exif = Image.Exif()
        exif.load(raw)
        return int(exif.get(ORIENTATION_TAG, 1))
    return int(img.getexif().get(ORIENTATION_TAG, 1))


def png_chunks(data: bytes) -> Iterator[tuple[bytes, int, int]]:
    """The chunks of a PNG after its signature, in order, IEND the last: `(kind, offset,
    length)`, the chunk's data being `data[offset + 8:offset + 8 + length]` and its CRC
    the 4 bytes after. Only each chunk's length and kind are read (nothing decompressed,
    no CRC checked). A chunk that runs past the end of `data` (truncated, or a bad
    length: `offset + 12 + length > len(data)`) is yielded as it says it is, and is the
    last; a caller that copies chunks checks that."""
    i = len(PNG_SIGNATURE)
    while i + 8 <= len(data):
        length = int.from_bytes(data[i:i + 4], "big")
        kind = data[i + 4:i + 8]
        yield kind, i, length
        if kind == b"IEND":
            return
        i += 12 + length


def _png_chunk(data: bytes, kind: bytes) -> bytes | None:
    """The data of a PNG's first chunk of `kind` (`png_chunks`), or None."""
    for k, i, length in png_chunks(data):
        if k == kind:
            return data[i + 8:i + 8 + length]
    return None


def load_image(data: bytes | str | Path) -> Image.Image:
    """The photo as an upright RGB image (EXIF orientation applied); `ImageError` if it
    is empty, not an image, of an unsupported format, too large or corrupt."""
    return open_photo(data).decode(1)
