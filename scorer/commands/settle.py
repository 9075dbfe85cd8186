"""`mus-scorer settle [FILE|-] [--explain] [--lang L]`: settle hand records.

Input: one `mus-hand/1` object (pretty-printed over several lines or not), several of
them one after another, or JSON Lines of hands. Output: one compact `mus-settlement/1`
line per hand; a hand that cannot be settled prints
`{"format": "mus-error/1", "line": N, "error": "<field>: <reason>"}` instead, the others
are still settled, and the exit status is 1. With `--explain`, the count in words.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any

ERROR_FORMAT = "mus-error/1"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options."""
    parser.add_argument("file", nargs="?", default="-", metavar="FILE",
                        help="a hand, or JSON Lines of hands (default or '-': standard input)")
    parser.add_argument("--explain", action="store_true", help="print the count in words instead of JSON")
    parser.add_argument("--lang", default="en", choices=("en", "es", "eu", "fr"),
                        help="language of --explain (default en)")


def read_input(path: str) -> str:
    """The whole input as text (UTF-8, a byte-order mark dropped)."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    return data.decode("utf-8-sig")


def iter_values(text: str) -> Iterator[tuple[int, Any, str | None]]:
    """(line number, parsed value, None) or (line number, None, error) for every hand.

    JSON Lines when the first non-blank line is a complete value (or plainly not JSON);
    otherwise the text is read as JSON values one after another (a pretty-printed hand),
    each numbered by the line it starts on; a syntax error there ends the reading.
    """
    lines = text.split("\n")
    loads = json.loads
    start = next((i for i, line in enumerate(lines) if line.strip()), None)
    if start is None:
        return
    first = lines[start].strip()
    try:
        loads(first)
        document = False
    except json.JSONDecodeError as exc:
        document = exc.pos >= len(first)  # ran out of text: a value over several lines
    if not document:
        for n, line in enumerate(lines, 1):
            if not line or line.isspace():
                continue
            try:
                yield n, loads(line), None
            except json.JSONDecodeError as exc:
                yield n, None, f"invalid JSON: {exc.msg} (column {exc.colno})"
        return
    decoder = json.JSONDecoder()
    pos, size = 0, len(text)
    while True:
        while pos < size and text[pos] in " \t\r\n":
            pos += 1
        if pos >= size:
            return
        line = text.count("\n", 0, pos) + 1
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            yield line, None, f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
            return
        yield line, value, None


def _error_line(line: int, error: str) -> str:
    return json.dumps({"format": ERROR_FORMAT, "line": line, "error": error}, ensure_ascii=False)


def run(args: argparse.Namespace) -> int:
    """Settle every hand of the input; 0 if all settled, 1 if any failed, 2 if unreadable."""
    try:
        text = read_input(args.file)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"mus-scorer settle: {args.file}: {exc}", file=sys.stderr)
        return 2

    from scorer.engine import MusError, settle

    explain = None
    if args.explain:
        from scorer.engine.explain import explain

    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    out: list[str] = []
    write = sys.stdout.write
    failed = 0
    count = 0
    for n, value, error in iter_values(text):
        if error is None:
            if type(value) is not dict:
                error = f"a hand is a JSON object, not {type(value).__name__}"
            else:
                try:
                    settlement = settle(value)
                except MusError as exc:
                    error = str(exc)
                except Exception as exc:  # an engine bug must not lose the other lines
                    error = f"internal error: {type(exc).__name__}: {exc}"
        if error is not None:
            failed += 1
            out.append(_error_line(n, error))
        elif explain is not None:
            if count:
                out.append("")
            out.append(f"# line {n}")
            out.extend(explain(settlement, value, None, args.lang))
        else:
            out.append(dumps(settlement))
        count += 1
        if len(out) >= 4096:
            write("\n".join(out) + "\n")
            out.clear()
    if out:
        write("\n".join(out) + "\n")
    sys.stdout.flush()
    return 1 if failed else 0
