"""Scripted hands of the passing game: each rule of docs/rules.md (Passing Burro), step by step.

The default table (tables.FIVE) is Ludoteka's: five players, A K Q J 7. In hand 1 cards
go to the right (seat i gives to seat i-1), so if everyone passes their odd card, every
seat holds four of a kind after the first pass.
"""

from __future__ import annotations

import pytest

from engine.cuartetos import errors as perr
from engine.cuartetos import events as ev
from engine.cuartetos.game import apply, deadline, legal_actions, new_game, to_move, word
from engine.cuartetos.rules import make_rules
from engine.cuartetos.state import SYSTEM
from engine.cuartetos.views import player_view, public_view
from engine.kernel import errors
from tests.cuartetos.tables import ODD_CARDS, act, deck_for, of, table


def test_everyone_passes_their_odd_card_and_holds_four() -> None:
    game, events = act(table(), *ODD_CARDS)
    assert of(events, ev.CardsPassed) == [ev.CardsPassed(-1, 1)]
    assert game.hand.hands == (
        ("AS", "AH", "AD", "AC"),
        ("KS", "KH", "KD", "KC"),
        ("QS", "QH", "QD", "QC"),
        ("JS", "JH", "JD", "JC"),
        ("7S", "7H", "7D", "7C"),
    )
    received = {e.seat: (e.card, e.giver) for e in of(events, ev.CardReceived)}
    assert received[4] == ("7C", 0) and received[0] == ("AC", 1)  # to the right
    assert game.hand.phase_at == 1_400_000  # choosing reopens at the last choice
    assert deadline(game) == pytest.approx(31.4)


def test_phases_start_at_the_latest_receive_time_seen() -> None:
    """Two servers may apply actions out of receive order: deadlines never go back."""
    game, _ = act(table(), "0:pass:7C@5.0", "1:pass:AC@4.0", "2:pass:KC@3.0", "3:pass:QC@2.0")
    game, _ = act(game, "4:pass:JC@1.0")
    assert game.hand.rotation == 1 and deadline(game) == pytest.approx(35.0)


def test_a_real_call_the_last_by_receive_time_takes_the_letter() -> None:
    game, _ = act(table(), *ODD_CARDS)
    game, events = act(game, "2:burro@2.0")
    assert of(events, ev.Called) == [ev.Called(2, "Burro", 2.0)]
    assert to_move(game) == (0, 1, 3, 4)
    assert legal_actions(game, 0) == ["respond"] and legal_actions(game, 2) == []
    with pytest.raises(perr.CallOpen):
        apply(game, 1, "burro", 2.1)  # only the first call received counts
    with pytest.raises(perr.OwnCall):
        apply(game, 2, "respond", 2.1)
    # Applied in this order, received in another: 1 (2.5), 3 (2.6), 4 (2.7), 0 (2.9).
    game, _ = act(game, "0:respond@2.9", "1:respond@2.5", "4:respond@2.7")
    with pytest.raises(perr.AlreadyResponded):
        apply(game, 0, "respond", 3.0)
    game, events = act(game, "3:respond@2.6")  # the last one in: resolves at once
    assert of(events, ev.CallResolved) == [ev.CallResolved(2, "Burro", (1, 3, 4, 0), (), (0,))]
    assert of(events, ev.LetterGiven) == [ev.LetterGiven(0, 1, "slowest")]
    over = of(events, ev.HandOver)[0]
    assert (over.reason, over.caller, over.out, over.losers) == ("burro", 2, (2, 1, 3, 4), (0,))
    assert over.shown == ("QS", "QH", "QD", "QC")
    assert game.hand_no == 2 and game.standing.letters == (1, 0, 0, 0, 0)
    started = of(events, ev.HandStarted)[0]
    assert started.seat == 4 and started.direction == "clockwise"  # the dealer's right deals
    last = public_view(game).last_hand
    assert last is not None and last.caller == 2 and last.losers == (0,)


def test_window_closes_on_non_responders_and_spares_the_last_responder() -> None:
    game, _ = act(table(), *ODD_CARDS, "2:burro@2.0", "1:respond@2.5", "3:respond@2.8")
    with pytest.raises(perr.TooEarly):
        apply(game, SYSTEM, "close", 11.99)
    with pytest.raises(perr.TooLate):
        apply(game, 0, "respond", 12.000001)
    game, events = act(game, "S:close@12.0")
    assert of(events, ev.CallResolved) == [ev.CallResolved(2, "Burro", (1, 3), (0, 4), (0, 4))]
    assert [(e.seat, e.reason) for e in of(events, ev.LetterGiven)] == [
        (0, "slowest"),
        (4, "slowest"),
    ]
    assert game.past[0].out == (2, 1, 3) and game.past[0].losers == (0, 4)


