"""JSON Lines: the one rule the command line and the web import split a match file by."""

from __future__ import annotations

import json

import pytest

from scorer.commands._io import text_of
from scorer.engine.jsonl import NotText, decode, lines_of

A, B = '{"a": 1}', '{"b": 2}'


@pytest.mark.parametrize(("text", "lines"), [
    (f"{A}\n{B}", [A, B]),  # LF
    (f"{A}\r\n{B}", [A, B]),  # CRLF
    (f"{A}\r{B}", [A, B]),  # a lone CR, as old Macs wrote
    (f"{A}\n{B}\n", [A, B, ""]),  # a final newline: an empty last line, skipped by the reader
    (f"{A}\r\n{B}\r\n", [A, B, ""]),
    (f"{A}\n\n  \n{B}", [A, "", "  ", B]),  # blank lines kept, so that the numbers are the file's
    (f"{A}\r\r\n{B}", [A, "", B]),  # a CR, then a CRLF: two line ends
    (f"{A}\n\r{B}", [A, "", B]),  # LF then CR: two, not one CRLF
    ("", [""]),
])
def test_lines_end_at_lf_crlf_or_cr(text: str, lines: list[str]) -> None:
    assert lines_of(text) == lines
    assert text_of(text.encode()).split("\n") == lines  # the command line's text, its ends made LF


@pytest.mark.parametrize("inside", ["\u2028", "\u2029", "\x85"])
def test_no_line_ends_where_str_splitlines_would(inside: str) -> None:
    """JSON takes U+2028, U+2029 and U+0085 unescaped in a string (a name typed so):
    `str.splitlines()` split there and broke the line in two."""
    line = json.dumps({"teams": [f"Txuri{inside}ak", "B"]}, ensure_ascii=False)
    assert inside in line
    for text in (f"{line}\n{B}\n", f"{line}\r\n{B}\r\n", f"{line}\r{B}\r"):
        assert lines_of(text) == [line, B, ""]
        assert json.loads(lines_of(text)[0])["teams"][0] == f"Txuri{inside}ak"
    assert lines_of("a\x0bb\x0cc\x1cd\x1de\x1ef") == ["a\x0bb\x0cc\x1cd\x1de\x1ef"]  # nor at its VT, FF, FS, GS, RS


def test_a_leading_byte_order_mark_is_dropped_and_only_it() -> None:
    bom = "\ufeff"
    assert decode(f"{bom}{A}\n".encode()) == f"{A}\n"
    assert lines_of(decode(f"{bom}{A}\r\n{B}".encode())) == [A, B]
    assert decode(f"{A}\n{bom}{B}".encode()) == f"{A}\n{bom}{B}"  # within the text it is kept, for JSON to refuse
    assert decode(f"{bom}{bom}{A}".encode()) == f"{bom}{A}"


@pytest.mark.parametrize(("data", "says"), [
    (A.encode("utf-16"), "UTF-16 text, not UTF-8: save it as UTF-8"),
    (b'{"a": "\xff"}', "not UTF-8 text (byte 0xff at offset 7)"),
])
def test_what_is_not_utf8_is_refused_saying_where(data: bytes, says: str) -> None:
    with pytest.raises(NotText) as err:
        decode(data)
    assert str(err.value) == says
