"""Slash commands: open a table, play against bots, rules, stats, export, cancel, help,
language. Each answers in the sender's language; a bad argument gets a short hint."""

from __future__ import annotations

import json

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    Update,
)
from telegram.ext import ContextTypes

from engine.kernel.errors import RulesError
from service.desk import opening
from service.i18n import LANGUAGE_NAMES, LANGUAGES, Translator, _
from service.platforms.telegram import blocked, callbacks
from service.platforms.telegram.people import actor_of, display_name, is_admin
from service.platforms.telegram.reply import answer_press, reply_to, reply_with_file
from service.services import Services
from service.table import caps, family, lobby
from service.table.outcome import Outcome
from service.table.room import Room, RoomSettings
from service.ui import games
from service.ui.intents import Command, Press
from service.ui.screens import games_list, stats_lines


async def reply(update: Update, text: str, **kwargs: object) -> None:
    """Answer the update's message, within the flood budget (see tg/reply.py)."""
    message = update.effective_message
    if message is not None:
        await reply_to(message, text, **kwargs)


def translator(svc: Services, update: Update) -> Translator:
    """The sender's language; a command in a group is noted there too (`noted`)."""
    noted(svc, update)
    user = update.effective_user
    if user is None:
        return Translator("en")
    return Translator(svc.user_lang(user.id, user.language_code))


def noted(svc: Services, update: Update) -> None:
    """A command in a group is a message below the table of the game there: the table is
    posted again at the bottom on its next change (the bot sees no other messages in a
    group, in privacy mode)."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None or chat.type == "private":
        return
    if type(message.message_id) is int:  # PTB takes an update's fields as they come
        svc.store.note_message(chat.id, thread_of(update), message.message_id)


def thread_of(update: Update) -> int | None:
    message = update.effective_message
    return message.message_thread_id if message and message.is_topic_message else None


async def new_game(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    """/burro and /newgame: open a lobby in a group; in a private chat, a game vs bots."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    tr = translator(svc, update)
    if chat.type == "private":
        await play_bots(update, context, svc)
        return
    preset = preset_argument(context.args)
    if preset is None:
        await reply(
            update,
            tr.gettext(_("Unknown game. Choose one of: {names}"), names="\n" + games_list(tr)),
        )
        return
    existing = svc.store.room_in_chat(chat.id, thread_of(update))
    if existing is not None and existing.status in ("lobby", "playing"):
        seated = existing.seat_of(user.id) is not None
        await reply(
            update,
            tr.gettext(_("A game is already open here. Finish it or /cancel it first.")),
            reply_markup=cards_button(svc, tr, existing) if seated else None,
        )
        svc.store.update(existing.id, opening.repost, update.update_id)
        return
    if await refused(update, svc, tr, chat.id, user.id):
        return
    actor = actor_of(svc, user)
    settings = RoomSettings(preset=preset, options=family.initial_options(preset, svc.settings))
    room = lobby.create_room(chat.id, thread_of(update), actor, svc.now(), settings=settings)
    created = svc.store.create(room, Outcome(changed=True, sync={"table"}), update.update_id)
    if created and not svc.store.user(user.id).get("started"):
        # as Join does: the bot can write to them only once they open its private chat
        text = tr.gettext(_("Your cards will come to our private chat: open it once."))
        await reply(update, text, reply_markup=cards_button(svc, tr, room))


def cards_button(svc: Services, tr: Translator, room: Room) -> InlineKeyboardMarkup:
    """A button to the sender's private chat with the bot, where their cards are."""
    link = callbacks.deep_link(svc.bot_username, room.id)
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(tr.gettext(_("💬 Open my cards")), url=link)]]
    )


async def refused(
    update: Update, svc: Services, tr: Translator, chat_id: int, user_id: int
) -> bool:
    """Refuse a new room over a cap on open rooms (service.table.caps), saying why."""
    popup = caps.refusal(svc.store, svc.settings, chat_id, user_id)
    if popup is not None:
        await reply(update, tr.gettext(popup.message, **dict(popup.values)))
    return popup is not None


def preset_argument(args: list[str] | None) -> str | None:
    if not args:
        return "spanish"
    return family.preset_named(args[0])


