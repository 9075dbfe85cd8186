"""A tournament's results as spreadsheets a club's or a federation's clerk opens in Excel.

The zip's `standings.csv` (and each group's) is the machine's: English column keys, plain
UTF-8, commas, which scripts read and tests pin. Beside it, `excel/` holds the same
standings and every match's result (`results`), in the language of the request that
downloads the zip: headings in words, UTF-8 with a byte order mark (without one, Excel on
Windows reads the file as ANSI and shows "PeÃ±a" for "Peña"), and the list separator
Excel expects in that language's countries (`;` where the decimal mark is a comma: es, eu,
fr; `,` in English), so that a double click opens it in columns. Dates are ISO
(YYYY-MM-DD), which Excel reads as dates in every locale; a name a spreadsheet would take
for a formula is written after a quote mark, as in `standings.csv`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

from scorer.engine import team_key
from scorer.engine.tournament import match_id
from scorer.storage.tournaments import spreadsheet_safe
from web import i18n

BOM = "\ufeff"
# the list separator of Excel in the language's countries (Spain, France: a decimal comma)
SEPARATORS = {"es": ";", "eu": ";", "fr": ";", "en": ","}
STANDINGS = ("rank", "team", "played", "won", "lost", "vacas_won", "vacas_lost", "vacas_won_in_lost", "stones",
             "head_to_head", "withdrawn")
RESULTS = ("stage", "group", "round", "date", "table", "team_a", "team_b", "vacas_a", "vacas_b", "games_a", "games_b",
           "winner", "state", "rules_differ")
RULES = ("tournament", "rules")


def sheet(lang: str, columns: tuple[str, ...] | list[str], rows: list[dict[str, Any]]) -> bytes:
    """Rows as a CSV Excel opens right in `lang`'s countries: a BOM, the headings in words."""
    out = io.StringIO()
    w = csv.writer(out, delimiter=SEPARATORS.get(lang, ","), lineterminator="\r\n")
    w.writerow([i18n.t(lang, f"csv.{c}") for c in columns])
    withdrawn = i18n.t(lang, "tour.withdrawn_mark")
    for row in rows:
        row = {**row, "withdrawn": withdrawn if row.get("withdrawn") else ""}
        w.writerow([spreadsheet_safe(row.get(c, "")) for c in columns])
    return (BOM + out.getvalue()).encode("utf-8")


