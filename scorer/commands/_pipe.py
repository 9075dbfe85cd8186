"""What the text commands share about standard output."""

from __future__ import annotations

import os
import sys


def drop_stdout() -> None:
    """After a `BrokenPipeError` (the reader went away, as with `| head`): send what is
    left of standard output to /dev/null, so that Python's flush at exit stays quiet."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
