"""Betting as a log of actions: turn order, answers, raises, dejes, phases (RULES.md "Betting inside a lance")."""

from __future__ import annotations

import pytest

from scorer.engine import IllegalError, LiveHand, MalformedError, Rules, settle

HANDS = [["12o", "12c", "1e", "4b"], ["11o", "11c", "5e", "6b"], ["7o", "6c", "5o", "4o"], ["10o", "1c", "2e", "4c"]]


def start(esku: int = 0, score: tuple[int, int] = (0, 0), **rules) -> LiveHand:
    return LiveHand.start(Rules(**rules), esku, score)


def act(hand: LiveHand, *steps) -> LiveHand:
    """Apply steps for whoever is to speak: `"paso"`, `("envido", 3)`, `("mas", 4)`, `"ordago"`..."""
    for step in steps:
        name, n = (step, None) if isinstance(step, str) else step
        action = {"seat": hand.to_speak, "act": name} | ({"n": n} if n is not None else {})
        hand = hand.apply(action)
    return hand


def refuse(hand: LiveHand, lance: str = "grande") -> LiveHand:
    """The facing team refuses: the first to answer says no quiero, for the team."""
    hand = act(hand, "no_quiero")
    assert hand.phase != lance
    return hand


# (text verbatim, steps, outcome, stones): RULES.md first, then the seeds' own words.
WORKED = [
    # RULES.md, "Betting inside a lance" (seed 004 art. 17 and seed 002 art. 22)
    ("envido–no quiero = 1", ["envido"], "refused", 1),
    ("envido–quiero = 2", ["envido", "quiero"], "accepted", 2),
    ("órdago–no quiero = 1", ["ordago"], "refused", 1),
    ("envido 3–no quiero = 1", [("envido", 3)], "refused", 1),
    ("envido 3–quiero = 3", [("envido", 3), "quiero"], "accepted", 3),
    ("envido, 4 more, no quiero = 2", ["envido", ("mas", 4)], "refused", 2),
    ("envido, 2 more, órdago, no quiero = 4", ["envido", ("mas", 2), "ordago"], "refused", 4),
    ("envido 3, 4 more, quiero = 7", [("envido", 3), ("mas", 4), "quiero"], "accepted", 7),
    ("envido, 5 more, 2 more, no quiero = 7", ["envido", ("mas", 5), ("mas", 2)], "refused", 7),
    ("Seed 002 art. 22: envido, 4 more, 3 more refused = 6", ["envido", ("mas", 4), ("mas", 3)], "refused", 6),
    # seed 004 art. 17, "Relances (exemples)"
    ("Embido (2 points) - Tira = 1 point", ["envido"], "refused", 1),
    ("Embido (2 points) - Iduki = 2 points", ["envido", "quiero"], "accepted", 2),
    ("Hordago - Tira = 1 point", ["ordago"], "refused", 1),
    ("Hiru Embido (3 points) - Tira = 1 point", [("envido", 3)], "refused", 1),
    ("Hiru Embido (3 points) – Iduki  = 3 points", [("envido", 3), "quiero"], "accepted", 3),
    ("Embido (2 points) Lau gehiago (+ 4) - Tira = 2 points", ["envido", ("mas", 4)], "refused", 2),
    ("Embido ( 2 points) – Bigehiago( +2 ) – Hordago - Tira = 4 points", ["envido", ("mas", 2), "ordago"],
     "refused", 4),
    ("Hiru Embido (3 points) Lau gehiago (+ 4) Iduki = 7 points", [("envido", 3), ("mas", 4), "quiero"],
     "accepted", 7),
    ("Embido (2 points) Bortz gehiago (+ 5) Bigehiago (+2) Tira = 7 points", ["envido", ("mas", 5), ("mas", 2)],
     "refused", 7),
    # seed 002 art. 22, "Quelques exemples"
    ("Enbido tapé, laissé par l'adversaire =1 ttantto", ["envido"], "refused", 1),
    ("Enbido tapé, tenu par l'anniversaire = 2 ttantos.", ["envido", "quiero"], "accepted", 2),
    ("3 engagés, laissé par l'adversaire = 1 ttantto.", [("envido", 3)], "refused", 1),
    ("3 engagés, tenu par l'adversaire = 3 ttantos.", [("envido", 3), "quiero"], "accepted", 3),
    ("Enbido tapé, 4 renchérés par l'adversaire et laissé =2 ttantos", ["envido", ("mas", 4)], "refused", 2),
    ("Enbido tapé, 4 renchérés par l'adversaire et tenu = 6 ttantos", ["envido", ("mas", 4), "quiero"],
     "accepted", 6),
    ("Enbido tapé, 4 renchérés par l'adversaire et 3 de plus refusé par l'adversaire = 6 ttantos.",
     ["envido", ("mas", 4), ("mas", 3)], "refused", 6),
]


