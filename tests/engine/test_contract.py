"""The contract every game of the Burro family keeps (`engine.kernel.protocol`), checked
for every registered game, the test-only `tiny` included (pgx's `api_test` is the model).

Each game plays seeded random games at every preset, with its fewest and its most
players; the tests then walk those games: determinism, secret hands, legal actions,
records and their replay, bots, and the bookkeeping (`to_act`, `forced`, `phase`,
`result`); a small arena checks `Game.arena` (its report's shape, its seed, its
refusals). Nothing here knows which game it holds: a new game registered with
`engine.registry.register` is checked as it is.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any

import pytest
from pydantic import BaseModel

import tests.games  # noqa: F401  (registers the test-only games)
from engine import registry
from engine.kernel.arena import LEVEL_KEYS, REPORT_KEYS, TIMING_KEYS, ArenaRequest
from engine.kernel.errors import IllegalAction, RecordError, RulesError
from engine.kernel.packing import pack, unpack
from engine.kernel.protocol import SYSTEM, Game
from engine.kernel.records import FORMAT
from engine.records import read_game_record

T0 = 1_764_547_200.0  # the first receive time (2025-12-01, UTC), seconds
SEED = 20251201
MAX_MOVES = 800  # a random game longer than this is cut short (still checked as far as it went)
SAMPLES = 40  # states per game whose every action is tried
BOT_STATES = 1  # states per game where every bot level chooses

GAMES = registry.games()


@dataclass(frozen=True)
class Move:
    before: Any
    seat: int  # SYSTEM: the game's own deadline (`expire`)
    action: str | None  # None for `expire`
    at: float
    after: Any
    events: list[Any]


@dataclass(frozen=True)
class Playout:
    game: Game
    preset: str
    seats: int
    levels: tuple[str, ...]  # the bots that chose, seat by seat; () random choices
    start: Any
    moves: tuple[Move, ...]

    @property
    def final(self) -> Any:
        return self.moves[-1].after if self.moves else self.start

    def states(self) -> Iterator[tuple[Any, float]]:
        """Every state of the game, with the time it began."""
        yield self.start, T0
        for move in self.moves:
            yield move.after, move.at

    def sample(self, count: int) -> list[tuple[Any, float]]:
        """`count` states spread over the game, the first and the last included."""
        states = list(self.states())
        step = max(1, len(states) // count)
        return [*states[::step][: count - 1], states[-1]]


def tables(game: Game) -> list[tuple[str, int]]:
    """(preset, seats) to play: every preset with its fewest and its most players."""
    return [(name, n) for name, p in game.presets.items() for n in sorted(set(p.players))]


def play(game: Game, preset: str, seats: int, seed: int, levels: tuple[str, ...] = ()) -> Playout:
    """A game played by seeded random choices (or by bots of `levels`, seat by seat), with
    made-up receive times; at a deadline, or now and then before it, the game expires."""
    rnd = random.Random(seed)
    state = start = game.new_game(game.make_rules(preset, {}), seats, seed, T0)
    bots = [game.bot(levels[s % len(levels)], seed + s) for s in range(seats)] if levels else []
    moves: list[Move] = []
    t = T0
    while game.result(state) is None and len(moves) < MAX_MOVES:
        t += rnd.random() * 2
        due = game.deadline(state)
        seat, action = SYSTEM, None
        if due is None or (t < due and rnd.random() > 0.03):
            movers = list(game.to_act(state))
            rnd.shuffle(movers)
            for mover in movers:
                if bots:
                    choice = bots[mover].choose(game.player_view(state, mover))
                else:
                    choice = rnd.choice(game.legal_actions(state, mover))
                if choice is not None:
                    seat, action = mover, choice
                    break
        if action is None:
            assert due is not None, "nobody acts and the game has no deadline: stuck"
            t = max(t, due)
            after, events = game.expire(state, t)
        else:
            after, events = game.apply(state, seat, action, t)
        moves.append(Move(state, seat, action, t, after, events))
        state = after
    return Playout(game, preset, seats, levels, start, tuple(moves))


_played: dict[str, tuple[Playout, ...]] = {}


def playouts(game: Game) -> tuple[Playout, ...]:
    """Each table played twice (once for all the tests): by random choices, and by bots
    of every level but the strongest (which may think long)."""
    if game.name not in _played:
        levels = game.bot_levels[:-1] or game.bot_levels
        _played[game.name] = tuple(
            play(game, preset, seats, SEED + seats, bots)
            for bots in ((), levels)
            for preset, seats in tables(game)
        )
    return _played[game.name]


def redo(game: Game, state: Any, move: Move) -> tuple[Any, list[Any]]:
    if move.action is None:
        return game.expire(state, move.at)
    return game.apply(state, move.seat, move.action, move.at)


def strings(value: Any) -> set[str]:
    """Every string inside a view, actions split too (`pass:7S` gives `pass` and `7S`)."""
    if isinstance(value, str):
        return {value, *value.split(":")}
    if isinstance(value, BaseModel):
        return strings(value.model_dump())
    if is_dataclass(value) and not isinstance(value, type):
        return strings([getattr(value, f.name) for f in fields(value)])
    if isinstance(value, dict):
        return strings([*value.keys(), *value.values()])
    if isinstance(value, list | tuple | set | frozenset):
        return set().union(*(strings(v) for v in value))
    return set()


games = pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])


@games
def test_the_same_seed_and_actions_give_the_same_game(game: Game) -> None:
    done = playouts(game)
    for p in (done[0], done[-1]):  # random choices and bots: the same seed, the same game
        again = play(game, p.preset, p.seats, SEED + p.seats, p.levels)
        assert again.moves == p.moves and again.final == p.final
    for p in done:  # the same actions at the same times: the same states and events
        state = game.new_game(game.make_rules(p.preset, {}), p.seats, SEED + p.seats, T0)
        assert state == p.start
        for move in p.moves:
            state, events = redo(game, state, move)
            assert events == move.events
        assert state == p.final
        assert game.dumps(state) == game.dumps(p.final)
        other = game.new_game(game.make_rules(p.preset, {}), p.seats, SEED + 99, T0)
        assert game.dumps(other) != game.dumps(p.start), "another seed, another deal"


@games
def test_views_never_show_another_seat_s_cards(game: Game) -> None:
    """A player's view shows no card another seat holds, unless the whole table sees it
    or the player held it earlier in this hand (passed it on, say). A hand is over when
    `finished_hands` grows; unless the game is over too, the next one is dealt."""
    hidden_seen = 0
    for p in playouts(game):
        states = list(p.states())
        look = set(range(0, len(states), max(1, len(states) // 40)))
        held: list[set[str]] = []
        hand_no = -1
        for k, (state, _) in enumerate(states):
            if game.finished_hands(state) != hand_no and game.result(state) is None:
                hand_no, held = game.finished_hands(state), [set() for _ in range(p.seats)]
            hands = [set(game.hand(state, s)) for s in range(p.seats)]
            for seat in range(p.seats):
                held[seat] |= hands[seat]
            if k not in look:
                continue
            public = strings(game.public_view(state))
            for seat in range(p.seats):
                seen = strings(game.player_view(state, seat))
                assert hands[seat] <= seen, "a player sees their own cards"
                others = set().union(*(hands[s] for s in range(p.seats) if s != seat))
                hidden = others - public - held[seat]
                assert not seen & hidden, f"seat {seat} sees {sorted(seen & hidden)}"
                hidden_seen += len(hidden)
    assert hidden_seen, "some cards were hidden somewhere"


@games
def test_every_legal_action_applies_and_no_other(game: Game) -> None:
    for p in playouts(game):
        pool = {m.action for m in p.moves if m.action is not None}
        pool |= {"nonsense", "play:ZZ", "pass:ZZ", "play", ""}
        for state, now in p.sample(SAMPLES):
            movers = game.to_act(state)
            for seat in range(p.seats):
                legal = game.legal_actions(state, seat)
                assert legal == sorted(legal)
                assert bool(legal) == (seat in movers)
                for action in legal:
                    game.apply(state, seat, action, now)
                for action in sorted(pool - set(legal)):
                    with pytest.raises(IllegalAction):
                        game.apply(state, seat, action, now)
                        pytest.fail(f"seat {seat} may {action!r}, not among {legal}")


@games
def test_records_replay_the_hands_played(game: Game) -> None:
    for p in playouts(game):
        final = p.final
        done = game.finished_hands(final)
        hands = done + (0 if game.result(final) else 1)
        assert hands >= 1
        moves: dict[int, list[Move]] = {}
        for move in p.moves:
            moves.setdefault(game.finished_hands(move.before), []).append(move)
        for index in range(hands):
            document = game.hand_record(final, index)
            assert document["format"] == FORMAT
            assert registry.find_game(document["rules"]["preset"]) == (game, p.preset)
            text = json.dumps(document)
            record = game.read_record(text)
            assert read_game_record(text) == (game, record)
            played = moves.get(index, [])
            recorded = [(a["seat"], a["action"]) for a in document["actions"]]
            assert len(recorded) == len(played)
            assert [r for r in recorded if r[0] != SYSTEM] == [
                (m.seat, m.action) for m in played if m.action is not None
            ]
            *steps, last = game.trace(record)
            assert len(steps) == len(played)
            for k, (line, move) in enumerate(zip(steps, played, strict=True)):
                movers = game.to_act(move.before)
                assert line["step"] == k
                assert line["to_move"] == list(movers)
                assert line["legal"] == {str(s): game.legal_actions(move.before, s) for s in movers}
            assert last["result"]["finished"] == (index < done)
            story = list(game.story(record))
            assert story and all(isinstance(line, str) for line in story)
        for state, _ in p.sample(10):
            data = game.dumps(state)
            assert game.loads(data) == state
            assert game.dumps(game.loads(data.decode())) == data
    with pytest.raises(RecordError):
        game.loads(b'{"not": "a game"}')


@games
def test_a_game_packs_into_its_moves_and_replays_to_itself(game: Game) -> None:
    """An ended game is kept as its moves (engine.kernel.packing): unpacking replays the
    very state packed, at any point of the game; a state its history cannot give back
    is not packed (kept whole); broken data is a RecordError."""
    for p in playouts(game):
        for state, _ in p.sample(4):
            packed = pack(game, state)
            assert packed is not None
            assert unpack(game, packed) == state
        final = p.final
        packed = pack(game, final)
        assert packed is not None
        per_move = 8 if packed.timed else 2  # an index, and the µs since the move before
        assert len(base64.b64decode(packed.moves)) <= per_move * len(p.moves)
        assert pack(game, replace(final, seed=final.seed + 1)) is None, "another deal: not it"
        with pytest.raises(RecordError):
            unpack(game, replace(packed, moves=packed.moves[:-4] + "////"))
        with pytest.raises(RecordError):
            unpack(game, replace(packed, moves="not base64!"))


@games
def test_the_levels_that_think_are_levels_of_the_game(game: Game) -> None:
    assert game.thinking_levels <= set(game.bot_levels)


@games
def test_bots_of_every_level_choose_legal_actions(game: Game) -> None:
    for p in playouts(game):
        for state, _ in p.sample(BOT_STATES + 1)[:-1]:  # the last state may be over
            for level in game.bot_levels:
                for seat in game.to_act(state):
                    view = game.player_view(state, seat)
                    bot = game.bot(level, 7)
                    choice = bot.choose(view)
                    assert bot.level in game.bot_levels
                    if level not in game.thinking_levels:  # a search may stop by the clock
                        assert game.bot(level, 7).choose(view) == choice, "a pure function"
                    if choice is None:
                        assert game.deadline(state) is not None, "it must act: no clock"
                    else:
                        assert choice in game.legal_actions(state, seat)
    with pytest.raises(ValueError):
        game.bot("no such level", 0)


@games
def test_to_act_forced_phase_and_result_agree(game: Game) -> None:
    finished = 0
    for p in playouts(game):
        for state, now in p.states():
            movers, due = game.to_act(state), game.deadline(state)
            forced, result = game.forced(state), game.result(state)
            hash(game.phase(state))
            assert len(set(movers)) == len(movers) and all(0 <= s < p.seats for s in movers)
            if result is not None:
                assert movers == () and due is None and forced is None
                assert not set(result.winners) & set(result.losers)
                assert set(result.winners) | set(result.losers) <= set(range(p.seats))
            else:
                assert movers or due is not None, "someone can move the game on"
            if forced is not None:
                seat, action = forced
                assert movers == (seat,) and game.legal_actions(state, seat) == [action]
            elif due is None and len(movers) == 1:
                assert len(game.legal_actions(state, movers[0])) > 1, "a forced move"
            with pytest.raises(IllegalAction):
                game.expire(state, now if due is None else due - 1)
        for move in p.moves:
            before, after = move.before, move.after
            turn_based = game.deadline(before) is None and len(game.to_act(before)) == 1
            new_hand = game.finished_hands(after) != game.finished_hands(before)
            if turn_based or new_hand or game.result(after) is not None:
                assert game.phase(after) != game.phase(before)
        finished += game.result(p.final) is not None
        if game.result(p.final) is not None:
            for seat in range(p.seats):
                assert game.legal_actions(p.final, seat) == []
    assert finished, "some game was played to its end"


@games
def test_rules_and_seats_are_checked(game: Game) -> None:
    for name, preset in game.presets.items():
        assert registry.find_game(name.upper()) == (game, name)
        least, most = preset.players
        rules = game.make_rules(name, {})
        for seats in (least - 1, most + 1):
            with pytest.raises(RulesError):
                game.new_game(rules, seats, SEED, T0)
        with pytest.raises(RulesError):
            game.make_rules(name, {"no_such_option": 1})
    for alias, name in game.aliases.items():
        assert registry.find_game(alias) == (game, name)


def small_arena(game: Game) -> ArenaRequest:
    """One rotation of every level round the first preset's table (as many seats as
    levels, within its players), a searching bot held to a few rollouts."""
    name, preset = next(iter(game.presets.items()))
    least, most = preset.players
    seats = min(max(len(game.bot_levels), least), most)
    bots = tuple(game.bot_levels[s % len(game.bot_levels)] for s in range(seats))
    return ArenaRequest(name, seats, bots, games=seats, seed=SEED, rollouts=4)


def untimed(report: dict[str, Any]) -> dict[str, Any]:
    """A report's JSON without its wall-clock figures."""
    bots = [{k: v for k, v in b.items() if k not in TIMING_KEYS} for b in report["bots"]]
    return {**report, "bots": bots}


