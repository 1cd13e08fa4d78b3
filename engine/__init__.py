"""Burro's games: pure, deterministic, no I/O.

`engine.kernel` holds what every game shares (cards, rng, errors, the record envelope,
storage, the `Game` and `Bot` protocols); each game is a package of its own
(`engine.follow_suit`, `engine.cuartetos`), found by preset through `engine.registry`.
"""