def test_a_response_right_at_the_deadline_counts() -> None:
    game, _ = act(table(), *ODD_CARDS, "2:burro@2.0", "0:respond@12.0")
    assert game.hand.call is not None and len(game.hand.call.responses) == 1


def test_equal_receive_times_keep_the_order_applied() -> None:
    game, _ = act(table(), *ODD_CARDS, "2:burro@2.0")
    game, _ = act(game, "4:respond@3.0", "1:respond@3.0", "3:respond@3.0", "0:respond@3.0")
    assert game.past[0].out == (2, 4, 1, 3) and game.past[0].losers == (0,)


def test_a_false_call_costs_a_letter_and_the_hand_goes_on() -> None:
    game, events = act(table(), "0:burro@0.5")  # three aces and a seven
    assert of(events, ev.FalseCall) == [ev.FalseCall(0)]
    assert of(events, ev.LetterGiven) == [ev.LetterGiven(0, 1, "false_call")]
    assert game.hand.call is None and game.hand_no == 1
    assert 0 in to_move(game) and "pass:7C" in legal_actions(game, 0)
    game, events = act(game, *ODD_CARDS)
    assert of(events, ev.CardsPassed)


def test_a_fake_call_nobody_falls_for_costs_the_caller() -> None:
    game = table()
    fake = "fake:" + word(game)
    with pytest.raises(perr.WrongWord):
        apply(game, 1, "fake:Burra" if word(game) != "Burra" else "fake:Barro", 1.0)
    game, events = act(game, "0:pass:7C@0.5", f"1:{fake}@1.0")
    assert of(events, ev.Called) == [ev.Called(1, word(game), 1.0)]
    assert deadline(game) == pytest.approx(11.0)
    with pytest.raises(perr.TooEarly):
        apply(game, SYSTEM, "close", 10.5)
    game, events = act(game, "S:close@11.0")
    assert of(events, ev.CallResolved) == [ev.CallResolved(1, word(game), (), (0, 2, 3, 4), (1,))]
    assert of(events, ev.LetterGiven) == [ev.LetterGiven(1, 1, "fake_unanswered")]
    # The hand goes on where it was: seat 0's card stays chosen, the others choose.
    assert to_move(game) == (1, 2, 3, 4) and game.hand.chosen[0] == "7C"
    assert deadline(game) == pytest.approx(41.0)
    assert not any(a.startswith("fake") for a in legal_actions(game, 1))  # one per hand
    with pytest.raises(perr.NoFakeLeft):
        apply(game, 1, "fake", 12.0)


def test_a_fake_call_two_fall_for_costs_them_both() -> None:
    game = table()
    game, _ = act(game, "3:fake@1.0", "0:respond@1.4", "4:respond@1.2")
    game, events = act(game, "S:close@11.0")
    resolved = of(events, ev.CallResolved)[0]
    assert resolved.responders == (4, 0) and resolved.losers == (4, 0)
    assert [(e.seat, e.reason) for e in of(events, ev.LetterGiven)] == [
        (4, "fooled"),
        (0, "fooled"),
    ]
    assert game.standing.letters == (1, 0, 0, 0, 1) and game.standing.fooled == (1, 0, 0, 0, 1)
    assert game.hand_no == 1 and game.hand.call is None


def test_a_fake_call_everyone_falls_for_resolves_at_once() -> None:
    game, _ = act(table(), "3:fake:¡" + word(table()).upper() + "!@1.0")
    assert game.hand.actions[-1][1] == "fake:" + word(game)  # the log keeps one spelling
    game, events = act(game, "0:respond@1.1", "1:respond@1.2", "2:respond@1.3", "4:respond@1.4")
    assert of(events, ev.CallResolved)[0].losers == (0, 1, 2, 4)
    assert game.standing.letters == (1, 1, 1, 0, 1)


def test_fake_calls_per_game() -> None:
    game = table(fakes_per_game=1)
    game, _ = act(game, "3:fake@1.0", "S:close@11.0", *ODD_CARDS)
    game, _ = act(game, "2:burro@42.0", *(f"{s}:respond@43.{s}" for s in (0, 1, 3, 4)))
    assert game.hand_no == 2
    assert all(not a.startswith("fake") for a in legal_actions(game, 3))
    assert any(a.startswith("fake") for a in legal_actions(game, 2))
    assert public_view(game).fakes_left == (1, 1, 1, 0, 1)


def test_fake_words_change_by_rotation_and_follow_the_seed() -> None:
    rules = make_rules("cuartetos")
    words = []
    game = table(seed=5, absent_after=40)
    for k in range(12):
        words.append(word(game))
        assert word(game) in rules.fake_words
        game, _ = act(game, f"S:close@{30.0 * (k + 1)}")
    assert len(set(words)) > 2
    again = table(seed=5)
    assert word(again) == words[0]


