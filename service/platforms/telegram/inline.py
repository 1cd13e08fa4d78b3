"""The hand through an inline query in the group: "🃏 My cards" opens `@bot g<room>`;
the personal results are the player's cards (the legal ones marked playable) and their
other moves.

Choosing a result posts a message in the group that shows no card ("🃏 I choose a
card."; the table announces the play) with a "✅ Confirm" button that only the chooser
may press. The move is made by whichever comes first: the chosen_inline_result update,
which Telegram sends only with inline feedback on (BotFather's /setinlinefeedback), or
the press. Then the button goes away; a refused move says why (a popup for the press,
the posted message for the chosen result)."""

from __future__ import annotations

import re
from collections.abc import Callable

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Update,
)
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from engine.cuartetos import REAL_WORD
from engine.cuartetos import GameState as PassingGame
from engine.cuartetos import player_view as passing_view
from engine.follow_suit.game import GameState
from engine.follow_suit.views import player_view
from service.platforms.telegram import callbacks
from service.platforms.telegram.buttons import answer, game_change
from service.platforms.telegram.people import actor_of
from service.table.cuartetos import actions as passing_actions
from service.table.cuartetos import moves as passing_moves
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room
from service.table.services import Services
from service.ui.cuartetos import PassingPainter
from service.ui.i18n import Translator, _
from service.ui.screens import Painter

PAGE = 50  # Telegram's limit on results per answer
# A posted result's button: `i<seat>:<token>`, the seat that chose it and its move.
CHOSEN = re.compile(r"^i(\d{1,2}):(.+)$")
CALLBACK_PATTERN = r"^[a-z0-9]{8}\.\d+\.i\d{1,2}:"  # app.py routes these presses here

Change = Callable[[Room], Outcome]


class Results:
    """The results of one player's answer, each posting `said` with the Confirm button."""

    def __init__(self, room: Room, version: int, seat: int, tr: Translator) -> None:
        self.room, self.version, self.seat, self.tr = room, version, seat, tr
        self.items: list[InlineQueryResultArticle] = []

    def add(self, token: str, title: str, description: str, said: str | None = None) -> None:
        confirm = InlineKeyboardButton(
            self.tr.gettext(_("✅ Confirm")),
            callback_data=callbacks.encode(self.room.id, self.version, f"i{self.seat}:{token}"),
        )
        text = said or self.tr.gettext(_("🃏 I choose a card."))
        self.items.append(
            InlineQueryResultArticle(
                id=callbacks.encode(self.room.id, self.version, token),
                title=title,
                description=description or None,
                input_message_content=InputTextMessageContent(text),
                reply_markup=InlineKeyboardMarkup([[confirm]]),
            )
        )


async def on_inline_query(
    update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services
) -> None:
    query = update.inline_query
    if query is None:
        return
    actor = actor_of(svc, query.from_user)
    tr = Translator(actor.lang)
    room_id = query.query.strip().removeprefix("g")
    room = svc.store.load(room_id) if len(room_id) == 8 else None
    seat = room.seat_of(actor.user_id) if room else None
    if room is None or room.game is None or seat is None or room.status != "playing":
        await query.answer([], cache_time=0, is_personal=True)
        return
    if isinstance(room.game, PassingGame):
        results = passing_results(room, seat, tr, PassingPainter(room, actor.lang))
    else:
        results = follow_results(room, seat, tr, Painter(room, actor.lang))
    offset = int(query.offset or 0) if (query.offset or "0").isdigit() else 0
    page = results.items[offset : offset + PAGE]
    next_offset = str(offset + PAGE) if offset + PAGE < len(results.items) else ""
    private = InlineQueryResultsButton(
        text=tr.gettext(_("💬 Play in private")), start_parameter=f"g{room.id}"
    )
    await query.answer(
        page, cache_time=0, is_personal=True, next_offset=next_offset, button=private
    )


def follow_results(room: Room, seat: int, tr: Translator, painter: Painter) -> Results:
    """A follow-suit hand: draw or pass when they are legal, then every card."""
    assert isinstance(room.game, GameState)
    view = player_view(room.game, seat)
    results = Results(room, room.version, seat, tr)
    labels = {
        "draw": _("🂠 Draw"),
        "draw:left": _("⬅️ Draw left"),
        "draw:right": _("Draw right ➡️"),
        "pass": _("⏭ Pass"),
    }
    for action in view.legal:
        if action in labels:
            label = tr.gettext(labels[action])
            results.add(callbacks.game_token(action), label, "", label)
    playable = {a.removeprefix("play:") for a in view.legal if a.startswith("play:")}
    for index, card in enumerate(view.hand):
        shown = painter.card(card)
        if card in playable:
            results.add("p" + card, shown, tr.gettext(_("Play this card")))
        else:
            results.add(f"n{index}", shown, tr.gettext(_("Not playable now")))
    return results