@pytest.mark.parametrize("text,steps,outcome,stones", WORKED, ids=[w[0] for w in WORKED])
def test_worked_examples(text, steps, outcome, stones):
    hand = act(start(), *steps)
    bets = [s for s in steps if s != "quiero"]  # seats 0, 1, 2... in turn: the teams alternate
    if outcome == "refused":
        hand = refuse(hand)
        assert hand.events[-1]["stones"] == stones
        assert hand.events[-1]["team"] == (len(bets) - 1) % 2  # the deje goes to the last bet's team
        assert hand.events[-1]["why"].startswith("deje: ")
        assert sum(hand.score) == stones
    assert hand.phase == "chica"
    hand = act(hand, "paso", "paso", "paso", "paso")
    settled = settle(hand.to_record(HANDS))
    grande = settled["lances"]["grande"]
    assert (grande["status"], grande["stake"]) == (outcome, stones)
    assert grande["stones"] == stones
    # accepted, the stake goes to the best grande (seat 0's reyes); refused, to the bettors
    assert grande["team"] == (0 if outcome == "accepted" else (len(bets) - 1) % 2)


def test_speaking_order_from_esku_counterclockwise():
    hand = start(esku=2)
    seen = []
    for _ in range(4):
        seen.append(hand.to_speak)
        hand = act(hand, "paso")
    assert seen == [2, 3, 0, 1]
    assert hand.phase == "chica" and hand.to_speak == 2


def test_paso_before_a_bet_keeps_a_player_in():
    hand = act(start(), "paso", "envido")  # seat 0 passed, seat 1 bets
    assert hand.to_speak == 2
    hand = act(hand, "paso")  # for its part
    assert hand.to_speak == 0  # seat 0 passed before the bet and still answers
    hand = act(hand, "quiero")
    assert hand.phase == "chica"


def test_first_partner_to_answer_decides_when_accepting():
    hand = act(start(), "envido", "quiero")  # seat 1 accepts for team 1
    assert hand.phase == "chica"


def test_first_partner_to_answer_decides_when_raising():
    hand = act(start(), "envido", ("mas", 2))  # seat 1 raises; seat 3 does not speak
    assert hand.to_speak == 2  # team 0 answers, from the seat after the raiser


def test_a_refusal_binds_the_partner():
    """RULES.md "Betting inside a lance": "a refusal takes both partners". Seed 004 art. 10:
    "Les mots Tira, Iduki ou Hordago bloquent le jeu et le partenaire de celui qui les prononce
    ne peut les désavouer, même s'il est « Esku »." The bet is refused at once: the deje is
    paid and the next lance begins."""
    hand = act(start(score=(3, 5)), "envido", "no_quiero")  # seat 1 refuses; seat 3 is not asked
    assert hand.phase == "chica" and hand.to_speak == 0
    assert hand.score == (4, 5) and hand.state.done[-1].status == "refused"
    assert hand.legal()[0] == {"seat": 0, "act": "paso"}  # nothing more in grande: chica's opening


