"""The passing game's arena: bots play many whole games; each level's loser rate with
its 95% confidence interval, against the rate pure chance would give.

    python -m engine.cuartetos.arena --seats 5 --bots strong,heuristic,easy,random,heuristic \\
        --games 500 --seed 1 [--json]

A game here is a whole game, to the first B-U-R-R-O. Games are duplicated: each game's
seed is played once per rotation of the bots round the table, so every level plays
every seat of the same deals. Bots are driven as the service drives them: through
`player_view` and `apply`, at receive times the arena makes up as the service would
(a human-looking delay per decision; to pick a card, times the bot's `pick_pace`), with
`close` at each deadline nobody beat.

`burro arena` runs it through `Game.arena` (`arena` here). The JSON report has the
shape of every game's (engine/kernel/arena.py, docs/interfaces.md section 7): `metric`
is "loser", a level's `rate` the share of its seats that lost the game (lower is
better), and `chance_rate` what a seat would lose at if play were pure luck: the mean
number of losers per game over the seats. Two more keys per level: `letters_per_game` and
`calls_per_game` (hands it ended with a real ¡Burro!).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cuartetos.bots import LEVELS, CuartetosBot, make_bot
from engine.cuartetos.game import apply, close_window, deadline, new_game, to_move
from engine.cuartetos.rules import CuartetosRules, make_rules
from engine.cuartetos.state import GameState, to_seconds
from engine.cuartetos.views import player_view
from engine.kernel.arena import ArenaRequest, Progress, rotated
from engine.kernel.errors import IllegalAction, RulesError
from engine.kernel.rng import derive
from engine.kernel.stats import level_entry, percentile, wilson

Clock = Callable[[], float]
MAX_ACTIONS = 200_000  # a safety bound on one game's actions


@dataclass(frozen=True)
class Delays:
    """The service's human-looking delays, in seconds."""

    choose: tuple[float, float] = (0.6, 2.5)  # from when choosing opens, times pick_pace
    react: tuple[float, float] = (0.35, 1.6)  # from the call


