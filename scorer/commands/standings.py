"""`mus-scorer standings MATCH.jsonl... [--json] [--lang L]`: rank teams over several matches.

Each file is a `mus-match/1` file, replayed as `replay` does, or a tournament's zip (the
web app's "Download the tournament"), whose `matches/*.jsonl` are its league's matches; the results of the matches
(`Match.result()`), with a zip's results entered without hands (a match played on paper,
a walkover: listed in its `tournament.json`, having no match file), are ranked by the
engine's `standings` (RULES.md "Club standings"); a
team is its name whatever its case, accents and spacing (`engine.team_key`). Prints a table (rank, team, played, won, lost, vacas won, then the tie-breaks in their
order: vacas won in the matches lost, vacas lost, stones, head-to-head wins), then the
matches not finished yet, which count for nothing but list their teams. A single zip of a
league played in groups (its `tournament.json` names them) ranks each group first, over
the matches between two of its teams, then every match; a single zip's teams are spelt as
its league entered them, and the teams that withdrew from it (its `tournament.json`'s
`withdrawn`) are ranked as it ranks them: those whose results stand last, marked, and
those whose results were annulled not at all (their matches are in its `annulled/`, not
read), each said under the table. `--json` prints
one JSON object: `{"standings": [the rows of standings()], "matches": [{"file", "teams",
"vacas", "stones", "winner"}]}`, `"groups": [{"name", "teams", "standings"}]` for a
league in groups, and `"withdrawn": [{"team", "results"}]` where a team withdrew. Every bad file is reported on standard error with its
name (and line); then nothing is printed on standard output, as standings over part of
the matches would mislead, and the exit status is 1 (2 if a file could not be read).
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
import zlib
from typing import Any

from scorer.commands._io import NotText, Shown, not_json_lines, piped, read_input, said, shown, text_of
from scorer.engine.jsonl import lines_of

# The table's words, per language: column headings, then the unfinished matches.
_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "rank": "Rank", "team": "Team", "played": "Played", "won": "Won", "lost": "Lost",
        "vacas_won": "Vacas won", "vacas_won_in_lost": "In lost", "vacas_lost": "Vacas lost", "stones": "Stones",
        "head_to_head": "H2H",
        "group": "Group {name}", "all": "All matches",
        "withdrawn": "withdrawn", "withdrawn_annulled": "{team} withdrew: its results are annulled",
        "withdrawn_stand": "{team} withdrew: its results played stand, ranked last",
        "unfinished_1": "1 match not finished: {m}", "unfinished_n": "{n} matches not finished: {m}",
    },
    "es": {
        "rank": "Puesto", "team": "Pareja", "played": "Jugadas", "won": "Ganadas", "lost": "Perdidas",
        "vacas_won": "Vacas ganadas", "vacas_won_in_lost": "En perdidas", "vacas_lost": "Vacas perdidas",
        "stones": "Piedras", "head_to_head": "Particular",
        "group": "Grupo {name}", "all": "Todas las partidas",
        "withdrawn": "retirada", "withdrawn_annulled": "Retirada: {team}; sus resultados se anulan",
        "withdrawn_stand": "Retirada: {team}; sus resultados jugados valen, queda última",
        "unfinished_1": "1 partida sin terminar: {m}", "unfinished_n": "{n} partidas sin terminar: {m}",
    },
    "eu": {
        "rank": "Postua", "team": "Bikotea", "played": "Jokatuak", "won": "Irabaziak", "lost": "Galduak",
        "vacas_won": "Bakak irabazi", "vacas_won_in_lost": "Galduetan", "vacas_lost": "Bakak galdu",
        "stones": "Harriak", "head_to_head": "Aurrez aurre",
        "group": "{name} multzoa", "all": "Partida guztiak",
        "withdrawn": "erretiratua", "withdrawn_annulled": "Erretiratua: {team}; haren emaitzak baliogabetuta",
        "withdrawn_stand": "Erretiratua: {team}; jokatutako emaitzek balio dute, azken postuan",
        "unfinished_1": "Partida bat amaitu gabe: {m}", "unfinished_n": "{n} partida amaitu gabe: {m}",
    },
    "fr": {
        "rank": "Rang", "team": "Équipe", "played": "Jouées", "won": "Gagnées", "lost": "Perdues",
        "vacas_won": "Manches gagnées", "vacas_won_in_lost": "Dans les perdues", "vacas_lost": "Manches perdues",
        "stones": "Pierres", "head_to_head": "Confrontations",
        "group": "Groupe {name}", "all": "Toutes les parties",
        "withdrawn": "forfait", "withdrawn_annulled": "Forfait général\u00a0: {team}\u00a0; ses résultats sont annulés",
        "withdrawn_stand": "Forfait général\u00a0: {team}\u00a0; ses résultats joués sont maintenus, classée dernière",
        "unfinished_1": "1 partie non terminée\u00a0: {m}", "unfinished_n": "{n} parties non terminées\u00a0: {m}",
    },
}

# the counts, then each tie-break in the order RULES.md "Club standings" applies them:
# vacas won in the matches lost, fewest vacas lost, stones, wins between the tied teams
_COLUMNS = ("rank", "team", "played", "won", "lost", "vacas_won", "vacas_won_in_lost", "vacas_lost", "stones",
            "head_to_head")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options."""
    parser.add_argument("files", nargs="+", metavar="MATCH",
                        help="mus-match/1 JSON Lines files, one per match ('-': standard input), or a "
                        "tournament's zip (its matches/*.jsonl)")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object: the standings rows and the result of every match")
    parser.add_argument("--lang", default="en", choices=tuple(_WORDS), help="language of the text (default en)")


