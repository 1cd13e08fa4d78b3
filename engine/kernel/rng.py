"""The game's own randomness: SplitMix64, a tiny seeded generator whose whole state is
one integer, so it is stored with the game and replays exactly on any Python.

Two ways to draw a new seed: `derive` mixes a seed that may become public (a finished
hand's own seed, which its record carries for replay), and is reversible; `keyed` draws
from a secret (a game's key) one-way, so the seeds it gives away reveal nothing of the
key or of each other."""

from __future__ import annotations

from hashlib import blake2b
from typing import TypeVar

MASK64 = (1 << 64) - 1
KEY_MASK = (1 << 512) - 1  # BLAKE2b takes keys of up to 64 bytes
T = TypeVar("T")


def next_state(state: int) -> tuple[int, int]:
    """Advance the generator: (new state, 64-bit output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def uniform(state: int) -> tuple[int, float]:
    """(new state, a float in [0, 1))."""
    state, out = next_state(state)
    return state, (out >> 11) / float(1 << 53)


def below(state: int, n: int) -> tuple[int, int]:
    """(new state, an integer in [0, n)) by multiply-shift; n is far below 2**32."""
    state, out = next_state(state)
    return state, ((out >> 32) * n) >> 32


def shuffled(items: list[T], seed: int) -> list[T]:
    """A Fisher-Yates shuffle of a copy of `items`, fixed by `seed`."""
    out = list(items)
    state = seed & MASK64
    for i in range(len(out) - 1, 0, -1):
        state, j = below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def derive(seed: int, *salt: int) -> int:
    """A new 63-bit seed from a seed and salts; anyone who knows the result can work back
    to the seed, so never use it on a secret (see `keyed`)."""
    state = seed & MASK64
    for value in salt:
        state, out = next_state(state ^ (value & MASK64))
        state = out
    return state & ((1 << 63) - 1)


def keyed(key: int, *salt: int) -> int:
    """A new 63-bit seed from a secret key and salts (e.g. the hand number), by keyed
    BLAKE2b: one-way, so from any number of its outputs (the seeds of finished hands)
    nobody can recover the key or predict another output (the next deal, a bot's choice,
    when the tent topples). Keys of up to 512 bits."""
    message = b"".join((value & MASK64).to_bytes(8, "big") for value in salt)
    digest = blake2b(message, key=(key & KEY_MASK).to_bytes(64, "big"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1
