"""The count of a hand in words, as a player would say it aloud at the table.

`explain(settlement, record, players, lang)` turns a `mus-settlement/1` and the
`mus-hand/1` it settled into one line per event, in English, Spanish, Basque or French:

    Grande: envido, 3 más, quiero: Ane gana con R-R-5-1, +5 → 18–37 (3 amarrakos 3)

The wording only describes what the settlement decided; nothing here scores. Of an
event's `why` (English, for machines) only the kind is read: `deje: ...` for a deje, and
`false <claim> of seat N (<rule>): ...` / `undeclared ...` for a count a dispute decided
(scorer/engine/README.md, rulings 10 and 12); the rest comes from the lances, the bets
and the cards. A dispute's `effect` (English too) is read clause by clause as facts (bets
annulled, who counts what, reported only, an órdago annulled...), said again in the
reader's language; an effect the engine never says is left to English readers.

`dispute_text(dispute, players, lang)` is a dispute's sentence, the one the count's
"Dispute:" line says and the pages show; the table page's script says it word for word
the same from the same word tables and `grammar()` (web/static/dispute.js).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .cards import Card
from .errors import said
from .evaluate import PARES_NAMES, HandValue, evaluate

__all__ = ["LANGS", "NBSP", "explain", "format_score", "amarrakos_words", "dispute_text", "effect_words",
           "french_spacing", "grammar", "rule_text", "words"]

LANGS = ("en", "es", "eu", "fr")

# One table per language. `{}` fields are filled with str.format.
_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "punto_refused": "punto to {t} after the refusal",
        "annulled": "false declaration, the bets are void: {t} count",
        "tira_for": "tira {n} to {t}: a combination not declared",
        "dispute_false_declaration": "{p} declared {l} without holding it",
        "dispute_undeclared": "{p} held {l} without declaring it",
        "dispute_bet_for_partner": "{p} bet at {l} holding neither pares nor juego",
        "dispute_other": "{p}, {l}: a contradiction with the cards",
        "rule_book_002": "Euskal Herria championship rules", "rule_book_004": "club rules",
        "rule_art": "{b} art. {n}", "rule_app": "the app's ruling, as {r}", "rule_over": "{r}, rather than {o}",
        "grande": "Grande", "chica": "Chica", "pares": "Pares", "juego": "Juego", "punto": "Punto",
        "paso": "paso", "envido": "envido", "envido_n": "envido {n}", "mas": "{n} more",
        "ordago": "órdago", "quiero": "quiero", "no_quiero": "no quiero",
        "all_passed": "all passed",
        "wins_with": "{p} wins with {x}",
        "scores": "{t} score",
        "deje": "deje to {t}",
        "only_team": "only {t} have {l}",
        "refused_bonus": "{t} count their own after the refusal",
        "stake_bonus": "{s} + bonus {b}",
        "pareja": "pareja {x}", "medias": "medias {x}", "duples": "duples {x}",
        "amarrakos": "{a} amarrakos", "amarrako": "1 amarrako", "stones": "{s}", "amarr_stones": "{a} {s}",
        "amarr_stone": "{a} {s}",  # one stone left over (French: "et 1 pierre")
        "zero": "nothing",
        "cards": "Cards",
        "cards_hidden": "Cards not shown: nothing was counted from them",
        "cards_some_hidden": "Cards not shown: {p}: what needs them was not counted",
        "ordago_won": "{p} wins the órdago with {x}: the game to {t}",
        "ordago_won_team": "the órdago and the game to {t}",
        "game_over": "Game to {t}, {score}",
        "adentro": "{t} adentro ({s})",
        "dispute": "Dispute",
        "and": "and",
        "seat": "seat {n}",
        "colon": ": ", "semicolon": "; ",
        "hand": "Hand {n}", "esku": "esku {p}",
        "game_won": "game to {t}", "vaca_won": "vaca to {t}", "match_won": "{t} win the match",
        "games": "games", "vacas": "vacas", "winner": "Winner: {t}, {v}",
    },
    "es": {
        "punto_refused": "el punto para {t} tras el no quiero",
        "annulled": "declaración falsa, apuestas anuladas: para {t}",
        "tira_for": "tira de {n} para {t} por no declarar",
        "dispute_false_declaration": "{p} dijo {l} sin tenerlo",
        "dispute_false_declaration_pares": "{p} dijo pares sin tenerlos",
        "dispute_undeclared": "{p} tenía {l} sin declararlo",
        "dispute_undeclared_pares": "{p} tenía pares sin declararlos",
        "dispute_bet_for_partner": "{p} apostó a {l} sin pares ni juego",
        "dispute_other": "{p}, {l}: lo dicho no casa con las cartas",
        "rule_book_002": "reglamento del campeonato de Euskal Herria", "rule_book_004": "reglamento de club",
        "rule_art": "{b} art. {n}", "rule_app": "criterio de la app, como {r}", "rule_over": "{r}, antes que {o}",
        "grande": "Grande", "chica": "Chica", "pares": "Pares", "juego": "Juego", "punto": "Punto",
        "paso": "paso", "envido": "envido", "envido_n": "envido {n}", "mas": "{n} más",
        "ordago": "órdago", "quiero": "quiero", "no_quiero": "no quiero",
        "all_passed": "todos pasan",
        "wins_with": "gana {p} con {x}",
        "scores": "para {t}",
        "deje": "deje para {t}",
        "only_team": "solo {t} con {l}",
        "refused_bonus": "lo suyo para {t} tras el no quiero",
        "stake_bonus": "{s} y {b} de tanteo",
        "pareja": "pareja {x}", "medias": "medias {x}", "duples": "duples {x}",
        "amarrakos": "{a} amarracos", "amarrako": "1 amarraco", "stones": "{s}", "amarr_stones": "{a} y {s}",
        "amarr_stone": "{a} y {s}",
        "zero": "nada",
        "cards": "Cartas",
        "cards_hidden": "Cartas no enseñadas: no se ha contado nada de ellas",
        "cards_some_hidden": "Cartas no enseñadas: {p}: no se ha contado lo que depende de ellas",
        "ordago_won": "gana {p} el órdago con {x}: el juego para {t}",
        "ordago_won_team": "el órdago y el juego para {t}",
        "game_over": "Juego para {t}, {score}",
        "adentro": "{t} adentro ({s})",
        "dispute": "Disputa",
        "and": "y",
        "seat": "asiento {n}",
        "colon": ": ", "semicolon": "; ",
        "hand": "Jugada {n}", "esku": "mano {p}",
        "game_won": "juego para {t}", "vaca_won": "vaca para {t}", "match_won": "partida para {t}",
        "games": "juegos", "vacas": "vacas", "winner": "Ganadores: {t}, {v}",
    },
    "eu": {
        "punto_refused": "tira ondoren, puntua: {t} irabazle",
        "annulled": "aitorpen faltsua, apustuak baliogabe: {t} irabazle",
        "tira_for": "tira {n}, {t} irabazle (aitortu gabea)",
        "dispute_false_declaration": "{p}: {l} baduela esan du, baina ez du",
        "dispute_false_declaration_pares": "{p}: pareak badituela esan du, baina ez ditu",
        "dispute_undeclared": "{p}: {l} badu, aitortu gabe",
        "dispute_undeclared_pares": "{p}: pareak baditu, aitortu gabe",
        "dispute_bet_for_partner": "{p}: {l} apustua egin du, ez pareak ez jokoa izan gabe",
        "dispute_other": "{p}, {l}: esandakoa ez dator bat kartekin",
        "rule_book_002": "Euskal Herriko Mus Txapelketaren araudia", "rule_book_004": "klub-araudia",
        "rule_art": "{b} {n}. art.", "rule_app": "aplikazioaren erabakia, {r} bezala", "rule_over": "{r}, {o} baino lehen",
        "grande": "Handia", "chica": "Txikia", "pares": "Pareak", "juego": "Jokoa", "punto": "Puntua",
        "paso": "paso", "envido": "enbido", "envido_n": "{n} enbido", "mas": "{n} gehiago",
        "ordago": "hordago", "quiero": "iduki", "no_quiero": "tira",
        "all_passed": "denak paso",
        "wins_with": "{p} irabazle, {x}",
        "scores": "{t} irabazle",
        "deje": "{t} irabazle",
        "only_team": "{t} bakarrik",
        "refused_bonus": "tira ondoren, {t}: berea",
        "stake_bonus": "{s} eta {b} saria",
        "pareja": "parea {x}", "medias": "mediak {x}", "duples": "doblak {x}",
        "amarrakos": "{a} hamarreko", "amarrako": "hamarreko bat", "stones": "{s}", "amarr_stones": "{a} eta {s}",
        "amarr_stone": "{a} eta {s}",
        "zero": "ezer ez",
        "cards": "Kartak",
        "cards_hidden": "Kartak ez dira erakutsi: haietatik ez da ezer kontatu",
        "cards_some_hidden": "Kartak erakutsi gabe: {p}: haien beharra zuena ez da kontatu",
        "ordago_won": "{p} irabazle hordagoan, {x}: jokoa, {t} irabazle",
        "ordago_won_team": "hordagoa eta jokoa, {t} irabazle",
        "game_over": "Jokoa, {t} irabazle: {score}",
        "adentro": "{t} barruan, adentro ({s})",
        "dispute": "Auzia",
        "and": "eta",
        "seat": "{n}. jokalaria",
        "colon": ": ", "semicolon": "; ",
        "hand": "{n}. eskua", "esku": "esku {p}",
        "game_won": "jokoa, {t} irabazle", "vaca_won": "baka, {t} irabazle", "match_won": "partida, {t} irabazle",
        "games": "jokoak", "vacas": "bakak", "winner": "Irabazleak: {t}, {v}",
    },
    "fr": {
        "punto_refused": "le point pour {t} après le refus",
        "annulled": "fausse annonce, paris annulés : pour {t}",
        "tira_for": "tira de {n} pour {t} (combinaison non annoncée)",
        "dispute_false_declaration": "{p} a annoncé {l} à tort",
        "dispute_false_declaration_pares": "{p} a annoncé des paires à tort",
        "dispute_undeclared": "{p} avait {l} sans l'annoncer",
        "dispute_undeclared_pares": "{p} avait des paires sans les annoncer",
        "dispute_bet_for_partner": "{p} a misé au {l} sans paires ni jeu",
        "dispute_bet_for_partner_pares": "{p} a misé aux paires sans paires ni jeu",
        "dispute_other": "{p}, {l} : ce qui a été dit ne colle pas aux cartes",
        "rule_book_002": "règlement du championnat d'Euskal Herria", "rule_book_004": "règlement de club",
        "rule_art": "{b} art. {n}", "rule_app": "décision de l'appli, comme {r}", "rule_over": "{r}, plutôt que {o}",
        "grande": "Grand", "chica": "Petit", "pares": "Paires", "juego": "Jeu", "punto": "Point",
        "paso": "paso", "envido": "envido", "envido_n": "envido {n}", "mas": "{n} de plus",
        "ordago": "hordago", "quiero": "tenu", "no_quiero": "refusé",
        "all_passed": "tout le monde passe",
        "wins_with": "{p} gagne avec {x}",
        "scores": "pour {t}",
        "deje": "refus pour {t}",
        "only_team": "{l} seulement chez {t}",
        "refused_bonus": "combinaisons comptées pour {t} après le refus",
        "stake_bonus": "{s} et {b} de prime",
        "pareja": "paire {x}", "medias": "mediak {x}", "duples": "doubles {x}",
        "amarrakos": "{a} hamarrekos", "amarrako": "1 hamarreko", "stones": "{s}",
        "amarr_stones": "{a} et {s} pierres", "amarr_stone": "{a} et 1 pierre",
        "zero": "rien",
        "cards": "Cartes",
        "cards_hidden": "Cartes non montrées : rien n'a été compté sur elles",
        "cards_some_hidden": "Cartes non montrées : {p} : ce qui en dépend n'a pas été compté",
        "ordago_won": "{p} gagne l'hordago avec {x} : le jeu pour {t}",
        "ordago_won_team": "l'hordago et le jeu pour {t}",
        "game_over": "Jeu pour {t}, {score}",
        "adentro": "{t} adentro ({s})",
        "dispute": "Litige",
        "and": "et",
        "seat": "joueur {n}",
        "colon": " : ", "semicolon": " ; ",  # French typography: a (no-break, below) space before
        "hand": "Donne {n}", "esku": "esku {p}",
        "game_won": "jeu pour {t}", "vaca_won": "manche pour {t}", "match_won": "partie pour {t}",
        "games": "jeux", "vacas": "manches", "winner": "Vainqueurs : {t}, {v}",
    },
}

NBSP = "\u00a0"
_FRENCH_SPACE = re.compile(r" (?=[:;?!»])|(?<=«) ")


def french_spacing(text: str) -> str:
    """French typography with a no-break space: the space written before ':', ';', '?',
    '!' and '»' and after '«' becomes U+00A0, so that a narrow screen never breaks a line
    there ("Score : 12 – 1", "Qui est la main ?", "« Passe »"). The French word tables
    (these and web/i18n.py's) are written with plain spaces and pass through it."""
    return _FRENCH_SPACE.sub(NBSP, text)


_WORDS["fr"] = {key: french_spacing(text) for key, text in _WORDS["fr"].items()}

# What a dispute did, clause by clause. The engine says it in English for machines
# (settle.py's `effect`: clauses joined by "; "); these read each clause as a fact, so
# that the count in words says it in the reader's language. A claim (`pares`, `juego`)
# or lance in the key where the grammar differs with it.
_EFFECT_FACTS: tuple[tuple[str, str], ...] = (
    (r"bets on (?P<l>pares|juego|punto) annulled", "annulled_{l}"),
    (r"the opponents count their (?P<l>pares|juego)", "count_theirs_{l}"),
    (r"the opponents count the tira and their (?P<l>pares|juego)", "count_tira_theirs_{l}"),
    (r"the false (?P<l>pares|juego) does not count", "false_void_{l}"),
    (r"the undeclared (?P<l>pares|juego) does not count", "undeclared_void_{l}"),
    (r"the partner's (?P<l>pares|juego) does", "partner_counts_{l}"),
    (r"the opponents score 1 \(tira\)|the opponents score the tira", "score_tira"),
    (r"the opponents score 2 \(the (?:punto and the tira|tira and the punto)\)", "score_two"),
    (r"the opponents score the tira besides their juego", "tira_besides_juego"),
    (r"the ordago accepted in (?P<o>\w+) is annulled with them: the game goes on", "ordago_annulled"),
    (r"reported", "reported"),
    (r"the first contradiction from esku rules the lance", "first_rules"),
    (r"the contradiction of seat (?P<s>[0-3]), which annuls the ordago, rules the lance", "annulling_rules"),
    (r"the ordago accepted in (?P<o>\w+) decides the game, and only combinations the cards show count in it",
     "ordago_decides"),
    (r"flagged: seat [0-3] holds neither pares nor juego yet bet in (?:pares|juego)", "flagged"),
)

_EFFECT_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "annulled_pares": "bets on pares annulled", "annulled_juego": "bets on juego annulled",
        "annulled_punto": "bets on punto annulled",
        "count_theirs_pares": "the opponents count their pares", "count_theirs_juego": "the opponents count their juego",
        "count_tira_theirs_pares": "the opponents count the tira and their pares",
        "count_tira_theirs_juego": "the opponents count the tira and their juego",
        "false_void_pares": "the false pares does not count", "false_void_juego": "the false juego does not count",
        "undeclared_void_pares": "the undeclared pares does not count",
        "undeclared_void_juego": "the undeclared juego does not count",
        "partner_counts_pares": "the partner's pares does", "partner_counts_juego": "the partner's juego does",
        "score_tira": "the opponents score the tira (1)",
        "score_two": "the opponents score 2 (the tira and the punto)",
        "tira_besides_juego": "the opponents score the tira besides their juego",
        "ordago_annulled": "the órdago accepted at {o} is annulled with them: the game goes on",
        "reported": "reported only",
        "first_rules": "the first contradiction from esku rules the lance",
        "annulling_rules": "the contradiction of {p}, which annuls the órdago, rules the lance",
        "ordago_decides": "the órdago accepted at {o} decides the game, and only combinations the cards show count in it",
        "flagged": "reported only: no effect beyond the false declaration's",
    },
    "es": {
        "annulled_pares": "se anulan las apuestas a pares", "annulled_juego": "se anulan las apuestas al juego",
        "annulled_punto": "se anulan las apuestas al punto",
        "count_theirs_pares": "los contrarios cobran sus pares", "count_theirs_juego": "los contrarios cobran su juego",
        "count_tira_theirs_pares": "los contrarios cobran la tira y sus pares",
        "count_tira_theirs_juego": "los contrarios cobran la tira y su juego",
        "false_void_pares": "los pares falsos no cuentan", "false_void_juego": "el juego falso no cuenta",
        "undeclared_void_pares": "los pares no declarados no cuentan",
        "undeclared_void_juego": "el juego no declarado no cuenta",
        "partner_counts_pares": "cuentan los pares del compañero", "partner_counts_juego": "cuenta el juego del compañero",
        "score_tira": "los contrarios cobran la tira (1)",
        "score_two": "los contrarios cobran 2 (la tira y el punto)",
        "tira_besides_juego": "los contrarios cobran la tira además de su juego",
        "ordago_annulled": "el órdago aceptado a {o} se anula con ellas: el juego sigue",
        "reported": "solo se anota",
        "first_rules": "manda en el lance la primera contradicción desde la mano",
        "annulling_rules": "manda en el lance la contradicción de {p}, que anula el órdago",
        "ordago_decides": "el órdago aceptado a {o} decide el juego, y en él solo cuenta lo que enseñan las cartas",
        "flagged": "solo se anota: no tiene más efecto que el de la declaración falsa",
    },
    "eu": {
        "annulled_pares": "pareetako apustuak baliogabe", "annulled_juego": "jokoko apustuak baliogabe",
        "annulled_punto": "puntuko apustuak baliogabe",
        "count_theirs_pares": "aurkariek beren pareak kontatzen dituzte",
        "count_theirs_juego": "aurkariek beren jokoa kontatzen dute",
        "count_tira_theirs_pares": "aurkariek tira eta beren pareak kontatzen dituzte",
        "count_tira_theirs_juego": "aurkariek tira eta beren jokoa kontatzen dute",
        "false_void_pares": "pare faltsuek ez dute balio", "false_void_juego": "joko faltsuak ez du balio",
        "undeclared_void_pares": "aitortu gabeko pareek ez dute balio",
        "undeclared_void_juego": "aitortu gabeko jokoak ez du balio",
        "partner_counts_pares": "lagunaren pareek balio dute", "partner_counts_juego": "lagunaren jokoak balio du",
        "score_tira": "aurkariek tira (1) irabazten dute",
        "score_two": "aurkariek 2 irabazten dituzte (tira eta puntua)",
        "tira_besides_juego": "aurkariek tira irabazten dute, beren jokoaz gain",
        "ordago_annulled": "hordagoa ({o}) ere baliogabe: jokoak aurrera jarraitzen du",
        "reported": "jasota soilik",
        "first_rules": "eskutik lehen kontraesanak erabakitzen du",
        "annulling_rules": "{p} jokalariaren kontraesanak erabakitzen du, hordagoa baliogabetzen baitu",
        "ordago_decides": "hordagoak ({o}) erabakitzen du jokoa, eta kartek erakusten dutenak bakarrik balio du",
        "flagged": "jasota soilik: aitorpen faltsuarenaz gain ez du ondoriorik",
    },
    "fr": {
        "annulled_pares": "paris aux paires annulés", "annulled_juego": "paris au jeu annulés",
        "annulled_punto": "paris au point annulés",
        "count_theirs_pares": "les adversaires comptent leurs paires",
        "count_theirs_juego": "les adversaires comptent leur jeu",
        "count_tira_theirs_pares": "les adversaires comptent la tira et leurs paires",
        "count_tira_theirs_juego": "les adversaires comptent la tira et leur jeu",
        "false_void_pares": "les fausses paires ne comptent pas", "false_void_juego": "le faux jeu ne compte pas",
        "undeclared_void_pares": "les paires non annoncées ne comptent pas",
        "undeclared_void_juego": "le jeu non annoncé ne compte pas",
        "partner_counts_pares": "celles du partenaire comptent", "partner_counts_juego": "celui du partenaire compte",
        "score_tira": "les adversaires marquent la tira (1)",
        "score_two": "les adversaires marquent 2 (la tira et le point)",
        "tira_besides_juego": "les adversaires marquent la tira en plus de leur jeu",
        "ordago_annulled": "l'hordago accepté ({o}) est annulé avec eux : le jeu continue",
        "reported": "simplement signalé",
        "first_rules": "la première contradiction depuis l'esku fait foi",
        "annulling_rules": "la contradiction commise par {p}, qui annule l'hordago, fait foi",
        "ordago_decides": "l'hordago accepté ({o}) décide du jeu, et seules les combinaisons montrées y comptent",
        "flagged": "simplement signalé : pas d'autre effet que celui de la fausse annonce",
    },
}
_EFFECT_WORDS["fr"] = {key: french_spacing(text) for key, text in _EFFECT_WORDS["fr"].items()}