def test_paso_facing_a_bet_is_for_my_part_and_the_partner_may_accept():
    """Seed 004 art. 10: "On admet aussi bien « Nere gatik tira » que « Tira nere gatik » ou
    « Pour moi tirez » qui laisse au partenaire le droit de surenchérir." RULES.md: "a player
    who passes after a bet is out of that lance"."""
    hand = act(start(), "envido", "paso")  # seat 1: for my part
    assert hand.phase == "grande" and hand.to_speak == 3
    hand = act(hand, "quiero")
    assert hand.phase == "chica" and hand.score == (0, 0)
    assert hand.state.done[-1].status == "accepted" and hand.state.done[-1].out == frozenset({1})


def test_paso_for_my_part_then_the_partner_raises_and_the_one_who_passed_is_out():
    hand = act(start(), "paso", "envido", "paso")  # seat 2 passes for its part; seat 0 still answers
    hand = act(hand, ("mas", 2))  # seat 0 raises
    assert hand.to_speak == 1
    hand = act(hand, ("mas", 2))  # seat 1 raises back: only seat 0 is left to answer for team 0
    assert hand.to_speak == 0
    assert {"seat": 0, "act": "paso"} not in hand.legal()  # nobody left after seat 0
    with pytest.raises(IllegalError, match="passed facing a bet .* and is out"):
        hand.check({"seat": 2, "act": "quiero"})
    hand = refuse(hand)
    assert hand.events[-1]["stones"] == 4 and hand.score == (0, 4)


def test_paso_for_my_part_by_both_partners_refuses_the_bet():
    hand = act(start(), "envido", "paso", "paso")
    assert hand.phase == "chica" and hand.score == (1, 0)


def test_the_partners_echo_of_a_refusal_is_accepted_and_changes_nothing():
    """HAND-RECORD.md's example records pares [0 envido, 1 no_quiero, 3 no_quiero]: the
    second refusal repeats the team's (seed 004 art. 10), so it is accepted, never offered."""
    refused = act(start(score=(3, 5)), "envido", "no_quiero")
    assert {"seat": 3, "act": "no_quiero"} not in refused.legal()
    echoed = refused.apply({"seat": 3, "act": "no_quiero"})
    assert echoed.state.phase == "chica" and echoed.to_speak == 0 and echoed.score == (4, 5)
    assert echoed.events == refused.events
    assert echoed.to_record()["bets"]["grande"] == [
        {"seat": 0, "act": "envido", "n": 2}, {"seat": 1, "act": "no_quiero"}, {"seat": 3, "act": "no_quiero"}]
    assert echoed.undo() == refused
    assert LiveHand.replay(Rules(), 0, (3, 5), list(echoed.log)) == echoed
    # only right after the refusal: once chica is under way, seat 3's no_quiero is out of turn
    with pytest.raises(IllegalError):
        act(refused, "paso").check({"seat": 3, "act": "no_quiero"})


@pytest.mark.parametrize("answer", [{"act": "quiero"}, {"act": "mas", "n": 2}, {"act": "ordago"}])
def test_the_partner_may_not_accept_or_raise_after_a_refusal(answer):
    """Seed 004 art. 10: the partner of whoever says « Tira » "ne peut les désavouer"."""
    hand = act(start(), "envido", "no_quiero")
    with pytest.raises(IllegalError) as err:
        hand.check({"seat": 3, **answer})
    assert err.value.field == "act"
    message = str(err.value)
    assert "seat 1, refused the bet in grande and a refusal binds the team" in message
    assert "seed 004 art. 10" in message and "ne peut les désavouer" in message and 'say "paso"' in message


def test_a_refusal_pays_the_deje_at_once():
    hand = refuse(act(start(score=(3, 5)), "envido"))
    assert hand.score == (4, 5)
    assert hand.events == [{"lance": "grande", "team": 0, "stones": 1, "why": "deje: envido refused",
                            "score": [4, 5]}]


def test_action_out_of_turn_is_refused_with_field_seat():
    hand = start()
    with pytest.raises(IllegalError) as err:
        hand.check({"seat": 1, "act": "paso"})
    assert err.value.field == "seat"
    assert "out of turn" in str(err.value)


