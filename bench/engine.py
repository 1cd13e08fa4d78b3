"""Engine speed on one core: random playouts per second per preset, and the cost of one
action on the fast path (`HandSim.legal` + `step`) and through the public immutable API
(`legal_actions` + `apply`).

    python -m bench.engine [--seconds 2]

A playout is one hand: shuffle, deal, random legal actions to the end.
"""

from __future__ import annotations

import argparse
import random
import time

from engine.follow_suit.game import apply, legal_actions, new_game, to_move
from engine.follow_suit.hand import HandSim, table_for
from engine.follow_suit.rules import PRESETS, make_rules

TABLES = [("spanish", 4), ("spanish", 2), *((name, 4) for name in PRESETS if name != "spanish")]


def playouts(preset: str, seats: int, seconds: float) -> tuple[float, float]:
    """(hands per second, actions per second) of random playouts on the fast path."""
    table = table_for(make_rules(preset), seats)
    pack = [table.codec.index_of[c] for c in table.codec.pack()]
    rnd = random.Random(1)
    # The fastest seeded integer source in the standard library; private, so typeshed
    # leaves it out.
    pick = rnd._randbelow  # type: ignore[attr-defined]
    hands = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(100):
            deck = pack[:]
            rnd.shuffle(deck)
            sim = HandSim.deal(table, deck, hands % seats, hands)
            sim.actions = None
            while not sim.end:
                acts = sim.legal()
                sim.step(acts[0] if len(acts) == 1 else acts[pick(len(acts))])
                actions += 1
            hands += 1
    elapsed = time.perf_counter() - start
    return hands / elapsed, actions / elapsed


def public_api_action_us(preset: str, seats: int, seconds: float) -> float:
    """Microseconds per `legal_actions` + `apply` through the immutable API."""
    rules = make_rules(preset)
    rnd = random.Random(2)
    actions = 0
    start = time.perf_counter()
    game = new_game(rules, seats, 1)
    while time.perf_counter() - start < seconds:
        seat = to_move(game)
        if seat is None:
            game = new_game(rules, seats, actions)
            continue
        game, _ = apply(game, seat, rnd.choice(legal_actions(game, seat)))
        actions += 1
    return (time.perf_counter() - start) / actions * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    args = parser.parse_args()
    print(f"{'table':<16}{'playouts/s':>12}{'actions/s':>12}{'fast µs/act':>13}{'API µs/act':>12}")
    for preset, seats in TABLES:
        per_hand, per_action = playouts(preset, seats, args.seconds)
        api = public_api_action_us(preset, seats, args.seconds / 2)
        name = f"{preset} ×{seats}"
        print(
            f"{name:<16}{per_hand:>12,.0f}{per_action:>12,.0f}{1e6 / per_action:>13.2f}{api:>12.1f}"
        )


if __name__ == "__main__":
    main()
