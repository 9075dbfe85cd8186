"""The OpenAPI 3.1 document of `/api/` (served at `/api/openapi.json`)."""

from __future__ import annotations

from typing import Any

from scorer import __version__
from scorer.storage.tables import REASONS
from web.api import LAST_EVENT_ID_DIGITS
from web.decks import STATES

JSON = "application/json"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    """References to the shared error responses (one JSON shape for all)."""
    refs: dict[str, Any] = {str(s): {"$ref": f"#/components/responses/E{s}"} for s in statuses}
    refs["default"] = {"$ref": "#/components/responses/Error"}
    return refs


TABLE_ID = {"name": "table_id", "in": "path", "required": True, "schema": {"type": "string"}}
PHOTO_ID = {"name": "photo_id", "in": "path", "required": True, "schema": {"type": "string"}}
CLIENT_ID = {"type": "string", "minLength": 1, "maxLength": 100}
WITH = {"type": "string", "minLength": 1}
"""A photo's `with`: a photo id of the table (empty, or another: a 422 invalid on with)."""
TOKEN_Q = {"name": "token", "in": "query", "required": False, "schema": {"type": "string"},
           "description": "the table's token (instead of the Authorization header)"}
BOTTOM_Q = {"name": "bottom", "in": "query", "required": False,
            "schema": {"type": "integer", "minimum": 0, "maximum": 3, "default": 0},
            "description": "the seat sitting at the photo's bottom edge"}
SECURE = [{"bearer": []}, {"queryToken": []}]
ADMIN = [{"bearer": []}, {"adminKey": []}]
TOURNAMENT_ID = {"name": "tournament_id", "in": "path", "required": True, "schema": {"type": "string"}}
RESULT_ID = {"name": "result_id", "in": "path", "required": True, "schema": {"type": "string"}}
WHOLE = ("a whole number written as one (8): the server refuses 8.0 and 8e0 (400 or 422 invalid on the field), "
         "though JSON Schema's integer admits them")


def _whole(schema: dict[str, Any]) -> dict[str, Any]:
    """An integer a JSON body carries: `WHOLE` said in its description."""
    said = schema.get("description")
    return {**schema, "description": f"{said}; {WHOLE}" if said else WHOLE}


_REVISION_TEXT = ("the tournament's revision this change follows (as last read); another one is 409 "
                  "stale_revision, and nothing changes. Left out, the change follows any")
REVISION_Q = {"name": "revision", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0},
              "description": _REVISION_TEXT + "; in ASCII digits"}
REVISION = _whole({"type": "integer", "minimum": 0, "description": _REVISION_TEXT})
LAST_EVENT_ID = {"type": "integer", "minimum": 0, "maximum": 10**LAST_EVENT_ID_DIGITS - 1}
_LAST_EVENT_ID_TEXT = (f"the version last received, in ASCII digits (at most {LAST_EVENT_ID_DIGITS}): the current "
                       "version sends nothing until the next change, another (newer or older) the state at once, "
                       "as does none or an empty one; another value is a 400 invalid whose field names where it "
                       "came from (Last-Event-ID or last_event_id)")
DECK_ID = {"name": "deck_id", "in": "path", "required": True, "schema": {"type": "string"}}
DECK_BODY = {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["oros", "copas", "espadas", "bastos"],
    "properties": {"name": {"type": "string", "maxLength": 40},
                   "refine": {"enum": ["1", "0", "true", "false", "on", "off"],
                              "description": "also refine the deck (the train extra; about an hour more)"}}
    | {s: {"type": "string", "format": "binary"} for s in ("oros", "copas", "espadas", "bastos")}}}}}


REPLAYED = {"Idempotent-Replayed": {
    "description": "true where this is a retry: the client_id was applied already with this same request, "
                   "nothing was applied again and the body is the table's state now",
    "schema": {"type": "string", "enum": ["true"]}}}
ETAG = {"ETag": {"description": "the state's version, as `\"v<version>\"`", "schema": {"type": "string",
                                                                                   "pattern": '^"v[0-9]+"$'}}}


def _replayable(response: dict[str, Any]) -> dict[str, Any]:
    """A write's 200, with the header a retried client_id answers with."""
    return {**response, "headers": REPLAYED}


def _write(summary: str, body: str, extra: str = "") -> dict[str, Any]:
    return {
        "summary": summary,
        "description": extra,
        "parameters": [TABLE_ID, TOKEN_Q],
        "security": SECURE,
        "requestBody": {"required": True, "content": {JSON: {"schema": _ref(body)}}},
        "responses": {"200": _replayable(_json(_ref("TableState"),
                                               "the table after the write (or as it is, on a retried client_id)"))}
        | _errors(400, 401, 403, 404, 409, 422),
    }


_PHOTO_FIELDS: dict[str, Any] = {
    "photo": {"type": "string", "format": "binary",
              "description": "the photo, JPEG, PNG or WebP: up to 25 MB (MAX_CONTENT_LENGTH; the form may carry "
                             "64 KB more), about 50 megapixels (52,000,000 pixels)"},
    "bottom": {"type": "string", "enum": ["0", "1", "2", "3"], "default": "0",
               "description": "the seat at the photo's bottom edge, as ?bottom= (both given, they must agree)"},
    "client_id": {**CLIENT_ID, "description": "as ?client_id= (the query's when both are given)"},
    "with": {**WITH, "description": "as ?with= (the query's when both are given)"},
}


def _photo_body(*fields: str) -> dict[str, Any]:
    """A photo upload's body: multipart (field `photo` and `fields`), or the raw image."""
    return {
        "required": True,
        "content": {
            "multipart/form-data": {"schema": {"type": "object", "required": ["photo"], "properties": {
                name: _PHOTO_FIELDS[name] for name in ("photo", *fields)}}},
            "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
            "image/png": {"schema": {"type": "string", "format": "binary"}},
            "image/webp": {"schema": {"type": "string", "format": "binary"}},
        },
    }


PHOTO_BODY = _photo_body("bottom", "client_id", "with")
SCAN_BODY = _photo_body("bottom")

_NAME_TEXT = ("not blank nor only invisible characters (control and invisible format characters are dropped): "
              "else a 422 invalid naming it")
NAME = {"type": "string", "minLength": 1, "maxLength": 40, "description": _NAME_TEXT + " (teams[i], players[i])"}
"""A table's team or player name."""
TEAM = {"type": "string", "minLength": 1, "description": _NAME_TEXT + " (teams[i], groups[i][j]); at most 40 "
        "characters once its spaces are tidied"}
"""A tournament's team name (its length counted once tidied)."""
_TWICE = ("no team named twice: two names alike, case, accents, spacing and invisible characters aside (engine."
          "team_key: \"Gorriák\" and \" GORRIAK\" are one team), are a 422 invalid naming the second")
