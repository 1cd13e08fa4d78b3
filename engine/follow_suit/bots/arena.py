"""The arena: bots play many hands against each other, and the rates say who is better.

A game of the arena is one hand (one deal). Deals are duplicated: each deal is played
once per rotation of the bots round the table, so every bot plays every seat of
every deal and the luck of the cards cancels out. Bots are driven exactly as the
service drives them: through `player_view` and `apply`, one action at a time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from engine.follow_suit.bots.base import Bot, Budget
from engine.follow_suit.bots.registry import LEVELS, make_bot
from engine.follow_suit.game import GameState, apply, new_game, to_move
from engine.follow_suit.hand import BURRO, FIRST_OUT
from engine.follow_suit.rules import Rules, make_rules
from engine.follow_suit.views import player_view
from engine.kernel.arena import ArenaRequest, Progress, rotated
from engine.kernel.rng import derive
from engine.kernel.stats import HandResult, ScoredReport, level_stats

Clock = Callable[[], float]


@dataclass(frozen=True)
class ArenaConfig:
    preset: str
    seats: int
    bots: tuple[str, ...]  # a level per seat, before rotation
    games: int  # rounded up to whole rotations of the bots
    seed: int
    options: dict[str, Any] | None = None  # the table's rule options
    budget: Budget | None = None  # the strong bot's; None: its default

    @property
    def deals(self) -> int:
        return -(-self.games // self.seats)

    def rules(self) -> Rules:
        rules = make_rules(self.preset, self.options)
        rules.check_seats(self.seats)
        if len(self.bots) != self.seats:
            raise ValueError(f"{len(self.bots)} bots for {self.seats} seats: name one per seat")
        return rules


def scored_seat(game: GameState) -> int | None:
    """The seat the first hand scored (burro or winner), None if nobody."""
    hand = game.past[0] if game.past else game.hand
    if hand.end == BURRO:
        return hand.burro
    if hand.end == FIRST_OUT:
        return hand.winner
    return None


def play_hand(
    rules: Rules,
    seats: int,
    game_seed: int,
    dealer: int,
    players: list[Bot],
    timings: list[list[float]],
    clock: Clock = time.perf_counter,
) -> int | None:
    """Play one hand to its end; record the time of each real decision in
    milliseconds (forced moves excluded) under its seat. Returns the seat it scored."""
    game = new_game(rules, seats, game_seed, dealer)
    while not game.past and (seat := to_move(game)) is not None:
        view = player_view(game, seat)
        bot = players[seat]
        start = clock()
        action = bot.choose(view)
        if len(view.legal) > 1:
            timings[seat].append((clock() - start) * 1000)
        if action not in view.legal:
            raise AssertionError(f"{bot.level} bot chose {action!r}, not in {view.legal}")
        game, _ = apply(game, seat, action)
    return scored_seat(game)


def play_deal(
    config: ArenaConfig, deal: int, clock: Clock = time.perf_counter
) -> tuple[list[HandResult], dict[str, list[float]]]:
    """One deal, once per rotation of the bots: its hands' results and the decision
    times (ms) of each level."""
    rules = config.rules()
    n = config.seats
    results: list[HandResult] = []
    timings: dict[str, list[float]] = {}
    game_seed = derive(config.seed, deal)
    for rotation in range(n):
        levels = rotated(config.bots, rotation)
        players = [
            make_bot(level, derive(config.seed, deal, rotation, seat), config.budget)
            for seat, level in enumerate(levels)
        ]
        times: list[list[float]] = [[] for _ in range(n)]
        scored = play_hand(rules, n, game_seed, deal % n, players, times, clock)
        for level, seat_times in zip(levels, times, strict=True):
            timings.setdefault(level, []).extend(seat_times)
        results.append(HandResult(levels, scored))
    return results, timings


def run_arena(
    config: ArenaConfig,
    progress: Progress | None = None,
    clock: Clock = time.perf_counter,
    jobs: int = 1,
) -> ScoredReport:
    """Play every deal of `config`; `jobs` processes share the deals (one per core gives
    the same results, only sooner: each deal depends only on the seed)."""
    rules = config.rules()
    n = config.seats
    results: list[HandResult] = []
    timings: dict[str, list[float]] = {}
    total = config.deals * n
    deals = range(config.deals)
    with ExitStack() as stack:
        if jobs > 1:
            pool = stack.enter_context(ProcessPoolExecutor(jobs))
            played = pool.map(play_deal, repeat(config), deals, chunksize=4)
        else:
            played = (play_deal(config, deal, clock) for deal in deals)
        for deal_results, deal_timings in played:
            results.extend(deal_results)
            for level, times in deal_timings.items():
                timings.setdefault(level, []).extend(times)
            if progress:
                progress(len(results), total)
    return ScoredReport(
        preset=rules.preset,
        seats=n,
        games=len(results),
        metric="win" if rules.hand_end == "first_out_wins" else "burro",
        undecided=sum(1 for r in results if r.scored is None),
        levels=level_stats(results, timings),
    )


def config_for(request: ArenaRequest) -> ArenaConfig:
    """The arena `burro arena` asks for, checked (ValueError or RulesError, naming the
    first problem): the strong bot thinks for `rollouts` (its default unless given), with
    no clock cap unless `cap_seconds`, so a run is reproducible for its seed."""
    unknown = [b for b in request.bots if b not in LEVELS]
    if unknown:
        raise ValueError(f"unknown bot level {unknown[0]!r}; levels are: {', '.join(LEVELS)}")
    rollouts = Budget().rollouts if request.rollouts is None else request.rollouts
    if request.games < 1 or rollouts < 1 or request.jobs < 1:
        raise ValueError("--games, --rollouts and --jobs must be at least 1")
    config = ArenaConfig(
        preset=request.preset,
        seats=request.seats,
        bots=request.bots,
        games=request.games,
        seed=request.seed,
        options=dict(request.options),
        budget=Budget(rollouts=rollouts, seconds=request.cap_seconds),
    )
    config.rules()
    return config


def arena(request: ArenaRequest, progress: Progress | None = None) -> ScoredReport:
    """`Game.arena`: check the request, then play its deals."""
    return run_arena(config_for(request), progress, jobs=request.jobs)
