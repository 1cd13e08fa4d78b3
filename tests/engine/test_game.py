"""The whole game through the public API: refusals, dealer rotation, scoring, views."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.follow_suit import events as ev
from engine.follow_suit.game import GameState, _game_result, apply, legal_actions, new_game, to_move
from engine.follow_suit.rules import make_rules
from engine.follow_suit.views import player_view, public_view
from engine.kernel import errors
from tests.engine.positions import pack_for


def spanish_game(
    hands: dict[int, str], stock: str, dealer: int = 0, **options: object
) -> GameState:
    deck = pack_for("spanish", 4, dealer, hands, stock, dict(options))
    return new_game(make_rules("spanish", dict(options)), 4, seed=1, dealer=dealer, deck=deck)


HANDS = {3: "5H 4S 3S 2S", 2: "JH 4C 3C 2C", 1: "QS QC QD 7D", 0: "7H 6S 6C 6D"}


def test_refusals_are_typed() -> None:
    game = spanish_game(HANDS, "5C KS 2H")
    with pytest.raises(errors.NotYourTurn):
        apply(game, 0, "play:7H")
    with pytest.raises(errors.NotInHand):
        apply(game, 3, "play:7H")
    with pytest.raises(errors.LeaderCannotDraw):
        apply(game, 3, "draw")
    with pytest.raises(errors.UnknownAction):
        apply(game, 3, "jump")
    with pytest.raises(errors.UnknownCard):
        apply(game, 3, "play:9H")  # no 9 in the 40-card Spanish deck
    game, _ = apply(game, 3, "play:5H")
    with pytest.raises(errors.MustFollowSuit):
        apply(game, 2, "play:4C")
    with pytest.raises(errors.MustFollowSuit):
        apply(game, 2, "draw")
    with pytest.raises(errors.CannotPass):
        apply(game, 2, "pass")
    game, _ = apply(game, 2, "play:JH")
    game, _ = apply(game, 1, "draw")
    with pytest.raises(errors.MustKeepDrawing):
        apply(game, 1, "play:QS")
    game, _ = apply(game, 1, "draw")
    game, _ = apply(game, 1, "draw")
    with pytest.raises(errors.MustPlayDrawnCard):
        apply(game, 1, "play:QS")
    with pytest.raises(errors.MustPlayDrawnCard):
        apply(game, 1, "draw")
    assert legal_actions(game, 1) == ["play:2H"]


def test_refusal_codes_are_distinct_and_named() -> None:
    codes = [
        c.code
        for c in vars(errors).values()
        if isinstance(c, type) and issubclass(c, errors.IllegalAction)
    ]
    assert len(codes) == len(set(codes))
    assert all(code and code.islower() for code in codes)


def test_apply_is_pure() -> None:
    game = spanish_game(HANDS, "5C KS 2H")
    before = game
    after, events = apply(game, 3, "play:5H")
    assert game == before and after != before
    assert events == [ev.CardPlayed(3, "5H")]


def play_random_hand(game: GameState, rnd: random.Random) -> tuple[GameState, list[ev.Event]]:
    hand_no = game.hand_no
    every: list[ev.Event] = []
    while (seat := to_move(game)) is not None and game.hand_no == hand_no:
        game, events = apply(game, seat, rnd.choice(legal_actions(game, seat)))
        every += events
    return game, every


def test_dealer_passes_in_direction_and_scores_add_up() -> None:
    rules = make_rules("spanish", {"target": 6})
    game = new_game(rules, 4, seed=5, dealer=0)
    rnd = random.Random(2)
    dealers = [game.hand.dealer]
    while not game.over:
        game, events = play_random_hand(game, rnd)
        if not game.over:
            dealers.append(game.hand.dealer)
            started = [e for e in events if isinstance(e, ev.HandStarted)]
            assert started and started[0].seat == game.hand.dealer
    assert dealers[:4] == [0, 3, 2, 1]  # anticlockwise: the dealer's right deals next
    burros = [h.burro for h in game.past if h.burro >= 0]
    assert sum(game.scores) == len(burros)
    assert max(game.scores) == 6 and game.losers == (game.scores.index(6),)
    assert game.winners == tuple(s for s in range(4) if game.scores[s] == min(game.scores))
    with pytest.raises(errors.GameOver):
        apply(game, 0, "draw")
    assert to_move(game) is None


def test_wins_scoring_first_to_target_wins() -> None:
    game = new_game(make_rules("cangkul", {"target": 2}), 3, seed=8)
    rnd = random.Random(3)
    while not game.over:
        game, _ = play_random_hand(game, rnd)
    winner = game.winners[0]
    assert game.scores[winner] == 2
    assert game.losers == tuple(s for s in range(3) if game.scores[s] == min(game.scores))


def test_letters_spell_burro() -> None:
    rules = make_rules("brazilian")
    assert rules.target == 5
    assert _game_result(rules, 3, [5, 1, 1], 0, False) == ((1, 2), (0,))
    assert _game_result(rules, 3, [4, 1, 1], 0, False) == ((), ())


def test_single_hand_game() -> None:
    rules = make_rules("brazilian", {"scoring": "single"})
    assert _game_result(rules, 3, [1, 0, 0], 0, False) == ((1, 2), (0,))
    assert _game_result(rules, 3, [0, 0, 0], -1, False) == ((0, 1, 2), ())
    first_out = make_rules("portuguese", {"scoring": "single"})
    assert _game_result(first_out, 3, [0, 1, 0], 1, True) == ((1,), (0, 2))


def test_ties_are_shared() -> None:
    rules = make_rules("spanish", {"target": 2})
    assert _game_result(rules, 4, [2, 0, 1, 0], 0, False) == ((1, 3), (0,))


def test_seats_and_deal_are_validated() -> None:
    with pytest.raises(errors.RulesError, match="2 to 10 players"):
        new_game(make_rules("brazilian"), 11, 1)
    with pytest.raises(errors.RulesError, match="stock must keep one"):
        new_game(make_rules("brazilian", {"hand_size": 7}), 8, 1)
    with pytest.raises(errors.RulesError, match="dealer"):
        new_game(make_rules("spanish"), 4, 1, dealer=4)


def test_player_view_shows_own_hand_and_counts_only() -> None:
    game = spanish_game(HANDS, "5C KS 2H")
    view = player_view(game, 3)
    assert view.hand == ("4S", "3S", "2S", "5H")  # by suit (♠♥♦♣), high to low
    assert view.counts == (4, 4, 4, 4) and view.stock == 24
    assert view.legal == tuple(sorted(f"play:{c}" for c in view.hand))
    assert view.to_move == 3 and view.led is None
    other = player_view(game, 0)
    assert other.legal == () and other.hand == ("6S", "7H", "6D", "6C")
    public = public_view(game)
    assert not hasattr(public, "hand")
    game, _ = apply(game, 3, "play:5H")
    assert player_view(game, 0).trick == ((3, "5H"),) and player_view(game, 0).led == "H"


def test_view_cannot_reach_the_state() -> None:
    view = player_view(spanish_game(HANDS, "5C KS 2H"), 0)
    assert not any(isinstance(getattr(view, f), GameState) for f in view.__dataclass_fields__)
    with pytest.raises(AttributeError):
        view.hand_state  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(Exception):  # noqa: B017 - frozen
        view.hand = ()  # type: ignore[misc]
    assert replace(view, hand=()).hand == ()


def test_a_presets_documented_hand_end_brings_its_own_scoring() -> None:
    """docs/rules.md: cangkul's option last_holder_loses; scoring then defaults to penalty."""
    rules = make_rules("cangkul", {"hand_end": "last_holder_loses"})
    assert (rules.hand_end, rules.scoring) == ("last_holder_loses", "penalty")
    assert make_rules("spanish", {"hand_end": "first_out_wins"}).scoring == "wins"
    assert make_rules("brazilian", {"hand_end": "last_holder_loses"}).scoring == "letters"
    with pytest.raises(errors.RulesError, match="choose scoring 'penalty', 'letters' or 'single'"):
        make_rules("cangkul", {"hand_end": "last_holder_loses", "scoring": "wins"})
    with pytest.raises(errors.RulesError, match="choose scoring 'wins' or 'single'"):
        make_rules("cangkul", {"scoring": "penalty"})
