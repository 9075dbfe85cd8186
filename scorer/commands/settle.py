"""`mus-scorer settle [FILE|-] [--explain] [--lang L] [--jobs N]`: settle hand records.

Input: one `mus-hand/1` object (pretty-printed over several lines or not), several of
them one after another, or JSON Lines of hands. Output: one compact `mus-settlement/1`
line per hand; a hand that cannot be settled prints
`{"format": "mus-error/1", "line": N, "error": "<field>: <reason>"}` instead, the others
are still settled, and the exit status is 1. With `--explain`, the count in words.
Large JSON Lines inputs are settled by several worker processes, in order.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from scorer.commands._io import is_json_lines, piped, read_or_say
from scorer.engine.errors import JSON, json_problem, json_type
from scorer.engine.jsonl import lines_of

ERROR_FORMAT = "mus-error/1"
CHUNK = 4096  # lines settled (and written) at a time
PARALLEL_FROM = 20_000  # lines from which --jobs 0 (auto) uses several processes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options."""
    parser.add_argument("file", nargs="?", default="-", metavar="FILE",
                        help="a hand, or JSON Lines of hands (default or '-': standard input)")
    parser.add_argument("--explain", action="store_true", help="print the count in words instead of JSON")
    parser.add_argument("--lang", default="en", choices=("en", "es", "eu", "fr"),
                        help="language of --explain (default en)")
    parser.add_argument("--jobs", type=_count, default=0, metavar="N",
                        help=f"worker processes for JSON Lines, at most {MAX_JOBS} (default 0: one per CPU, "
                             f"up to 8, from {PARALLEL_FROM} lines on)")


MAX_JOBS = 256  # processes forked at once


def _count(text: str) -> int:
    """A whole number, 0 to `MAX_JOBS` (for --jobs)."""
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (0: automatic)")
    if int(text) > MAX_JOBS:
        raise argparse.ArgumentTypeError(f"{text!r} is more than {MAX_JOBS} processes (0: automatic)")
    return int(text)


def _json_lines(lines: list[str], first: int = 1) -> Iterator[tuple[int, Any, str | None]]:
    """(line number, value, error) for every non-blank line; `first` numbers the first."""
    loads = JSON.decode  # json.loads, but a key given twice in an object is refused
    for n, line in enumerate(lines, first):
        if not line or line.isspace():
            continue
        try:
            yield n, loads(line), None
        except (ValueError, RecursionError) as exc:
            yield n, None, f"invalid JSON: {json_problem(exc)}"


def _documents(text: str) -> Iterator[tuple[int, Any, str | None]]:
    """JSON values one after another, each numbered by the line it starts on. After a
    syntax error the reading goes on at the next line that starts with `{`."""
    decoder = JSON
    pos, size = 0, len(text)
    while True:
        while pos < size and text[pos] in " \t\r\n":
            pos += 1
        if pos >= size:
            return
        line = text.count("\n", 0, pos) + 1
        try:
            value, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError) as exc:
            yield line, None, f"invalid JSON: {json_problem(exc)}"
            resume = text.find("\n{", pos)
            if resume < 0:
                return
            pos = resume + 1
            continue
        pos = end
        yield line, value, None


def iter_values(text: str) -> Iterator[tuple[int, Any, str | None]]:
    """(line number, parsed value, None) or (line number, None, error) for every hand."""
    lines = lines_of(text)
    return _json_lines(lines) if is_json_lines(lines) else _documents(text)


def _error_line(line: int, error: str) -> str:
    return json.dumps({"format": ERROR_FORMAT, "line": line, "error": error}, ensure_ascii=False, separators=(",", ":"))


def _jobs(requested: int, lines: int) -> int:
    """Worker processes: as asked, or (0) one per CPU up to 8 for a large input."""
    if requested > 0:
        return requested
    if lines < PARALLEL_FROM:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


def run(args: argparse.Namespace) -> int:
    """Settle every hand of the input; 0 if all settled, 1 if any failed, 2 if unreadable."""
    if (text := read_or_say("settle", args.file)) is None:
        return 2
    return piped(lambda: 1 if _settle_all(text, args.lang if args.explain else None, args.jobs) else 0)


def _settle_all(text: str, explain_lang: str | None, jobs: int) -> int:
    """Write the settlement (or error, or the count in words) of every hand; the failures."""
    write = sys.stdout.write
    failed = 0
    lines = lines_of(text)
    if explain_lang is not None or not is_json_lines(lines):
        out, failed = _process(iter_values(text), explain_lang)
        if out:
            write("\n".join(out) + "\n")
        sys.stdout.flush()
        return failed
    workers = _jobs(jobs, len(lines))
    size = CHUNK if workers == 1 else max(256, min(CHUNK, len(lines) // (4 * workers)))
    chunks = [(i + 1, lines[i:i + size]) for i in range(0, len(lines), size)]
    workers = min(workers, len(chunks))  # no process with nothing to do
    if workers > 1 and len(chunks) > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for block, bad in pool.imap(_chunk, chunks):
                write(block)
                failed += bad
    else:
        for chunk in chunks:
            block, bad = _chunk(chunk)
            write(block)
            failed += bad
    sys.stdout.flush()
    return failed


def _chunk(chunk: tuple[int, list[str]]) -> tuple[str, int]:
    """Settle a block of JSON Lines: (the output text, the failures)."""
    first, lines = chunk
    out, failed = _process(_json_lines(lines, first), None)
    return ("\n".join(out) + "\n" if out else ""), failed


def _process(items: Iterable[tuple[int, Any, str | None]], explain_lang: str | None) -> tuple[list[str], int]:
    """The output lines for parsed hands, and how many failed."""
    from scorer.engine import MusError, settle
    from scorer.engine.explain import explain

    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    out: list[str] = []
    failed = 0
    for n, value, error in items:
        if error is None:
            if type(value) is not dict:
                error = f"a hand is a JSON object, not {json_type(value)}"
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
        elif explain_lang is not None:
            if out:
                out.append("")
            out.append(f"# line {n}")
            out.extend(explain(settlement, value, None, explain_lang))
        else:
            out.append(dumps(settlement))
    return out, failed