@dataclass(frozen=True)
class ArenaConfig:
    seats: int
    bots: tuple[str, ...]  # a level per seat, before rotation
    games: int  # rounded up to whole rotations of the bots
    seed: int
    options: dict[str, Any] | None = None
    preset: str = "cuartetos"
    delays: Delays = Delays()

    @property
    def deals(self) -> int:
        return -(-self.games // self.seats)

    def rules(self) -> CuartetosRules:
        rules = make_rules(self.preset, self.options)
        rules.check_seats(self.seats)
        if len(self.bots) != self.seats:
            raise ValueError(f"{len(self.bots)} bots for {self.seats} seats: name one per seat")
        unknown = [b for b in self.bots if b not in LEVELS]
        if unknown:
            raise ValueError(f"unknown bot level {unknown[0]!r}; levels are: {', '.join(LEVELS)}")
        return rules


@dataclass
class GameResult:
    levels: tuple[str, ...]  # the level at each seat
    losers: tuple[int, ...]
    letters: tuple[int, ...]
    calls: tuple[int, ...]  # hands each seat ended with a real call
    decision_ms: list[list[float]] = field(default_factory=list)  # per seat


def play_game(
    rules: CuartetosRules,
    seats: int,
    game_seed: int,
    dealer: int,
    players: Sequence[CuartetosBot],
    rnd: random.Random,
    delays: Delays = Delays(),
    clock: Clock = time.perf_counter,
) -> tuple[GameState, list[list[float]]]:
    """Play one whole game; return it and each seat's decision times in ms."""
    game = new_game(rules, seats, game_seed, dealer, at=0.0)
    times: list[list[float]] = [[] for _ in range(seats)]
    schedule: dict[int, float] = {}
    phase_key: tuple[int, int, int, bool] | None = None

    def decide(seat: int) -> str | None:
        view = player_view(game, seat)
        start = clock()
        action = players[seat].choose(view)
        times[seat].append((clock() - start) * 1000)
        return action

    for _ in range(MAX_ACTIONS):
        if game.over:
            return game, times
        hand = game.hand
        key = (game.hand_no, hand.rotation, hand.phase_at, hand.call is not None)
        if key != phase_key:
            phase_key, schedule = key, {}
            opened = to_seconds(hand.phase_at)
            for seat in to_move(game):
                if hand.call is None:
                    pace = players[seat].pick_pace
                    schedule[seat] = opened + rnd.uniform(*delays.choose) * pace
                elif decide(seat) == "respond":
                    schedule[seat] = opened + rnd.uniform(*delays.react)
        waiting = set(to_move(game))
        live = {s: at for s, at in schedule.items() if s in waiting}
        due = deadline(game)
        assert due is not None
        if not live or min(live.values()) > due:
            game, _ = close_window(game, due)
            continue
        seat = min(live, key=lambda s: (live[s], s))
        at = schedule.pop(seat)
        action = "respond" if hand.call is not None else decide(seat)
        if action is None:
            continue
        try:
            game, _ = apply(game, seat, action, at)
        except IllegalAction as exc:
            level = players[seat].level
            raise AssertionError(f"{level} bot at seat {seat}: {action!r}: {exc}") from None
    raise AssertionError("a game did not end")


def run_arena(
    config: ArenaConfig, progress: Progress | None = None, clock: Clock = time.perf_counter
) -> ArenaReport:
    rules = config.rules()
    n = config.seats
    results: list[GameResult] = []
    total = config.deals * n
    for deal in range(config.deals):
        game_seed = derive(config.seed, deal)
        for rotation in range(n):
            levels = rotated(config.bots, rotation)
            players = [
                make_bot(level, derive(config.seed, deal, rotation, seat))
                for seat, level in enumerate(levels)
            ]
            rnd = random.Random(derive(config.seed, deal, rotation, 1 << 20))
            game, times = play_game(
                rules, n, game_seed, deal % n, players, rnd, config.delays, clock
            )
            hands = (*game.past, game.hand)
            calls = tuple(sum(1 for h in hands if h.caller == s) for s in range(n))
            results.append(GameResult(levels, game.losers, game.standing.letters, calls, times))
            if progress:
                progress(len(results), total)
    return report(rules.preset, n, results)


def config_for(request: ArenaRequest) -> ArenaConfig:
    """The arena a request asks for, checked (ValueError or RulesError, naming the first
    problem). Rollouts, a clock cap and processes are the follow-suit bots' knobs: none
    applies here."""
    if request.games < 1:
        raise ValueError("--games must be at least 1")
    config = ArenaConfig(
        seats=request.seats,
        bots=request.bots,
        games=request.games,
        seed=request.seed,
        options=dict(request.options),
        preset=request.preset,
    )
    config.rules()
    return config


def arena(request: ArenaRequest, progress: Progress | None = None) -> ArenaReport:
    """`Game.arena`: check the request, then play its games."""
    return run_arena(config_for(request), progress)


# ----- statistics ----------------------------------------------------------------------


@dataclass(frozen=True)
class LevelStats:
    level: str
    observations: int  # seats played
    lost: int  # of those, seats that lost the game
    ci95: tuple[float, float]
    letters_per_game: float
    calls_per_game: float
    decisions: int
    decision_ms_mean: float
    decision_ms_p95: float

    @property
    def rate(self) -> float:
        return self.lost / self.observations if self.observations else 0.0


@dataclass(frozen=True)
class ArenaReport:
    preset: str
    seats: int
    games: int
    undecided: int  # games that ended with no loser
    chance_rate: float
    levels: list[LevelStats]

    def to_json(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "seats": self.seats,
            "games": self.games,
            "metric": "loser",
            "undecided": self.undecided,
            "chance_rate": self.chance_rate,
            "bots": [
                {
                    **level_entry(s),
                    "letters_per_game": s.letters_per_game,
                    "calls_per_game": s.calls_per_game,
                }
                for s in self.levels
            ],
        }

    def lines(self) -> list[str]:
        out = [
            f"{self.preset}, {self.seats} seats, {self.games} games "
            f"({self.undecided} with no loser): loser rate (lower is better)",
            f"pure chance: {self.chance_rate:.3f}",
            f"{'bot':<10} {'rate':>6}  {'95% CI (Wilson)':<17} {'seats':>6}"
            f"  {'letters':>7} {'calls':>6}  {'ms mean':>8} {'ms p95':>8}",
        ]
        for s in self.levels:
            lo, hi = s.ci95
            out.append(
                f"{s.level:<10} {s.rate:6.3f}  [{lo:.3f}, {hi:.3f}]    {s.observations:6d}"
                f"  {s.letters_per_game:7.2f} {s.calls_per_game:6.2f}"
                f"  {s.decision_ms_mean:8.3f} {s.decision_ms_p95:8.3f}"
            )
        return out


def report(preset: str, seats: int, results: Sequence[GameResult]) -> ArenaReport:
    levels: list[str] = []
    for result in results:
        levels.extend(lv for lv in result.levels if lv not in levels)
    stats = []
    for level in levels:
        seen = lost = letters = calls = 0
        times: list[float] = []
        for r in results:
            for seat, lv in enumerate(r.levels):
                if lv == level:
                    seen += 1
                    lost += seat in r.losers
                    letters += r.letters[seat]
                    calls += r.calls[seat]
                    times.extend(r.decision_ms[seat])
        stats.append(
            LevelStats(
                level=level,
                observations=seen,
                lost=lost,
                ci95=wilson(lost, seen),
                letters_per_game=letters / seen if seen else 0.0,
                calls_per_game=calls / seen if seen else 0.0,
                decisions=len(times),
                decision_ms_mean=sum(times) / len(times) if times else 0.0,
                decision_ms_p95=percentile(times, 95),
            )
        )
    losers = sum(len(r.losers) for r in results)
    return ArenaReport(
        preset=preset,
        seats=seats,
        games=len(results),
        undecided=sum(1 for r in results if not r.losers),
        chance_rate=losers / (len(results) * seats) if results else 0.0,
        levels=stats,
    )


# ----- command line --------------------------------------------------------------------


def run_command(
    preset: str,
    seats: int,
    bots: str,
    games: int,
    seed: int,
    options: str,
    as_json: bool,
    progress: Progress | None = None,
) -> int:
    """Run the arena from `python -m engine.cuartetos.arena`'s values (`burro arena` goes
    through `Game.arena`): 0 with the report on stdout, 2 with one line on stderr for bad
    values."""
    try:
        table_options = json.loads(options)
        if not isinstance(table_options, dict):
            raise ValueError("--options must be a JSON object")
        levels = tuple(b.strip() for b in bots.split(","))
        request = ArenaRequest(preset, seats, levels, games, seed, options=table_options)
        config = config_for(request)
    except (ValueError, RulesError) as exc:
        print(f"burro arena: {exc}", file=sys.stderr)
        return 2
    result = run_arena(config, progress)
    print(json.dumps(result.to_json()) if as_json else "\n".join(result.lines()))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.cuartetos.arena",
        description="Bots play whole games of the passing Burro; loser rates per level.",
    )
    parser.add_argument("--preset", default="cuartetos")
    parser.add_argument("--seats", type=int, default=5)
    parser.add_argument(
        "--bots",
        default="strong,heuristic,easy,random,heuristic",
        help=f"one level per seat, comma-separated ({', '.join(LEVELS)})",
    )
    parser.add_argument("--games", type=int, default=200, help="games (whole rotations)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--options", default="{}", help="rule options as a JSON object")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)

    def progress(done: int, total: int) -> None:
        if done == total or done % max(1, total // 10) == 0:
            print(f"{done}/{total} games", file=sys.stderr, flush=True)

    return run_command(
        args.preset,
        args.seats,
        args.bots,
        args.games,
        args.seed,
        args.options,
        args.json,
        None if args.quiet else progress,
    )


if __name__ == "__main__":
    sys.exit(main())