# Figures as players name them (rank 10 sota, 11 caballo, 12 rey; Basque sota, zaldia,
# errege; French valet, cavalier, roi).
_FIGURES = {"en": "SCR", "es": "SCR", "eu": "SZE", "fr": "VCR"}

_LANCES = ("grande", "chica", "pares", "juego", "punto")


def words(lang: str) -> dict[str, str]:
    """The word table of a language; `ValueError` for an unknown one."""
    try:
        return _WORDS[lang]
    except KeyError:
        raise ValueError(f"lang: {said(lang)} is not one of {', '.join(LANGS)}") from None


def effect_words(lang: str) -> dict[str, str]:
    """What a dispute did, one sentence per fact of its `effect`, in `lang` (`ValueError`
    for an unknown language)."""
    words(lang)
    return _EFFECT_WORDS[lang]


# How a dispute's `rule` is read: its rulebooks' articles, the app's ruling, one rule over another.
_RULE_REF = re.compile(r"seed (\d{3}) art\. (\w+)", re.ASCII)
_RULE_APP = re.compile(r"engine ruling \(as (.+)\)", re.ASCII)
_RULE_OVER = ", over "


def grammar() -> dict[str, Any]:
    """How a dispute is read, for another reader of the same words (the table page's
    script, web/static/dispute.js, with the word tables in the page's strings): the lances
    named in words, the patterns of a `rule` (`rule_ref` anywhere, `rule_app` whole, then
    `rule_over` splitting it) and each clause of an `effect` with the key of its fact
    (`{l}` filled from the match). Python's syntax, with ASCII classes (`\\d`, `\\w`), as a
    browser reads them once `(?P<name>` is `(?<name>`; `rule_app` and the effects match a
    whole text."""
    return {
        "lances": list(_LANCES),
        "rule_ref": _RULE_REF.pattern,
        "rule_app": _RULE_APP.pattern,
        "rule_over": _RULE_OVER,
        "effects": [[pattern, key] for pattern, key in _EFFECT_FACTS],
    }


