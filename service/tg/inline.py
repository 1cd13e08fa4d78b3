"""The hand through an inline query in the group: "🃏 My cards" opens
`@bot g<room>`; the personal results are the player's cards, the legal ones playable.
Choosing a playable card plays it. Result texts never show a card still in a hand."""

from __future__ import annotations

from telegram import InlineQueryResultArticle, InputTextMessageContent, Update
from telegram.ext import ContextTypes

from engine.views import player_view
from service import callbacks
from service.i18n import Translator, _
from service.screens import Painter
from service.services import Services
from service.tg.buttons import game_change
from service.tg.people import actor_of

PAGE = 50  # Telegram's limit on results per answer


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
    view = player_view(room.game, seat)
    painter = Painter(room, actor.lang)
    results = []
    playable = {a.removeprefix("play:") for a in view.legal if a.startswith("play:")}
    for action in view.legal:
        if not action.startswith("play:"):
            label = {
                "draw": _("🂠 Draw"),
                "draw:left": _("⬅️ Draw left"),
                "draw:right": _("Draw right ➡️"),
                "pass": _("⏭ Pass"),
            }[action]
            results.append(
                article(
                    room.id,
                    room.version,
                    callbacks.game_token(action),
                    tr.gettext(label),
                    "",
                    tr.gettext(label),
                )
            )
    for index, card in enumerate(view.hand):
        shown = painter.card(card)
        if card in playable:
            results.append(
                article(
                    room.id,
                    room.version,
                    "p" + card,
                    shown,
                    tr.gettext(_("Play this card")),
                    f"🃏 {shown}",
                )
            )
        else:
            results.append(
                article(
                    room.id,
                    room.version,
                    f"n{index}",
                    shown,
                    tr.gettext(_("Not playable now")),
                    "🃏",
                )
            )
    offset = int(query.offset or 0)
    page = results[offset : offset + PAGE]
    next_offset = str(offset + PAGE) if offset + PAGE < len(results) else ""
    await query.answer(page, cache_time=0, is_personal=True, next_offset=next_offset)


def article(
    room: str, version: int, token: str, title: str, description: str, message: str
) -> InlineQueryResultArticle:
    return InlineQueryResultArticle(
        id=callbacks.encode(room, version, token),
        title=title,
        description=description or None,
        input_message_content=InputTextMessageContent(message),
    )


async def on_chosen(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    chosen = update.chosen_inline_result
    if chosen is None:
        return
    press = callbacks.decode(chosen.result_id)
    action = callbacks.game_action(press.action) if press else None
    room = svc.store.load(press.room) if press else None
    if press is None or action is None or room is None:
        return  # a card shown as not playable, or not ours: nothing to do
    actor = actor_of(svc, chosen.from_user)
    change = game_change(room, press, actor, action, svc.now(), svc.settings.bot_delay)
    if not callable(change):
        return
    svc.store.update(press.room, change, update.update_id)