@pytest.mark.parametrize("action,match", [
    ({"act": "mas", "n": 2}, "no bet has been made"),
    ({"act": "quiero"}, "no bet to answer"),
    ({"act": "no_quiero"}, "no bet to answer"),
])
def test_answers_and_raises_need_a_bet(action, match):
    with pytest.raises(IllegalError, match=match):
        start().check({"seat": 0} | action)


def test_envido_facing_a_bet_is_refused():
    with pytest.raises(IllegalError, match='raise it with "mas"'):
        act(start(), "envido").check({"seat": 1, "act": "envido"})


def test_an_ordago_cannot_be_raised():
    hand = act(start(), "ordago")
    for bad in ({"seat": 1, "act": "mas", "n": 2}, {"seat": 1, "act": "ordago"}):
        with pytest.raises(IllegalError, match="ordago is answered"):
            hand.check(bad)


@pytest.mark.parametrize("action,field", [
    ({"seat": 0, "act": "bet"}, "act"),
    ({"seat": 4, "act": "paso"}, "seat"),
    ({"seat": True, "act": "paso"}, "seat"),
    ({"act": "paso"}, "seat"),
    ({"seat": 0, "act": "envido", "n": 1}, "n"),
    ({"seat": 0, "act": "envido", "n": "2"}, "n"),
    ({"seat": 0, "act": "envido", "n": True}, "n"),
    ({"seat": 0, "act": "envido", "n": 1001}, "n"),
    ({"seat": 0, "act": "envido", "n": 10**30}, "n"),
    ({"seat": 0, "act": "envido", "n": 10**5000}, "n"),
    ({"seat": 0, "act": "paso", "n": 2}, "n"),
    ({"seat": 0, "act": "paso", "who": 1}, "who"),
    ({"seat": 0, "act": "declare"}, "act"),
    ("paso", ""),
])
def test_malformed_actions(action, field):
    with pytest.raises(MalformedError) as err:
        start().check(action)
    assert err.value.field == field


def test_a_bet_is_at_most_a_thousand_stones_and_a_huge_one_is_quoted_short():
    assert start().apply({"seat": 0, "act": "envido", "n": 1000}).log[-1]["n"] == 1000
    with pytest.raises(MalformedError, match=r"^n: 1000000000000000000000000000000 is not a whole number of stones "
                                             r"from 2 to 1000"):
        start().check({"seat": 0, "act": "envido", "n": 10**30})
    with pytest.raises(MalformedError) as err:
        start().check({"seat": 0, "act": "mas", "n": int("7" * 200)})
    assert len(str(err.value)) < 200


def test_check_does_not_change_the_hand():
    hand = start()
    hand.check({"seat": 0, "act": "envido", "n": 3})
    assert hand.log == () and hand.to_speak == 0


def _check_accepts(hand: LiveHand, action: object) -> bool:
    try:
        hand.check(action)
    except (MalformedError, IllegalError):
        return False
    return True


def test_is_legal_is_what_check_accepts_beyond_what_legal_lists():
    """`legal()` lists envido 2, 3, 5 and mas 2 only, and never the partner's echoed
    no_quiero: `action in hand.legal()` is no legality test; `is_legal` is."""
    hand = start()
    for n in (2, 4, 7, 1000):  # every size from 2 up, though legal() offers 2, 3 and 5
        assert hand.is_legal({"seat": 0, "act": "envido", "n": n})
    assert {"seat": 0, "act": "envido", "n": 4} not in hand.legal()
    bet = act(hand, "envido")
    assert bet.is_legal({"seat": 1, "act": "mas", "n": 9}) and {"seat": 1, "act": "mas", "n": 9} not in bet.legal()
    refused = act(bet, "no_quiero")
    echo = {"seat": 3, "act": "no_quiero"}
    assert refused.is_legal(echo) and echo not in refused.legal()
    for action in (
        {"seat": 1, "act": "paso"},  # out of turn
        {"seat": 0, "act": "quiero"},  # no bet to answer
        {"seat": 0, "act": "envido", "n": 1},  # too small
        {"seat": 0, "act": "envido", "n": 10**5000},  # too long to print
        {"seat": True, "act": "paso"}, {"seat": 0, "act": "bet"}, {"act": "paso"}, "paso", None, [],
    ):
        assert not hand.is_legal(action), action
    assert refused.is_legal({"seat": 3, "act": "quiero"}) is False  # a refusal binds the team
    # is_legal agrees with check everywhere, and neither changes the hand
    for h in (hand, bet, refused, act(refused, "paso", "paso", "paso", "paso")):
        words = [{"seat": s, "act": a} for s in range(4) for a in ("paso", "quiero", "no_quiero", "ordago")]
        for action in [*h.legal(), *words]:
            assert h.is_legal(action) is _check_accepts(h, action), action
    assert hand.log == () and hand.to_speak == 0


