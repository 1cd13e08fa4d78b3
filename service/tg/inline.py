"""The hand through an inline query in the group: "🃏 My cards" opens
`@bot g<room>`; the personal results are the player's cards, the legal ones playable.
Choosing a playable card plays it. Result texts never show a card still in a hand."""

from __future__ import annotations

from telegram import InlineQueryResultArticle, InputTextMessageContent, Update
from telegram.ext import ContextTypes

from engine.game import GameState
from engine.passing import REAL_WORD
from engine.passing import GameState as PassingGame
from engine.passing import player_view as passing_view
from engine.views import player_view
from service import callbacks
from service.i18n import Translator, _
from service.passing import actions as passing_actions
from service.passing import moves as passing_moves
from service.passing.screens import PassingPainter
from service.room import Room
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
    if isinstance(room.game, PassingGame):
        found = passing_results(room, seat, tr, PassingPainter(room, actor.lang))
        await query.answer(found, cache_time=0, is_personal=True)
        return
    assert isinstance(room.game, GameState)
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


def passing_results(
    room: Room, seat: int, tr: Translator, painter: PassingPainter
) -> list[InlineQueryResultArticle]:
    """The passing game's hand as results: each card to pass, ¡Burro!, the fake call,
    or the response to an open call; the other cards as plain, unplayable results.
    Tokens carry the phase, as the private buttons do."""
    assert isinstance(room.game, PassingGame)
    view = passing_view(room.game, seat)
    phase, results = room.phase_version, []
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
        token = passing_actions.token(action)
        results.append(article(room.id, phase, token, label, "", said))
    for index, card in enumerate(view.hand):
        shown = painter.card(card)
        if "pass:" + card in view.legal:
            token = passing_actions.token("pass:" + card)
            about = tr.gettext(_("Pass this card"))
            results.append(article(room.id, phase, token, shown, about, "🃏"))
        else:
            about = tr.gettext(_("Not playable now"))
            results.append(article(room.id, phase, f"n{index}", shown, about, "🃏"))
    return results


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
    room = svc.store.load(press.room) if press else None
    if press is not None and room is not None and room.settings.passing:
        action = passing_actions.action(press.action)
        if action is not None:
            change = passing_moves.press_change(
                room, press.version, chosen.from_user.id, action, svc.now(), svc.settings.bot_delay
            )
            if callable(change):
                svc.store.update(press.room, change, update.update_id, loaded=room)
        return
    action = callbacks.game_action(press.action) if press else None
    if press is None or action is None or room is None:
        return  # a card shown as not playable, or not ours: nothing to do
    actor = actor_of(svc, chosen.from_user)
    change = game_change(room, press, actor, action, svc.now(), svc.settings.bot_delay)
    if not callable(change):
        return
    svc.store.update(press.room, change, update.update_id, loaded=room)
