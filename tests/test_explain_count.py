"""The count in words (explain), in en, es, eu and fr."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from scorer.engine import settle
from scorer.engine.explain import LANGS, amarrakos_words, explain, french_spacing, rule_text

PLAYERS = ["Ane", "Bixente", "Iker", "Maite"]
TEAMS = ["Txuriak", "Beltzak"]

ROOT = Path(__file__).resolve().parent.parent
# The worked example of HAND-RECORD.md and its settlement (the engine's tests hold that
# settlement to the contract's).
RECORD = json.loads((ROOT / "examples" / "hand.json").read_text())
SETTLEMENT = settle(RECORD)


def lines(lang: str = "en", **kw) -> list[str]:
    return explain(SETTLEMENT, RECORD, PLAYERS, lang, **kw)


@pytest.mark.parametrize("lang", LANGS)
def test_one_line_per_event_plus_cards_and_game_end(lang: str) -> None:
    out = lines(lang)
    events = SETTLEMENT["events"]
    # cards, 5 events, game end
    assert len(out) == 1 + len(events) + 1
    for line, event in zip(out[1:], events, strict=False):
        assert f"+{event['stones']} → {event['score'][0]}–{event['score'][1]}" in line


def test_english_grande_line_reads_like_the_table() -> None:
    out = lines("en")
    assert out[2] == "Grande: envido, 3 more, quiero: Ane wins with R-R-5-1, +5 → 18–37 (3 amarrakos 3)"


def test_spanish_vocabulary() -> None:
    out = lines("es")
    assert out[0].startswith("Cartas: Ane R-R-5-1, Bixente S-7-7-7")
    assert out[1].startswith("Pares: envido, no quiero: deje")
    assert "Grande: envido, 3 más, quiero: gana Ane con R-R-5-1, +5 → 18–37 (3 amarracos y 3)" == out[2]
    assert out[3].startswith("Chica: todos pasan: gana Maite con 1-1-5-6")
    assert "pareja R-R" in out[4]
    assert "Juego: solo" in out[5] and "Bixente 31" in out[5] and "(8 amarracos y 1)" in out[5]
    assert out[6].startswith("Juego para Bixente y Maite")


def test_basque_vocabulary() -> None:
    out = lines("eu")
    # the refusal is "tira", and what it pays is said without the Spanish "deje"
    assert out[1].startswith("Pareak: enbido, tira: Ane eta Iker irabazle, +1")
    assert "deje" not in " ".join(out)
    assert out[0].startswith("Kartak: Ane E-E-5-1")  # Basque figures: sota S, zaldia Z, errege E
    assert out[2].startswith("Handia: enbido, 3 gehiago, iduki: Ane irabazle")
    assert "hamarreko" in out[2]
    assert out[3].startswith("Txikia: denak paso")
    assert "Jokoa" in out[5] and "Bixente 31" in out[5]


def test_french_vocabulary() -> None:
    out = lines("fr")
    # French typography: a no-break space before the colon; the amarrakos as the rulebooks
    # say them, with the stones named; a game of 40 is a "jeu" (the rulebooks' "manche" is a vaca)
    assert out[2] == french_spacing("Grand : envido, 3 de plus, tenu : Ane gagne avec R-R-5-1, +5 → 18–37 "
                                    "(3 hamarrekos et 3 pierres)")
    assert out[2].startswith("Grand\u00a0: envido")
    assert out[3].startswith(french_spacing("Petit : tout le monde passe : Maite gagne avec 1-1-5-6"))
    assert out[-1] == "Jeu pour Bixente et Maite, 19–41"
    assert not any("manche" in line or re.search(r"\S:", line) for line in out), out


def test_team_names_when_given() -> None:
    out = lines("en", teams=TEAMS)
    assert "deje to Txuriak" in out[1]
    assert out[-1] == "Game to Beltzak, 19–41"


def test_who_had_what_in_bonus_lines() -> None:
    out = lines("en")
    assert "Ane pareja R-R" in out[4]  # the bonus after the refused pares
    assert "Bixente 31" in out[5]  # only team 1 has juego


def test_adentro_and_disputes() -> None:
    settlement = copy.deepcopy(SETTLEMENT)
    settlement.update(game_over=False, winner=None, score=[19, 36], adentro=[False, True])
    settlement["events"] = settlement["events"][:4]
    settlement["disputes"] = [{"seat": 2, "rule": "seed 002 art. 16", "message": "declared juego without it",
                               "effect": "no juego bonus"}]
    out = explain(settlement, RECORD, PLAYERS, "en", TEAMS)
    assert "Beltzak adentro (36)" in out
    assert out[-1].startswith("Dispute: Iker")
    assert "art. 16" in out[-1] and "no juego bonus" in out[-1]
    es = explain(settlement, RECORD, PLAYERS, "es", TEAMS)
    assert "Beltzak adentro (36)" in es and es[-1].startswith("Disputa: Iker")


def test_ordago_accepted() -> None:
    record = copy.deepcopy(RECORD)
    record["score"] = [12, 30]
    record["bets"] = {"grande": [{"seat": 0, "act": "ordago"}, {"seat": 1, "act": "quiero"}]}
    settlement = settle(record)
    en = explain(settlement, record, PLAYERS, "en", TEAMS)
    assert "Grande: órdago, quiero: Ane wins the órdago with R-R-5-1: the game to Txuriak, +28 → 40–30 (8 amarrakos)" in en
    assert en[-1] == "Game to Txuriak, 40–30"
    eu = explain(settlement, record, PLAYERS, "eu", TEAMS)
    assert any(line.startswith("Handia: hordago, iduki: Ane irabazle hordagoan") for line in eu)
    assert eu[-1].startswith("Jokoa, Txuriak irabazle")


def test_ordago_without_an_event_still_told() -> None:
    record = copy.deepcopy(RECORD)
    record["bets"] = {"grande": [{"seat": 0, "act": "ordago"}, {"seat": 1, "act": "quiero"}]}
    settlement = {
        "format": "mus-settlement/1", "score": [12, 37], "game_over": True, "winner": 0, "ordago": True,
        "lances": {"grande": {"best": 0, "team": 0, "status": "accepted", "stake": 0, "stones": 0}},
        "events": [], "amarrakos": [[2, 2], [7, 2]], "adentro": [False, True], "disputes": [],
    }
    en = explain(settlement, record, PLAYERS, "en", TEAMS)
    assert "Grande: órdago, quiero: Ane wins the órdago with R-R-5-1: the game to Txuriak" in en
    assert not any("adentro" in line for line in en), "the game is over: nobody is adentro"


@pytest.mark.parametrize(
    ("lang", "juego", "dispute"),
    [
        ("en", "Juego: false declaration, the bets are void: Beltzak count: Bixente 31, +3 → 7–4",
         "Dispute: Iker declared juego without holding it (Euskal Herria championship rules art. 17"),
        ("es", "Juego: declaración falsa, apuestas anuladas: para Beltzak: Bixente 31, +3",
         "Disputa: Iker dijo juego sin tenerlo"),
        ("eu", "Jokoa: aitorpen faltsua, apustuak baliogabe: Beltzak irabazle: Bixente 31",
         "Auzia: Iker: jokoa baduela esan du"),
        ("fr", french_spacing("Jeu : fausse annonce, paris annulés : pour Beltzak : Bixente 31"),
         french_spacing("Litige : Iker a annoncé jeu à tort")),
    ],
)
def test_false_juego_declaration(lang: str, juego: str, dispute: str) -> None:
    record = copy.deepcopy(RECORD)
    record["score"] = [0, 0]
    record["declared"]["juego"][2] = True  # Iker holds 21
    settlement = settle(record)
    assert settlement["disputes"]
    out = explain(settlement, record, PLAYERS, lang, TEAMS)
    assert any(line.startswith(juego) for line in out), out
    assert out[-1].startswith(dispute)


def test_false_pares_declaration_names_the_tira() -> None:
    record = copy.deepcopy(RECORD)
    record["score"] = [0, 0]
    record["declared"]["pares"][2] = True  # Iker has no pair
    record["bets"]["pares"] = [{"seat": 0, "act": "envido"}, {"seat": 1, "act": "quiero"}]
    settlement = settle(record)
    out = explain(settlement, record, PLAYERS, "en", TEAMS)
    pares = next(line for line in out if line.startswith("Pares"))
    assert "Beltzak count: tira 1, Bixente medias 7-7-7, Maite pareja 1-1, +4" in pares
    assert out[-1].startswith("Dispute: Iker declared pares without holding it (club rules art. 13b)")


def test_cards_not_shown() -> None:
    record = copy.deepcopy(RECORD)
    record["hands"] = [None] * 4
    settlement = copy.deepcopy(SETTLEMENT)
    for info in settlement["lances"].values():
        info["best"] = None
    out = explain(settlement, record, PLAYERS, "en", TEAMS)
    assert not out[0].startswith("Cards")
    assert out[1] == "Grande: envido, 3 more, quiero: Txuriak score, +5 → 18–37 (3 amarrakos 3)"


def test_default_seat_names() -> None:
    out = explain(SETTLEMENT, RECORD, None, "es")
    assert "asiento 0" in out[0]


def test_kings_4_keeps_threes_and_twos() -> None:
    record = copy.deepcopy(RECORD)
    record["rules"] = {"kings": 4, "target": 30}
    out = explain(SETTLEMENT, record, PLAYERS, "en")
    assert "Ane R-5-3-1" in out[0]
    assert "Iker C-6-4-2" in out[0]


@pytest.mark.parametrize(
    ("stones", "lang", "text"),
    [(23, "en", "4 amarrakos 3"), (10, "en", "2 amarrakos"), (3, "en", "3"), (5, "es", "1 amarraco"),
     (0, "en", "nothing"), (37, "eu", "7 hamarreko eta 2"), (41, "fr", "8 hamarrekos et 1 pierre"),
     (12, "fr", "2 hamarrekos et 2 pierres"), (6, "fr", "1 hamarreko et 1 pierre")],
)
def test_amarrakos_words(stones: int, lang: str, text: str) -> None:
    assert amarrakos_words(stones, lang) == text


def test_unknown_language() -> None:
    with pytest.raises(ValueError, match="lang"):
        lines("de")


def test_every_language_has_every_phrase() -> None:
    from scorer.engine.explain import _WORDS

    keys = set(_WORDS["en"])
    lances = ("grande", "chica", "pares", "juego", "punto")
    for lang in LANGS:
        # besides, a language's own words for a dispute in one lance, where its grammar asks
        # (Spanish and French pares are plural): dispute_<kind>_<lance>, of a kind it has
        own = {k for k in set(_WORDS[lang]) - keys
               if k.startswith("dispute_") and k.endswith(lances) and k.rsplit("_", 1)[0] in keys}
        assert set(_WORDS[lang]) - own == keys, lang
        assert all(text for text in _WORDS[lang].values())
    for lang in ("es", "eu", "fr"):
        assert {"dispute_undeclared_pares", "dispute_false_declaration_pares"} <= set(_WORDS[lang]), lang


@pytest.mark.parametrize("lang, said", [
    ("es", ["Iker dijo pares sin tenerlos", "Iker tenía pares sin declararlos", "Iker dijo juego sin tenerlo",
            "Iker tenía juego sin declararlo"]),
    ("fr", ["Iker a annoncé des paires à tort", "Iker avait des paires sans les annoncer", "Iker a annoncé jeu à tort",
            "Iker avait jeu sans l'annoncer", "Iker a misé aux paires sans paires ni jeu",
            "Iker a misé au jeu sans paires ni jeu"]),
    ("eu", ["Iker: pareak badituela esan du, baina ez ditu", "Iker: pareak baditu, aitortu gabe",
            "Iker: jokoa baduela esan du, baina ez du", "Iker: jokoa badu, aitortu gabe"]),
])
def test_a_dispute_is_said_in_its_languages_grammar(lang: str, said: list[str]) -> None:
    from scorer.engine.explain import dispute_text

    kinds = [("pares", "false_declaration"), ("pares", "undeclared"), ("juego", "false_declaration"),
             ("juego", "undeclared"), ("pares", "bet_for_partner"), ("juego", "bet_for_partner")]
    got = [dispute_text({"seat": 2, "lance": lance, "kind": kind}, PLAYERS, lang) for lance, kind in kinds]
    assert got[:len(said)] == said


def test_players_must_be_four() -> None:
    with pytest.raises(ValueError, match="players"):
        explain(SETTLEMENT, RECORD, ["Ane", "Bixente"], "en")


@pytest.mark.parametrize(
    ("lang", "text"),
    [("en", "Pares: tira 1 to Beltzak: a combination not declared, +1 → 5–5"),
     ("es", "Pares: tira de 1 para Beltzak por no declarar, +1 → 5–5"),
     ("eu", "Pareak: tira 1, Beltzak irabazle (aitortu gabea), +1 → 5–5"),
     ("fr", french_spacing("Paires : tira de 1 pour Beltzak (combinaison non annoncée), +1 → 5–5"))],
)
def test_undeclared_pares_gives_the_opponents_a_tira(lang: str, text: str) -> None:
    record = copy.deepcopy(RECORD)
    record["score"] = [0, 0]
    record["declared"]["pares"][0] = False  # Ane holds R-R; her partner no pares; the opponents do
    del record["bets"]["pares"]
    settlement = settle(record)
    out = explain(settlement, record, PLAYERS, lang, TEAMS)
    assert any(line.startswith(text) for line in out), out
    assert "Ane" in out[-1] and f"({rule_text('seed 002 art. 16', lang)}" in out[-1]
    assert "seed" not in out[-1]


def test_the_count_names_amarrakos_only_from_five_stones():
    import re

    record = copy.deepcopy(RECORD)
    record["score"] = [0, 0]
    out = explain(settle(record), record, PLAYERS, "en", TEAMS)
    counted = [line for line in out if "→" in line]
    assert counted and not any(re.search(r"→ \d+–\d+ \(\d\)", line) for line in counted)  # never a bare "(2)"
    assert any("(1 amarrako 2)" in line for line in counted)  # 7 stones: one amarrako and 2


def _two_false_pares():
    """Seats 0 and 1 declared pares; nobody holds any: seat 0's contradiction rules the
    lance (seed 004 art. 13a), seat 1's is reported only."""
    record = {"esku": 0, "score": [0, 0], "hands": [h.split() for h in
                                                    ("1o 4c 5e 6b", "12o 11c 4e 7b", "10o 11e 5c 7c", "1c 6e 7e 4o")],
              "declared": {"pares": [True, True, False, False]},
              "bets": {"pares": [{"seat": 0, "act": "envido"}, {"seat": 1, "act": "quiero"}]}}
    return record, settle(record)