"""What a tournament's team list says of a team named twice (its uniqueItems catches only an exact repeat)."""
_PAIR = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}
SCHEMAS: dict[str, Any] = {
    "NewTournament": {"type": "object", "required": ["name"], "additionalProperties": False,
                      "description": "another key is a 422 invalid naming it", "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 60},
        "rules": {**_ref("Rules"), "description": "the tournament's rules (left out, or a rule of them: the "
                  "defaults); PUT .../rules changes them"}}},
    "RenameTournament": {"type": "object", "required": ["name"], "additionalProperties": False,
                         "description": "another key is a 422 invalid naming it", "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 60}, "revision": REVISION}},
    "TournamentCreated": {"type": "object", "required": ["id", "name", "token", "watch_token", "url", "watch_url"],
                          "properties": {k: {"type": "string"} for k in
                                         ("id", "name", "token", "watch_token", "url", "watch_url")}},
    "Tournament": {"type": "object", "required": ["id", "name", "revision", "rules", "matches", "standings", "teams",
                                                  "legs",
                                                  "schedule", "fixtures", "round_dates", "groups", "knockout",
                                                  "champion", "withdrawn"],
                   "properties": {
        "id": {"type": "string"}, "name": {"type": "string"},
        "revision": {"type": "integer", "description": "how many times the organiser changed its name, rules, "
                     "teams, withdrawals, final stage or results entered without hands (enrolling a table and the "
                     "tables' hands leave it as it is)"},
        "rules": {**_ref("Rules"), "description": "the tournament's rules, all five (the defaults where none "
                  "were set): the tables opened from its page take them"},
        "matches": {"type": "array", "description": "the tables enrolled and the results entered without hands "
                    "(POST .../results), in the order they were added", "items": {"type": "object", "properties": {
            "table": {"type": ["string", "null"], "description": "its table; null for a result entered without "
                      "hands"},
            "result": {"type": ["string", "null"], "description": "a result entered without hands: its id "
                       "(PUT .../results/{result_id} puts it right in its place, DELETE takes it out); it has no table, no hands and no match file; null for "
                       "a table"},
            "walkover": {"type": ["string", "null"], "description": "a walkover entered: the team that did not "
                         "turn up (it lost by vacas_to_win to 0, no stones); else null"},
            "teams": {"type": "array", "items": {"type": "string"}},
            "vacas": _PAIR, "games": {**_PAIR, "type": ["array", "null"], "description": "null for a result "
                                      "entered without hands"},
            "score": {**_PAIR, "type": ["array", "null"], "description": "null for a result entered without hands"},
            "stones": _PAIR, "hands": {"type": "integer"},
            "winner": {"type": ["integer", "null"]}, "finished": {"type": "boolean"},
            "ranked": {"type": "boolean",
                       "description": "false where its two teams share a name, case and accents aside (left out)"},
            "stage": {"enum": ["league", "knockout", "friendly"], "description": "league: added before the final "
                      "stage was drawn (or with none drawn); knockout: added since, it plays one of the bracket's "
                      "pairings; friendly: added since, it plays none of them (or none yet: an early final becomes "
                      "knockout once the round before is won). Only league matches count in the standings"},
            "unknown_teams": {"type": "array", "items": {"type": "string"}, "description": "where the league's "
                              "teams are set, those of a league match's teams that are not among them (case, "
                              "accents and spacing aside: a name mistyped, which the standings rank as a team of "
                              "its own); else []"},
            "off_fixtures": {"type": "boolean", "description": "true for a league match between two of the "
                             "league's teams (of one group) that none of the fixtures' pairings took, each taking "
                             "the first table between its teams, a finished one first: a pairing played again at another table, which the "
                             "standings count too (the page says so beside it)"},
            "rules": {**_ref("Rules"), "description": "its table's rules, all five"},
            "rules_differ": {"type": ["object", "null"], "description": "where its table's rules are not the "
                             "tournament's, each rule that differs: {rule: {table, tournament}} (vacas_to_win: "
                             "{table: 1, tournament: 3}); its result counts all the same (the organiser decides, "
                             "and may take it out); null where they agree, and always for a friendly. Enrolling "
                             "such a table succeeds, its answer carrying the marking",
                             "additionalProperties": {"type": "object", "properties": {
                                 "table": {}, "tournament": {}}}},
            "watch_token": {"type": "string", "description": "the organiser's answer only"},
            "group": {"type": ["string", "null"], "description": "a league in groups: the group both its teams are "
                      "in (null: in none, and in no group's standings)"},
            "annulled": {"type": "boolean", "description": "a league match of a team that withdrew with its results "
                         "annulled: in no standings"}}}},
        "withdrawn": {"type": "array", "description": "the league's teams, or the final stage's seeds, that withdrew (POST .../withdrawals)",
                      "items": {"type": "object", "properties": {"team": {"type": "string"},
                                                                 "results": {"enum": ["annulled", "stand"]}}}},
        "teams": {"type": "array", "items": {"type": "string"}},
        "legs": {"type": "integer", "enum": [1, 2], "description": "2: the league is played home and away"},
        "schedule": {"type": ["object", "null"], "properties": {"start": {"type": "string", "format": "date"},
                                                                "every_days": {"type": "integer"}}},
        "round_dates": {"type": ["array", "null"], "items": {"type": "string", "format": "date"},
                        "description": "each round's date, where a schedule was given"},
        "fixtures": {"type": "array", "description": "rounds of pairings (every team meets every other once, "
                     "or twice with legs 2: the second leg's rounds follow with the sides swapped)",
                     "items": {"type": "array", "items": {"type": "object", "properties": {
                         "teams": {"type": "array", "items": {"type": "string"}},
                         "table": {"type": ["string", "null"]},
                         "result": {"type": ["string", "null"], "description": "the result entered without hands "
                                    "that took the pairing (as a finished table does), else null"},
                         "walkover": {"type": ["string", "null"], "description": "that result a walkover: the "
                                      "team that did not turn up"},
                         "vacas": {"type": ["array", "null"]},
                         "finished": {"type": "boolean"}, "winner": {"type": ["string", "null"]},
                         "group": {"type": "string", "description": "a league in groups: the pairing's group"},
                         "withdrawn": {"type": ["string", "null"], "description": "its team that withdrew"},
                         "not_played": {"type": "boolean", "description": "a pairing of a team that withdrew, not "
                                        "finished: it will not be played, and the league ends without it"},
                         "annulled": {"type": "boolean", "description": "finished, its result annulled with the "
                                      "withdrawn team's"}}}}},
        "groups": {"type": ["array", "null"], "description": "a league played in groups (A, B, ...): each group's "
                   "teams and its standings over the league's matches between two of them; round k of `fixtures` "
                   "holds round k of every group", "items": {"type": "object", "properties": {
                       "name": {"type": "string"}, "teams": {"type": "array", "items": {"type": "string"}},
                       "standings": {"type": "array", "items": {"type": "object"}}}}},
        "knockout": {"type": ["object", "null"], "description": "the final stage where one was drawn: its teams "
                     "(best seed first), its rounds of pairings (a team null until the match before it is won; the "
                     "winners of pairings 2k and 2k + 1 meet next; each pairing's `bye` true where a top seed meets "
                     "a bye in the first round, short of 4, 8 or 16 teams: `teams` [team, null], won by that team "
                     "at once, with no table), its champion, and where the semi-finals' losers play for third "
                     "place, that pairing and its winner. Each pairing has `withdrawn` (its team that withdrew, "
                     "else null) and `not_played`: a pairing of a team that withdrew (POST .../withdrawals), its "
                     "two teams known and not finished, goes to the other by walkover (`walkover` the team "
                     "withdrawn, `vacas` the tournament's vacas_to_win to 0, `finished`, no `table` nor `result`: "
                     "nothing stored, undoing the withdrawal takes it back); where both withdrew it is "
                     "`not_played`, with no winner, and its first team goes on only to lose its next pairing so",
                     "properties": {"teams": {"type": "array", "items": {"type": "string"}},
                                    "rounds": {"type": "array", "items": {"type": "array"}},
                                    "third_place": {"type": ["object", "null"]},
                                    "champion": {"type": ["string", "null"]},
                                    "third": {"type": ["string", "null"]},
                                    "unknown_teams": {"type": "array", "items": {"type": "string"},
                                                      "description": "the seeds that are none of the league's "
                                                      "teams (those entered, else those of its standings; case, "
                                                      "accents and spacing aside): no table between the league's "
                                                      "teams plays their pairings; the draw is kept all the same. "
                                                      "[] where all are, or with no league at all"}}},
        "champion": {"type": ["string", "null"], "description": "the final's winner, or the league's sole leader "
                     "once every fixture is finished (not in a league played in groups)"},
        "standings": {"type": "array", "items": {"type": "object", "properties": {
            k: {"type": "string" if k == "team" else "integer"} for k in
            ("rank", "team", "played", "won", "lost", "vacas_won", "vacas_lost", "vacas_won_in_lost", "stones",
             "head_to_head")} | {"withdrawn": {"type": "boolean", "description": "only on the row of a team "
                                                               "that withdrew, its results standing: ranked last"}}}}}},
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {"error": {"type": "object", "required": ["status", "code", "message", "field"], "properties": {
            "status": {"type": "integer"}, "code": {"type": "string", "examples": ["stale_version"]},
            "message": {"type": "string", "description": "what is wrong, for people; a long input it quotes is cut "
                        "in its middle (`… (N characters in all) …`), so that both ends show"},
            "field": {"type": ["string", "null"]},
            "reason": {"type": "string", "description": "why, as a stable key, where a refusal of something a "
                       "person typed or said has one (a tournament's team named twice, a word out of turn, a "
                       "card shown twice, a match file's hand that breaks the rules): a page says it in its "
                       "reader's language; `message` stays English",
                       "enum": sorted(REASONS)},
            "params": {"type": "object", "description": "the values `reason` speaks of: `name`, `same`, "
                       "`limit`, `max` (names), `group` (a group's letter), `vacas` (a tournament's vacas to win); `lance`, `act`, `card` as the records write them, `rank`, "
                       "`count`, `team`, `given` and `score` (two numbers), `text`; `seat`, `speaker`, "
                       "`refuser` (0..3), each with its player's name beside it (`seat_name`, ...); a text longer "
                       "than 100 characters is cut in its middle with an ellipsis alone (`start…end`, no words: "
                       "a page says it in its own language)"},
            "problems": {"type": "array", "description": "where several inputs are refused at once (a deck's "
                         "photos): each one's refusal, in this same shape; the error itself is the first's, its "
                         "message naming them all", "items": {"type": "object", "properties": {
                             "status": {"type": "integer"}, "code": {"type": "string"},
                             "message": {"type": "string"}, "field": {"type": ["string", "null"]}}}}}}},
    },
    "Rules": {"type": "object", "properties": {
        "kings": _whole({"enum": [8, 4]}), "target": _whole({"enum": [40, 30]}), "real31": {"type": "boolean"},
        "games_per_vaca": _whole({"type": "integer", "minimum": 1, "maximum": 3}),
        "vacas_to_win": _whole({"type": "integer", "minimum": 1, "maximum": 9})}},
    "NewTable": {"type": "object", "additionalProperties": False,
                 "description": "an unknown key (a misspelt `player`, a `target` outside `rules`), here or in `rules`, "
                                "is a 422 invalid whose field is that key and whose message names the known ones",
                 "properties": {
        "teams": {"type": "array", "items": NAME, "minItems": 2, "maxItems": 2},
        "players": {"type": "array", "items": NAME, "minItems": 4, "maxItems": 4},
        "rules": _ref("Rules"), "esku": _whole({"type": "integer", "minimum": 0, "maximum": 3})}},
    "TableCreated": {"type": "object", "required": ["id", "token", "watch_token", "join_url", "watch_url", "version"],
                     "properties": {"id": {"type": "string"}, "token": {"type": "string"},
                                    "watch_token": {"type": "string"}, "join_url": {"type": "string"},
                                    "watch_url": {"type": "string"}, "version": {"type": "integer"},
                                    "hands": {"type": "integer"}}},
    "Action": {"type": "object", "required": ["seat", "act"], "properties": {
        "seat": _whole({"type": "integer", "minimum": 0, "maximum": 3}),
        "act": {"enum": ["paso", "envido", "mas", "ordago", "quiero", "no_quiero", "declare"]},
        "n": _whole({"type": "integer", "minimum": 1, "maximum": 1000,
                     "description": "stones: an envido's defaults to 2; a mas names its own"}), "pares": {"type": "boolean"},
        "juego": {"type": "boolean"}}},
    "Write": {"type": "object", "required": ["client_id", "version"], "properties": {
        "client_id": {**CLIENT_ID, "description": "new for each request: "
                      "the same request sent again with it is applied once (a retry); another request with it is "
                      "a 409 client_id_reused"},
        "version": _whole({"type": "integer", "minimum": 0, "description": "the table's version this write follows "
                           "(as last read); another one is a 409 stale_version, a negative one a 400 invalid"})}},
    "ActionWrite": {"allOf": [_ref("Write"), {"type": "object", "required": ["action"],
                                              "properties": {"action": _ref("Action")}}]},
    # unevaluatedProperties (JSON Schema 2020-12, OpenAPI 3.1) closes an allOf: a key that neither
    # Write nor the route's own part names is refused (a 422 invalid naming it), as the server does
    "RenameWrite": {"unevaluatedProperties": False, "description": "another key is a 422 invalid naming it",
                    "allOf": [_ref("Write"), {"type": "object", "properties": {
        "teams": {"type": "array", "items": NAME, "minItems": 2, "maxItems": 2},
        "players": {"type": "array", "items": NAME, "minItems": 4, "maxItems": 4}},
        # neither: a 422 invalid (nothing to rename)
        "anyOf": [{"required": ["teams"]}, {"required": ["players"]}]}]},
    "EskuWrite": {"unevaluatedProperties": False, "description": "another key is a 422 invalid naming it",
                  "allOf": [_ref("Write"), {"type": "object", "required": ["seat"], "properties": {
        "seat": _whole({"type": "integer", "minimum": 0, "maximum": 3,
                        "description": "the seat that is esku this hand"})}}]},
    "ShownWrite": {"unevaluatedProperties": False, "description": "another key is a 422 invalid naming it",
                   "allOf": [_ref("Write"), {"type": "object", "required": ["hands"], "properties": {
        "hands": {"type": "array", "minItems": 4, "maxItems": 4, "description": "by seat, four places each: a card "
                  "or null where none is named yet (a seat null: four empty places); a bad place is a 422 invalid "
                  "naming it (hands[s][i]), a card twice too",
                  "items": {"type": ["array", "null"], "items": {"type": ["string", "null"]}, "minItems": 4,
                            "maxItems": 4}},
        "photo_id": {"type": ["string", "null"], "description": "a photo of this hand's showdown (kept: its first "
                     "photo); not at this table: 422 invalid, a settled hand's: 409 showdown_settled"},
        "bottom": _whole({"type": ["integer", "null"], "minimum": 0, "maximum": 3,
                          "description": "the seat at the photos' bottom edge: another than they were read with "
                                         "seats their stored scans again (a rotation)"})}}]},
    "CheckWrite": {"unevaluatedProperties": False, "description": "another key is a 422 invalid naming it",
                   "allOf": [_ref("Write"), {"type": "object", "required": ["photo_id", "seat", "place", "card"],
                                             "properties": {
        "photo_id": {"type": "string", "description": "a photo of the showdown kept (current.shown.photo_id or "
                     "another photo read with it); of another showdown: 422 invalid, of a settled hand's: 409 "
                     "showdown_settled"},
        "seat": _whole({"type": "integer", "minimum": 0, "maximum": 3, "description": "the seat holding the card"}),
        "place": _whole({"type": "integer", "minimum": 0, "maximum": 3,
                         "description": "the card's place in that seat's hand (current.shown.hands[seat][place])"}),
        "card": {"type": "string", "description": "the card confirmed: the one at that place (another: 422 "
                 "invalid on card)"},
        "undo": {"type": "boolean", "default": False, "description": "true: take back the confirmation of that card "
                 "at that place instead (every phone shows it unsure again); not confirmed there: 422 "
                 "nothing_to_undo on card; not a boolean: 422 invalid on undo"}}}]},
    "ShowdownWrite": {"allOf": [_ref("Write"), {"type": "object", "required": ["hands"], "properties": {
        "hands": {"type": "array", "minItems": 4, "maxItems": 4,
                  "items": {"type": ["array", "null"], "items": {"type": "string"}, "minItems": 4, "maxItems": 4}},
        "photo_id": {"type": ["string", "null"]}}}]},
    "Current": {"type": ["object", "null"], "properties": {
        "phase": {"enum": ["grande", "chica", "pares_declare", "pares", "juego_declare", "juego", "punto",
                           "showdown", "over"]},
        "to_speak": {"type": ["integer", "null"]}, "legal": {"type": "array", "items": _ref("Action")},
        "log": {"type": "array", "items": _ref("Action")},
        "phases": {"type": "array", "items": {"type": "string"},
                   "description": "the lance each action of `log` was said in (same length)"},
        "events": {"type": "array", "items": {"type": "object"}},
        "score": {"type": "array", "items": {"type": "integer"}}, "esku": {"type": "integer"},
        "esku_chosen": {"type": "boolean", "description": "the esku was chosen for this hand (POST .../esku), "
                        "not the turn's"},
        "mus_rounds": {"type": "integer"}, "game_over": {"type": "boolean"}, "ordago": {"type": ["string", "null"]},
        "shown": {"type": ["object", "null"], "description": "the showdown not yet settled: the cards named "
                  "so far (POST .../shown: four places by seat, null where none is named yet), its first photo and "
                  "the seat at its bottom edge, for every phone and a page reloaded; or a showdown undone: the "
                  "cards its hand was settled with (by seat, as in mus-hand/1) and the first photo of its "
                  "showdown (no bottom). Kept until the hand is settled; null otherwise",
                  "properties": {"hands": {"type": "array", "items": {"type": ["array", "null"]}},
                                 "photo_id": {"type": ["string", "null"]},
                                 "bottom": {"type": "integer", "minimum": 0, "maximum": 3},
                                 "checked": {"type": "array", "description": "the unsure reads a person confirmed "
                                             "(POST .../shown/checks), by seat and place; absent where none is. "
                                             "Each stays while its card is at its place in this showdown (a photo "
                                             "added to it included; another seat at the bottom edge turns it "
                                             "with the cards); a new first photo drops them all",
                                             "items": {"type": "object", "properties": {
                                                 "seat": {"type": "integer"}, "place": {"type": "integer"},
                                                 "card": {"type": "string"}}}}}}}},
    "TableState": {"type": "object", "required": ["id", "version", "teams", "players", "rules", "score", "games",
                                                  "vacas", "winner", "adentro", "esku", "hands", "current",
                                                  "last_settlement"],
                   "properties": {
                       "id": {"type": "string"}, "version": {"type": "integer"},
                       "teams": {"type": "array", "items": {"type": "string"}},
                       "players": {"type": "array", "items": {"type": "string"}},
                       "rules": _ref("Rules"), "score": {"type": "array", "items": {"type": "integer"}},
                       "games": {"type": "array", "items": {"type": "integer"}},
                       "vacas": {"type": "array", "items": {"type": "integer"}},
                       "winner": {"type": ["integer", "null"]},
                       "adentro": {"type": "array", "items": {"type": "boolean"}},
                       "esku": {"type": "integer", "description": "the current hand's esku (the one chosen for "
                                "it, if any); once the match is over, the seat after the last hand's"},
                       "game_scores": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
                       "hands": {"type": "array", "items": {"type": "object", "properties": {
                           "n": {"type": "integer"}, "record": {"type": "object", "description": "mus-hand/1"},
                           "settlement": {"type": "object", "description": "mus-settlement/1"},
                           "photo_id": {"type": ["string", "null"]}}}},
                       "current": _ref("Current"),
                       "last_settlement": {"type": ["object", "null"]},
                       "created": {"type": ["string", "null"], "format": "date",
                                   "description": "the day the table was opened (the server's local time)"}}},
    "Scan": {"type": "object", "properties": {
        "cards": {"type": "array", "items": {"type": "object", "properties": {
            "card": {"type": "string"}, "conf": {"type": "number"},
            "box": {"type": "array", "items": {"type": "number"}}, "seat": {"type": ["integer", "null"]},
            "photo": {"type": "integer", "description": "read together: the index of the photo the box is in"}}}},
        "hands": {"type": ["array", "null"]}, "warnings": {"type": "array", "items": {"type": "object"}},
        "size": {"type": "array", "items": {"type": "integer"}},
        "bottom": {"type": "integer", "minimum": 0, "maximum": 3},
        "photos": {"type": "integer", "description": "read together: how many photos"}}},
    "PhotoScan": {"type": "object", "required": ["photo_id", "scan"], "properties": {
        "photo_id": {"type": "string"}, "scan": _ref("Scan"), "url": {"type": "string"},
        "annotated_url": {"type": "string"},
        "together": {"type": "object", "required": ["photo_ids", "scan"],
                     "description": "when the showdown has more photos: all of them read as one",
                     "properties": {"photo_ids": {"type": "array", "items": {"type": "string"},
                                                  "description": "the showdown's photos, first first"},
                                    "scan": _ref("Scan")}}}},
    "Deck": {"type": "object", "required": ["id", "name", "state", "active", "links"], "properties": {
        "id": {"type": "string"}, "name": {"type": "string"},
        "state": {"enum": list(STATES)},
        "created": {"type": "string"}, "started": {"type": ["string", "null"]}, "finished": {"type": ["string", "null"]},
        "minutes": {"type": ["number", "null"]}, "error": {"type": ["string", "null"]},
        "log": {"type": "string", "description": "the job's last line of progress, while it runs"},
        "agree": {"type": ["integer", "null"], "description": "of the 40 faces, those the readers took for the card "
                                                              "the order says"},
        "check": {"type": ["object", "null"], "description": "synthetic showdowns of the deck read before and after: "
                                                             "{before, after, and once refined ensemble: "
                                                             "{photos, full, seated}}"},
        "verdict": {"enum": ["better", "same", "worse", None]}, "active": {"type": "boolean"},
        "refine": {"type": "boolean", "description": "asked to be refined after its heads"},
        "refined": {"type": ["boolean", "null"], "description": "whether the refining was done (null: not yet)"},
        "refine_error": {"type": ["string", "null"], "description": "why refining failed; the deck reads as "
                                                                    "taught before it"},
        "error_code": {"enum": ["stopped", None], "description": "stopped: the server stopped (or died) before "
                                                                 "the deck was taught (error says so in English)"},
        "refine_error_code": {"enum": ["stopped", None], "description": "stopped: the server stopped (or died) "
                                                                        "while the deck was refined"},
        "links": {"type": "object", "properties": {"self": {"type": "string"}, "sheet": {"type": "string"},
                                                   "use": {"type": "string"}}}}},
    "Decks": {"type": "object", "properties": {
        "available": {"type": "boolean"}, "why": {"type": ["string", "null"]},
        "refine_available": {"type": "boolean"}, "refine_why": {"type": ["string", "null"]},
        "refine_hours": {"type": "number", "description": "about how long refining takes, in hours"},
        "active": {"type": ["string", "null"], "description": "the deck whose models the tables read now; "
                                                               "null: the shipped models, or a model folder"},
        "models_given": {"type": "boolean", "description": "the server was started with a model folder "
                                                           "(serve --model), which the tables read"},
        "given_deck": {"type": ["string", "null"], "description": "the deck whose models that folder is (serve "
                                                                  "--model <decks>/<id>/models), else null"},
        "running": {"type": ["string", "null"]},
        "decks": {"type": "array", "items": _ref("Deck")}}},
}

