"""Scripted deals: the seed texts' worked examples and every rule edge of docs/rules.md."""

from __future__ import annotations

import pytest

from engine.follow_suit import events as ev
from engine.follow_suit.game import start_hand
from engine.follow_suit.hand import BURRO, FIRST_OUT, NO_BURRO, TRICK_CAP, table_for
from engine.follow_suit.rules import make_rules
from tests.engine.positions import hand_of, legal, pack_for, play, position

ANNA, BEN, CARLA, DAN = 3, 2, 1, 0  # anticlockwise: 3 -> 2 -> 1 -> 0


def test_anna_ben_carla_dan_trick() -> None:
    """Seed 000: Anna leads 5♥, Ben J♥, Carla draws 3♣ K♠ 2♥ and plays 2♥, Dan 7♥."""
    hands = {ANNA: "5H 4S 3S 2S", BEN: "JH 4C 5C 2C", CARLA: "QS QC QD 7D", DAN: "7H 6S 6C 6D"}
    deck = pack_for("spanish", 4, DAN, hands, "3C KS 2H")
    sim = start_hand(table_for(make_rules("spanish"), 4), DAN, deck, 0)
    assert sim.to_move() == ANNA  # the dealer's right leads
    events = play(sim, "3:play:5H", "2:play:JH", "1:draw", "1:draw", "1:draw")
    assert legal(sim) == ["play:2H"]  # strict: the card found must be played at once
    events += play(sim, "1:play:2H", "0:play:7H")
    won = [e for e in events if isinstance(e, ev.TrickWon)]
    assert won == [ev.TrickWon(BEN, ("5H", "JH", "2H", "7H"), BEN)]
    assert hand_of(sim, CARLA) == sorted("QS QC QD 7D 3C KS".split())  # two cards more
    assert sim.to_move() == BEN


def test_dealing_follows_the_contract() -> None:
    """Cards go one at a time from the top, starting at next(dealer), in direction."""
    rules = make_rules("brazilian", {"hand_size": 3})
    table = table_for(rules, 3)
    deck = table.codec.pack()
    sim = start_hand(table, 2, deck, 0)  # clockwise: seat 0 first
    assert hand_of(sim, 0) == sorted([deck[0], deck[3], deck[6]])
    assert hand_of(sim, 1) == sorted([deck[1], deck[4], deck[7]])
    assert hand_of(sim, 2) == sorted([deck[2], deck[5], deck[8]])
    assert sim.piles[0][-1] == table.codec.index_of[deck[9]]  # the stock's top


def test_cangkul_empty_stock_pickups() -> None:
    """Seed 004's example: A leads 3♥, B C D pass, B picks it up; A leads 7♥, B plays
    3♥, C and D pass: C takes the 7♥, D the 3♥; A leads 9♥, B passes, C and D play
    hearts and B takes all three."""
    a, b, c, d = 0, 1, 2, 3
    sim = position("cangkul", 4, {a: "3H 7H 9H KS", b: "2S", c: "2C", d: "2D"}, leader=a)
    play(sim, "0:play:3H", "1:pass", "2:pass", "3:pass")
    assert hand_of(sim, b) == sorted(["2S", "3H"])
    assert sim.to_move() == a
    play(sim, "0:play:7H", "1:play:3H", "2:pass", "3:pass")
    assert hand_of(sim, c) == sorted(["2C", "7H"]) and hand_of(sim, d) == sorted(["2D", "3H"])
    events = play(sim, "0:play:9H", "1:pass", "2:play:7H", "3:play:3H")
    assert hand_of(sim, b) == sorted(["2S", "3H", "7H", "9H"])
    picked = [e for e in events if isinstance(e, ev.CardsPickedUp)]
    assert picked == [ev.CardsPickedUp(b, ("9H", "7H", "3H"))]
    assert sim.to_move() == a