def test_an_absent_player_takes_a_letter_then_is_removed() -> None:
    game = table()  # seat 4 never acts: `close` passes a card for them each time
    t = 0.0
    letters = []
    for _ in range(6):
        for seat in (0, 1, 2, 3):
            game, _ = apply(game, seat, "pass:" + game.hand.hands[seat][0], t + 1)
        t = deadline(game) or 0.0
        game, events = apply(game, SYSTEM, "close", t)
        assert [e.auto for e in of(events, ev.CardChosen)] == [True]
        letters += [(e.seat, e.reason) for e in of(events, ev.LetterGiven)]
        if of(events, ev.PlayerRemoved):
            break
    assert letters == [(4, "absent")]
    assert of(events, ev.PlayerRemoved) == [ev.PlayerRemoved(4)]
    assert game.past[-1].end == "removed" and game.past[-1].rotation == 6
    # The game goes on with four players and four ranks (16 cards), seat 4 out.
    assert game.hand.players == (0, 1, 2, 3) and game.standing.removed == (4,)
    assert sorted(c[:-1] for h in game.hand.hands for c in h) == sorted("AKQJ" * 4)
    assert game.hand.hands[4] == () and legal_actions(game, 4) == []
    with pytest.raises(perr.NotPlaying):
        apply(game, 4, "respond", t)


def test_a_player_out_of_time_passes_the_heuristic_card() -> None:
    """`close` chooses for the silent as the heuristic bot would: a card of the rank they
    hold fewest of, so the pair stays; which of two such cards, by the hand's seed."""
    hands = {
        0: "AS AH KD QC",
        1: "KS KH AD AC",
        2: "QS QH QD KC",
        3: "JS JH JD 7C",
        4: "7S 7H 7D JC",
    }
    for seed in range(1, 9):
        _, events = act(table(hands, seed=seed), "1:pass:KS@1.0", "S:close@30.0")
        chosen = {e.seat: e.card for e in of(events, ev.CardChosen) if e.auto}
        assert chosen[0] in ("KD", "QC")  # never one of the aces
        assert (chosen[2], chosen[3], chosen[4]) == ("KC", "7C", "JC")
    seen = {
        {
            e.seat: e.card
            for e in act(table(hands, seed=s), "S:close@30.0")[1]
            if isinstance(e, ev.CardChosen)
        }[0]
        for s in range(1, 30)
    }
    assert seen == {"KD", "QC"}  # the tie goes either way, by the seed


def test_any_action_keeps_a_player_present() -> None:
    game = table(absent_after=2)
    game, _ = act(game, "4:fake@1.0", "S:close@11.0", "S:close@41.0")  # acted: not idle
    assert game.standing.idle[4] == 0 and game.standing.idle[0] == 1
    game, events = act(game, "S:close@71.0")
    assert {e.seat for e in of(events, ev.LetterGiven)} == {0, 1, 2, 3}


def test_below_three_players_the_game_ends() -> None:
    hands = {0: "AS AH AD QC", 1: "KS KH KD AC", 2: "QS QH QD KC"}
    game = table(hands, absent_after=1, remove_after_absences=1)
    game, events = act(game, "0:pass:QC@1.0", "1:pass:AC@1.0", "S:close@30.0")
    assert game.over and game.end == "too_few_players"
    assert game.losers == (2,) and game.winners == (0, 1)
    assert of(events, ev.GameEnded) == [ev.GameEnded(-1, (0, 1), (2,), "too_few_players")]


def test_the_rotation_cap_gives_the_fewest_matching_a_letter() -> None:
    game = table(max_rotations=1)
    game, events = act(
        game, "0:pass:7C@1", "1:pass:AC@1", "2:pass:KC@1", "3:pass:QC@1", "4:pass:7S@1"
    )
    over = of(events, ev.HandOver)[0]
    assert over.reason == "cap" and over.matching == (4, 4, 4, 3, 3) and over.losers == (3, 4)
    assert [(e.seat, e.reason) for e in of(events, ev.LetterGiven)] == [
        (3, "fewest"),
        (4, "fewest"),
    ]
    assert game.hand_no == 2


def test_direction_alternates_by_hand() -> None:
    game, _ = act(table(), *ODD_CARDS, "2:burro@2", *(f"{s}:respond@3.{s}" for s in (0, 1, 3, 4)))
    assert game.hand_no == 2 and game.hand.direction == 1
    view = player_view(game, 0)
    assert (view.gives_to, view.gets_from, view.direction) == (1, 4, "clockwise")
    game, events = act(game, "S:close@40")
    assert {e.giver: e.seat for e in of(events, ev.CardReceived)} == {
        0: 1,
        1: 2,
        2: 3,
        3: 4,
        4: 0,
    }
    assert player_view(table(), 0).gives_to == 4  # hand 1: to the right