_RESULT_BODY = {"required": True, "content": {JSON: {"schema": {
    "type": "object", "required": ["teams"], "additionalProperties": False,
    "description": "vacas, or walkover (then neither vacas nor stones); another key is a 422 invalid "
                   "naming it", "oneOf": [{"required": ["vacas"]}, {"required": ["walkover"]}],
    "properties": {
        "teams": {"type": "array", "minItems": 2, "maxItems": 2, "items": TEAM, "description": "the "
                  "match's two teams, each one of the league's where its teams are entered (teams[i]), "
                  "not one team twice (teams[1])"},
        "vacas": {"type": "array", "minItems": 2, "maxItems": 2, "description": "the vacas each team "
                  "won, in teams' order: the winner's the tournament's vacas_to_win, the loser's fewer",
                  "items": _whole({"type": "integer", "minimum": 0})},
        "stones": {"type": "array", "minItems": 2, "maxItems": 2, "description": "the stones each "
                   "team scored over the match, if known (else 0 and 0)",
                   "items": _whole({"type": "integer", "minimum": 0, "maximum": 9999})},
        "winner": {"type": "string", "description": "optional: the team the vacas make the winner "
                   "(another is a 422 invalid on winner)"},
        "walkover": {"type": "string", "description": "the one of the two teams that did not turn up"},
        "revision": REVISION}}}}}  # of a result entered without hands, POST and PUT alike