def run(args: argparse.Namespace) -> int:
    """Rank the teams; 0 when every file replayed, 1 on a bad file, 2 if one is unreadable."""
    return piped(lambda: _standings(args))


MAX_MEMBER = 20_000_000  # bytes of one match file inside a zip
# what reading a member of a damaged zip raises: a bad CRC, corrupt or cut deflate data,
# a compression method or an encryption zipfile does not read
UNREADABLE_MEMBER = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError)


def _texts(path: str) -> list[tuple[str, str | None, int]]:
    """The match files of `path`: (name, text, 0), or (name, None, exit status) after
    printing why on standard error. A zip gives its `matches/*.jsonl`, named `zip:member`."""
    try:
        if path == "-" or not path.lower().endswith(".zip"):
            return [(path, read_input(path), 0)]
        with zipfile.ZipFile(path) as z:
            members = sorted((i for i in z.infolist() if i.filename.startswith("matches/")
                              and i.filename.endswith(".jsonl") and not i.is_dir()), key=lambda i: i.filename)
            if not members and _entered(path):  # its league's matches all entered without hands
                return []
            if not members:
                cup = _cup(path)
                why = (f"a cup played as a knockout only: no league to rank; its bracket is in tournament.json"
                       f"{'; champion: ' + cup if cup else ''}" if cup is not None
                       else "a tournament's zip holds its league's matches there")
                print(shown(f"mus-scorer standings: {path}: no matches/*.jsonl in it ({why})"), file=sys.stderr)
                return [(path, None, 1)]
            out: list[tuple[str, str | None, int]] = []
            for info in members:
                name = f"{path}:{info.filename}"
                if info.file_size > MAX_MEMBER:
                    print(f"mus-scorer standings: {name}: {info.file_size} bytes, more than a match file holds",
                          file=sys.stderr)
                    out.append((name, None, 1))
                    continue
                try:
                    out.append((name, text_of(z.read(info)), 0))
                except NotText as exc:  # named by member, as the bad line of one is
                    print(shown(f"mus-scorer standings: {name}: {exc}"), file=sys.stderr)
                    out.append((name, None, 2))
                except UNREADABLE_MEMBER as exc:
                    print(shown(f"mus-scorer standings: {name}: cannot be unpacked ({exc or type(exc).__name__})"),
                          file=sys.stderr)
                    out.append((name, None, 2))
            return out
    except (OSError, NotText, zipfile.BadZipFile) as exc:
        print(shown(f"mus-scorer standings: {said(path)}: {exc}"), file=sys.stderr)
        return [(path, None, 2)]


def _saved(path: str) -> dict[str, Any]:
    """A tournament's zip's `tournament.json` (the web app's state of it), or {} where there
    is none to read (not a zip, no such member, too big, not a JSON object): the matches
    say what is wrong with the zip."""
    if not path.lower().endswith(".zip"):
        return {}
    try:
        with zipfile.ZipFile(path) as z:
            if "tournament.json" not in z.namelist() or z.getinfo("tournament.json").file_size > MAX_MEMBER:
                return {}
            saved = json.loads(z.read("tournament.json").decode("utf-8"))
    except (OSError, ValueError, RecursionError, *UNREADABLE_MEMBER):
        return {}
    return saved if isinstance(saved, dict) else {}