def rule_text(rule: str, lang: str = "en") -> str:
    """A dispute's `rule` as players read it: "seed 002 art. 16, seed 004 art. 14" names the
    rulebooks ("Euskal Herria championship rules art. 16; club rules art. 14"),
    "engine ruling (as X)" and "X, over Y" are said in `lang`; anything else is kept as given."""
    w = words(lang)

    def refs(text: str) -> str:
        def book(m: re.Match[str]) -> str:
            name = w.get(f"rule_book_{m.group(1)}")
            return w["rule_art"].format(b=name, n=m.group(2)) if name else m.group(0)
        return _RULE_REF.sub(book, text.replace(", seed ", f"{w['semicolon']}seed "))

    if not isinstance(rule, str):
        return str(rule)
    m = _RULE_APP.fullmatch(rule)
    if m:
        return w["rule_app"].format(r=refs(m.group(1)))
    first, sep, over = rule.partition(_RULE_OVER)
    if sep:
        return w["rule_over"].format(r=refs(first), o=refs(over))
    return refs(rule)


def amarrakos_words(stones: int, lang: str = "en") -> str:
    """23 -> "4 amarrakos 3"; 10 -> "2 amarrakos"; 3 -> "3" (French: "4 hamarrekos et 3 pierres",
    one stone as `amarr_stone` where a language has it: "1 hamarreko et 1 pierre")."""
    w = words(lang)
    a, s = divmod(stones, 5)
    if a == 0:
        return w["stones"].format(s=s) if s else w["zero"]
    am = w["amarrako"] if a == 1 else w["amarrakos"].format(a=a)
    if not s:
        return am
    return w["amarr_stone" if s == 1 else "amarr_stones"].format(a=am, s=s)


