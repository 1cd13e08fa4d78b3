"""Tiny's arena (`Game.arena`): bots play whole games, each game's seed once per rotation
of the bots round the table; a level's rate is the share of its seats that won, with
Wilson's 95% interval (`engine.kernel.stats`)."""

from __future__ import annotations

import time
from collections.abc import Callable

from engine.kernel.arena import ArenaRequest, Progress, rotated
from engine.kernel.presets import check_players
from engine.kernel.protocol import Bot
from engine.kernel.rng import derive
from engine.kernel.stats import HandResult, ScoredReport, level_stats
from tests.games.tiny import game
from tests.games.tiny.game import Rules

MakeBot = Callable[[str, int], Bot]
MAX_MOVES = 10_000  # a safety bound: a game of tiny ends within a few dozen plays


def arena(request: ArenaRequest, make_bot: MakeBot, progress: Progress | None) -> ScoredReport:
    """Play `request`'s games with bots from `make_bot`; rollouts, a clock cap and
    processes do not apply to tiny."""
    rules = checked_rules(request, make_bot)
    seats = request.seats
    total = -(-request.games // seats) * seats  # whole rotations
    results: list[HandResult] = []
    timings: dict[str, list[float]] = {}
    for deal, rotation in (divmod(k, seats) for k in range(total)):
        levels = rotated(request.bots, rotation)
        bots = [
            make_bot(lv, derive(request.seed, deal, rotation, s)) for s, lv in enumerate(levels)
        ]
        winner, times = play_game(rules, seats, derive(request.seed, deal), deal % seats, bots)
        results.append(HandResult(levels, winner))
        for level, seat_times in zip(levels, times, strict=True):
            timings.setdefault(level, []).extend(seat_times)
        if progress:
            progress(len(results), total)
    undecided = sum(1 for r in results if r.scored is None)
    stats = level_stats(results, timings)
    return ScoredReport(rules.preset, seats, len(results), "win", undecided, stats)


def checked_rules(request: ArenaRequest, make_bot: MakeBot) -> Rules:
    """The request's rules, once everything it asks for can be (else ValueError or
    RulesError), so nothing is played for a request that would fail half-way."""
    if request.games < 1:
        raise ValueError("--games must be at least 1")
    rules = game.make_rules(request.preset, dict(request.options))
    check_players(rules.preset, *game.PRESETS[rules.preset].players, request.seats)
    if len(request.bots) != request.seats:
        raise ValueError(f"{len(request.bots)} bots for {request.seats} seats: name one per seat")
    for level in request.bots:
        make_bot(level, 0)  # refuses an unknown level
    return rules


def play_game(
    rules: Rules, seats: int, seed: int, dealer: int, bots: list[Bot]
) -> tuple[int | None, list[list[float]]]:
    """One whole game: its winner, and each seat's decision times in ms (a decision is a
    choice among two cards or more)."""
    state = game.new_game(rules, seats, seed, dealer)
    times: list[list[float]] = [[] for _ in range(seats)]
    for _ in range(MAX_MOVES):
        if state.over:
            return state.winners[0] if state.winners else None, times
        view = game.player_view(state, state.turn)
        start = time.perf_counter()
        action = bots[state.turn].choose(view)
        if len(view.legal) > 1:
            times[state.turn].append((time.perf_counter() - start) * 1000)
        if action is None:
            raise AssertionError(f"a {bots[state.turn].level} bot let its turn go by")
        state, _ = game.apply(state, state.turn, action)
    raise AssertionError("a game of tiny did not end")