def _league(path: str) -> tuple[list[str], list[dict[str, Any]] | None, dict[str, str]]:
    """The teams as a tournament's zip spells them, its groups `[{name, teams}]` and the
    teams that withdrew (team -> "annulled" or "stand"), from its `tournament.json`: ([],
    None, {}) where it names none (not a zip, no such member, a league not played in
    groups, no withdrawal)."""
    from scorer.engine.errors import lone_surrogate

    saved = _saved(path)
    saved = saved if lone_surrogate(saved) is None else {}  # "\ud800" prints as no text
    teams, groups = saved.get("teams"), saved.get("groups")
    if not isinstance(groups, list) or not groups or not all(
            isinstance(g, dict) and isinstance(g.get("name"), str) and _names(g.get("teams")) for g in groups):
        groups = None
    gone = saved.get("withdrawn")
    gone = {w["team"]: w["results"] for w in gone if isinstance(w, dict) and isinstance(w.get("team"), str)
            and w.get("results") in ("annulled", "stand")} if isinstance(gone, list) else {}
    return (teams if _names(teams) else []), (
        [{"name": g["name"], "teams": g["teams"]} for g in groups] if groups else None), gone


def _cup(path: str) -> str | None:
    """Where the zip's `tournament.json` is a cup's (a final stage drawn, no league match):
    its champion, or "" while there is none; else (a league, no such member) None."""
    saved = _saved(path)
    if not isinstance(saved.get("knockout"), dict):
        return None
    matches = saved.get("matches") if isinstance(saved.get("matches"), list) else []
    if any(isinstance(m, dict) and m.get("stage") == "league" for m in matches):
        return None
    champion = saved.get("champion")
    return champion if isinstance(champion, str) else ""


def _entered(path: str) -> list[dict[str, Any]]:
    """The league's results entered without hands (a match played on paper, a walkover),
    which have no match file: its `tournament.json`'s league matches with a `result` id,
    each `{"file": "zip:tournament.json", "teams", "vacas", "stones", "winner"}` (as the
    tournament ranks them; `standings` refuses a malformed one by name); [] where it names
    none (not a zip, no such member)."""
    matches = _saved(path).get("matches")
    return [{"file": said(f"{path}:tournament.json"), **{k: m.get(k) for k in ("teams", "vacas", "stones", "winner")}}
            for m in (matches if isinstance(matches, list) else [])
            if isinstance(m, dict) and isinstance(m.get("result"), str) and m.get("stage") == "league"]


def _check_entered(results: list[dict[str, Any]]) -> int:
    """1 after saying on standard error what is wrong with the first malformed result of
    `_entered` (as `standings` refuses it), else 0."""
    from scorer.engine.errors import MusError, lone_surrogate
    from scorer.engine.errors import said as quoted
    from scorer.engine.standings import standings

    for m in results:
        where = lone_surrogate({k: v for k, v in m.items() if k != "file"})
        if where is not None:  # "\ud800": no text holds it, and the table could not be printed
            print(shown(f"mus-scorer standings: {m['file']}: {where}: a lone surrogate escape, which is not text"),
                  file=sys.stderr)
            return 1
        try:
            standings([m])
        except MusError as exc:
            print(shown(f"mus-scorer standings: {m['file']}: {exc}"), file=sys.stderr)
            return 1
        # well formed: a winner (0, 1 or a team's name) whose vacas are not the more (a file edited by hand)
        winner, teams, vacas = m.get("winner"), m["teams"], m["vacas"]
        k = teams.index(winner) if isinstance(winner, str) else winner
        if k in (0, 1) and not isinstance(k, bool) and vacas[k] <= vacas[1 - k]:
            print(shown(f"mus-scorer standings: {m['file']}: winner: {quoted(winner)} won {vacas[k]} vacas to "
                        f"{vacas[1 - k]}: the winner is the team with more vacas"), file=sys.stderr)
            return 1
    return 0


