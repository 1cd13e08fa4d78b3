"""Short messages of their own beside the screens the outbox keeps up to date: a hand's
or the game's end (in the group and in each player's chat), and a move played for a
player (in their own chat). Built at send time from the room, from public events only
(a move said to a player is their own card).
"""

from __future__ import annotations

from engine.cuartetos import GameState as PassingGame
from engine.cuartetos import public_view as passing_public_view
from engine.follow_suit.game import GameState
from engine.follow_suit.views import public_view
from service.table.room import LogLine, Room
from service.ui.cuartetos import RESULTS as PASSING_RESULTS
from service.ui.cuartetos import PassingPainter
from service.ui.i18n import _
from service.ui.screens import CARD_SEPARATOR, RESULTS, Painter, Screen


def news(room: Room, lang: str, bot_username: str) -> Screen | None:
    """How the last hand ended and the scores; the game's result once it is over."""
    if isinstance(room.game, PassingGame):
        lines = passing_news(PassingPainter(room, lang, bot_username), room.game)
    elif isinstance(room.game, GameState):
        lines = follow_news(Painter(room, lang, bot_username), room.game)
    else:
        return None
    return Screen("\n".join(lines)) if lines else None


def last_result(room: Room, kinds: tuple[str, ...], hand_no: int) -> LogLine | None:
    """The newest log line telling how a hand ended, if it is of this hand or the last."""
    found = [line for line in room.log if line.kind in kinds and line.hand_no >= hand_no - 1]
    return found[-1] if found else None


def follow_news(painter: Painter, game: GameState) -> list[str]:
    view = public_view(game)
    result = last_result(painter.room, RESULTS, view.hand_no)
    lines = [painter.event_text(result, 0)] if result is not None else []
    if painter.rules().scoring != "single":
        scores = CARD_SEPARATOR.join(
            f"{painter.room.seats[s].name}: {painter.score_text(s, view.scores[s])}"
            for s in range(view.seats)
        )
        lines.append(painter._("Scores: {scores}", scores=scores))
    if view.game_over:
        lines.append(painter.game_over_text(view))
    return lines


def passing_news(painter: PassingPainter, game: PassingGame) -> list[str]:
    view = passing_public_view(game)
    result = last_result(painter.room, PASSING_RESULTS, view.hand_no)
    lines = [painter.event_text(result)] if result is not None else []
    scores = CARD_SEPARATOR.join(
        f"{painter.room.seats[s].name}: {painter.letters(view.letters[s])}"
        for s in range(view.seats)
    )
    lines.append(painter._("Letters: {scores}", scores=scores))
    if view.game_over:
        lines.append(painter.game_over_text(view))
    return lines


def said(room: Room, lang: str, why: str, action: str) -> Screen:
    """A move played for a player: their only card (`why` "only"), or their time ran out
    (`why` "timeout"); `action` the engine's (`play:10H`, `draw`, `pass:7S` …)."""
    verb, _sep, code = action.partition(":")
    if isinstance(room.game, PassingGame):
        painter: Painter | PassingPainter = PassingPainter(room, lang)
    else:
        painter = Painter(room, lang)
    # a card is named only for a card's move: `draw:left` names the tent's half
    card = painter.card(code) if code and verb in ("play", "pass") else ""
    if verb == "pass" and card:
        text = _("⏰ Your time ran out: {card} was passed on for you.")
    elif why == "timeout" and card:
        text = _("⏰ Your time ran out: {card} was played for you.")
    elif why == "timeout":
        text = _("⏰ Your time ran out: your turn was played for you.")
    elif card:
        text = _("🤖 {card} was your only card to play: it was played for you.")
    else:
        text = _("🤖 You had only one move: it was made for you.")
    return Screen(painter.tr.gettext(text, card=card))
