"""JSON Lines, as the command line and the web app's import read a `mus-match/1` file:
one rule for its text and where its lines end (no Flask here)."""

from __future__ import annotations

import re

LINE_END = re.compile(r"\r\n|[\r\n]")
"""Where a line ends: LF, CRLF, or a lone CR (as old Macs wrote)."""


class NotText(ValueError):
    """The input is not UTF-8 text."""


def decode(data: bytes) -> str:
    """`data` as UTF-8 text, a leading byte-order mark dropped; `NotText` saying where it
    is not (UTF-16, which a BOM shows, named as such)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise NotText("UTF-16 text, not UTF-8: save it as UTF-8") from None
        raise NotText(f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def lines_of(text: str) -> list[str]:
    """The lines of a JSON Lines `text`, numbered from 1 in this order: split at LF, CRLF
    and a lone CR only (`LINE_END`). Not at U+2028, U+2029 or U+0085, where
    `str.splitlines()` also splits: JSON holds them unescaped inside a string (a name
    typed so). Blank lines are kept (the last one after a final newline too), for the
    reader to skip, so that the numbers stay those of the file."""
    return LINE_END.split(text) if "\r" in text else text.split("\n")
