"""A WhatsApp person's message read as the desk's ask, and the desk's reply sent back.

A tap names the press it was drawn for (service.ui.tokens) or a desk command
(`cmd:<word>[:<arg>]`); a template's quick reply asks for the person's game (or no
more reminders); typed words are a move read against the person's current prompt (its
buttons are the legal moves, so a word can never do what no button offers), else a
command word of any of our languages (`words`), else a move that is no button (the desk
says precisely why it cannot be played), else words for the desk. A row that
opens part of a prompt (a folded suit), and a tap or a word asking for a link to the
table's view (`view_link`), are WhatsApp's own and answered here, under the desk's
claim.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from functools import partial

import redis

from service.desk.asks import (
    Ask,
    CommandAsk,
    CommandName,
    Place,
    PressAsk,
    Request,
    Sender,
    StoryAsk,
    TipAsk,
    TypedAsk,
    TypedMoveAsk,
    UnknownAsk,
)
from service.desk.desk import Desk, Outcome
from service.desk.ports import Links
from service.desk.prompts import current_prompt
from service.infra import keys
from service.platforms.whatsapp import (
    hints,
    parts,
    people,
    privacy,
    render,
    templates,
    view_link,
    words,
)
from service.platforms.whatsapp.answer import Sending
from service.platforms.whatsapp.graph import Graph
from service.platforms.whatsapp.manual import WhatsAppManual
from service.platforms.whatsapp.message import Inbound
from service.services import Services
from service.table import games as table_games
from service.table import targets
from service.table.room import Room
from service.ui import tokens
from service.ui.intents import Press
from service.ui.screens import Screen, spanish_suits

log = logging.getLogger("burro.whatsapp")

# Meta's timestamps are whole seconds of its clock: a message is surely older than a
# moment of ours only by more than this.
CLOCKS_APART = 2.0

# Each word (service.platforms.whatsapp.words) and button id, and the desk command it
# asks for: "new" deals a game against bots at once here, every message being new.
COMMANDS: dict[str, CommandName] = {
    "new": "play",
    "play": "play",
    "hello": "hello",
    "setup": "setup",
    "family": "family",
    "join": "join",
    "help": "help",
    "rules": "rules",
    "stats": "stats",
    "language": "language",
    "quiet": "quiet",
    "loud": "loud",
    "privacy": "privacy",
    "forget": "forget",
    "forget_yes": "forget_yes",
    "forget_no": "forget_no",
    "cancel": "cancel",
    "resume": "resume",
    "hour": "hour",
}


class Handler:
    """Reads a person's messages for the desk and sends its replies (`serve`)."""

    def __init__(self, svc: Services, client: redis.Redis, api: Graph, links: Links) -> None:
        self.svc, self.redis, self.api = svc, client, api
        forget = partial(privacy.forget, client)
        self.desk = Desk(svc, WhatsAppManual(), links, on_forget=forget)
        self.sending = Sending(svc, client, api)
        self.views = view_link.links_of(client, svc.settings, svc.now)  # None: no links to the view

    async def handle(self, message: Inbound) -> Outcome:
        """Handle one message (claimed by its wamid), and send the desk's reply."""
        sender = await asyncio.to_thread(people.sender_of, self.redis, self.svc.store, message)
        mark = keys.wa_update_id(message.wamid)
        own = await asyncio.to_thread(self.own_work, sender, message)
        if own is not None:  # WhatsApp's own: claimed and settled as an ask is
            return (await self.desk.handle_own(mark, own)).outcome
        ask = await asyncio.to_thread(self.ask_of, sender.player, message)
        place = Place(sender.player, None, True)
        address = await asyncio.to_thread(people.address_of, self.redis, sender.player)
        handled = await self.desk.handle(Request(mark, sender, place, ask, edits=False))
        if handled.outcome in ("ok", "duplicate") and address is not None:
            # to the address read before: a person forgotten now is still told so
            await asyncio.to_thread(self.sending.reply, sender, handled.reply, address)
        return handled.outcome

    def own_work(self, sender: Sender, message: Inbound) -> Callable[[], Awaitable[None]] | None:
        """A message that is no ask: a row opening part of a prompt (shown here), or a
        typed message older than one handled (Meta delivers out of order: a move typed
        then is not one for now, so it is left alone)."""
        pick = render.pick_of(message.data) if message.kind == "reply" else None
        if pick is not None:
            show = partial(parts.show, self.svc, self.sending, sender, pick)
            return partial(asyncio.to_thread, show, message.context or message.wamid)
        view = self.view_asked(message)
        if view is not None:  # a link to the table's view, made and sent here
            answer = partial(view_link.answer, self.svc, self.sending, self.views, sender)
            return partial(asyncio.to_thread, answer, view or None)
        if message.kind == "text" and self.late(sender.player, message.at):
            log.info("a typed message older than one handled: left alone")
            return partial(asyncio.sleep, 0)
        if message.kind == "text" and self.typed_for_an_earlier_turn(sender.player, message):
            log.info("a move typed before the turn now began, delivered late: left alone")
            return partial(asyncio.sleep, 0)
        return None

    def view_asked(self, message: Inbound) -> str | None:
        """The table whose view a tap asks for ("": a typed word, the current table's),
        None when the message asks for no view."""
        if message.kind == "reply":
            return view_link.asked_room(message.data)
        return "" if message.kind == "text" and words.view_asked(message.text) else None

    # ----- asks ----------------------------------------------------------------------

    def ask_of(self, player: int, message: Inbound) -> Ask:
        if message.kind == "reply":
            return self.tapped(player, message)
        if message.kind == "quick":  # Play now names its table's room (an old one, none)
            if message.data == templates.STOP:
                return CommandAsk("quiet")
            room = templates.played_room(message.data)
            return CommandAsk("resume", (room,) if room else ())
        if message.kind == "text":
            return self.typed(player, message)
        return UnknownAsk(button=False)

    def tapped(self, player: int, message: Inbound) -> Ask:
        """A tapped reply button or list row: a desk command, or a room's press."""
        if message.data.startswith("cmd:"):
            word, _sep, rest = message.data[4:].partition(":")
            return self.command(player, word, rest)
        press = tokens.press(message.data)
        if press is None:
            return UnknownAsk()
        return PressAsk(press, tapped=True, prompt=message.context or message.wamid)

    def typed(self, player: int, message: Inbound) -> Ask:
        """Typed words: a move on the current prompt, a command word, a move that is no
        button of the prompt (the desk says why), or words."""
        prompt = current_prompt(self.svc, player)
        press = None if prompt is None else typed_press(*prompt, message.text)
        if press is not None:
            return PressAsk(press, tapped=False)
        command = words.command_of(message.text)
        if command is not None:
            return self.command(player, command[0], command[1])
        move = None if prompt is None else typed_move(prompt[0], message.text)
        if move is not None:
            return move
        return TypedAsk(message.text)

    def command(self, player: int, word: str, rest: str) -> Ask:
        if word == "story":
            return StoryAsk()
        if word == "tip":
            return TipAsk()
        name = COMMANDS.get(word)
        if name is None:
            return UnknownAsk()
        if name in ("play", "hello"):  # may deal a game at once: the family hint, once
            hints.offer(self.redis, player)
        return CommandAsk(name, tuple(rest.split()))

    def typed_for_an_earlier_turn(self, player: int, message: Inbound) -> bool:
        """Whether typed words name a move but were sent before the person's game's
        current phase began: Meta delivers again, for days, what our webhook missed, and a
        move typed for a turn that a timeout has played since is not one for now (a
        button names its phase; typed words do not)."""
        if message.at >= self.svc.now() - CLOCKS_APART:
            return False  # sent just now: for the phase now (the usual case, nothing read)
        prompt = current_prompt(self.svc, player)
        if prompt is None:
            return False
        room, screen = prompt
        if room.turn_started is None or message.at >= room.turn_started - CLOCKS_APART:
            return False
        return (
            typed_press(room, screen, message.text) is not None
            or typed_move(room, message.text) is not None
        )

    def late(self, player: int, at: float) -> bool:
        """Whether a typed message comes after one the person sent later (Meta delivers
        out of order): a move typed then is not one for now."""
        key = keys.user_key(player)
        last = self.redis.hget(key, "typed_at")
        if last is not None and at < float(last):
            return True
        self.redis.hset(key, "typed_at", repr(at))
        return False


def target_of(room: Room, player: int) -> str:
    """The target that shows the person their game."""
    return targets.TABLE if room.private else targets.hand(player)


def typed_press(room: Room, screen: Screen, said: str) -> Press | None:
    """The press typed words mean among the buttons of the person's current prompt."""
    buttons = (b for row in screen.rows for b in row)
    return words.typed_press(said, buttons, spanish(room))


def typed_move(room: Room, said: str) -> TypedMoveAsk | None:
    """Typed words that name a move, legal or not, in the person's game being played:
    the desk says why a move that was no button cannot be played."""
    if room.status != "playing":
        return None
    move = words.move_of(said, spanish(room))
    return None if move is None else TypedMoveAsk(room.id, move)


def spanish(room: Room) -> bool:
    """Whether the room's cards show Spanish suits (`7o` is then the 7 de oros)."""
    deck = room.game.rules.deck if room.game is not None else ""
    return spanish_suits(deck, table_games.rules_of(room.settings).suit_style) if deck else False