def test_legal_actions():
    hand = start()
    assert hand.legal() == [
        {"seat": 0, "act": "paso"}, {"seat": 0, "act": "envido", "n": 2}, {"seat": 0, "act": "envido", "n": 3},
        {"seat": 0, "act": "envido", "n": 5}, {"seat": 0, "act": "ordago"},
    ]
    assert act(hand, "envido").legal() == [
        {"seat": 1, "act": "quiero"}, {"seat": 1, "act": "no_quiero"}, {"seat": 1, "act": "paso"},
        {"seat": 1, "act": "mas", "n": 2}, {"seat": 1, "act": "ordago"},
    ]
    assert act(hand, "ordago").legal() == [
        {"seat": 1, "act": "quiero"}, {"seat": 1, "act": "no_quiero"}, {"seat": 1, "act": "paso"}]
    # the last of the team to answer: no "paso" for its part (it would refuse for the team)
    assert act(hand, "envido", "paso").legal() == [
        {"seat": 3, "act": "quiero"}, {"seat": 3, "act": "no_quiero"}, {"seat": 3, "act": "mas", "n": 2},
        {"seat": 3, "act": "ordago"},
    ]


def test_every_listed_action_is_legal():
    hand = act(start(), "paso", "envido")
    for action in hand.legal():
        hand.check(action)
        hand.apply(action)


def test_any_raise_is_legal():
    hand = act(start(), "envido", ("mas", 17))
    assert hand.state.lance.stake == 19


def test_log_undo_and_replay():
    hand = act(start(esku=1, score=(4, 9)), "paso", "envido", ("mas", 3))
    assert [a["act"] for a in hand.log] == ["paso", "envido", "mas"]
    assert hand.log[1] == {"seat": 2, "act": "envido", "n": 2}
    undone = hand.undo()
    assert undone.log == hand.log[:-1] and undone.to_speak == 3
    again = LiveHand.replay(Rules(), 1, (4, 9), list(hand.log))
    assert again == hand
    assert start().undo() == start()


def test_replay_names_the_bad_action():
    with pytest.raises(IllegalError) as err:
        LiveHand.replay(Rules(), 0, (0, 0), [{"seat": 0, "act": "paso"}, {"seat": 2, "act": "paso"}])
    assert err.value.field == "log[1].seat"
    assert str(err.value).startswith("log[1].seat: ")


def declare(hand: LiveHand, claims: list[bool]) -> LiveHand:
    """Declarations by seat (claims[s] for seat s), made in speaking order."""
    claim = hand.phase.removesuffix("_declare")
    while hand.phase.endswith("_declare") and hand.phase.startswith(claim):
        seat = hand.to_speak
        hand = hand.apply({"seat": seat, "act": "declare", claim: claims[seat]})
    return hand


def through_chica(esku: int = 0) -> LiveHand:
    return act(start(esku=esku), *["paso"] * 8)


def test_declarations_in_speaking_order():
    hand = through_chica(esku=3)
    assert hand.phase == "pares_declare" and hand.to_speak == 3
    assert hand.legal() == [{"seat": 3, "act": "declare", "pares": True}, {"seat": 3, "act": "declare", "pares": False}]
    with pytest.raises(IllegalError, match="out of turn"):
        hand.check({"seat": 0, "act": "declare", "pares": True})
    with pytest.raises(IllegalError, match="declares whether it has pares"):
        hand.check({"seat": 3, "act": "declare", "juego": True})
    with pytest.raises(IllegalError):
        hand.check({"seat": 3, "act": "paso"})