def document() -> dict[str, Any]:
    """The OpenAPI 3.1 document."""
    read_params = [TABLE_ID, TOKEN_Q]
    jsonl = {"application/jsonl": {"schema": {"type": "string", "description": "mus-match/1 JSON Lines"}},
             "multipart/form-data": {"schema": {"type": "object", "properties": {
                 "file": {"type": "string", "format": "binary"}}}}}
    paths: dict[str, Any] = {
        "/api/tables": {"post": {
            "summary": "Create a table",
            "description": "All keys optional; an unknown key is a 422 invalid naming it (field: the key); two "
                           "teams of one name (case, accents and spacing aside) a 422 invalid on teams.",
            "requestBody": {"required": True, "content": {JSON: {"schema": _ref("NewTable")}}},
            "responses": {"201": _json(_ref("TableCreated"), "the table, its tokens and links")}
            | _errors(400, 422, 429)}},
        "/api/tables/import": {"post": {
            "summary": "A new table from a mus-match/1 file",
            "requestBody": {"required": True, "content": jsonl},
            "responses": {"201": _json(_ref("TableCreated"), "the new table")} | _errors(400, 413, 422, 429)}},
        "/api/tables/{table_id}": {"get": {
            "summary": "The table's state", "security": SECURE,
            "parameters": [*read_params, {"name": "If-None-Match", "in": "header", "required": False,
                                          "schema": {"type": "string"},
                                          "description": "an ETag this answered before: 304, no body, while it "
                                                         "is still the table's version"}],
            "responses": {"200": {**_json(_ref("TableState"), "the state"), "headers": ETAG},
                          "304": {"description": "not modified: If-None-Match names the current version's ETag",
                                  "headers": ETAG}} | _errors(401, 403, 404)},
            "patch": _write("Rename the table's teams and/or players", "RenameWrite",
                            "Checked as at creation (a name blank or longer than 40: 422 invalid on teams[i] or "
                            "players[i]; two teams of one name, case, accents and spacing aside: 422 invalid on "
                            "teams; neither sent, or another key: 422 invalid). The hands name seats: they stay as they are, and the "
                            "history, the sheet and the export say the new names.")},
        "/api/tables/{table_id}/actions": {"post": _write(
            "Apply one action", "ActionWrite", "The engine checks the action; illegal -> 422 with its field.")},
        "/api/tables/{table_id}/undo": {"post": _write(
            "Take back the last action (or mus round, or between hands the last showdown)", "Write")},
        "/api/tables/{table_id}/mus": {"post": _write("One more mus round (before the first lance)", "Write")},
        "/api/tables/{table_id}/esku": {"post": _write(
            "Choose who is esku this hand (mus corrido: the player who cut)", "EskuWrite",
            "Only before anything is said in the hand (no word, no mus round: else 409 hand_started, field seat); "
            "the match over: 409 match_over; not a seat: 422 invalid, field seat; another key: 422 invalid naming it. The hand's record carries that "
            "esku and the next hand's esku is the seat after it. Undo takes the choice back (before any showdown "
            "of the hand).")},
        "/api/tables/{table_id}/shown": {"post": _write(
            "Keep the showdown not yet settled (the cards named so far, its photo)", "ShownWrite",
            "At the showdown only (else 422 illegal on phase, reason no_showdown_yet); the state's current.shown "
            "says it to every phone. Nothing said or settled changes; four empty hands and no photo empty it. "
            "A bottom other than the photos were read with seats their stored scans again (each seat s read "
            "goes to s + new bottom - old bottom, mod 4); their annotated copies are drawn again with the "
            "new seats when next fetched (the cards are not read again).")},
        "/api/tables/{table_id}/shown/checks": {"post": _write(
            "Confirm an unsure read of the showdown kept, or take a confirmation back (undo: true)", "CheckWrite",
            "At the showdown only (else 422 illegal on phase, reason no_showdown_yet); the state's "
            "current.shown.checked says it to every phone (live, as every write). A seat or place not 0..3, not a "
            "card, a card not at that place, or a photo not of the showdown kept: 422 invalid naming it; with "
            "undo: true, a card not confirmed at that place: 422 nothing_to_undo on card; nothing else changes. "
            "A confirmation and its taking back are two requests: one client_id for both is a 409 "
            "client_id_reused.")},
        "/api/tables/{table_id}/showdown": {"post": _write(
            "Settle the hand with the cards shown; the next hand starts", "ShowdownWrite")},
        "/api/tables/{table_id}/photos": {"post": {
            "summary": "Store a showdown photo and read its cards",
            "description": "The match over: 409 match_over, before the photo is read (an upload retried with its "
                           "client_id still answers as it was stored).",
            "parameters": [TABLE_ID, TOKEN_Q, BOTTOM_Q, {
                "name": "client_id", "in": "query", "required": False, "schema": CLIENT_ID,
                "description": "a retry's key: the same photo sent again with it is stored and read once; empty "
                               "or over 100 characters, a 400 invalid on client_id"}, {
                "name": "with", "in": "query", "required": False, "schema": WITH,
                "description": "a photo of the same showdown: this one is read together with it (at most 4: 422 "
                               "too_many_photos; empty, or not a photo of this table: 422 invalid on with, before "
                               "the photo is read; a showdown already settled: 409 showdown_settled)"}],
            "security": SECURE, "requestBody": PHOTO_BODY,
            "responses": {"201": _json(_ref("PhotoScan"), "the photo's id and scan (and `together`)")}
            | _errors(400, 401, 403, 404, 409, 413, 415, 422, 503, 507)}},
        "/api/tables/{table_id}/photos/{photo_id}": {"get": {
            "summary": "The photo as uploaded", "parameters": [TABLE_ID, PHOTO_ID, TOKEN_Q], "security": SECURE,
            "responses": {"200": {"description": "the image", "content": {"image/*": {}}}} | _errors(401, 403, 404)}},
        "/api/tables/{table_id}/photos/{photo_id}/scan": {"get": {
            "summary": "What the photos of a showdown read",
            "description": "The photos of the showdown this photo is of, the first first, each as its upload "
                           "answered, and `scan`, what they read together: the table page shows them again for "
                           "a showdown undone (`current.shown.photo_id`).",
            "parameters": [TABLE_ID, PHOTO_ID, TOKEN_Q], "security": SECURE,
            "responses": {"200": _json({"type": "object", "required": ["photos", "scan"], "properties": {
                "photos": {"type": "array", "items": {"type": "object", "properties": {
                    "photo_id": {"type": "string"}, "url": {"type": "string"}, "annotated_url": {"type": "string"},
                    "scan": _ref("Scan")}}},
                "scan": _ref("Scan")}}, "the showdown's photos and their scans")} | _errors(401, 403, 404)}},
        "/api/tables/{table_id}/photos/{photo_id}/annotated": {"get": {
            "summary": "The photo with boxes, card names and seats", "parameters": [TABLE_ID, PHOTO_ID, TOKEN_Q],
            "description": "The seats are those its scan says now: a photo seated again (`/shown` with another "
                           "bottom) is drawn again when next fetched. `Cache-Control: no-cache` with an `ETag`: "
                           "`If-None-Match` gets a 304 while the copy stands.",
            "security": SECURE,
            "responses": {"200": {"description": "JPEG", "content": {"image/jpeg": {}}}} | _errors(401, 403, 404)}},
        "/api/tables/{table_id}/events": {"get": {
            "summary": "Server-sent events of the state",
            "description": "Each event: `id: <version>`, `data: <TableState JSON>`; comment lines as heartbeats. "
                           "Send `Last-Event-ID` (or `?last_event_id=`) to get only what is newer. The players' "
                           "page streams with its `stream_token` (derived from the players' token, it opens only "
                           "this stream), counted as the players' (`SSE_PLAYER_RESERVE`). A table deleted meanwhile (a "
                           "prune) ends its stream with `event: gone`, `data:` its 404 error (`not_found`).",
            "parameters": [*read_params, {"name": "Last-Event-ID", "in": "header", "required": False,
                                          "schema": LAST_EVENT_ID, "description": _LAST_EVENT_ID_TEXT},
                           {"name": "last_event_id", "in": "query", "required": False, "schema": LAST_EVENT_ID,
                            "description": "as Last-Event-ID, where that header is not sent (or empty)"},
                           {"name": "client", "in": "query", "required": False,
                            "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
                            "description": "the page's own id: this stream ends, and takes the place of, the stream "
                                           "it opened before with the same kind of token (one dropped, not yet "
                                           "noticed)"}],
            "security": SECURE,
            "responses": {"200": {"description": "the stream", "content": {"text/event-stream": {}}}}
            | _errors(400, 401, 403, 404, 503)}},
        "/api/tables/{table_id}/export": {"get": {
            "summary": "The match as mus-match/1 JSON Lines", "parameters": read_params, "security": SECURE,
            "responses": {"200": {"description": "header line, then one hand per line",
                                  "content": {"application/jsonl": {}}}} | _errors(401, 403, 404)}},
        "/api/tables/{table_id}/import": {"post": {
            "summary": "Replace this table's match by a mus-match/1 file (same id and tokens)",
            "parameters": [TABLE_ID, TOKEN_Q,
                           {"name": "client_id", "in": "query", "required": True, "schema": CLIENT_ID,
                            "description": "missing, empty or over 100 characters: a 400 invalid on client_id, "
                                           "before the file is read"},
                           {"name": "version", "in": "query", "required": True,
                            "schema": {"type": "integer", "minimum": 0},
                            "description": "the table's version, in ASCII digits (else a 400 invalid on version, "
                                           "before the file is read)"},
                           {"name": "rename", "in": "query", "required": False,
                            "schema": {"type": "string", "enum": ["0", "1", "true", "false"]},
                            "description": "1: take the file's teams even where they are not the table's (else a "
                                           "409 teams_differ, reason teams_differ with params file and table, "
                                           "each pairing as 'A – B'; a table opened without team names, "
                                           "'Team 0' – 'Team 1', takes the file's without it)"}],
            "security": SECURE, "requestBody": {"required": True, "content": jsonl},
            "responses": {"200": _replayable(_json(_ref("TableState"),
                                                   "the table after the import (or as it is, on a retried client_id)"))}
            | _errors(400, 401, 403, 404, 409, 413, 422)}},
        "/api/scan": {"post": {
            "summary": "Read the cards in a photo (nothing stored)", "parameters": [BOTTOM_Q],
            "requestBody": SCAN_BODY,
            "responses": {"200": _json(_ref("Scan"), "the scan --json object")} | _errors(400, 413, 415, 503)}},
        "/api/decks": {
            "get": {"summary": "The decks taught on this server, which one reads the photos, and whether one can be "
                               "taught here", "security": ADMIN,
                    "responses": {"200": _json(_ref("Decks"), "the decks, newest first")} | _errors(401, 403)},
            "post": {"summary": "Teach the reader a deck: four photos of its 40 cards laid out, one suit each "
                                "(oros 1-7, sota, caballo, rey in two rows of five; then copas, espadas, bastos)",
                     "description": "Starts a background job (datasets.enroll, then datasets.heads: about a "
                                    "quarter of an hour on two cores; with refine, then datasets.adapt and "
                                    "datasets.ensemble: about an hour more); one at a time. Up to 25 MB a photo. "
                                    "A photo sent for two suits or more (byte for byte the same) is a 400 "
                                    "same_photo, one problem per such suit, before any job starts.",
                     "security": ADMIN, "requestBody": DECK_BODY,
                     "responses": {"202": _json(_ref("Deck"), "the job, started")}
                     | _errors(400, 401, 403, 409, 413, 415, 503)}},
        "/api/decks/{deck_id}": {
            "get": {"summary": "One deck: its job's state and progress, the enrolment and the check",
                    "parameters": [DECK_ID], "security": ADMIN,
                    "responses": {"200": _json(_ref("Deck"), "the deck")} | _errors(401, 403, 404)},
            "delete": {"summary": "Remove a deck (its job stopped first); not the deck that reads now",
                       "parameters": [DECK_ID], "security": ADMIN,
                       "responses": {"204": {"description": "removed"}} | _errors(401, 403, 404, 409)}},
        "/api/decks/{deck_id}/sheet.jpg": {"get": {
            "summary": "The 40 faces cut out of the photos, each under its name", "parameters": [DECK_ID],
            "security": ADMIN, "responses": {"200": {"description": "JPEG", "content": {"image/jpeg": {}}}}
            | _errors(401, 403, 404)}},
        "/api/decks/{deck_id}/use": {"post": {
            "summary": "Read every later photo with this deck's models (kept across restarts)",
            "parameters": [DECK_ID], "security": ADMIN,
            "responses": {"200": _json(_ref("Deck"), "the deck, now active")} | _errors(401, 403, 404, 409, 503)}},
        "/api/decks/shipped/use": {"post": {
            "summary": "Read every later photo with the models the server started with", "security": ADMIN,
            "responses": {"200": _json({"type": "object", "properties": {"active": {"type": "null"}}},
                                       "no deck is active")} | _errors(401, 403, 503)}},
        "/api/tournaments": {"post": {
            "summary": "Create a tournament (a club's league of tables)",
            "requestBody": {"required": True, "content": {JSON: {"schema": _ref("NewTournament")}}},
            "responses": {"201": _json(_ref("TournamentCreated"), "the tournament, its tokens and links")}
            | _errors(400, 422, 429)}},
        "/api/tournaments/{tournament_id}": {"get": {
            "summary": "Its matches as they stand and the standings (RULES.md, Club standings)",
            "description": "The organiser's token also gets each table's watch_token; the watch token reads only.",
            "parameters": [TOURNAMENT_ID, TOKEN_Q], "security": SECURE,
            "responses": {"200": _json(_ref("Tournament"), "the tournament")} | _errors(401, 403, 404)},
            "patch": {
            "summary": "Rename the tournament (the organiser's token)",
            "parameters": [TOURNAMENT_ID, TOKEN_Q], "security": SECURE,
            "requestBody": {"required": True, "content": {JSON: {"schema": _ref("RenameTournament")}}},
            "responses": {"200": _json(_ref("Tournament"), "the tournament")}
            | _errors(400, 401, 403, 404, 409, 422)},
            "delete": {
            "summary": "Delete the tournament (the organiser's token); its tables stay as they are",
            "parameters": [TOURNAMENT_ID, TOKEN_Q, REVISION_Q], "security": SECURE,
            "responses": {"204": {"description": "deleted"}} | _errors(400, 401, 403, 404, 409)}},
        "/api/tournaments/{tournament_id}/tables": {"post": {
            "summary": "Enrol a table (the organiser's token, and the table's players' token in the body)",
            "parameters": [TOURNAMENT_ID, TOKEN_Q], "security": SECURE,
            "requestBody": {"required": True, "content": {JSON: {"schema": {
                "type": "object", "required": ["table", "token"], "additionalProperties": False,
                "properties": {"table": {"type": "string"}, "token": {"type": "string"}}}}}},
            "responses": {"201": _json(_ref("Tournament"), "enrolled; the tournament"),
                          "200": _json(_ref("Tournament"), "it was enrolled already; the tournament")}
            | _errors(400, 401, 403, 404, 409, 422)}},
        "/api/tournaments/{tournament_id}/rules": {"put": {
            "summary": "The tournament's rules (the organiser's token)",
            "description": "The tables opened from its page (a fixture's \"open the table\", a new table in it) "
                           "take them. A table already in it keeps its own rules, and its result counts all the "
                           "same.",
            "parameters": [TOURNAMENT_ID, TOKEN_Q], "security": SECURE,
            "requestBody": {"required": True, "content": {JSON: {"schema": {
                "type": "object", "required": ["rules"], "additionalProperties": False,
                "description": "another key is a 422 invalid naming it", "properties": {
                    "rules": {**_ref("Rules"), "description": "a rule left out takes the default; an unknown one "
                              "or a value not allowed is a 422 invalid naming it (rules.kings)"},
                    "revision": REVISION}}}}},
            "responses": {"200": _json(_ref("Tournament"), "the tournament with its rules")}
            | _errors(400, 401, 403, 404, 409, 422)}},
        "/api/tournaments/{tournament_id}/teams": {"put": {
            "summary": "The league's teams, for its fixtures (the organiser's token)",
            "parameters": [TOURNAMENT_ID, TOKEN_Q], "security": SECURE,
            "requestBody": {"required": True, "content": {JSON: {"schema": {
                "type": "object", "additionalProperties": False, "description": "teams or groups, one of them "
                "(both: a 422 invalid on groups; neither: a 422 invalid on teams); another key is a 422 invalid "
                "naming it", "oneOf": [{"required": ["teams"]}, {"required": ["groups"]}], "properties": {
                    "teams": {"type": "array", "minItems": 2, "maxItems": 32, "items": TEAM, "uniqueItems": True,
                              "description": _TWICE + " (teams[i])"},
                    "groups": {"type": "array", "minItems": 2, "maxItems": 8, "description": "in place of teams: "
                               "the league in groups A, B, ... (2 teams or more each, 32 in all); " + _TWICE
                               + ", in one group or in two (groups[i][j])",
                               "items": {"type": "array", "minItems": 2, "items": TEAM, "uniqueItems": True}},
                    "legs": _whole({"type": "integer", "enum": [1, 2], "default": 1}),
                    "start": {"type": "string", "format": "date", "description": "the first round's date"},
                    "every_days": _whole({"type": "integer", "minimum": 1, "maximum": 60, "default": 7,
                                          "description": "days between rounds, read with start; "
                                                         "without start it dates nothing, but a bad one is a 422 "
                                                         "invalid on every_days all the same"}),
                    "move_played": {"type": "boolean", "default": False, "description": "save even where a "
                                    "fixture played or begun would leave its round or date (else a 409 "
                                    "fixtures_would_move naming them, field move_played)"},
                    "revision": REVISION}}}}},
            "description": "The fixtures played or begun keep their rounds and dates; only the others are drawn "
                           "again. Where one would move all the same (a team of it gone, a round or date changed), "
                           "409 fixtures_would_move: its params' moves name each ({teams, table, round, date, "
                           "to_round, to_date}, to_round null where it leaves the fixtures) and gone the teams no "
                           "longer entered that played them (withdraw those instead), but for those withdrawn "
                           "already: every withdrawal stays, that of a team no longer entered too.",
            "responses": {"200": _json(_ref("Tournament"), "the tournament with its fixtures")}
            | _errors(400, 401, 403, 404, 409, 422)}},
        "/api/tournaments/{tournament_id}/withdrawals": {"post": {
            "summary": "A league team, or a seed of the final stage, withdraws (the organiser's token)",
            "description": "A team of the league, or a seed of the final stage drawn (a cup played as a knockout "
                           "only, no league teams entered, withdraws its seeds). "
                           "results annulled (the default): its matches leave the standings, and so does it; "
                           "stand: those played count and it is ranked last. Either way its pairings not finished "
                           "are not played, and the league ends without them; in the final stage drawn, each of its "
                           "pairings not played goes to its opponent by walkover (the vacas to win to 0), so that "
                           "the bracket goes on, and one played keeps its result. Sent again, it changes the choice.",
            "parameters": [TOURNAMENT_ID, TOKEN_Q], "security": SECURE,
            "requestBody": {"required": True, "content": {JSON: {"schema": {
                "type": "object", "required": ["team"], "additionalProperties": False,
                "description": "another key is a 422 invalid naming it", "properties": {
                    "team": {"type": "string", "description": "one of the league's teams, spelt then as the "
                             "league enters it, or of the final stage's seeds, spelt as the seeds are (case, "
                             "accents and spacing aside); else 422 invalid naming team"},
                    "results": {"enum": ["annulled", "stand"], "default": "annulled"},
                    "revision": REVISION}}}}},
            "responses": {"200": _json(_ref("Tournament"), "the tournament")}
            | _errors(400, 401, 403, 404, 409, 422)}},
        "/api/tournaments/{tournament_id}/withdrawals/{team}": {"delete": {
            "summary": "Undo a team's withdrawal (the organiser's token)",
            "description": "its pairings wait to be played again, the final stage's walkovers it gave taken back",
            "parameters": [TOURNAMENT_ID, {"name": "team", "in": "path", "required": True,
                                           "schema": {"type": "string"}}, TOKEN_Q, REVISION_Q],
            "security": SECURE,
            "responses": {"200": _json(_ref("Tournament"), "the tournament")} | _errors(400, 401, 403, 404, 409)}},
        "/api/tournaments/{tournament_id}/results": {"post": {
            "summary": "Enter a finished match's result without hands, or a walkover (the organiser's token)",
            "description": "A match played on paper: its two teams and the vacas each won (the winner's are the "
                           "tournament's vacas_to_win, the loser's fewer), the stones if known. A walkover (no "
                           "presentado): its two teams and the one that did not turn up, which loses by "
                           "vacas_to_win to 0, no stones, played, won and lost in the standings alike. It takes "
                           "its pairing as a finished table added now would (in the fixtures, or the final stage's "
                           "bracket once one is drawn), has no match file in the export (tournament.json and the "
                           "results sheet list it), and counts a revision. To put one right, PUT "
                           ".../results/{result_id} (it keeps its place and its pairing).",
            "parameters": [TOURNAMENT_ID, TOKEN_Q], "security": SECURE, "requestBody": _RESULT_BODY,
            "responses": {"201": _json(_ref("Tournament"), "the tournament with the result")}
            | _errors(400, 401, 403, 404, 409, 422)}},
        "/api/tournaments/{tournament_id}/results/{result_id}": {"put": {
            "summary": "Put right a result entered without hands (the organiser's token), in its place",
            "description": "The same body as POST .../results, checked alike (the same 422s, naming the field, "
                           "with the same reasons). The result keeps its id and the time it was added, so its "
                           "place among the matches and the pairing it took; its rules are the tournament's now. "
                           "Counts a revision; refused, nothing changes. 404 (field result) where the tournament "
                           "has no such result.",
            "parameters": [TOURNAMENT_ID, RESULT_ID, TOKEN_Q], "security": SECURE,
            "requestBody": _RESULT_BODY,
            "responses": {"200": _json(_ref("Tournament"), "the tournament with the result put right")}
            | _errors(400, 401, 403, 404, 409, 422)}, "delete": {
            "summary": "Take out a result entered without hands (the organiser's token)",
            "parameters": [TOURNAMENT_ID, RESULT_ID, TOKEN_Q, REVISION_Q],
            "security": SECURE,
            "responses": {"200": _json(_ref("Tournament"), "the tournament without it")}
            | _errors(400, 401, 403, 404, 409)}},
        "/api/tournaments/{tournament_id}/knockout": {"put": {
            "summary": "Draw the final stage (the organiser's token): the tables added from then on play it",
            "description": "The first seed meets the last; the draw keeps the top seeds apart until the end "
                           "(engine.knockout_draw); short of 4, 8 or 16 teams, the top seeds meet a bye in the "
                           "first round and go through at once. Drawn again, the stage keeps the time of its first "
                           "draw. A table added since that plays none of its pairings is a friendly (in no "
                           "standings).",
            "parameters": [TOURNAMENT_ID, TOKEN_Q], "security": SECURE,
            "requestBody": {"required": True, "content": {JSON: {"schema": {
                "type": "object", "required": ["teams"], "additionalProperties": False,
                "description": "another key is a 422 invalid naming it", "properties": {"teams": {
                    "type": "array", "minItems": 2, "maxItems": 16, "items": TEAM, "uniqueItems": True,
                    "description": "2 to 16, best seed first; short of 4, 8 or 16, the top seeds get byes; " + _TWICE
                    + " (teams[i])"},
                    "third_place": {"type": "boolean", "default": False, "description": "the semi-finals' losers "
                                    "play for third place (4 teams or more)"},
                    "revision": REVISION}}}}},
            "responses": {"200": _json(_ref("Tournament"), "the tournament with its final stage")}
            | _errors(400, 401, 403, 404, 409, 422)}, "delete": {
            "summary": "Remove the final stage (the organiser's token; its tables count in the league again)",
            "parameters": [TOURNAMENT_ID, TOKEN_Q, REVISION_Q], "security": SECURE,
            "responses": {"200": _json(_ref("Tournament"), "the tournament")} | _errors(400, 401, 403, 404, 409)}},
        "/api/tournaments/{tournament_id}/export": {"get": {
            "summary": "The whole tournament as a zip (the organiser's token)",
            "description": "standings.csv, tournament.json (the tournament without tokens) and matches/NN-team-team"
                           ".jsonl: each table's match as mus-match/1, which `mus-scorer standings` ranks alike "
                           "(those a withdrawal annulled in annulled/); "
                           "excel/: the standings, every match's result (where a table played other rules, which) and "
                           "the tournament's rules as spreadsheets in the request's language "
                           "(?lang=, else the page's cookie, else Accept-Language): UTF-8 with a byte order mark, "
                           "headings in words, ';' in es, eu and fr, ',' in en.",
            "parameters": [TOURNAMENT_ID, TOKEN_Q, {"name": "lang", "in": "query", "required": False,
                                                    "schema": {"type": "string", "enum": ["es", "eu", "fr", "en"]},
                                                    "description": "the spreadsheets' language"}],
            "security": SECURE,
            "responses": {"200": {"description": "the zip", "content": {"application/zip": {}}}}
            | _errors(401, 403, 404)}},
        "/api/tournaments/{tournament_id}/tables/{table_id}": {"delete": {
            "summary": "Take a table out of the tournament (the organiser's token; the table itself stays)",
            "parameters": [TOURNAMENT_ID, TABLE_ID, TOKEN_Q], "security": SECURE,
            "responses": {"200": _json(_ref("Tournament"), "the tournament without it")} | _errors(401, 403, 404)}},
        "/api/openapi.json": {"get": {
            "summary": "This document", "responses": {"200": {"description": "OpenAPI 3.1",
                                                             "content": {JSON: {}}}}}},
    }
    responses = {f"E{s}": _json(_ref("Error"), d) for s, d in {
        400: "bad request", 401: "no token", 403: "wrong token or read-only token", 404: "not found",
        409: "stale_version, stale_revision, match_over, showdown_settled, client_id_reused (a client_id sent already with another request), teams_differ (a match file of another pairing imported into a table; rename), fixtures_would_move (a league's teams that would move fixtures played; move_played), too_many_tables or too_many_results (a tournament's 200 tables, 1000 results entered without hands)", 413: "too_large: a body over its limit (a JSON write's, JSON_MAX_BYTES; a match file's, IMPORT_MAX_BYTES; a "
             "photo's, MAX_CONTENT_LENGTH, 25 MB, a multipart upload's form 64 KB more, the photo itself named "
             "with its size), or a photo of too many pixels, told from its header before it is decoded (over about "
             "50 megapixels, 52,000,000 pixels; a decompression bomb)",
        415: "unsupported image",
        422: "refused by the engine",
        429: "too_many_creations: this client created CREATE_MAX_PER_ADDRESS tables and tournaments in the last "
             "CREATE_WINDOW_SECONDS; Retry-After says when it may again",
        503: "too_many_streams (too many live connections: poll the table instead; Retry-After), "
             "recognizer_unavailable (no card recognizer, or a deck's models that cannot be read), "
             "teaching_unavailable (no deck can be taught on this server: no datasets/ folder, or no onnx or "
             "OpenCV; GET /api/decks's why), refining_unavailable (refine asked where a deck cannot be refined: "
             "no torch or ultralytics; GET /api/decks's refine_why; field refine), or database_busy (the database "
             "held by another process past its busy timeout: nothing was recorded; send again after Retry-After "
             "seconds)",
        507: "storage_full: the server's disk is nearly full (PHOTO_MIN_FREE_BYTES), and the photo is not kept; or "
             "full, and the write is not recorded (free space and send again)"}.items()}
    responses["E429"]["headers"] = {"Retry-After": {"description": "seconds until this client may create again",
                                                    "schema": {"type": "integer", "minimum": 1}}}
    responses["E503"]["headers"] = {"Retry-After": {"description": "seconds to wait before sending again "
                                                                   "(with too_many_streams and database_busy)",
                                                    "schema": {"type": "integer", "minimum": 1}}}
    responses["Error"] = _json(_ref("Error"), (
        "any other error, same shape; on any route, the database's: 507 storage_full (the disk full: the write is "
        "not recorded), 503 database_busy (held by another process; Retry-After), 500 database_corrupt (the file "
        "damaged: restore a backup), 500 internal_error"))
    return {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",  # JSON Schema 2020-12
        "info": {"title": "mus-scorer table API", "version": __version__,
                 "description": "Tables of a Mus match: live entry, settlement, photos, live updates. Every "
                                "integer of a JSON body is " + WHOLE + "."},
        "paths": paths,
        "components": {
            "schemas": SCHEMAS,
            "responses": responses,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"},
                                "queryToken": {"type": "apiKey", "in": "query", "name": "token"},
                                "adminKey": {"type": "apiKey", "in": "query", "name": "key",
                                             "description": "the server's admin key, as mus-scorer serve prints it"}},
        },
    }