def format_score(score: Sequence[int]) -> str:
    """[18, 37] -> "18–37"."""
    return f"{score[0]}–{score[1]}"


# -- describing cards (display only; the values come from the engine's evaluation) -------

def _effective(rank: int, kings: int) -> int:
    """The rank a card shows as: with 8 kings a 3 is a rey and a 2 an as."""
    return {3: 12, 2: 1}.get(rank, rank) if kings == 8 else rank


def _show(rank: int, lang: str) -> str:
    return _FIGURES[lang][rank - 10] if rank >= 10 else str(rank)


def _ranks(cards: Sequence[str], kings: int) -> list[int]:
    """The ranks as played, high to low."""
    return sorted((_effective(Card.parse(c).rank, kings) for c in cards), reverse=True)


def _cards_text(cards: Sequence[str], kings: int, lang: str, low_first: bool = False) -> str:
    """"R-R-5-1" (or low to high for chica)."""
    ranks = _ranks(cards, kings)
    return "-".join(_show(r, lang) for r in (ranks[::-1] if low_first else ranks))


def _value(cards: Sequence[str], kings: int) -> HandValue:
    return evaluate([Card.parse(c) for c in cards], kings)


def _pares(cards: Sequence[str], kings: int, lang: str) -> str | None:
    """"pareja R-R", "medias 7-7-7", "duples R-R-C-C" (the higher pair first), or None."""
    kind = _value(cards, kings).pares_kind
    if not kind:
        return None
    ranks = _ranks(cards, kings)
    paired = [r for r in ranks if ranks.count(r) >= 2]  # high to low, so duples show the higher pair first
    return words(lang)[PARES_NAMES[kind]].format(x="-".join(_show(r, lang) for r in paired))


