"""Bots never read hidden state: what they get holds none, and two worlds that differ
only in hidden cards get the same answers."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from engine.follow_suit.bots.knowledge import Knowledge
from engine.follow_suit.bots.registry import LEVELS, make_bot
from engine.follow_suit.bots.sampling import determinize
from engine.follow_suit.game import GameState, apply, new_game, to_move
from engine.follow_suit.hand import HandState
from engine.follow_suit.rules import Rules, make_rules
from engine.follow_suit.views import PlayerView, player_view
from tests.bots.tables import MIXES, SMALL

PLAIN = (int, str, bool, float, type(None))


def _plain(value: Any) -> bool:
    if isinstance(value, PLAIN):
        return True
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return isinstance(value, Rules)  # the table's public rule set


def test_a_view_holds_only_plain_public_data() -> None:
    """A bot gets a PlayerView: frozen, and nothing in it leads to the game state."""
    game = new_game(make_rules("spanish"), 4, 3)
    for _ in range(12):
        seat = to_move(game)
        assert seat is not None
        view = player_view(game, seat)
        for field in dataclasses.fields(view):
            value = getattr(view, field.name)
            assert _plain(value), f"{field.name} holds {type(value).__name__}"
        with pytest.raises(dataclasses.FrozenInstanceError):
            view.hand = ()  # type: ignore[misc]
        game, _ = apply(game, seat, view.legal[0])


def other_world(game: GameState, view: PlayerView, rng: random.Random) -> GameState:
    """The same game with every card `view.seat` cannot see dealt again at random
    (other hands and stock), consistently with everything public."""
    sim = determinize(Knowledge(view), rng)
    real = game.hand
    sim.actions = list(real.actions)
    state = dataclasses.replace(
        sim.freeze(), dealer=real.dealer, seed=real.seed, deck=real.deck, found=real.found
    )
    assert isinstance(state, HandState)
    return dataclasses.replace(game, hand=state)


@pytest.mark.parametrize(("preset", "options"), MIXES[:8])
def test_worlds_differing_in_hidden_cards_get_the_same_choices(
    preset: str, options: dict[str, Any]
) -> None:
    rules = make_rules(preset, options)
    rng = random.Random(11)
    bots = [make_bot(level, 5, SMALL) for level in LEVELS]
    walker = make_bot("heuristic")
    changed = 0
    for seed in range(3):
        game = new_game(rules, 3, seed)
        while not game.past and (seat := to_move(game)) is not None:
            view = player_view(game, seat)
            if len(view.legal) > 1:
                twin = other_world(game, view, rng)
                assert player_view(twin, seat) == view  # nothing public changed
                changed += twin.hand.hands != game.hand.hands
                for bot in bots:
                    assert bot.choose(player_view(twin, seat)) == bot.choose(view)
            game, _ = apply(game, seat, walker.choose(view))
    assert changed  # the twins really did hold other cards