@pytest.mark.parametrize(
    ("lang", "effective", "reported"),
    [("en", "Ane declared pares without holding it (club rules art. 13a): bets on pares annulled; "
            "the opponents count their pares",
      "Bixente declared pares without holding it (club rules art. 13a): reported only; "
      "the first contradiction from esku rules the lance"),
     ("es", "Ane dijo pares sin tenerlos (reglamento de club art. 13a): se anulan las apuestas a pares; "
            "los contrarios cobran sus pares",
      "Bixente dijo pares sin tenerlos (reglamento de club art. 13a): solo se anota; "
      "manda en el lance la primera contradicción desde la mano"),
     ("eu", "Ane: pareak badituela esan du, baina ez ditu (klub-araudia 13a. art.): pareetako apustuak baliogabe; "
            "aurkariek beren pareak kontatzen dituzte",
      "Bixente: pareak badituela esan du, baina ez ditu (klub-araudia 13a. art.): jasota soilik; "
      "eskutik lehen kontraesanak erabakitzen du"),
     ("fr", french_spacing("Ane a annoncé des paires à tort (règlement de club art. 13a) : paris aux paires annulés ; "
                           "les adversaires comptent leurs paires"),
      french_spacing("Bixente a annoncé des paires à tort (règlement de club art. 13a) : simplement signalé ; "
                     "la première contradiction depuis l'esku fait foi"))],
)
def test_each_dispute_says_what_it_did_in_the_readers_language(lang: str, effective: str, reported: str) -> None:
    from scorer.engine.explain import words

    record, settlement = _two_false_pares()
    out = explain(settlement, record, PLAYERS, lang, TEAMS)
    colon = words(lang)["colon"]  # French: " : ", a no-break space before the colon
    disputes = [line.split(colon, 1)[1] for line in out if line.split(colon, 1)[0] in ("Dispute", "Disputa", "Auzia",
                                                                                       "Litige")]
    assert disputes[:2] == [effective, reported], out