def _what(lance: str, cards: Sequence[str], kings: int, lang: str) -> str:
    """What a hand shows for a lance: its cards, its pares, or its points."""
    if lance in ("grande", "chica"):
        return _cards_text(cards, kings, lang, low_first=lance == "chica")
    if lance == "pares":
        return _pares(cards, kings, lang) or _cards_text(cards, kings, lang)
    return str(_value(cards, kings).points)


def _holds(claim: str, cards: Sequence[str], kings: int) -> bool:
    """Whether the cards hold pares (or juego)."""
    value = _value(cards, kings)
    return bool(value.pares_kind if claim == "pares" else value.juego)


# -- the count ------------------------------------------------------------------------------

def _bets_text(actions: Sequence[dict[str, Any]], lang: str) -> str:
    w = words(lang)
    said: list[str] = []
    for a in actions:
        act = a.get("act")
        if act == "paso":
            continue
        if act == "envido":
            n = a.get("n", 2)
            said.append(w["envido"] if n == 2 else w["envido_n"].format(n=n))
        elif act == "mas":
            said.append(w["mas"].format(n=a.get("n", 2)))
        elif act in ("ordago", "quiero", "no_quiero"):
            if not (said and said[-1] == w[act] and act == "no_quiero"):  # both partners refusing: one refusal
                said.append(w[act])
    return ", ".join(said) if said else w["all_passed"]