def test_winner_already_out_next_holder_leads() -> None:
    """The winner played their last card: the next seat still holding cards leads."""
    sim = position("spanish", 3, {2: "KH", 1: "2H 5S", 0: "3H 4S"}, stock="6C", leader=2)
    play(sim, "2:play:KH", "1:play:2H", "0:play:3H")
    assert sim.out == [2]
    assert sim.to_move() == 1  # anticlockwise after seat 2


def test_all_others_pass_leader_wins() -> None:
    sim = position("spanish", 3, {0: "KH 2S", 1: "3C", 2: "4C"}, leader=0)
    assert sim.stock_size() == 0
    events = play(sim, "0:play:KH", "2:pass", "1:pass")
    assert [e for e in events if isinstance(e, ev.TrickWon)] == [ev.TrickWon(0, ("KH",), 0)]
    assert hand_of(sim, 1) == ["3C"] and hand_of(sim, 2) == ["4C"]  # nothing taken


@pytest.mark.parametrize(
    ("simultaneous_out", "burro", "end"),
    [("no_burro", -1, NO_BURRO), ("last_to_play_loses", 1, BURRO)],
)
def test_last_two_out_in_one_trick(simultaneous_out: str, burro: int, end: str) -> None:
    sim = position(
        "spanish",
        3,
        {0: "KH", 1: "2H"},
        stock="5C",
        options={"simultaneous_out": simultaneous_out},
        leader=0,
    )
    play(sim, "0:play:KH", "1:play:2H")
    assert (sim.end, sim.burro, sim.out) == (end, burro, [0, 1])


def test_last_holder_is_burro_after_the_trick_completes() -> None:
    """Two players out in a trick leave one holder: the trick finishes, then burro."""
    sim = position("spanish", 3, {0: "KH", 1: "2H", 2: "3S 4S"}, stock="5C", leader=0)
    play(sim, "0:play:KH", "2:draw", "2:pass")
    assert (sim.end, sim.burro) == ("", -1)
    play(sim, "1:play:2H")
    assert (sim.end, sim.burro, sim.out) == (BURRO, 2, [0, 1])
    assert hand_of(sim, 2) == sorted(["3S", "4S", "5C"])


def test_first_out_wins_even_mid_trick() -> None:
    sim = position("portuguese", 3, {0: "KH 2S", 1: "2H", 2: "3H 4S"}, stock="5C", leader=0)
    play(sim, "0:play:KH", "2:play:3H", "1:play:2H")
    assert (sim.end, sim.winner, sim.out) == (FIRST_OUT, 1, [1])


def test_strict_player_cannot_draw_while_able_to_follow() -> None:
    sim = position("spanish", 2, {0: "KH", 1: "2H 3S"}, stock="5C 6C", leader=0)
    play(sim, "0:play:KH")
    assert legal(sim) == ["play:2H"]


def test_optional_drawing_may_draw_and_stop_once_holding_one() -> None:
    sim = position("portuguese", 2, {0: "KH 4S", 1: "2H 3S"}, stock="5C 6H 7C", leader=0)
    play(sim, "0:play:KH")
    assert legal(sim) == ["draw", "play:2H"]
    play(sim, "1:draw")
    assert legal(sim) == ["draw", "play:2H"]
    play(sim, "1:draw")  # 6♥ found: may play either heart or draw on
    assert legal(sim) == ["draw", "play:2H", "play:6H"]
    play(sim, "1:play:6H")
    assert hand_of(sim, 1) == sorted(["2H", "3S", "5C"])


def test_void_with_empty_stock_passes_and_search_ending_in_empty_stock_passes() -> None:
    sim = position("spanish", 2, {0: "KH 4S", 1: "3S"}, stock="5C", leader=0)
    play(sim, "0:play:KH", "1:draw")
    assert legal(sim) == ["pass"]  # the stock ran out while searching: keep and pass
    play(sim, "1:pass")
    assert hand_of(sim, 1) == sorted(["3S", "5C"])
    assert sim.to_move() == 0


def test_leader_never_draws_or_passes() -> None:
    sim = position("spanish", 2, {0: "KH", 1: "3S"}, stock="5C", leader=0)
    assert legal(sim) == ["play:KH"]


