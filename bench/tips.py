"""How often a tip is the strong bot's own choice, per preset (issue #34).

    python -m bench.tips [--positions 150] [--seed 1] [--seats 4] [--rollouts 1200]
        [--presets spanish,cuartetos,…] [--json]

Positions come from games the heuristic bots play (every seat; the tip is what they
play, so the games are the tips' own): at a decision with more than one legal move,
taken at random one time in three, the tip (`Game.tip`) and the strong bot are asked for
the same view, and whether they chose the same move is counted, until `--positions` per
preset. Cards that play alike count as one move, as the strong bot counts them
(`search.distinct_actions`: two cards of a suit with no card still in play between them,
the 3 and the 4 when every card between is gone). The strong bot thinks its `--rollouts`
without a clock cap, so a run gives the same figures on any machine. Follow-suit
positions are split by kind: a lead, following the suit led, or void (the joker, draw or
pass). Cuartetos: also how often the two pass a card of the same rank (the tip takes the
first of the cards the rule finds equal, where the bot draws one at random; the suit
never matters). Besides: for a lead, how often the two lead the same suit (the tip's
words name the suit; its card is the suit's top or its lowest); in cuartetos, how often
the bot passes a card of the same rank, and one the tip's rule finds as good (a rank
held as few times). Rates with Wilson 95% intervals.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.cuartetos import tip as passing_tips
from engine.cuartetos.bots import make_bot as passing_bot
from engine.cuartetos.game import apply as pass_apply
from engine.cuartetos.game import new_game as pass_new_game
from engine.cuartetos.game import to_move as pass_to_move
from engine.cuartetos.rules import PRESETS as PASSING
from engine.cuartetos.rules import make_rules as pass_rules
from engine.cuartetos.views import player_view as pass_view
from engine.follow_suit import tip as follow_tips
from engine.follow_suit.actions import encode
from engine.follow_suit.bots import Budget, make_bot
from engine.follow_suit.bots.knowledge import Knowledge
from engine.follow_suit.bots.search import distinct_actions, representative
from engine.follow_suit.game import apply, new_game, to_move
from engine.follow_suit.rules import PRESETS, make_rules
from engine.follow_suit.views import PlayerView, player_view
from engine.kernel.stats import wilson

TAKEN = 1 / 3  # the share of decisions asked: positions spread over more games
KINDS = ("lead", "follow", "void")


@dataclass
class Tally:
    """Agreements out of positions, in all and by kind."""

    asked: Counter[str] = field(default_factory=Counter)
    agreed: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0  # the strong bot's thinking, in all

    def count(self, same: bool, *keys: str) -> None:
        for key in keys:
            self.asked[key] += 1
            self.agreed[key] += same

    def rate(self, key: str = "all") -> dict[str, Any]:
        n, k = self.asked[key], self.agreed[key]
        low, high = wilson(k, n) if n else (0.0, 0.0)
        return {"positions": n, "agree": k, "rate": k / n if n else 0.0, "ci": [low, high]}


def kind_of(view: PlayerView, tip: str) -> str:
    """What the seat was doing: leading, following the suit led, or void."""
    if tip in (follow_tips.DRAW, follow_tips.DRAW_TALLER, follow_tips.PASS, follow_tips.VOID_JOKER):
        return "void"
    return "follow" if view.led is not None and tip.startswith("follow") else "lead"


def follow_positions(preset: str, seats: int, rnd: random.Random) -> Iterator[PlayerView]:
    """Views of decisions with a choice, from games the heuristic bots play."""
    rules, walker = make_rules(preset, {}), make_bot("heuristic")
    for seed in range(1_000_000):
        game = new_game(rules, seats, rnd.getrandbits(64) ^ seed)
        while not game.past and (seat := to_move(game)) is not None:
            view = player_view(game, seat)
            if len(view.legal) > 1 and rnd.random() < TAKEN:
                yield view
            game, _ = apply(game, seat, walker.choose(view))


def alike(view: PlayerView, one: str, other: str) -> bool:
    """Whether two of the view's moves play alike (`distinct_actions`)."""
    if one == other:
        return True
    know = Knowledge(view)
    moves = distinct_actions(know, [encode(a, know.codec) for a in view.legal])
    a, b = encode(one, know.codec), encode(other, know.codec)
    return representative(moves, a) == representative(moves, b)


