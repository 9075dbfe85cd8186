"""The engine's errors: every refusal names the field and quotes the value."""

from __future__ import annotations

import json
import sys
from typing import Any

# what Python's int() refuses to read from text (sys.set_int_max_str_digits; 4300 by default)
TOO_LONG = f"a number of more than {sys.get_int_max_str_digits() or 4300} digits"


def short(value: Any, limit: int = 60) -> str:
    """`repr(value)` for an error message, its first `limit` characters and "…" where it
    is longer (a number too long to print is named so)."""
    try:
        text = repr(value)
    except ValueError:  # an int past sys.get_int_max_str_digits
        return TOO_LONG
    return text if len(text) <= limit else text[:limit - 1] + "…"


class MusError(ValueError):
    """A refused input. `field` is a path such as `bets.grande[3].act` (or `""`)."""

    def __init__(self, field: str, reason: str, value: Any = None) -> None:
        self.field = field
        self.reason = reason
        self.value = value
        super().__init__(f"{field}: {reason}" if field else reason)

    def under(self, prefix: str) -> MusError:
        """The same error with its field placed under `prefix` (`bets.grande[3]` + `act`)."""
        if not prefix:
            return self
        field = f"{prefix}.{self.field}" if self.field else prefix
        return type(self)(field, self.reason, self.value)


class MalformedError(MusError):
    """The input is not a valid record: wrong type, unknown card, missing key."""


class IllegalError(MusError):
    """Well formed but not allowed: same card twice, action out of turn, raise with no bet."""


def json_problem(exc: Exception) -> str:
    """Why `json.loads` refused a text, in words: where it broke (`JSONDecodeError`), a
    number too long to read (`ValueError`) or arrays nested too deep (`RecursionError`)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at " + (f"line {exc.lineno} column {exc.colno}" if exc.lineno > 1 else f"column {exc.colno}")
    if isinstance(exc, RecursionError):
        return "arrays or objects nested too deep"
    return TOO_LONG