def result_rows(state: dict[str, Any], lang: str, games: Callable[[str], list[int] | None],
                dates: Callable[[str], str | None]) -> list[dict[str, Any]]:
    """Every match of the tournament, one row each: the league's fixtures round by round
    (a pairing not played yet too, with its date where the rounds are dated), then the
    league's matches no pairing took (all of them where no teams were entered), the final
    stage round by round (a bye as its team going through) and the friendlies. `table` is
    the number of the table's match file in the zip (`matches/NN-...jsonl`); `date` the day
    its table was opened, else the round's date; `games` and `vacas` in the row's order.
    `games(table)`: the games each team of the table's match won, in the match's order. A
    result entered without hands has no table (nor match file, nor games): its `table` and
    `games` cells are blank, its `date` the round's, and its state says it was entered by
    hand, or which team did not turn up (a walkover)."""
    t = i18n.strings(lang)
    number = {match_id(m): n for n, m in enumerate(state["matches"], 1) if m["table"]}
    match_of = {match_id(m): m for m in state["matches"]}

    def counts(teams: list[str], match: dict[str, Any] | None, vacas: list[int] | None) -> dict[str, Any]:
        if match is None:  # nothing played; or a final stage's walkover of a team that withdrew: its vacas
            return {} if vacas is None else {"vacas_a": vacas[0], "vacas_b": vacas[1], "games_a": "", "games_b": ""}
        won = (games(match["table"]) if match["table"] else None) or ["", ""]
        if team_key(match["teams"][0]) != team_key(teams[0]):
            won = won[::-1]
        vacas = vacas if vacas is not None else match["vacas"]
        return {"vacas_a": vacas[0], "vacas_b": vacas[1], "games_a": won[0], "games_b": won[1]}

    def differ(match: dict[str, Any] | None) -> dict[str, Any]:
        """Where the match's table played other rules than the tournament's, which, in words."""
        return {"rules_differ": i18n.rules_differ_text(lang, (match or {}).get("rules_differ"))}

    def state_word(finished: bool, played: bool, g: dict[str, Any]) -> str:
        if g.get("annulled"):
            return t["tour.annulled"]  # a withdrawn team's, out of the standings
        if g.get("not_played"):
            return t["tour.not_played"]
        if g.get("walkover"):
            return i18n.t(lang, "tour.walkover_note", team=g["walkover"])
        if g.get("result"):
            return t["tour.entered"]
        return t["tour.finished" if finished else "tour.playing_now" if played else "tour.to_play"]

    def pairing(stage: str, round_: str, g: dict[str, Any], day: str | None = None) -> dict[str, Any] | None:
        if g.get("bye"):
            return {"stage": stage, "round": round_, "team_a": g["teams"][0], "winner": g["winner"],
                    "state": t["tour.bye"]}
        if not (g["teams"][0] and g["teams"][1]):
            return None  # a team still to come from the round before
        match = match_of.get(match_id(g)) if match_id(g) else None
        return {"stage": stage, "group": g.get("group") or "", "round": round_,
                "date": (dates(g["table"]) if match and g["table"] else None) or day or "",
                "table": number.get(match_id(g), ""), "team_a": g["teams"][0], "team_b": g["teams"][1],
                **counts(g["teams"], match, g["vacas"]), "winner": g["winner"] or "",
                "state": state_word(g["finished"], match is not None, g), **differ(match)}

    def played(stage: str, m: dict[str, Any]) -> dict[str, Any]:
        return {"stage": stage, "group": m.get("group") or "", "round": "",
                "date": (dates(m["table"]) if m["table"] else None) or "", "table": number.get(match_id(m), ""),
                "team_a": m["teams"][0], "team_b": m["teams"][1], **counts(m["teams"], m, None),
                "winner": m["teams"][m["winner"]] if m["winner"] is not None else "",
                "state": state_word(m["finished"], True, m), **differ(m)}

    league = i18n.t(lang, "csv.league")
    rows: list[dict[str, Any]] = []
    taken = set()
    for k, games_ in enumerate(state["fixtures"] or []):
        day = state["round_dates"][k] if state["round_dates"] else None
        for g in games_:
            taken.add(match_id(g))
            row = pairing(league, str(k + 1), g, day)
            if row:
                rows.append(row)
    rows += [played(league, m) for m in state["matches"] if m["stage"] == "league" and match_id(m) not in taken]
    ko = state["knockout"]
    if ko:
        final = t["tour.knockout"]
        for games_ in ko["rounds"]:
            if games_ is ko["rounds"][-1] and ko["third_place"]:
                row = pairing(final, t["tour.third_place"], ko["third_place"])
                if row:
                    rows.append(row)
            label = t.get(f"tour.ko{len(games_)}", str(len(games_)))
            rows += [row for g in games_ if (row := pairing(final, label, g))]
    rows += [played(t["tour.friendly"], m) for m in state["matches"] if m["stage"] == "friendly"]
    return rows


def excel_files(state: dict[str, Any], lang: str, games: Callable[[str], list[int] | None],
                dates: Callable[[str], str | None]) -> dict[str, bytes]:
    """`excel/<standings>.csv`, each group's, `excel/<results>.csv` and `excel/<rules>.csv`
    (the tournament's name and rules in one line), named and headed in `lang`."""
    files = {f"excel/{i18n.t(lang, 'csv.file_standings')}.csv": sheet(lang, STANDINGS, state["standings"])}
    for group in state["groups"] or []:
        name = i18n.t(lang, "csv.file_group", name=group["name"])
        files[f"excel/{name}.csv"] = sheet(lang, STANDINGS, group["standings"])
    files[f"excel/{i18n.t(lang, 'csv.file_rules')}.csv"] = sheet(
        lang, RULES, [{"tournament": state["name"], "rules": i18n.rules_text(lang, state["rules"])}])
    # a group column for a league in groups; one of other rules where a table played them
    columns = [c for c in RESULTS if (c != "group" or state["groups"])
               and (c != "rules_differ" or any(m.get("rules_differ") for m in state["matches"]))]
    files[f"excel/{i18n.t(lang, 'csv.file_results')}.csv"] = sheet(lang, columns,
                                                                   result_rows(state, lang, games, dates))
    return files