def test_declaring_during_the_betting_is_refused():
    with pytest.raises(IllegalError, match='"declare" during the betting'):
        start().check({"seat": 0, "act": "declare", "pares": True})


def test_pares_bet_only_by_holders_both_teams():
    hand = declare(through_chica(), [True, False, False, True])
    assert hand.phase == "pares" and hand.to_speak == 0
    hand = act(hand, "envido")
    assert hand.to_speak == 3  # seat 1 holds no pares: seat 3 answers


def test_non_holder_may_not_bet_for_the_partner():
    hand = declare(through_chica(), [True, False, False, True])
    with pytest.raises(IllegalError, match="art. 19") as err:
        hand.check({"seat": 2, "act": "envido", "n": 2})
    assert err.value.field == "seat"


def test_pares_held_by_one_team_is_not_bet():
    hand = declare(through_chica(), [True, False, True, False])
    assert hand.phase == "juego_declare"
    assert hand.state.done[-1].status == "uncontested" and hand.state.done[-1].team == 0


def test_nobody_with_pares_skips_the_lance():
    hand = declare(through_chica(), [False] * 4)
    assert hand.phase == "juego_declare" and hand.state.done[-1].status == "not_played"


def test_juego_held_by_one_team_goes_to_showdown():
    hand = declare(declare(through_chica(), [False] * 4), [False, True, False, False])
    assert hand.phase == "showdown" and hand.to_speak is None and hand.legal() == []


def test_juego_held_by_both_teams_is_bet_by_holders():
    hand = declare(declare(through_chica(), [False] * 4), [False, True, True, False])
    assert hand.phase == "juego" and hand.to_speak == 1


def test_punto_when_nobody_has_juego_all_four_bet():
    hand = declare(declare(through_chica(esku=2), [False] * 4), [False] * 4)
    assert hand.phase == "punto" and hand.to_speak == 2
    hand = act(hand, "paso", "paso", "paso", "paso")
    assert hand.phase == "showdown"


def test_no_action_after_the_showdown():
    hand = act(declare(declare(through_chica(), [False] * 4), [False] * 4), *["paso"] * 4)
    with pytest.raises(IllegalError, match="betting is over"):
        hand.check({"seat": 0, "act": "paso"})


def test_a_deje_reaching_the_target_ends_the_game_at_once():
    hand = refuse(act(start(score=(39, 20)), "envido"), "grande")
    assert hand.phase == "over" and hand.game_over and hand.score == (40, 20)
    assert hand.to_speak is None and hand.ordago is None
    with pytest.raises(IllegalError, match="hand is over"):
        hand.check({"seat": 0, "act": "paso"})


def test_an_accepted_ordago_awaits_only_the_cards():
    hand = act(start(), "paso", "ordago", "quiero")
    assert hand.phase == "over" and hand.ordago == "grande" and hand.game_over
    assert hand.to_speak is None


def test_to_record_of_a_live_hand():
    hand = act(start(esku=1, score=(2, 3)), "envido", "quiero", *["paso"] * 4)
    hand = declare(hand, [False, True, True, False])
    hand = act(hand, "paso", "paso")
    record = hand.to_record()
    assert record["esku"] == 1 and record["score"] == [2, 3] and record["hands"] == [None] * 4
    assert record["declared"] == {"pares": [False, True, True, False]}
    assert list(record["bets"]) == ["grande", "chica", "pares"]
    assert record["bets"]["grande"] == [{"seat": 1, "act": "envido", "n": 2}, {"seat": 2, "act": "quiero"}]


def test_paso_after_a_bet_by_the_last_to_answer_refuses_it():
    """Ruling 3: "paso" facing a bet takes the player out of the lance; with nobody of the team
    left to answer, the bet is refused."""
    hand = act(start(), "paso", "paso", "envido", "paso")  # seat 2 bets; seat 3 passes for its part
    assert hand.to_speak == 1
    hand = act(hand, "paso")  # the last of team 1 to answer passes too: refused
    assert hand.phase == "chica" and hand.score == (1, 0)
    assert hand.events[-1]["why"] == "deje: envido refused"