def _names(value: Any) -> bool:
    """Whether `value` is a list of team names."""
    return isinstance(value, list) and all(isinstance(t, str) for t in value)


def _load(path: str, text: str) -> tuple[dict[str, Any] | None, int]:
    """The result of the match `text` read from `path` (`Match.result()`), or None and the
    exit status after printing why on standard error."""

    from scorer.engine.errors import MusError
    from scorer.engine.match import Match
    from scorer.engine.standings import standings

    if (why := not_json_lines(path, text, "standings")) is not None:  # a hand's file, pretty-printed JSON
        print(shown(f"mus-scorer standings: {why}"), file=sys.stderr)
        return None, 1
    try:
        match = Match.from_lines(lines_of(text))  # split as replay does, so the line numbers agree
    except MusError as exc:
        print(shown(f"mus-scorer standings: {said(path)}: {exc}"), file=sys.stderr)
        return None, 1
    result = match.result()
    try:  # what standings() would refuse in this match alone (the same team twice, a blank name)
        standings([result])
    except MusError as exc:
        print(shown(f"mus-scorer standings: {said(path)}: teams: {exc.reason}"), file=sys.stderr)
        return None, 1
    return result, 0


def _table(rows: list[dict[str, Any]], w: dict[str, str]) -> list[str]:
    """The standings as aligned text; a rank shared by tied teams is shown on the first of
    them; a team that withdrew is marked so."""
    cells = [[w[c] for c in _COLUMNS]]
    for n, row in enumerate(rows):
        shared = n > 0 and rows[n - 1]["rank"] == row["rank"]
        mark = {"team": f"{row['team']} ({w['withdrawn']})"} if row.get("withdrawn") else {}
        cells.append(["" if shared else str(row["rank"]), *(mark.get(c, str(row[c])) for c in _COLUMNS[1:])])
    widths = [max(len(line[i]) for line in cells) for i in range(len(_COLUMNS))]
    team = _COLUMNS.index("team")
    return ["  ".join(cell.ljust(widths[i]) if i == team else cell.rjust(widths[i])
                      for i, cell in enumerate(line)).rstrip() for line in cells]


def _standings(args: argparse.Namespace) -> int:
    status = 0
    matches: list[dict[str, Any]] = []
    for given in args.files:
        for path, text, code in _texts(given):
            if text is not None:
                result, code = _load(path, text)
                if result is not None:
                    matches.append({"file": path if path == "-" else said(path), **result})
            status = max(status, code)
        entered = _entered(given)
        matches += entered
        status = max(status, _check_entered(entered))
    if status:
        return status

    from scorer.engine.standings import standings, team_key

    teams, groups, gone = _league(args.files[0]) if len(args.files) == 1 else ([], None, {})
    rows = standings(matches, names=teams, withdrawn=gone)  # the extra "file" key is not read
    for group in groups or []:
        keys = {team_key(t) for t in group["teams"]}
        group["standings"] = standings([m for m in matches if {team_key(t) for t in m["teams"]} <= keys],
                                       names=group["teams"],
                                       withdrawn={t: how for t, how in gone.items() if team_key(t) in keys})
    out = sys.stdout
    if args.json:
        dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
        answer = {"standings": rows, "matches": matches} | ({"groups": groups} if groups else {}) | (
            {"withdrawn": [{"team": t, "results": how} for t, how in gone.items()]} if gone else {})
        out.write(dumps(answer) + "\n")
        return 0
    w = _WORDS[args.lang]
    out = Shown(out)  # names from files, safe for the terminal (the JSON above escapes them itself)
    for group in groups or []:
        out.write(w["group"].format(name=group["name"]) + "\n")
        for line in _table(group["standings"], w):
            out.write(line + "\n")
        out.write("\n")
    if groups:
        out.write(w["all"] + "\n")
    for line in _table(rows, w):
        out.write(line + "\n")
    for team, how in gone.items():
        out.write(w[f"withdrawn_{how}"].format(team=team) + "\n")
    unfinished = [m for m in matches if m["winner"] is None]
    if unfinished:
        listed = ", ".join(f"{m['teams'][0]} – {m['teams'][1]} ({m['file']})" for m in unfinished)
        key = "unfinished_1" if len(unfinished) == 1 else "unfinished_n"
        out.write(w[key].format(n=len(unfinished), m=listed) + "\n")
    return 0