def follow_suit(preset: str, args: argparse.Namespace) -> Tally:
    rnd, tally = random.Random(args.seed), Tally()
    strong = make_bot("strong", args.seed, Budget(args.rollouts, None))
    for view in follow_positions(preset, args.seats, rnd):
        tip = follow_tips.tip(view)
        assert tip is not None
        start = time.perf_counter()
        choice = strong.choose(view)
        tally.seconds += time.perf_counter() - start
        kind = kind_of(view, tip.reason)
        tally.count(alike(view, choice, tip.action), "all", kind)
        if kind == "lead":  # the tip's word is the suit: its card is the lowest or the top
            tally.count(choice[-1] == tip.action[-1], "suit")
        if tally.asked["all"] >= args.positions:
            return tally
    return tally


def as_good(hand: tuple[str, ...], choice: str, tip: str) -> bool:
    """Whether the bot's choice is one the tip's rule finds as good as its own: the same
    move, or a card of a rank held as few times."""
    if choice == tip or not (choice.startswith("pass:") and tip.startswith("pass:")):
        return choice == tip
    counts = Counter(card[:-1] for card in hand)
    return counts[choice[5:-1]] == counts[tip[5:-1]]


def passing(preset: str, args: argparse.Namespace) -> Tally:
    """Cuartetos: every seat passes as its tip says; asked one time in three."""
    rnd, tally, at = random.Random(args.seed), Tally(), 1000.0
    rules, strong = pass_rules(preset, {}), passing_bot("strong", args.seed)
    for seed in range(1_000_000):
        game = pass_new_game(rules, args.seats, rnd.getrandbits(64) ^ seed, at=at)
        while not game.over and game.hand.call is None and pass_to_move(game):
            for seat in pass_to_move(game):
                view = pass_view(game, seat)
                tip = passing_tips.tip(view)
                if tip is None:
                    continue
                if rnd.random() < TAKEN:
                    start = time.perf_counter()
                    choice = strong.choose(view) or ""
                    tally.seconds += time.perf_counter() - start
                    tally.count(choice == tip.action, "all")
                    tally.count(choice[5:-1] == tip.action[5:-1], "rank")  # pass:<rank><suit>
                    tally.count(as_good(view.hand, choice, tip.action), "rule")
                    if tally.asked["all"] >= args.positions:
                        return tally
                at += 1.0
                game, _ = pass_apply(game, seat, tip.action, at)
                if game.over or game.hand.call is not None:
                    break
    return tally


def run(args: argparse.Namespace) -> dict[str, Any]:
    presets = args.presets.split(",") if args.presets else [*PRESETS, *PASSING]
    report: dict[str, Any] = {}
    for preset in presets:
        tally = passing(preset, args) if preset in PASSING else follow_suit(preset, args)
        keys = ("all", "rank", "rule") if preset in PASSING else ("all", *KINDS, "suit")
        report[preset] = {key: tally.rate(key) for key in keys if tally.asked[key]}
        report[preset]["strong_ms"] = 1000 * tally.seconds / max(1, tally.asked["all"])
    return report


def table(report: dict[str, Any]) -> str:
    """The rates as a Markdown table: in all (with its interval), then by kind."""
    columns = ("lead", "suit", "follow", "void")
    head = "| preset | positions | tip = strong, 95% CI | lead | lead, same suit | follow | void |"
    lines = [head, "| --- | ---: | --- | --- | --- | --- | --- |"]
    for preset, found in report.items():
        whole = found["all"]
        low, high = whole["ci"]
        parts = [
            f"{found[k]['rate']:.2f} ({found[k]['positions']})" if k in found else "—"
            for k in columns
        ]
        rate = f"{whole['rate']:.3f} [{low:.3f}, {high:.3f}]"
        lines.append(f"| {preset} | {whole['positions']} | {rate} | {' | '.join(parts)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rollouts", type=int, default=1200)
    parser.add_argument("--presets", default="")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = run(args)
    print(json.dumps(report, indent=1) if args.json else table(report))
    for preset, found in report.items():
        keys = [key for key in ("suit", "rank", "rule") if key in found]
        extra = [f"{key} {found[key]['rate']:.3f}" for key in keys]
        said = f"; {', '.join(extra)}" if extra else ""
        print(f"{preset}: strong bot {found['strong_ms']:.0f} ms a position{said}")


if __name__ == "__main__":
    main()