def test_a_mas_without_n_is_refused():
    """HAND-RECORD.md gives a default `n` (2) to `envido` only: "`mas` (raise by `n`)". A
    `mas` without it is refused, live and in a record, naming `n` and quoting the action."""
    hand = act(start(), "envido")
    with pytest.raises(MalformedError) as err:
        hand.apply({"seat": 1, "act": "mas"})
    assert err.value.field == "n"
    assert str(err.value) == ('n: missing in {"seat": 1, "act": "mas"}: "mas" names the stones it raises by '
                              '(only "envido" defaults to 2)')
    assert act(hand, ("mas", 2), "quiero").state.done[0].stake == 4
    record = {"esku": 0, "hands": HANDS,
              "bets": {"grande": [{"seat": 0, "act": "envido"}, {"seat": 1, "act": "mas"}, {"seat": 2, "act": "quiero"}]}}
    with pytest.raises(MalformedError, match=r"^bets\.grande\[1\]\.n: missing in"):
        settle(record)
    record["bets"]["grande"][1]["n"] = 2
    assert settle(record)["lances"]["grande"]["stake"] == 4
    assert act(start(), "paso", "envido").state.lance.stake == 2


def test_to_record_writes_a_hands_rules_only():
    record = start(games_per_vaca=2, vacas_to_win=2, kings=4).to_record()
    assert record["rules"] == {"kings": 4, "target": 40, "real31": False}


def test_to_record_in_a_declaration_round_writes_no_null():
    """Mid-declaration, the seats still to declare are written as their cards hold (what a
    null meant, and what HAND-RECORD.md says a declaration not recorded is: "matched the
    cards"); the declarations made are kept as said."""
    hand = act(start(), *["paso"] * 8)
    hand = hand.apply({"seat": 0, "act": "declare", "pares": False})  # seat 0 holds a pair of reyes
    with_cards = hand.to_record(HANDS)
    assert with_cards["declared"] == {"pares": [False, True, False, True]}  # 1 and 2 are ases
    assert settle(with_cards) == settle({**with_cards, "declared": {"pares": [False, None, None, None]}})
    hidden_declarer = hand.to_record([None, *HANDS[1:]])  # the seat that declared need not be shown
    assert hidden_declarer["declared"] == {"pares": [False, True, False, True]}


@pytest.mark.parametrize("shown,seat", [(None, 1), ([HANDS[0], HANDS[1], None, HANDS[3]], 2),
                                        ([None, None, HANDS[2], HANDS[3]], 1)])
def test_to_record_refuses_a_declaration_round_it_cannot_write(shown, seat):
    """Mid-declaration, a seat still to declare whose cards are not shown cannot be written:
    HAND-RECORD.md has no null for "not said yet", and leaving the round out would lose the
    declarations made and, a missing list meaning "matched the cards", say that a shown seat
    that declared against its cards (seat 0: no pares, holding reyes) declared what they
    hold. `to_record` refuses it as `settle` refuses such a record (`claim_unknown`, the
    first such seat); the live hand's `log` keeps every declaration."""
    hand = act(start(), *["paso"] * 8)
    hand = hand.apply({"seat": 0, "act": "declare", "pares": False})
    with pytest.raises(MalformedError) as err:
        hand.to_record(shown)
    assert err.value.field == f"declared.pares[{seat}]" and err.value.key == "claim_unknown"
    assert err.value.params == {"seat": seat, "lance": "pares"}
    assert str(err.value).startswith(f"declared.pares[{seat}]: seat {seat} has not declared pares yet and its cards "
                                     "are not shown")
    assert hand.log[-1] == {"seat": 0, "act": "declare", "pares": False}
    # once the round is over, every seat's declaration is known: written whatever is shown
    done = hand
    for s, holds in ((1, True), (2, False), (3, True)):
        done = done.apply({"seat": s, "act": "declare", "pares": holds})
    assert done.to_record(shown)["declared"]["pares"] == [False, True, False, True]
