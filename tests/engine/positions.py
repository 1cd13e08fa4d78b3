"""Build exact deals and positions for scripted rule tests."""

from __future__ import annotations

from typing import Any

from engine.follow_suit import events as ev
from engine.follow_suit.actions import decode, encode
from engine.follow_suit.hand import HandSim, HandState, table_for
from engine.follow_suit.rules import make_rules


def pack_for(
    preset: str,
    seats: int,
    dealer: int,
    hands: dict[int, str],
    stock: str,
    options: dict[str, Any] | None = None,
) -> list[str]:
    """The pack (top first) that deals `hands` and puts `stock` on top of the stock."""
    table = table_for(make_rules(preset, options), seats)
    order = table.rot[table.next_seat(dealer)]
    cards = {s: h.split() for s, h in hands.items()}
    dealt = [cards[seat][k] for k in range(table.rules.hand_size) for seat in order]
    top = stock.split()
    assert len(set(dealt + top)) == len(dealt + top), "a card is given twice"
    rest = [c for c in table.codec.pack() if c not in dealt and c not in top]
    return dealt + top + rest


def position(
    preset: str,
    seats: int,
    hands: dict[int, str],
    stock: str = "",
    leader: int = 0,
    options: dict[str, Any] | None = None,
) -> HandSim:
    """A hand in the middle of play: these hands and stock, `leader` to lead; every other
    card of the deck already set aside."""
    table = table_for(make_rules(preset, options), seats)
    index = table.codec.index_of
    masks = [0] * seats
    for seat, codes in hands.items():
        for code in codes.split():
            masks[seat] |= 1 << index[code]
    top = [index[c] for c in stock.split()]
    given = [*stock.split(), *" ".join(hands.values()).split()]
    assert len(set(given)) == len(given), "a card is given twice"
    if table.tent:
        half = (len(top) + 1) // 2
        piles: tuple[tuple[int, ...], ...] = (tuple(top[:half][::-1]), tuple(top[half:][::-1]))
    else:
        piles = (tuple(top[::-1]),)
    used = sum(1 << c for c in top)
    for mask in masks:
        used |= mask
    everything = sum(1 << index[c] for c in table.codec.pack())
    state = HandState(
        dealer=(leader - table.step) % seats,
        seed=1,
        deck=tuple(index[c] for c in table.codec.pack()),
        hands=tuple(masks),
        piles=piles,
        trick=(),
        trick_seats=(),
        led=-1,
        order=tuple(s for s in table.rot[leader] if masks[s]),
        turn=0,
        drawn=0,
        found=-1,
        passers=(),
        out=(),
        tricks=0,
        discard=everything & ~used,
        known=(0,) * seats,
        rng=1,
        end="",
        burro=-1,
        winner=-1,
        actions=(),
    )
    return HandSim.thaw(table, state)


def legal(sim: HandSim) -> list[str]:
    return sorted(decode(a, sim.t.codec) for a in sim.legal())


def play(sim: HandSim, *moves: str) -> list[ev.Event]:
    """Apply moves written `seat:action` (e.g. `2:play:5H`, `1:draw`), checking each is
    the mover's and legal; return all events."""
    out: list[ev.Event] = []
    for move in moves:
        seat_text, action = move.split(":", 1)
        assert sim.to_move() == int(seat_text), f"{move}: seat {sim.to_move()} is to move"
        assert action in legal(sim), f"{move}: not legal, legal are {legal(sim)}"
        sim.events = out
        sim.step(encode(action, sim.t.codec))
    sim.events = None
    return out


def hand_of(sim: HandSim, seat: int) -> list[str]:
    return sorted(sim.t.codec.codes(sim.hands[seat]))
