"""What one player may know, and what everyone may know.

Renderers and bots only ever receive a view, never a `GameState`. A view holds no
reference to the state it came from, so nothing hidden can be reached through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.follow_suit.actions import decode
from engine.follow_suit.game import GameState, legal_actions
from engine.follow_suit.hand import HandState, Table
from engine.follow_suit.rules import Rules
from engine.kernel.cards import SUITS


@dataclass(frozen=True)
class PublicView:
    """What the whole table sees."""

    rules: Rules
    seats: int
    hand_no: int
    dealer: int
    scores: tuple[int, ...]
    counts: tuple[int, ...]  # cards in each hand
    stock: int  # cards in the stock (both tent halves)
    piles: tuple[int, ...]  # cards in each stock pile: (stock,) or (left, right)
    trick: tuple[tuple[int, str], ...]  # (seat, card) played to the current trick
    led: str | None  # the suit to follow ("S", "H", "D", "C"), None before it is set
    to_move: int | None  # the seat to act
    order: tuple[int, ...]  # the seats taking part in this trick, leader first
    to_play: tuple[int, ...]  # seats still to act in this trick, the one to act first
    drawing: int  # cards the seat to act has drawn this turn
    passers: tuple[int, ...]  # seats that passed this trick
    out: tuple[int, ...]  # seats out of cards, in order
    tricks: int  # tricks completed in this hand
    discard: tuple[str, ...]  # cards set aside in finished tricks (played face up)
    known: tuple[tuple[str, ...], ...]  # per seat: cards seen going into that hand
    history: tuple[tuple[int, str], ...]  # this hand's actions (a draw shows no card)
    hand_over: str  # "" while playing, else why it ended
    burro: int | None
    winner: int | None
    game_over: bool
    winners: tuple[int, ...]
    losers: tuple[int, ...]


@dataclass(frozen=True)
class PlayerView(PublicView):
    """What `seat` sees: the public view plus their own hand and legal actions."""

    seat: int
    hand: tuple[str, ...]  # own cards, by suit, high to low
    legal: tuple[str, ...]  # own legal actions now, sorted


def public_view(game: GameState) -> PublicView:
    return PublicView(**_public_fields(game))


def player_view(game: GameState, seat: int) -> PlayerView:
    if not 0 <= seat < game.seats:
        raise ValueError(f"no seat {seat} at a table of {game.seats}")
    codec = game.table.codec
    return PlayerView(
        **_public_fields(game),
        seat=seat,
        hand=codec.codes(game.hand.hands[seat]),
        legal=tuple(legal_actions(game, seat)),
    )


def _public_fields(game: GameState) -> dict[str, Any]:
    hand, table = game.hand, game.table
    codec = table.codec
    playing = not hand.end and not game.over
    return {
        "rules": game.rules,
        "seats": game.seats,
        "hand_no": game.hand_no,
        "dealer": hand.dealer,
        "scores": game.scores,
        "counts": tuple(h.bit_count() for h in hand.hands),
        "stock": sum(len(p) for p in hand.piles),
        "piles": tuple(len(p) for p in hand.piles),
        "trick": tuple(
            (s, codec.code_of[c]) for s, c in zip(hand.trick_seats, hand.trick, strict=True)
        ),
        "led": SUITS[hand.led] if hand.led >= 0 else None,
        "to_move": hand.order[hand.turn] if playing else None,
        "order": hand.order,
        "to_play": hand.order[hand.turn :] if playing else (),
        "drawing": hand.drawn if playing else 0,
        "passers": hand.passers,
        "out": hand.out,
        "tricks": hand.tricks,
        "discard": codec.codes(hand.discard),
        "known": tuple(codec.codes(k) for k in hand.known),
        "history": public_history(hand, table),
        "hand_over": hand.end,
        "burro": hand.burro if hand.burro >= 0 else None,
        "winner": hand.winner if hand.winner >= 0 else None,
        "game_over": game.over,
        "winners": game.winners,
        "losers": game.losers,
    }


def public_history(hand: HandState, table: Table) -> tuple[tuple[int, str], ...]:
    """The hand's actions as strings; draws carry no card, so all of it is public."""
    codec = table.codec
    return tuple((seat, decode(a, codec)) for seat, a in hand.actions)