def test_take_the_table_ends_the_trick() -> None:
    """Brazil's option: the void player takes the trick so far; the player of its
    highest card leads; nobody after the taker plays to it."""
    sim = position(
        "brazilian",
        4,
        {0: "5H 2S", 1: "KH 3S", 2: "2C 3C", 3: "4H 4S"},
        options={"empty_stock": "take_the_table"},
        leader=0,
    )
    events = play(sim, "0:play:5H", "1:play:KH", "2:pass")
    assert hand_of(sim, 2) == sorted(["2C", "3C", "5H", "KH"])
    assert ev.CardsPickedUp(2, ("5H", "KH")) in events
    assert sim.to_move() == 1 and sim.trick == [] and hand_of(sim, 3) == ["4H", "4S"]


def test_take_the_table_leader_out_passes_lead_on() -> None:
    sim = position(
        "brazilian",
        3,
        {0: "5H", 1: "KH 3S", 2: "2C"},
        options={"empty_stock": "take_the_table"},
        leader=1,
    )
    play(sim, "1:play:KH", "2:pass")  # 2 takes K♥: seat 1 (highest) leads again
    assert sim.to_move() == 1


def test_pickup_multi_passer_order_starts_with_first_passer() -> None:
    """Passers take one card each in turn, in play order, first passer first."""
    sim = position("cangkul", 4, {0: "7H 2S", 1: "3H 2C", 2: "4S", 3: "4D"}, leader=0)
    play(sim, "0:play:7H", "1:play:3H", "2:pass", "3:pass")
    assert hand_of(sim, 2) == sorted(["4S", "7H"]) and hand_of(sim, 3) == sorted(["4D", "3H"])
    assert sim.to_move() == 0


def test_pickup_winner_out_next_holder_leads() -> None:
    sim = position(
        "cangkul",
        3,
        {0: "KH", 1: "2C 3C", 2: "2D"},
        options={"hand_end": "last_holder_loses", "scoring": "penalty"},
        leader=0,
    )
    play(sim, "0:play:KH", "1:pass", "2:pass")
    assert sim.out == [0]
    assert hand_of(sim, 1) == sorted(["2C", "3C", "KH"])
    assert sim.to_move() == 1


def test_tent_draw_halves_and_topple() -> None:
    """Burro em Pé: draw:left / draw:right; a topple gives the drawer all the stock."""
    hands = {0: "KH 4S", 1: "3S 2S"}
    sure = {"topple_chance": 1.0}
    sim = position("burro_em_pe", 2, hands, stock="5C 6C 7H 2D 3D", leader=0, options=sure)
    assert [len(p) for p in sim.piles] == [3, 2]  # odd stock: the extra card goes left
    play(sim, "0:play:KH")
    assert legal(sim) == ["draw:left", "draw:right"]
    events = play(sim, "1:draw:right")
    assert len(events) == 1 and isinstance(events[0], ev.TentToppled)
    assert events[0].count == 5 and sorted(events[0].cards) == sorted("5C 6C 7H 2D 3D".split())
    assert sim.stock_size() == 0 and len(hand_of(sim, 1)) == 7
    assert legal(sim) == ["play:7H"]  # must play a led-suit card now held


def test_tent_never_topples_at_zero_and_takes_from_each_half_top() -> None:
    sim = position(
        "burro_em_pe",
        2,
        {0: "KH 4S", 1: "3S 2S"},
        stock="5C 6C 7H 2D 3D",
        leader=0,
        options={"topple_chance": 0.0},
    )
    play(sim, "0:play:KH", "1:draw:right")
    assert "2D" in hand_of(sim, 1)  # the right half is 2♦ 3♦, its top 2♦
    play(sim, "1:draw:left")
    assert "5C" in hand_of(sim, 1)