async def play_bots(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    """/play in a private chat: a table for you and bots, set up with buttons."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    tr = translator(svc, update)
    if chat.type != "private":
        await reply(
            update,
            tr.gettext(
                _("Play against bots in a private chat with me; here, use /burro to open a table.")
            ),
        )
        return
    preset = preset_argument(context.args)
    if preset is None:
        await reply(
            update,
            tr.gettext(_("Unknown game. Choose one of: {names}"), names="\n" + games_list(tr)),
        )
        return
    svc.store.remember_user(user.id, display_name(user), user.language_code or "", started=True)
    popup = opening.against_bots(svc, chat.id, actor_of(svc, user), preset, update.update_id)
    if popup is not None:
        await reply(update, tr.gettext(popup.message, **dict(popup.values)))


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    """/start [payload]: the private chat opens; a deep link may carry `j<room>` (join)
    or `g<room>` (show my hand)."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    tr = translator(svc, update)
    if chat.type != "private":
        await help_command(update, context, svc)
        return
    svc.store.remember_user(user.id, display_name(user), user.language_code or "", started=True)
    await blocked.withdraw_notices(svc, context.bot, user.id)
    payload = (context.args or [""])[0]
    room_id = payload[1:]
    if payload[:1] in ("j", "g") and svc.store.load(room_id) is not None:
        actor = actor_of(svc, user)
        if payload[0] == "j":
            result = svc.store.update(room_id, lambda r: lobby.join(r, actor), update.update_id)
        else:
            result = svc.store.update(
                room_id, lambda r: lobby.show_hand(r, user.id), update.update_id
            )
        if result is not None and result[1].popup is not None:
            popup = result[1].popup
            await reply(update, tr.gettext(popup.message, **dict(popup.values)))
        return
    own = svc.store.room_in_chat(chat.id, None)
    if own is not None and own.status in ("lobby", "playing"):  # their game against bots
        svc.store.update(own.id, opening.repost, update.update_id)
        return
    await reply(update, tr.gettext(WELCOME))


WELCOME = _(
    "🫏 Hi! I run games of Burro, the donkey card game.\n"
    "• In a group: add me and send /burro to open a table.\n"
    "• Here: send /play to play against bots.\n"
    "Your cards will appear here during group games. /help for more."
)


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    tr = translator(svc, update)
    await reply(
        update,
        tr.gettext(
            _(
                "🫏 Burro commands\n"
                "/burro [game] — open a table in a group\n"
                "/play [game] — play against bots here in private\n"
                "/rules [game] — the rules, short\n"
                "/stats — games, wins and burros\n"
                "/export [hand] — a finished hand to keep or share, as a file\n"
                "/cancel — end the open game (its creator or an admin)\n"
                "/language — choose your language"
            )
        )
        + "\n"
        + tr.gettext(_("/privacy — what I keep about you; /forget — delete it"))
        + "\n\n"
        + tr.gettext(_("Games (the word to write after /burro, /play or /rules):"))
        + "\n"
        + games_list(tr),
    )


async def rules(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    tr = translator(svc, update)
    chat = update.effective_chat
    room = svc.store.room_in_chat(chat.id, thread_of(update)) if chat else None
    if context.args:
        preset = preset_argument(context.args)
        if preset is None:
            await reply(
                update,
                tr.gettext(
                    _("Unknown game. Choose one of: {names}"),
                    names="\n" + games_list(tr),
                ),
            )
            return
        game_rules = family.rules_for(preset)
    elif room is not None and room.status in ("lobby", "playing"):
        try:
            game_rules = room.settings.rules()
        except RulesError:
            game_rules = family.rules_for(room.settings.preset)
    else:
        game_rules = family.rules_for("spanish")
    await reply(update, games.rules_text(game_rules, tr))


async def stats(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    tr = translator(svc, update)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    mine = svc.store.stats(f"stats:user:{user.id}")
    lines = stats_lines(tr, display_name(user), mine)
    if chat.type != "private":
        group = svc.store.stats(f"stats:chat:{chat.id}")
        lines.append(
            tr.ngettext(
                "This group has finished {n} game.",
                "This group has finished {n} games.",
                group.get("games", 0),
            )
        )
        burros = sorted(
            ((int(k[6:]), v) for k, v in group.items() if k.startswith("burro:")),
            key=lambda kv: -kv[1],
        )[:5]
        for user_id, count in burros:
            name = svc.store.user(user_id).get("name", str(user_id))
            lines.append(
                tr.ngettext(
                    "  🫏 {name}: the burro {n} time",
                    "  🫏 {name}: the burro {n} times",
                    count,
                    name=name,
                )
            )
    await reply(update, "\n".join(lines))


async def export(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    """/export [hand]: a finished hand's record (a running hand would show everyone's
    cards, so only finished hands are exported). While the game goes on, only its
    players and the group's admins may export: a record tells nothing of the hands to
    come (deals are drawn one-way from the room's key), but it is the table's own."""
    tr = translator(svc, update)
    chat, user = update.effective_chat, update.effective_user
    room = svc.store.room_in_chat(chat.id, thread_of(update)) if chat else None
    finished = family.finished_hands(room) if room else 0
    if room is None or room.game is None or not finished or user is None:
        await reply(update, tr.gettext(_("No finished hand to export yet.")))
        return
    if room.status == "playing" and not await may_export(context, room, user.id):
        await reply(
            update,
            tr.gettext(_("While the game goes on, only its players (or an admin) can export it.")),
        )
        return
    try:
        number = int(context.args[0]) if context.args else finished
    except ValueError:
        number = -1
    if not 1 <= number <= finished:
        await reply(update, tr.gettext(_("Choose a finished hand from 1 to {n}."), n=finished))
        return
    record = family.hand_record(room, number - 1)
    data = json.dumps(record, indent=1).encode()
    message = update.effective_message
    if message is not None:
        await reply_with_file(
            message,
            InputFile(data, filename=f"burro-{room.id}-hand{number}.json"),
            export_caption(tr, number),
            busy=tr.gettext(_("Many messages here just now: send /export again in a minute.")),
        )


def export_caption(tr: Translator, number: int) -> str:
    """What the exported file is, for a family; the replay command is a footnote."""
    return "\n\n".join(
        [
            tr.gettext(
                _(
                    "🗂 Hand {n}, move by move: the cards dealt and everything played. "
                    "A record of the hand to keep, or to share with someone."
                ),
                n=number,
            ),
            tr.gettext(_("For the curious: the burro replay program plays it back.")),
        ]
    )


async def may_export(context: ContextTypes.DEFAULT_TYPE, room: Room, user_id: int) -> bool:
    return room.seat_of(user_id) is not None or await is_admin(context, room, user_id)


async def cancel(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    tr = translator(svc, update)
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    room = svc.store.room_in_chat(chat.id, thread_of(update))
    if room is None or room.status not in ("lobby", "playing"):
        await reply(update, tr.gettext(_("There is no open game here.")))
        return
    if not (user.id == room.creator or await is_admin(context, room, user.id)):
        await reply(
            update, tr.gettext(_("Only the player who opened the table (or an admin) can cancel."))
        )
        return
    markup = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    tr.gettext(_("Yes, cancel the game")),
                    callback_data=callbacks.data(Press(room.id, room.version, Command("cancel"))),
                ),
                InlineKeyboardButton(
                    tr.gettext(_("No, keep playing")),
                    callback_data=callbacks.data(
                        Press(room.id, room.version, Command("keep_playing"))
                    ),
                ),
            ]
        ]
    )
    await reply(update, tr.gettext(_("Cancel this game for everyone?")), reply_markup=markup)


async def language(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    tr = translator(svc, update)
    user = update.effective_user
    if user is None:
        return
    if context.args:
        code = context.args[0].replace("-", "_")
        match = next((lang for lang in LANGUAGES if lang.lower() == code.lower()), None)
        if match is None:
            await reply(
                update,
                tr.gettext(
                    _("Unknown language. Choose one of: {names}"), names=", ".join(LANGUAGES)
                ),
            )
            return
        svc.store.set_user_language(user.id, match)
        relabel_games(svc, user.id, match)
        await reply(
            update,
            Translator(match).gettext(
                _("I will speak {language} with you."), language=LANGUAGE_NAMES[match]
            ),
        )
        return
    rows = [
        [InlineKeyboardButton(LANGUAGE_NAMES[lang], callback_data=f"lang:{lang}")]
        for lang in LANGUAGES
    ]
    await reply(
        update, tr.gettext(_("Choose your language:")), reply_markup=InlineKeyboardMarkup(rows)
    )


async def set_language(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    """A press on a /language button (`lang:<code>`)."""
    query = update.callback_query
    if query is None or query.from_user is None:
        return
    code = (query.data or "")[5:]
    if code not in LANGUAGES:
        await answer_press(query)
        return
    svc.store.set_user_language(query.from_user.id, code)
    relabel_games(svc, query.from_user.id, code)
    text = Translator(code).gettext(
        _("I will speak {language} with you."), language=LANGUAGE_NAMES[code]
    )
    await answer_press(query, text)


def relabel_games(svc: Services, user_id: int, lang: str) -> None:
    """Show the person's open games in their new language now: their hand, and the
    table when it speaks their language (lobby.relabel). Without the update's id: one
    update changes each of their rooms (setting a language twice does no harm)."""
    for room_id in blocked.rooms_of(svc, user_id):
        svc.store.update(room_id, lambda room: lobby.relabel(room, user_id, lang))


async def chatter(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    """A message in the private chat that is no command: say what to send, at most once
    per CHATTER_COOLDOWN (a chatty person is not answered every time)."""
    user = update.effective_user
    if user is None or not svc.store.first_in(f"cooldown:chatter:{user.id}", CHATTER_COOLDOWN):
        return
    tr = translator(svc, update)
    await reply(
        update,
        tr.gettext(_("🫏 I understand commands only: send /play to play against bots, or /help.")),
    )


CHATTER_COOLDOWN = 600  # seconds between two answers to plain private messages