def _team_name(team: int, players: Sequence[str], teams: Sequence[str] | None, lang: str) -> str:
    if teams:
        return teams[team]
    return f"{players[team]} {words(lang)['and']} {players[team + 2]}"


def explain(
    settlement: dict[str, Any],
    record: dict[str, Any],
    players: Sequence[str] | None = None,
    lang: str = "en",
    teams: Sequence[str] | None = None,
) -> list[str]:
    """The count of one hand in words, one line per event.

    `settlement` is what `settle(record)` returned; `players` names the four seats
    (default "seat 0".."seat 3" in the language); `teams` (optional) names the teams,
    else each team is named by its two players. Lines: the cards shown, every deje and
    every count in the order they scored (an accepted órdago among them), the cards not
    shown (what needed them was not counted), the end of the game, adentro, and each dispute.
    """
    w = words(lang)
    c = w["colon"]  # ": ", in French " : " with a no-break space
    if not players:
        players = [w["seat"].format(n=s) for s in range(4)]
    if len(players) != 4 or (teams is not None and len(teams) != 2):
        raise ValueError(f"players: {said(list(players))} are not four names (or teams: {said(teams)} not two)")
    rules = record.get("rules") or {}
    kings = rules.get("kings", 8)
    target = rules.get("target", 40)
    hands = record.get("hands") or [None] * 4
    bets = record.get("bets") or {}
    lances = settlement.get("lances") or {}
    lines: list[str] = []

    shown = [f"{players[s]} {_cards_text(h, kings, lang)}" for s, h in enumerate(hands) if h]
    if shown:
        lines.append(f"{w['cards']}{c}" + ", ".join(shown))

    def tname(team: int) -> str:
        return _team_name(team, players, teams, lang)

    def tail(event: dict[str, Any]) -> str:
        score = event.get("score") or settlement.get("score") or [0, 0]
        team = event.get("team")
        # the stones as amarrakos where there is one (5 stones) or more: "(2)" would only say the score again
        amarr = f" ({amarrakos_words(score[team], lang)})" if team in (0, 1) and score[team] >= 5 else ""
        return f"+{event.get('stones', 0)} → {format_score(score)}{amarr}"

    def winner_with(lance: str, info: dict[str, Any]) -> str | None:
        best = info.get("best")
        if best is None or not hands[best]:
            return None
        return w["wins_with"].format(p=players[best], x=_what(lance, hands[best], kings, lang))

    def held(lance: str, team: int) -> list[str]:
        """"Ane pareja R-R" for each player of `team` holding pares (or juego)."""
        return [f"{players[s]} {_what(lance, hands[s], kings, lang)}" for s in (team, team + 2)
                if hands[s] and _holds(lance, hands[s], kings)]

    def holders(lance: str, team: int) -> str:
        return ", ".join(held(lance, team))

    def ordago_body(lance: str, info: dict[str, Any], team: int) -> str:
        best = info.get("best")
        if best is not None and hands[best]:
            return w["ordago_won"].format(p=players[best], x=_what(lance, hands[best], kings, lang), t=tname(team))
        return w["ordago_won_team"].format(t=tname(team))

    ordago = None
    if settlement.get("ordago"):
        ordago = next((lance for lance in _LANCES if (lances.get(lance) or {}).get("status") == "accepted"
                       and any(a.get("act") == "ordago" for a in bets.get(lance) or [])), None)

    seen: set[str] = set()
    for event in settlement.get("events") or []:
        lance = event.get("lance", "")
        info = lances.get(lance) or {}
        status = info.get("status")
        team = event.get("team")
        head = w.get(lance, lance.capitalize())
        bets_said = _bets_text(bets.get(lance) or [], lang)
        why = str(event.get("why", ""))
        first = lance not in seen
        seen.add(lance)
        with_holders = lance in ("pares", "juego") and (hands[team] or hands[team + 2])
        if why.startswith("deje") or (status == "refused" and first and lance in bets):
            body = f"{bets_said}{c}{w['deje'].format(t=tname(team))}"
        elif why.startswith(("false ", "undeclared ")):  # a declaration the cards contradict
            detail = why.partition("): ")[2]  # "tira 1, seat 1 medias, seat 3 pareja"
            tira = re.search(r"\btira (\d+)", detail)
            if why.startswith("undeclared ") and tira:
                body = w["tira_for"].format(n=tira.group(1), t=tname(team))
            else:
                body = w["annulled"].format(t=tname(team))
                parts = [f"tira {tira.group(1)}"] if tira else []
                if with_holders and "seat" in detail:
                    parts.append(holders(lance, team))
                if parts:
                    body += c + ", ".join(parts)
        elif lance == ordago:
            body = f"{bets_said}{c}{ordago_body(lance, info, team)}"
        elif status == "accepted":
            body = f"{bets_said}{c}" + (winner_with(lance, info) or w["scores"].format(t=tname(team)))
            stake = info.get("stake", 0)
            bonus = event.get("stones", 0) - stake
            if lance in ("pares", "juego") and bonus > 0 and stake:
                body += f", {w['stake_bonus'].format(s=stake, b=bonus)} ({holders(lance, team)})"
        elif status == "uncontested":
            body = w["only_team"].format(t=tname(team), l=w[lance].lower())
            if with_holders:
                body += f"{c}{holders(lance, team)}"
        elif status == "refused" and lance == "punto":
            body = w["punto_refused"].format(t=tname(team))
        elif status == "refused":
            body = w["refused_bonus"].format(t=tname(team))
            if with_holders:
                body += f"{c}{holders(lance, team)}"
        else:  # all passed
            body = f"{w['all_passed']}{c}" + (winner_with(lance, info) or w["scores"].format(t=tname(team)))
            if with_holders and len(held(lance, team)) > 1:  # the partner's bonus counts too
                body += f" ({holders(lance, team)})"
        lines.append(f"{head}{c}{body}, {tail(event)}")

    if ordago is not None and ordago not in seen and settlement.get("winner") in (0, 1):
        lines.append(f"{w[ordago]}{c}{_bets_text(bets.get(ordago) or [], lang)}{c}"
                     f"{ordago_body(ordago, lances[ordago], settlement['winner'])}")

    hidden = [players[s] for s in range(4) if s >= len(hands) or not hands[s]]
    if len(hidden) == 4:  # nothing but what was settled at the table (dejes) could count
        lines.append(w["cards_hidden"])
    elif hidden:
        lines.append(w["cards_some_hidden"].format(p=", ".join(hidden)))

    score = settlement.get("score") or [0, 0]
    if settlement.get("game_over") and settlement.get("winner") in (0, 1):
        lines.append(w["game_over"].format(t=tname(settlement["winner"]), score=format_score(score)))
    if not settlement.get("game_over"):  # once the game is over, nobody is adentro any more
        adentro = settlement.get("adentro") or [s >= target - 5 for s in score]
        lines.extend(w["adentro"].format(t=tname(t), s=score[t]) for t in (0, 1) if adentro[t])
    for dispute in settlement.get("disputes") or []:
        lines.append(f"{w['dispute']}{c}{dispute_text(dispute, players, lang)}")
    return lines


