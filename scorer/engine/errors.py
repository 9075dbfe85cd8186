"""The engine's errors: every refusal names the field and quotes the value."""

from __future__ import annotations

import json
import sys
from typing import Any

# what Python's int() refuses to read from text (sys.set_int_max_str_digits; 4300 by default)
TOO_LONG = f"a number of more than {sys.get_int_max_str_digits() or 4300} digits"


KEYS = frozenset({
    # a word said at the table (a live hand, or a record's bets replayed)
    "out_of_turn", "not_in_lance", "out_of_lance", "betting_over", "hand_over", "declare_in_betting",
    "must_declare", "no_bet_to_raise", "no_bet_to_answer", "ordago_answer", "bet_on_table", "refusal_binds",
    # the cards shown
    "not_a_card", "card_twice", "fifth_of_rank", "hand_of_four", "cards_needed",
    # a hand record, a match file
    "lance_over", "betting_unfinished", "lance_not_bet", "claim_unknown", "score_differs", "match_won",
})
"""The `key`s a refusal may carry: why, stable, for whoever says it in another language."""

SEAT_PARAMS = ("seat", "speaker", "refuser")
"""The `params` that name a seat (0..3): a page says the player sitting there."""


def said(value: Any, limit: int | None = None) -> str:
    """`value` quoted into a message, the one rule of every message that quotes a value:
    as JSON writes it (`null`, `true`, `"12o"`, `{"a": 1}`, `NaN`), since the records,
    requests and files people write are JSON. A Python caller's argument is quoted so too
    (`None` reads `null`): the engine cannot tell the two apart; and so are the format's
    words a message names (`"envido"`, `"pares"`, a key). A character that would not
    show (a control, a lone surrogate, U+2028) is its JSON escape (`"\\u2028"`); a value
    JSON cannot write (a `Card`, a set) is its `repr`; an int past Python's digit limit is
    named so. With `limit`, its first `limit` characters and "…" where it is longer."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        try:
            text = repr(value)
        except ValueError:  # an int past sys.get_int_max_str_digits
            return TOO_LONG
        except RecursionError:
            return "arrays or objects nested too deep"
    if not text.isprintable():
        text = "".join(c if c.isprintable() else _escape(c) for c in text)
    return text if limit is None or len(text) <= limit else text[:limit - 1] + "…"


def _escape(char: str) -> str:
    """`char` as a JSON escape (`\\u2028`; one past U+FFFF as its surrogate pair)."""
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


class MusError(ValueError):
    """A refused input. `field` is a path such as `bets.grande[3].act` (or `""`).

    `key` (one of `KEYS`) and `params`, where given, say why in a stable key and the
    values it speaks of (lances, acts and cards as the records write them, seats as
    numbers: `SEAT_PARAMS`), so that a page can say it in its reader's language; the
    message (`reason`, `str(err)`) stays English. Refusals of a record's shape (a wrong
    type, an unknown key) have none."""

    def __init__(self, field: str, reason: str, value: Any = None, *, key: str | None = None,
                 params: dict[str, Any] | None = None) -> None:
        if key is not None and key not in KEYS:
            raise ValueError(f"key: {said(key)} is not one of KEYS")
        self.field = field
        self.reason = reason
        self.value = value
        self.key = key
        self.params = dict(params or {})
        super().__init__(f"{field}: {reason}" if field else reason)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy whole (a process pool sends a worker's refusal back so): the
        class, `field`, `reason`, `value`, and every attribute (`key`, `params`, `line`)."""
        return type(self), (self.field, self.reason, self.value), self.__dict__

    def under(self, prefix: str) -> MusError:
        """The same error with its field placed under `prefix` (`bets.grande[3]` + `act`)."""
        if not prefix:
            return self
        field = f"{prefix}.{self.field}" if self.field else prefix
        return self.moved(field)

    def moved(self, field: str) -> MusError:
        """The same error (class, value, key and params) at another `field`."""
        return type(self)(field, self.reason, self.value, key=self.key, params=self.params)


def lone_surrogate(value: Any) -> str | None:
    """Where parsed JSON `value` holds a lone surrogate (`"\\ud800"`: an escape JSON reads,
    which no UTF-8 text can hold, so that writing it out fails): the path to that string
    (`teams[0]`, `""` for `value` itself), else None."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return path
        elif isinstance(item, dict):
            for key, v in item.items():
                if lone_surrogate(key) is not None:  # the key itself is no text: named by its escape
                    return f"{path}.{said(key)}" if path else said(key)
                stack.append((v, f"{path}.{key}" if path else str(key)))
        elif isinstance(item, list):
            stack += [(v, f"{path}[{i}]") for i, v in enumerate(item)]
    return None


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, as a message says it: "an array", "a string",
    "null", ... (not Python's "list", "str", "NoneType")."""
    names = {list: "an array", str: "a string", bool: "true or false", int: "a number", float: "a number",
             dict: "an object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


class MalformedError(MusError):
    """The input is not a valid record: wrong type, unknown card, missing key."""


class IllegalError(MusError):
    """Well formed but not allowed: same card twice, action out of turn, raise with no bet."""


class DuplicateKey(ValueError):
    """A JSON object names one key twice (`{"bets": ..., "bets": ...}`): `json.loads` would
    keep the last and silently drop the first, so what was meant is unknown."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise DuplicateKey(f"the key {said(twice, 60)} is given twice in one object")
    return obj


JSON = json.JSONDecoder(object_pairs_hook=_unique)
"""The JSON reader of records and requests: `json.loads`, but an object naming a key twice
is refused (`DuplicateKey`, which `json_problem` says)."""


def loads(text: str) -> Any:
    """`text` as JSON, as `JSON` reads it (`DuplicateKey` for a key given twice in an object)."""
    return JSON.decode(text)


def json_problem(exc: Exception) -> str:
    """Why `json.loads` refused a text, in words: where it broke (`JSONDecodeError`), a
    number too long to read (`ValueError`), arrays nested too deep (`RecursionError`) or a
    key given twice in one object (`DuplicateKey`)."""
    if isinstance(exc, DuplicateKey):
        return str(exc)
    if isinstance(exc, json.JSONDecodeError):
        where = f"line {exc.lineno} column {exc.colno}" if exc.lineno > 1 else f"column {exc.colno}"
        # some of json's messages end in "at" already ("Unterminated string starting at")
        return f"{exc.msg} {where}" if exc.msg.endswith(" at") else f"{exc.msg} at {where}"
    if isinstance(exc, RecursionError):
        return "arrays or objects nested too deep"
    return TOO_LONG