def test_five_letters_lose_the_game() -> None:
    game = table(target=2)
    game, _ = act(game, "0:burro@1")
    game, events = act(game, "0:burro@2")
    assert game.over and game.end == "letters" and game.losers == (0,)
    assert game.winners == (1, 2, 3, 4)
    assert of(events, ev.HandOver)[0].reason == "game_over"
    assert to_move(game) == () and legal_actions(game, 1) == []
    with pytest.raises(errors.GameOver):
        apply(game, 1, "pass:KS", 3)
    assert public_view(game).letters_of(0) == "BU"


def test_refusals_are_typed() -> None:
    game = table()
    cases: list[tuple[int, str, float, type[errors.IllegalAction]]] = [
        (0, "close", 99.0, perr.ServerOnly),
        (SYSTEM, "pass:AS", 1.0, perr.ServerOnly),
        (7, "pass:AS", 1.0, perr.NotPlaying),
        (0, "respond", 1.0, perr.NoCall),
        (0, "pass:KS", 1.0, errors.NotInHand),
        (0, "pass:9S", 1.0, errors.UnknownCard),  # no nines at this table
        (0, "pass:", 1.0, errors.UnknownCard),
        (0, "jump", 1.0, errors.UnknownAction),
        (0, "pass:AS", float("nan"), perr.BadTime),
        (0, "pass:AS", 1e300, perr.BadTime),
        (0, "pass:AS", -1.0, perr.BadTime),
        (SYSTEM, "close", 29.9, perr.TooEarly),
    ]
    for seat, action, at, refusal in cases:
        with pytest.raises(refusal):
            apply(game, seat, action, at)
    game, _ = act(game, "0:pass:AS@1")
    with pytest.raises(perr.AlreadyChosen):
        apply(game, 0, "pass:AH", 1.5)
    with pytest.raises(perr.AlreadyChosen):
        apply(game, 0, "burro", 1.5)


def test_refusal_codes_are_distinct() -> None:
    classes = [
        c
        for module in (errors, perr)
        for c in vars(module).values()
        if isinstance(c, type) and issubclass(c, errors.IllegalAction)
    ]
    codes = [c.code for c in set(classes)]
    assert len(codes) == len(set(codes)) and all(c.islower() for c in codes)


def test_apply_is_pure() -> None:
    game = table()
    before = game
    after, _ = apply(game, 0, "pass:7C", 1.0)
    assert game == before and after != before and game.hand.chosen[0] == ""


def test_dealing_follows_the_contract() -> None:
    rules = make_rules("cuartetos")
    deck = ["AS", "AH", "AD", "AC", "KS", "KH", "KD", "KC", "QS", "QH", "QD", "QC"]
    game = new_game(rules, 3, 1, dealer=0, deck=deck)  # hand 1: to the right, from seat 2
    assert game.hand.hands[2] == ("AS", "AC", "KD", "QH")
    assert game.hand.hands[1] == ("AH", "KS", "KC", "QD")
    assert game.hand.hands[0] == ("AD", "KH", "QS", "QC")
    assert deck_for({2: "AS AC KD QH", 1: "AH KS KC QD", 0: "AD KH QS QC"}, 3) == deck


def test_ranks_as_many_as_players() -> None:
    rules = make_rules("cuartetos")
    assert rules.ranks_for(5) == ("A", "K", "Q", "J", "7")  # Ludoteka: 20 cards
    assert rules.ranks_for(3) == ("A", "K", "Q")
    assert rules.ranks_for(8) == ("A", "K", "Q", "J", "7", "6", "5", "4")
    assert make_rules("cuartetos", {"deck": "french52"}).ranks_for(8)[-1] == "7"
    assert make_rules("cuartetos", {"ranks": ["7", "6", "5"]}).ranks_for(3) == ("7", "6", "5")
    game = new_game(rules, 8, 3)
    assert sum(len(h) for h in game.hand.hands) == 32


@pytest.mark.parametrize(
    ("options", "seats", "words"),
    [
        ({}, 2, "3 to 8 players"),
        ({}, 9, "3 to 8 players"),
        ({"wings": 1}, 5, "unknown option"),
        ({"hand_size": 5}, 5, "hand_size"),
        ({"direction": "up"}, 5, "direction"),
        ({"fake_words": ["Burro"]}, 5, "real call"),
        ({"fake_words": []}, 5, "at least one"),
        ({"ranks": ["A", "K"]}, 3, "need 3 ranks"),
        ({"ranks": ["A", "9"]}, 3, "not a rank"),
        ({"response_window": 0}, 5, "seconds"),
        ({"pass_window": 1e300}, 5, "at most"),
        ({"target": 6}, 5, "B-U-R-R-O"),
    ],
)
def test_rule_errors_are_clear(options: dict[str, object], seats: int, words: str) -> None:
    with pytest.raises(errors.RulesError, match=words):
        make_rules("cuartetos", options).check_seats(seats)