def _name(players: Sequence[str], seat: Any) -> str:
    """The name of seat `seat` (a whole number from 0), or "?"."""
    ok = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players)
    return str(players[seat]) if ok else "?"


def dispute_text(dispute: Any, players: Sequence[str], lang: str = "en") -> str:
    """A dispute (HAND-RECORD.md: seat, lance, kind, rule, effect) in a sentence in `lang`:
    who said or held what, the rule applied (`rule_text`) and what it did (its `effect`,
    fact by fact). Its one composition in Python: the count in words (`explain`, the CLI)
    and the pages say it so; the table page's script (web/static/dispute.js) says it word
    for word the same from the same tables (`words`, `effect_words`) and `grammar()`.

    A kind without words, in a lance, is `dispute_other` ("a contradiction with the
    cards"); without a lance, the dispute's `message` or kind as given."""
    if not isinstance(dispute, dict):
        return str(dispute)
    w = words(lang)
    c = w["colon"]  # ": ", in French " : " with a no-break space
    lance, kind = dispute.get("lance"), dispute.get("kind")
    who = _name(players, dispute.get("seat"))
    if lance in _LANCES:
        # a lance's own words first, where its grammar asks for them (pares are plural)
        keys = (f"dispute_{kind}_{lance}", f"dispute_{kind}") if isinstance(kind, str) else ()
        key = next((k for k in keys if k in w), "dispute_other")
        text = w[key].format(p=who, l=w[lance].lower())
    else:
        text = f"{who}{c}{dispute.get('message') or kind or ''}".rstrip(f": {NBSP}")
    if dispute.get("rule"):
        text += f" ({rule_text(dispute['rule'], lang)})"
    effect = _effect_text(dispute.get("effect"), players, lang)
    if effect:
        text += f"{c}{effect}"
    return text


