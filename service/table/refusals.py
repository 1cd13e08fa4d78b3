"""Why a move a player typed cannot be played now, from the engine's own knowledge.

A typed move is read whatever its legality (`service.platforms.whatsapp.words`); the
engine's refusal of it, with the player's legal moves, says precisely what is wrong:
a card not held (nothing else is said of it), a suit to follow and the cards that
follow it, an empty stock, a card to play instead of drawing. Only what the player
may see is used: their own hand and legal moves, and the led suit. The words are the
desk's (`service.desk.presses`), which names the cards in the reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.kernel.errors import IllegalAction, MustFollowSuit, UnknownAction
from service.table.play import game
from service.table.room import Room

CARD_VERBS = ("play", "pass")  # a card typed is played (follow suit) or passed (cuartetos)


@dataclass(frozen=True)
class Mistake:
    """A typed move refused: the engine's `code`, the typed `card` if any, the led
    `suit` to follow (a suit letter, or ""), and the player's `legal` moves."""

    code: str
    card: str = ""
    suit: str = ""
    legal: tuple[str, ...] = ()

    @property
    def plays(self) -> tuple[str, ...]:
        """The cards the player may play or pass now."""
        return tuple(a.partition(":")[2] for a in self.legal if a.startswith("play:"))


def typed(room: Room, user_id: int, wanted: str, now: float) -> str | Mistake:
    """The action a typed move (`card:7D`, `draw`, `pass` …) means if it is legal now,
    else why not. The room is only read."""
    seat = room.seat_of(user_id)
    if seat is None or room.game is None or room.status != "playing":
        return Mistake("game_over")
    g = game(room)
    legal = tuple(g.legal_actions(room.game, seat))
    card = wanted.partition(":")[2] if wanted.startswith("card:") else ""
    tries = [f"{verb}:{card}" for verb in CARD_VERBS] if card else [wanted]
    refusal: IllegalAction = UnknownAction()
    for action in tries:
        if action in legal:
            return action
        try:
            g.apply(room.game, seat, action, now)
        except IllegalAction as exc:
            if not isinstance(refusal, UnknownAction) and isinstance(exc, UnknownAction):
                continue  # the other verb's refusal says more
            refusal = exc
            continue
        return action  # legal after all (a game whose list leaves it out)
    suit = refusal.suit if isinstance(refusal, MustFollowSuit) else ""
    return Mistake(refusal.code, card, suit, legal)