def passing_results(room: Room, seat: int, tr: Translator, painter: PassingPainter) -> Results:
    """The passing game's hand as results: each card to pass, ¡Burro!, the fake call,
    or the response to an open call; the other cards as unplayable results. Tokens
    carry the phase, as the private buttons do."""
    assert isinstance(room.game, PassingGame)
    view = passing_view(room.game, seat)
    results = Results(room, room.phase_version, seat, tr)
    for action in view.legal:
        # What the group sees posted is the shout alone: a fake looks like ¡Burro!.
        if action == "respond" and view.call is not None:
            label = said = painter.respond_button(view.call).label
        elif action == "burro":
            label, said = tr.gettext(_("🫏 ¡Burro!")), f"📣 {painter.shout(REAL_WORD)}"
        elif action.startswith("fake:"):
            word = painter.shout(action.partition(":")[2])
            label, said = tr.gettext(_("🎭 Fake call: {word}"), word=word), f"📣 {word}"
        else:
            continue
        results.add(passing_actions.token(action), label, "", said)
    for index, card in enumerate(view.hand):
        shown = painter.card(card)
        if "pass:" + card in view.legal:
            results.add(
                passing_actions.token("pass:" + card), shown, tr.gettext(_("Pass this card"))
            )
        else:
            results.add(f"n{index}", shown, tr.gettext(_("Not playable now")))
    return results


def chosen_change(
    svc: Services, room: Room, press: callbacks.Press, actor: Actor
) -> Change | Outcome:
    """The move a chosen result's token asks for, or why it cannot be made."""
    token, now, delay = press.action, svc.now(), svc.settings.bot_delay
    if token.startswith("n"):
        return Outcome().say(_("That card cannot be played now."))
    if room.settings.passing:
        passing_action = passing_actions.action(token)
        if passing_action is None:
            return Outcome().say(_("This button is not one of ours."))
        return passing_moves.press_change(
            room, press.version, actor.user_id, passing_action, now, delay
        )
    action = callbacks.game_action(token)
    if action is None:
        return Outcome().say(_("This button is not one of ours."))
    return game_change(room, press, actor, action, now, delay)


def make_move(
    svc: Services, press: callbacks.Press, actor: Actor, update_id: int, seat: int | None = None
) -> tuple[Outcome, bool]:
    """Make the move of a chosen result (`seat`: only that seat may): what to tell the
    player, and whether the move was made."""
    room = svc.store.load(press.room)
    if room is None:
        return Outcome().say(_("This game is over.")), False
    if seat is not None and room.seat_of(actor.user_id) != seat:
        return Outcome().say(_("Only the player who chose this card can confirm it.")), False
    change = chosen_change(svc, room, press, actor)
    if isinstance(change, Outcome):
        return change, False
    result = svc.store.update(press.room, change, update_id, loaded=room)
    if result is None:  # handled already (Telegram delivered the update again)
        return Outcome(), False
    return result[1], result[1].changed


async def on_chosen(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    """A result was chosen (inline feedback on): make its move at once and settle the
    posted message: the button goes, and a refused move says why there."""
    chosen = update.chosen_inline_result
    press = callbacks.decode(chosen.result_id) if chosen else None
    if chosen is None or press is None:
        return
    actor = actor_of(svc, chosen.from_user)
    outcome, made = make_move(svc, press, actor, update.update_id)
    if chosen.inline_message_id is None or (not made and outcome.popup is None):
        return
    text = None
    if not made and outcome.popup is not None:
        tr = Translator(actor.lang)
        text = "🃏 " + tr.gettext(outcome.popup.message, **dict(outcome.popup.values))
    await settle(context, chosen.inline_message_id, text)


async def on_press(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    """The posted result's "✅ Confirm": the chooser makes the move (unless the chosen
    result made it already); anyone else is told it is not theirs."""
    query = update.callback_query
    if query is None or query.from_user is None:
        return
    actor = actor_of(svc, query.from_user)
    press = callbacks.decode(query.data)
    match = CHOSEN.match(press.action) if press else None
    if press is None or match is None:
        outcome, made = Outcome().say(_("This button is not one of ours.")), False
    else:
        inner = callbacks.Press(press.room, press.version, match.group(2))
        outcome, made = make_move(svc, inner, actor, update.update_id, int(match.group(1)))
    await answer(query, Translator(actor.lang), outcome)
    if made and query.inline_message_id is not None:
        await settle(context, query.inline_message_id, None)


async def settle(
    context: ContextTypes.DEFAULT_TYPE, inline_message_id: str, text: str | None
) -> None:
    """Take the Confirm button off a posted result, saying `text` instead if given."""
    try:
        if text is None:
            await context.bot.edit_message_reply_markup(inline_message_id=inline_message_id)
        else:
            await context.bot.edit_message_text(text[:4096], inline_message_id=inline_message_id)
    except TelegramError:
        pass  # pressed and chosen at once, or the message is gone: nothing left to settle