def test_tent_topple_chance_follows_the_seed() -> None:
    """The same seed topples on the same draw; replays are exact."""

    def first_topple(seed: int) -> int:
        rules = make_rules("burro_em_pe", {"topple_chance": 0.3})
        table = table_for(rules, 2)
        sim = start_hand(table, 0, table.codec.pack(), seed)
        for k in range(1, 40):
            if sim.to_move() < 0:
                break
            acts = sim.legal()
            draws = [a for a in acts if a > 64 and a != 67]
            before = sim.stock_size()
            sim.step(draws[0] if draws else acts[0])
            if draws and before - sim.stock_size() > 1:
                return k
        return -1

    assert first_topple(7) == first_topple(7)
    assert len({first_topple(s) for s in range(20)}) > 1


def test_joker_led_second_player_plays_any_card_and_sets_the_suit() -> None:
    options = {"deck": "french52_joker"}
    sim = position(
        "cangkul", 3, {0: "JK 2S", 1: "3C 4H", 2: "5C 6H"}, stock="7D", leader=0, options=options
    )
    play(sim, "0:play:JK")
    assert legal(sim) == ["play:3C", "play:4H"]  # any card, no draw, no pass
    play(sim, "1:play:4H")
    assert legal(sim) == ["play:6H"]
    events = play(sim, "2:play:6H")
    won = [e for e in events if isinstance(e, ev.TrickWon)]
    assert won[0].seat == 0  # the joker wins any trick


@pytest.mark.parametrize(
    ("mode", "can_follow", "void"),
    [
        ("any_time", ["play:2H", "play:JK"], ["draw", "play:JK"]),
        ("only_when_void", ["play:2H"], ["draw", "play:JK"]),
        ("must_when_void", ["play:2H"], ["play:JK"]),
    ],
)
def test_joker_play_modes(mode: str, can_follow: list[str], void: list[str]) -> None:
    options = {"deck": "french52_joker", "joker_play": mode}
    follower = position(
        "cangkul", 2, {0: "KH 3S", 1: "2H JK"}, stock="7D", leader=0, options=options
    )
    play(follower, "0:play:KH")
    assert legal(follower) == can_follow
    voider = position("cangkul", 2, {0: "KH 3S", 1: "2C JK"}, stock="7D", leader=0, options=options)
    play(voider, "0:play:KH")
    assert legal(voider) == void


def test_joker_drawn_under_must_when_void_must_be_played() -> None:
    options = {"deck": "french52_joker", "joker_play": "must_when_void"}
    sim = position("cangkul", 2, {0: "KH 3S", 1: "2C"}, stock="JK 7D", leader=0, options=options)
    play(sim, "0:play:KH", "1:draw")
    assert legal(sim) == ["play:JK"]


def test_strict_after_drawing_only_draw_then_the_card_found() -> None:
    options = {"deck": "french52_joker"}
    sim = position("cangkul", 2, {0: "KH 3S", 1: "2C JK"}, stock="7D 4H", leader=0, options=options)
    play(sim, "0:play:KH", "1:draw")
    assert legal(sim) == ["draw"]  # the joker is no longer an option once drawing
    play(sim, "1:draw")
    assert legal(sim) == ["play:4H"]


def test_trick_cap_ends_the_hand_with_no_result() -> None:
    sim = position("cangkul", 2, {0: "KH 2S", 1: "3C"}, leader=0, options={"trick_cap": 1})
    events = play(sim, "0:play:KH", "1:pass")
    assert (sim.end, sim.burro, sim.winner) == (TRICK_CAP, -1, -1)
    assert isinstance(events[-1], ev.HandOver) and events[-1].reason == TRICK_CAP


def test_low_ace_and_rank_order() -> None:
    high = table_for(make_rules("brazilian"), 2).codec
    low = table_for(make_rules("brazilian", {"low_ace": True}), 2).codec
    assert high.index_of["AH"] > high.index_of["KH"]
    assert low.index_of["AH"] < low.index_of["2H"]
    portuguese = table_for(make_rules("portuguese"), 2).codec
    assert portuguese.index_of["JH"] > portuguese.index_of["QH"]  # Valete over Dama
    spanish = table_for(make_rules("spanish", {"rank_order": list("KJQ765432A")}), 2).codec
    assert spanish.index_of["JH"] > spanish.index_of["QH"]
