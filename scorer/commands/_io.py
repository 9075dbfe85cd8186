"""What the text commands (`settle`, `replay`, `standings`, `scan`) share about their input and output."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable
from typing import Any, TextIO

from scorer.engine.jsonl import NotText, decode, lines_of
from scorer.engine.standings import invisible


def shown(text: str) -> str:
    """`text` safe for a terminal: each control or invisible format character but newline
    and tab written as its escape (`\\x1b`), so that a name in a file cannot retitle,
    recolour or rewrite the reader's terminal."""
    if text.isprintable():
        return text
    return "".join(c.encode("unicode_escape").decode("ascii") if c not in "\n\t" and invisible(c) else c
                   for c in text)


class Shown:
    """A text stream that writes through `shown` (the commands' text output)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(shown(text))

    def flush(self) -> None:
        self.stream.flush()


def text_of(data: bytes) -> str:
    """`data` as UTF-8 text (`decode`: a byte-order mark dropped, `NotText` saying where it
    is not), its lines (`lines_of`) ended by a newline: a CRLF or a lone CR becomes one
    (JSON holds no raw CR in a string, so no value changes)."""
    text = decode(data)
    return "\n".join(lines_of(text)) if "\r" in text else text


def read_input(path: str) -> str:
    """The whole of FILE, or of standard input for `-`, as text (UTF-8, a byte-order mark dropped)."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    return text_of(data)


def said(path: str) -> str:
    """FILE as the messages name it: 'standard input' for `-`; a byte of its name that is
    not UTF-8 (which Python keeps as a lone surrogate, "\\udcff", that no UTF-8 output takes)
    as U+FFFD."""
    if path == "-":
        return "standard input"
    try:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate no file name's byte gives
        return path.encode("utf-8", "backslashreplace").decode("utf-8")


def read_or_say(command: str, path: str) -> str | None:
    """`read_input(path)`, or None after printing why it cannot be read on standard error
    (`mus-scorer COMMAND: PATH: why`)."""
    try:
        return read_input(path)
    except (OSError, NotText) as exc:
        print(f"mus-scorer {command}: {said(path)}: {exc}", file=sys.stderr)
        return None


def drop_stdout() -> None:
    """After a `BrokenPipeError` (the reader went away, as with `| head`): send what is
    left of standard output to /dev/null, so that Python's flush at exit stays quiet."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def piped(work: Callable[[], int]) -> int:
    """`work()`'s exit status; 1 if the reader of standard output goes away first (as with
    `| head`), what is left of the output dropped (`drop_stdout`)."""
    try:
        return work()
    except BrokenPipeError:
        drop_stdout()
        return 1


def is_json_lines(lines: list[str]) -> bool:
    """JSON Lines when the first non-blank line is a complete value (or plainly not JSON);
    otherwise (the line stops short) a value spread over several lines."""
    first = next((line.strip() for line in lines if line.strip()), "")
    try:
        json.loads(first)
    except json.JSONDecodeError as exc:
        return exc.pos < len(first)
    except (ValueError, RecursionError):  # complete, but no reader takes it: each line stands alone
        return True
    return True


def first_line(text: str) -> int:
    """The number of the first line of `text` that is not blank (1 where none is)."""
    return text.count("\n", 0, len(text) - len(text.lstrip())) + 1


def _what(values: list[Any]) -> str:
    """What the JSON `values`, read one after another, are in words ("a mus-hand/1 document")."""
    first = values[0]
    if isinstance(first, dict) and first.get("format") == "mus-match/1":
        return "a mus-match/1 match written over several lines"
    formats = {v.get("format") if isinstance(v, dict) else None for v in values}
    if len(formats) == 1 and isinstance(fmt := formats.pop(), str):
        return f"a {fmt} document" if len(values) == 1 else f"{len(values)} {fmt} documents, one after another"
    if len(values) == 1:
        return f"a JSON {'object' if isinstance(first, dict) else 'array' if isinstance(first, list) else 'value'} " \
               "written over several lines"
    kind = "objects" if all(isinstance(v, dict) for v in values) else "values"
    return f"{len(values)} JSON {kind} one after another, written over several lines"


def not_json_lines(path: str, text: str, command: str) -> str | None:
    """Where `text` (read from `path`, '-' for standard input) is not the mus-match/1 JSON
    Lines `command` reads but JSON spread over several lines (a pretty-printed document,
    as a mus-hand/1 file is): what it is, what `command` reads and what reads it instead,
    naming the file; else None (JSON Lines, or plainly not JSON: the reading line by line
    says what is wrong)."""
    from scorer.engine.errors import json_problem

    if not text.strip() or is_json_lines(lines_of(text)):
        return None
    name = said(path)
    reads = f"{command} reads mus-match/1 JSON Lines (one object per line)"
    decoder, values = json.JSONDecoder(), []
    pos = len(text) - len(text.lstrip())
    line = first_line(text)
    while pos < len(text):
        try:
            value, pos = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError) as exc:
            if not values:
                return (f"{name}: line {line} opens a JSON value written over several lines, and it is not "
                        f"JSON ({json_problem(exc)}); {reads}")
            break  # the values read before say what the file is
        values.append(value)
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
    what = _what(values)
    if what.startswith("a mus-match/1 "):
        return f"{name} is {what}; {reads}: write its header and each hand on a line of its own"
    advice = ""
    if all(isinstance(v, dict) and v.get("format") == "mus-hand/1" for v in values):
        settle = "mus-scorer settle" + ("" if path == "-" else f" {shlex.quote(said(path))}")
        advice = f"; use `{settle}` for {'a hand' if len(values) == 1 else 'hands'}"
    return f"{name} is {what}; {reads}{advice}"