@games
def test_the_arena_reports_every_level_in_one_shape(game: Game) -> None:
    request = small_arena(game)
    seen: list[tuple[int, int]] = []
    report = game.arena(request, lambda done, total: seen.append((done, total)))
    data = json.loads(json.dumps(report.to_json()))
    assert set(data) >= REPORT_KEYS
    assert (data["preset"], data["seats"], data["games"]) == (
        request.preset,
        request.seats,
        request.games,
    )
    assert [b["seat_bot"] for b in data["bots"]] == list(dict.fromkeys(request.bots))
    for entry in data["bots"]:
        assert set(entry) >= LEVEL_KEYS
        low, high = entry["ci95"]
        assert 0 <= low <= entry["rate"] <= high <= 1
    assert seen and seen[-1] == (request.games, request.games)
    lines = report.lines()
    assert lines and all(isinstance(line, str) for line in lines)
    assert untimed(game.arena(request, None).to_json()) == untimed(data), "the same seed"


@games
def test_the_arena_refuses_what_it_cannot_run_before_playing(game: Game) -> None:
    request = small_arena(game)
    most = game.presets[request.preset].players[1]
    bad = [
        replace(request, bots=("no such level", *request.bots[1:])),
        replace(request, bots=request.bots[:-1]),
        replace(request, seats=most + 1, bots=(game.bot_levels[0],) * (most + 1)),
        replace(request, options={"no_such_option": 1}),
        replace(request, games=0),
    ]

    def played(done: int, total: int) -> None:
        pytest.fail(f"a refused arena played {done} of {total} games")

    for wrong in bad:
        with pytest.raises(ValueError):  # RulesError is one too
            game.arena(wrong, played)
