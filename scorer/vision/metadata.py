"""A photo without what a phone writes beside its pixels: where it was taken (GPS), the
phone, the time, comments. The pixels are not touched (no re-encoding); the EXIF
orientation alone is kept, as a minimal EXIF block, so that the photo stays upright.

    stored = strip(photo.data, photo.format, photo.orientation)

JPEG: APP1 (EXIF, XMP), APP13 (IPTC) and comments go; JFIF, the colour profile (APP2)
and Adobe's colour transform (APP14) stay. PNG: eXIf and the text and time chunks go.
WebP: the EXIF and XMP chunks go (and their flags in the VP8X header). Data that does not
parse as its format is returned unchanged: the caller has checked it is an image.
"""

from __future__ import annotations

import struct
import zlib

from PIL import Image

from scorer.vision.image import ORIENTATION_TAG, PNG_SIGNATURE, png_chunks

_JPEG_DROP = {0xE1, 0xED, 0xFE}  # APP1 (EXIF, XMP), APP13 (IPTC), COM
_PNG_DROP = {b"eXIf", b"tEXt", b"zTXt", b"iTXt", b"tIME"}


def _tiff(orientation: int) -> bytes:
    """A TIFF header and one IFD holding only the orientation tag."""
    exif = Image.Exif()
    exif[ORIENTATION_TAG] = orientation
    return exif.tobytes()[6:]  # without Pillow's "Exif\0\0"


def strip(data: bytes, fmt: str, orientation: int = 1) -> bytes:
    """`data` (a checked JPEG, PNG or WebP) without its metadata, `orientation` kept."""
    try:
        if fmt == "JPEG":
            return _jpeg(data, orientation)
        if fmt == "PNG":
            return _png(data, orientation)
        if fmt == "WEBP":
            return _webp(data, orientation)
    except (IndexError, ValueError, struct.error):
        pass
    return data


def _jpeg(data: bytes, orientation: int) -> bytes:
    if data[:2] != b"\xff\xd8":
        return data
    out = [data[:2]]
    if orientation != 1:
        payload = b"Exif\x00\x00" + _tiff(orientation)
        out.append(b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload)
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return data  # not a marker where one should be: leave the photo as it came
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker == 0xDA or 0xD0 <= marker <= 0xD9 or marker == 0x01:  # start of scan: the rest is pixels
            out.append(data[i:])
            return b"".join(out)
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if length < 2 or i + 2 + length > len(data):
            return data
        if marker not in _JPEG_DROP:
            out.append(data[i:i + 2 + length])
        i += 2 + length
    return data


def _png(data: bytes, orientation: int) -> bytes:
    if data[:8] != PNG_SIGNATURE:
        return data
    out = [data[:8]]
    for kind, i, length in png_chunks(data):
        end = i + 12 + length
        if end > len(data):  # truncated, or a bad length
            return data
        if kind == b"IDAT" and orientation != 1 and not any(c[4:8] == b"eXIf" for c in out[1:]):
            body = _tiff(orientation)  # eXIf must come before the pixels
            out.append(len(body).to_bytes(4, "big") + b"eXIf" + body
                       + zlib.crc32(b"eXIf" + body).to_bytes(4, "big"))
        if kind not in _PNG_DROP:
            out.append(data[i:end])
        if kind == b"IEND":
            return b"".join(out)
    return data  # no IEND


def _webp(data: bytes, orientation: int) -> bytes:
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return data
    chunks = []
    i = 12
    while i + 8 <= len(data):
        kind = data[i:i + 4]
        size = int.from_bytes(data[i + 4:i + 8], "little")
        end = i + 8 + size + (size & 1)
        if i + 8 + size > len(data):
            return data
        chunks.append((kind, data[i + 8:i + 8 + size]))
        i = end
    kept = [(k, v) for k, v in chunks if k not in (b"EXIF", b"XMP ")]
    if len(kept) == len(chunks):
        return data  # nothing to take out
    keep_exif = orientation != 1 and kept and kept[0][0] == b"VP8X"
    if kept and kept[0][0] == b"VP8X":
        flags = kept[0][1][0] & ~0x0C | (0x08 if keep_exif else 0)  # bit 3: EXIF, bit 2: XMP
        kept[0] = (b"VP8X", bytes([flags]) + kept[0][1][1:])
    if keep_exif:
        kept.append((b"EXIF", _tiff(orientation)))
    body = b"".join(k + len(v).to_bytes(4, "little") + v + (b"\x00" if len(v) & 1 else b"") for k, v in kept)
    return b"RIFF" + (len(body) + 4).to_bytes(4, "little") + b"WEBP" + body
