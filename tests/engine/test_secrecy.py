"""A finished hand's record, exported while the game goes on, predicts nothing to come.

The attack this guards against: each hand's seed used to be a reversible SplitMix mix of
the room's seed (`engine.kernel.rng.derive`), and a record carries its hand's seed, so anyone
who saw `/export` of hand 1 could work back to the room's seed and compute every later
deal, the bots' choices and the tent's topples. Now deals and bot seeds are keyed
one-way draws (`engine.kernel.rng.keyed`) of a 128-bit key that never leaves Redis.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import cuartetos
from engine.cuartetos.records import hand_record as cuartetos_hand_record
from engine.cuartetos.sim import pack_for
from engine.follow_suit.game import GameState, apply, legal_actions, new_game, to_move
from engine.follow_suit.records import hand_record
from engine.follow_suit.rules import PRESETS, make_rules
from engine.kernel.rng import MASK64, derive, keyed, shuffled
from service.table.room import BOT_SALT, new_game_key
from tests.cuartetos.tables import random_moves

INV_MUL1 = pow(0xBF58476D1CE4E5B9, -1, 1 << 64)
INV_MUL2 = pow(0x94D049BB133111EB, -1, 1 << 64)
GOLDEN = 0x9E3779B97F4A7C15


def _unxorshift(z: int, shift: int) -> int:
    value = z
    for _ in range(64 // shift + 1):
        value = z ^ (value >> shift)
    return value & MASK64


def _unmix(out: int) -> int:
    """The SplitMix64 state that gives `out` (the generator's output step undone)."""
    z = (_unxorshift(out, 31) * INV_MUL2) & MASK64
    z = (_unxorshift(z, 27) * INV_MUL1) & MASK64
    return (_unxorshift(z, 30) - GOLDEN) & MASK64


def old_attack(hand_seed: int, hand_no: int) -> list[int]:
    """The room seeds that the old scheme (hand seed = derive(room, hand_no, 1)) maps to
    `hand_seed`: the attack worked `derive` backwards (its top bit was masked off)."""
    keys = []
    for top in (0, 1 << 63):
        state = _unmix(hand_seed | top) ^ 1
        keys.append(_unmix(state) ^ hand_no)
    return keys


def test_the_old_attack_recovers_a_reversibly_derived_seed() -> None:
    """The attack is real: against the old derivation it finds the room's seed."""
    room_seed = random.Random(5).randrange(1 << 62)
    assert room_seed in old_attack(derive(room_seed, 3, 1), 3)


def play_first_hand(preset: str) -> tuple[Any, dict[str, Any], int]:
    """A game of `preset` at 4 seats on a fresh key, hand 1 played out by random legal
    moves: (the game, hand 1's record as /export gives it, the key)."""
    key = new_game_key()
    rnd = random.Random(preset)
    game: Any
    if preset in cuartetos.PRESETS:
        start = cuartetos.new_game(cuartetos.make_rules(preset), 4, key, at=0.0)
        for *_, game, _ in random_moves(start, rnd, 5000):
            if game.past or game.over:
                break
        # a first hand that ended the whole game stays the hand in play, not a past one
        return game, cuartetos_hand_record(game, 0 if game.past else None), key
    options = {"topple_chance": 0.3} if preset == "burro_em_pe" else {}
    game = new_game(make_rules(preset, options), 4, key)
    while (seat := to_move(game)) is not None and not game.past:
        game, _ = apply(game, seat, rnd.choice(legal_actions(game, seat)))
    return game, hand_record(game, 0), key


def guesses(record: dict[str, Any]) -> set[int]:
    """Every key an attacker could try from the record: the numbers it carries, and
    what the old attack makes of its seed."""
    numbers = {value for value in record.values() if isinstance(value, int)}
    seed = record.get("seed")
    if isinstance(seed, int):
        numbers.update(old_attack(seed, 1))
    return numbers


def xor(guess: int, seat: int) -> int:
    return guess ^ seat


def bot_derive(guess: int, seat: int) -> int:
    return derive(guess, BOT_SALT, seat)


def next_deck(game: Any) -> list[str]:
    """Hand 2's pack as dealt, top first (card codes)."""
    if isinstance(game, GameState):
        return [game.table.codec.code_of[i] for i in game.hand.deck]
    return list(game.hand.deck)


def deck_from(game: Any, guess: int) -> list[str]:
    """Hand 2's pack as the old scheme would deal it from `guess`."""
    if isinstance(game, GameState):
        pack = game.table.codec.pack()
    else:
        pack = pack_for(game.rules, game.seats - len(game.standing.removed))
    return shuffled(pack, derive(guess, 2, 0))


@pytest.mark.parametrize("preset", [*PRESETS, *cuartetos.PRESETS])
def test_hand_one_exported_predicts_no_later_deal_bot_or_topple(preset: str) -> None:
    game, record, key = play_first_hand(preset)
    assert game.past and not game.over, "hand 1 must be over, the game still running"
    tried = guesses(record)
    assert key not in tried and key & MASK64 not in tried
    bots = {keyed(key, BOT_SALT, seat) for seat in range(4)}
    for guess in tried:
        assert deck_from(game, guess) != next_deck(game)  # the next deal's cards
        assert derive(guess, 2, 1) != game.hand.seed  # its own draws: topples, fake words
        tried_bots = {f(guess, seat) for seat in range(4) for f in (xor, bot_derive)}
        assert not tried_bots & bots  # the bots' seeds, old scheme (key ^ seat) or not


@pytest.mark.parametrize("preset", ["burro_em_pe", "cuartetos"])
def test_the_hand_in_play_keeps_its_own_draws_and_the_record_replays(preset: str) -> None:
    """A record still carries what its own replay needs (its deck and its own seed), and
    that seed is not the key: the record of hand 1 is hand 1's alone."""
    game, record, key = play_first_hand(preset)
    first = game.past[0] if game.past else game.hand  # a first hand that ended the game
    assert record["seed"] == first.seed != key
    assert not game.past or record["seed"] != game.hand.seed