def _effect_facts(effect: Any) -> list[tuple[str, dict[str, str]]] | None:
    """The facts of a dispute's `effect` (settle.py's English clauses): `(key, fields)`
    for each clause, or None where a clause is not one the engine says."""
    if not isinstance(effect, str) or not effect.strip():
        return None
    facts = []
    for clause in effect.split("; "):
        for pattern, key in _EFFECT_FACTS:
            m = re.fullmatch(pattern, clause.strip(), re.ASCII)
            if m:
                fields = {k: v for k, v in m.groupdict().items() if v is not None}
                facts.append((key.format(**fields), fields))
                break
        else:
            return None
    return facts


def _effect_text(effect: Any, players: Sequence[str], lang: str) -> str:
    """What a dispute did, in the reader's language: built from the facts of its `effect`.
    An effect this does not know (not the engine's) is said as given in English only."""
    facts = _effect_facts(effect)
    if facts is None:
        return effect if lang == "en" and isinstance(effect, str) else ""
    w, table = words(lang), _EFFECT_WORDS[lang]
    said = []
    for key, fields in facts:
        lance = fields.get("o")
        said.append(table[key].format(o=w[lance].lower() if lance in _LANCES else lance or "",
                                      p=_name(players, int(fields["s"])) if "s" in fields else ""))
    return w["semicolon"].join(said)