def _engine_effects() -> list[str]:
    """Every effect settle.py says: each article's, and what an órdago or a second
    contradiction makes of it."""
    from scorer.engine.settle import _RULES

    out = []
    for *_, effect in _RULES.values():
        out += [effect, f"{effect}; the ordago accepted in juego is annulled with them: the game goes on"]
    return out + ["reported; the ordago accepted in pares decides the game, "
                  "and only combinations the cards show count in it",
                  "reported; the first contradiction from esku rules the lance",
                  "reported; the contradiction of seat 1, which annuls the ordago, rules the lance",
                  "flagged: seat 2 holds neither pares nor juego yet bet in juego"]


@pytest.mark.parametrize("lang", LANGS)
def test_every_effect_the_engine_says_is_said_in_every_language(lang: str) -> None:
    from scorer.engine.explain import _EFFECT_WORDS, _effect_text

    assert set(_EFFECT_WORDS[lang]) == set(_EFFECT_WORDS["en"])
    for effect in _engine_effects():
        text = _effect_text(effect, PLAYERS, lang)
        assert text and "{" not in text, (lang, effect)
        if lang != "en":
            assert not re.search(r"\b(opponents|annulled|reported|partner|undeclared|the)\b", text), (lang, text)
    assert "Bixente" in _effect_text(_engine_effects()[-2], PLAYERS, lang)


