"""`mus-scorer replay MATCH.jsonl [--json] [--explain] [--lang L]`: replay a match.

Prints the score after every hand, the games, vacas and the match winner. `--json`
prints one compact JSON line per hand (`hand`, `line`, `record`, `settlement`, `state`);
`--explain` adds the count of every hand in words (with `--json`, as an `explain` list). A bad line stops the replay with an
error naming the file and the line (a `mus-error/1` line with `--json`) and exit status 1; so does
JSON written over several lines (a `mus-hand/1` file, pretty-printed), said as such.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from scorer.commands._io import Shown, first_line, not_json_lines, piped, read_or_say, said, shown
from scorer.engine.jsonl import lines_of

if TYPE_CHECKING:
    from scorer.engine.match import Match


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options."""
    parser.add_argument("file", metavar="MATCH", help="a mus-match/1 JSON Lines file ('-': standard input)")
    parser.add_argument("--json", action="store_true", help="one JSON line per hand")
    parser.add_argument("--explain", action="store_true", help="the count of every hand in words")
    parser.add_argument("--lang", default="en", choices=("en", "es", "eu", "fr"),
                        help="language of the text (default en)")


def _hand_line(row: dict[str, Any], match: Match, lang: str) -> str:
    """`Hand 3, esku Iker: 12–8` plus the game, vaca and match won by this hand."""
    from scorer.engine.explain import format_score, words

    w = words(lang)
    sc = w["semicolon"]  # "; ", in French " ; " with a no-break space
    record, settlement, state = row["record"], row["settlement"], row["state"]
    text = f"{w['hand'].format(n=row['hand'])}, {w['esku'].format(p=match.players[record['esku']])}{w['colon']}"
    text += format_score(settlement["score"])
    if settlement.get("game_over"):
        t = settlement["winner"]
        team = match.teams[t]
        text += f"{sc}{w['game_won'].format(t=team)}"
        if state["games"] == [0, 0]:  # the game completed a vaca
            text += f"{sc}{w['vaca_won'].format(t=team)}, {w['vacas']} {format_score(state['vacas'])}"
        else:
            text += f", {w['games']} {format_score(state['games'])}"
        if state["winner"] is not None:
            text += f"{sc}{w['match_won'].format(t=team)}"
    for t in (0, 1):
        if state["adentro"][t]:
            text += f"{sc}{w['adentro'].format(t=match.teams[t], s=state['score'][t])}"
    return text


def run(args: argparse.Namespace) -> int:
    """Replay the match; 0 when every line played, 1 on a bad line, 2 if unreadable."""
    return piped(lambda: _replay(args))


def _replay(args: argparse.Namespace) -> int:
    if (text := read_or_say("replay", args.file)) is None:
        return 2

    from scorer.engine.errors import MusError
    from scorer.engine.explain import explain, format_score, words
    from scorer.engine.match import iter_match

    w = words(args.lang)
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    out = sys.stdout if args.json else Shown(sys.stdout)  # JSON escapes control characters itself
    if (why := not_json_lines(args.file, text, "replay")) is not None:  # a hand's file, pretty-printed JSON
        if args.json:
            out.write(dumps({"format": "mus-error/1", "line": first_line(text), "error": why}) + "\n")
        else:
            print(shown(f"mus-scorer replay: {why}"), file=sys.stderr)
        return 1
    match = None
    try:
        for row, match in iter_match(lines_of(text)):
            if row is None:
                if not args.json:
                    t, p = match.teams, match.players
                    out.write(f"{t[0]} ({p[0]}, {p[2]}) – {t[1]} ({p[1]}, {p[3]})\n")
                continue
            told = explain(row["settlement"], row["record"], match.players, args.lang, match.teams) \
                if args.explain else []
            if args.json:
                out.write(dumps({**row, "explain": told} if args.explain else row) + "\n")
                continue
            out.write(_hand_line(row, match, args.lang) + "\n")
            for line in told:
                out.write(f"    {line}\n")
    except MusError as exc:
        out.flush()
        if args.json:
            error = {"format": "mus-error/1", "line": getattr(exc, "line", None),
                     "error": str(getattr(exc, "original", exc))}
            out.write(dumps(error) + "\n")
        else:
            print(shown(f"mus-scorer replay: {said(args.file)}: {exc}"), file=sys.stderr)
        return 1
    if not args.json and match is not None:
        state = match.state()
        if state["winner"] is not None:
            out.write(w["winner"].format(t=match.teams[state["winner"]], v=f"{w['vacas']} {format_score(state['vacas'])}")
                      + "\n")
        else:
            out.write(f"{w['vacas']} {format_score(state['vacas'])}, {w['games']} {format_score(state['games'])}, "
                      f"{format_score(state['score'])}\n")
    return 0
