"""Tips (issue #34): every game gives one from the player's view alone, a legal move;
the follow-suit tip is the heuristic bot's choice, for the reason the seed texts give;
and a tip never changes when only the cards the player cannot see do."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any

import pytest

from engine.cuartetos import tip as passing_tip
from engine.cuartetos.game import apply as pass_apply
from engine.cuartetos.game import new_game as pass_new_game
from engine.cuartetos.game import to_move as pass_to_move
from engine.cuartetos.rules import PRESETS as PASSING_PRESETS
from engine.cuartetos.rules import make_rules as pass_rules
from engine.cuartetos.state import GameState as PassingState
from engine.cuartetos.views import player_view as pass_view
from engine.follow_suit import tip as follow_tip
from engine.follow_suit.bots.heuristic import HeuristicBot
from engine.follow_suit.game import apply, new_game, to_move
from engine.follow_suit.rules import PRESETS, make_rules
from engine.follow_suit.views import player_view
from engine.kernel.protocol import Game
from engine.kernel.tip import Tip
from engine.registry import find_game
from tests.bots.tables import MIXES
from tests.bots.test_privacy import other_world
from tests.engine.test_contract import games, playouts

FOLLOW_REASONS = set(follow_tip.REASONS)


def follow_tips(preset: str, options: dict[str, Any], seeds: int, seats: int = 3) -> Counter[str]:
    """Hands played by the heuristic bot, every decision's tip checked against its choice;
    the reasons given, counted."""
    rules, bot, reasons = make_rules(preset, options), HeuristicBot(), Counter[str]()
    for seed in range(seeds):
        game = new_game(rules, seats, seed)
        while not game.past and (seat := to_move(game)) is not None:
            view = player_view(game, seat)
            tip = follow_tip.tip(view)
            choice = bot.choose(view)
            assert tip is not None and tip.action in view.legal
            assert tip.reason in FOLLOW_REASONS
            assert tip.action == choice, (view, tip)
            reasons[tip.reason] += 1
            game, _ = apply(game, seat, choice)
    return reasons


@pytest.mark.parametrize(("preset", "options"), MIXES)
def test_the_follow_suit_tip_is_the_heuristic_bot_s_move(
    preset: str, options: dict[str, Any]
) -> None:
    assert follow_tips(preset, options, seeds=2)


def test_every_tip_of_the_seed_texts_is_given_somewhere() -> None:
    reasons: Counter[str] = Counter()
    for preset, options in MIXES:
        reasons += follow_tips(preset, options, seeds=4)
    assert set(reasons) == FOLLOW_REASONS


@pytest.mark.parametrize("preset", [*PRESETS, *PASSING_PRESETS])
def test_every_preset_gives_a_tip_through_its_game(preset: str) -> None:
    """Through the `Game` protocol: the first decision of a game has a tip, one of the
    seat's legal actions, naming a card the seat holds where it names one."""
    game, name = find_game(preset)
    rules = game.make_rules(name, {})
    state = game.new_game(rules, rules.min_players + 1, 7, 1000.0)
    seat = game.to_act(state)[0]
    view = game.player_view(state, seat)
    tip = game.tip(view)
    assert isinstance(tip, Tip)
    assert tip.action in game.legal_actions(state, seat)
    assert not tip.card or tip.card in view.hand


def test_no_tip_without_a_move() -> None:
    game = new_game(make_rules("spanish"), 4, 1)
    seat = to_move(game)
    assert seat is not None
    assert follow_tip.tip(player_view(game, (seat + 1) % 4)) is None


@pytest.mark.parametrize(("preset", "options"), MIXES[:8])
def test_a_follow_suit_tip_never_depends_on_hidden_cards(
    preset: str, options: dict[str, Any]
) -> None:
    """The other hands and the stock dealt again at random, consistently with all that
    is public: the same view, the same tip."""
    rules, rng, walker = make_rules(preset, options), random.Random(5), HeuristicBot()
    changed = 0
    for seed in range(3):
        game = new_game(rules, 3, seed)
        while not game.past and (seat := to_move(game)) is not None:
            view = player_view(game, seat)
            twin = other_world(game, view, rng)
            changed += twin.hand.hands != game.hand.hands
            assert follow_tip.tip(player_view(twin, seat)) == follow_tip.tip(view)
            game, _ = apply(game, seat, walker.choose(view))
    assert changed


