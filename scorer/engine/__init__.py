"""The Mus rules engine: cards, lance evaluation, betting log, settlement, disputes.

Pure Python, standard library only. The public API is the Engine section of
`docs/CONTRACTS.md`; the JSON formats are `HAND-RECORD.md`.
"""

from .betting import LANCES, PHASES, LiveHand
from .cards import DECK, Card
from .errors import IllegalError, MalformedError, MusError
from .evaluate import HandValue, evaluate
from .explain import dispute_text, explain, grammar
from .match import Match, replay_match
from .record import HandRecord, parse_hand
from .rules import Rules
from .settle import settle
from .standings import knockout_draw, round_robin, standings, team_key
from .tournament import draw_fixtures, knockout, match_id, moves, redraw, standard_draw

__all__ = [
    "DECK",
    "LANCES",
    "PHASES",
    "Card",
    "HandRecord",
    "HandValue",
    "IllegalError",
    "LiveHand",
    "MalformedError",
    "Match",
    "MusError",
    "Rules",
    "dispute_text",
    "evaluate",
    "explain",
    "grammar",
    "parse_hand",
    "replay_match",
    "settle",
    "knockout_draw",
    "round_robin",
    "standings",
    "team_key",
    "standard_draw",
    "redraw",
    "draw_fixtures",
    "moves",
    "match_id",
    "knockout",
]