def test_an_effect_the_engine_never_says_is_left_in_english_only() -> None:
    from scorer.engine.explain import _effect_text

    assert _effect_text("no juego bonus", PLAYERS, "en") == "no juego bonus"
    assert _effect_text("no juego bonus", PLAYERS, "es") == ""


@pytest.mark.parametrize("lang", LANGS)
def test_every_rule_the_engine_cites_names_its_rulebook_in_words(lang: str) -> None:
    from scorer.engine.settle import _RULES

    rules = {entry[0] for entry in _RULES.values()} | {"seed 002 art. 19"}
    for rule in rules:
        text = rule_text(rule, lang)
        assert "seed" not in text and "engine ruling" not in text and ", over " not in text, (rule, text)
        for art in re.findall(r"art\. (\w+)", rule):
            assert art in text, (rule, text)
    assert rule_text("a club's own rule 7", lang) == "a club's own rule 7"  # not the engine's: kept as given


@pytest.mark.parametrize("lang", LANGS)
def test_a_dispute_in_a_sentence_is_the_count_lines(lang: str) -> None:
    """dispute_text is the sentence after the count's "Dispute:", in every language; a kind
    without words in a lance is "a contradiction with the cards", in the reader's language;
    without a lance, its message as given; a seat that is not one is "?"."""
    from scorer.engine.explain import dispute_text, words

    record, settlement = _two_false_pares()
    out = explain(settlement, record, PLAYERS, lang, TEAMS)
    colon = words(lang)["colon"]  # French: " : ", a no-break space before the colon
    said = [f"{words(lang)['dispute']}{colon}{dispute_text(d, PLAYERS, lang)}" for d in settlement["disputes"]]
    assert said and out[-len(said):] == said
    other = dispute_text({"seat": 1, "lance": "juego", "kind": "new_kind"}, PLAYERS, lang)
    assert other == words(lang)["dispute_other"].format(p="Bixente", l=words(lang)["juego"].lower())
    assert dispute_text({"seat": 2, "message": "declared juego without it"}, PLAYERS, lang) == \
        f"Iker{colon}declared juego without it"
    for seat in (True, 4, -1, "1", None):
        assert dispute_text({"seat": seat, "lance": "pares", "kind": "undeclared"}, PLAYERS, lang).startswith("?")