def shuffled_others(game: PassingState, seat: int, rng: random.Random) -> PassingState:
    """The same game with every other player's cards dealt among them again."""
    hands = game.hand.hands
    others = [s for s in game.hand.players if s != seat]
    pool = [card for s in others for card in hands[s]]
    rng.shuffle(pool)
    new = list(hands)
    for k, s in enumerate(others):
        new[s] = tuple(sorted(pool[4 * k : 4 * k + 4]))
    return dataclasses.replace(game, hand=dataclasses.replace(game.hand, hands=tuple(new)))


@pytest.mark.parametrize("preset", PASSING_PRESETS)
def test_a_passing_tip_keeps_the_rank_closest_to_four_and_ignores_other_hands(
    preset: str,
) -> None:
    rules, rng, reasons = pass_rules(preset, {}), random.Random(3), Counter[str]()
    at = 1000.0
    for seed in range(6):
        game = pass_new_game(rules, 4, seed, at=at)
        for _ in range(40):
            if game.over or game.hand.call is not None:
                break
            for seat in pass_to_move(game):
                view = pass_view(game, seat)
                tip = passing_tip.tip(view)
                assert tip is not None and tip.action in view.legal
                twin = shuffled_others(game, seat, rng)
                assert twin.hand.hands != game.hand.hands
                assert passing_tip.tip(pass_view(twin, seat)) == tip
                reasons[tip.reason] += 1
                counts = Counter(c[:-1] for c in view.hand)
                if tip.reason == passing_tip.CALL:
                    assert tip.action == "burro" and len(counts) == 1
                else:
                    passed = tip.action.removeprefix("pass:")
                    assert counts[passed[:-1]] == min(counts.values())
                    assert tip.count == max(counts.values()) or tip.reason == passing_tip.ANY
                at += 1.0
                game, _ = pass_apply(game, seat, tip.action, at)
                if game.over or game.hand.call is not None:
                    break
    assert {passing_tip.KEEP, passing_tip.ANY} <= set(reasons)


def test_no_passing_tip_while_a_call_is_open() -> None:
    game = pass_new_game(pass_rules("cuartetos", {}), 4, 2, at=1000.0)
    game, _ = pass_apply(game, 0, "fake", 1001.0)
    assert game.hand.call is not None
    assert passing_tip.tip(pass_view(game, 1)) is None


def test_three_of_a_kind_passes_the_odd_card() -> None:
    game = pass_new_game(pass_rules("cuartetos", {}), 4, 2, at=1000.0)
    view = dataclasses.replace(pass_view(game, 0), hand=("KD", "KH", "KS", "7C"))
    view = dataclasses.replace(view, legal=tuple(sorted(f"pass:{c}" for c in view.hand)))
    assert passing_tip.tip(view) == Tip("pass:7C", passing_tip.NEARLY, "7C", rank="K", count=3)
    four = dataclasses.replace(view, hand=("KC", "KD", "KH", "KS"), legal=("burro",))
    assert passing_tip.tip(four) == Tip("burro", passing_tip.CALL, rank="K", count=4)


@games
def test_every_game_s_tip_is_a_legal_move_of_a_seat_to_act(game: Game) -> None:
    """The contract's games (`tiny` too), in their played games: a seat to act gets no
    tip or one of its legal actions; a seat not to act, none."""
    tipped = 0
    for playout in playouts(game):
        for move in playout.moves[:120]:
            state = move.before
            for seat in range(playout.seats):
                tip = game.tip(game.player_view(state, seat))
                legal = game.legal_actions(state, seat) if seat in game.to_act(state) else []
                assert tip is None or tip.action in legal
                tipped += tip is not None
    assert tipped
