"""What the text commands (`settle`, `replay`, `standings`, `scan`) share about their input and output."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TextIO

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


class NotText(ValueError):
    """The input is not UTF-8 text."""


def text_of(data: bytes) -> str:
    """`data` as UTF-8 text, a byte-order mark dropped; `NotText` saying where it is not."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise NotText("UTF-16 text, not UTF-8: save it as UTF-8") from None
        raise NotText(f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def read_input(path: str) -> str:
    """The whole of FILE, or of standard input for `-`, as text (UTF-8, a byte-order mark dropped)."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    return text_of(data)


def read_or_say(command: str, path: str) -> str | None:
    """`read_input(path)`, or None after printing why it cannot be read on standard error
    (`mus-scorer COMMAND: PATH: why`)."""
    try:
        return read_input(path)
    except (OSError, NotText) as exc:
        print(f"mus-scorer {command}: {path}: {exc}", file=sys.stderr)
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
