"""What the text commands (`settle`, `replay`) share about their input and output."""

from __future__ import annotations

import os
import sys


def read_input(path: str) -> str:
    """The whole of FILE, or of standard input for `-`, as text (UTF-8, a byte-order mark dropped)."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    return data.decode("utf-8-sig")


def drop_stdout() -> None:
    """After a `BrokenPipeError` (the reader went away, as with `| head`): send what is
    left of standard output to /dev/null, so that Python's flush at exit stays quiet."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
