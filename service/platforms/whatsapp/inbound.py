"""A WhatsApp person's message read as the desk's ask, and the desk's reply sent back.

A tap names the press it was drawn for (service.ui.tokens) or a desk command
(`cmd:<word>[:<arg>]`); a template's quick reply asks for the person's game (or no
more reminders); typed words are a move read against the person's current prompt (its
buttons are the legal moves, so a word can never do what no button offers), else a
command word of any of our languages (`words`), else words for the desk. A row that
opens part of a prompt (a folded suit) is WhatsApp's own and answered here, under the
desk's claim.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Literal

import redis

from service.desk.asks import (
    Ask,
    CommandAsk,
    CommandName,
    Place,
    PressAsk,
    Reply,
    Request,
    Sender,
    TypedAsk,
    UnknownAsk,
)
from service.desk.desk import Desk, Outcome
from service.desk.ports import Links
from service.desk.presses import stale_prompt
from service.desk.prompts import current_prompt, screen_for
from service.i18n import Translator, _
from service.infra import keys
from service.platforms.whatsapp import hints, people, privacy, render, templates, window, words
from service.platforms.whatsapp.answer import Sending
from service.platforms.whatsapp.graph import Address, Graph
from service.platforms.whatsapp.manual import WhatsAppManual
from service.services import Services
from service.table import games as table_games
from service.table import names, targets
from service.table.room import Room
from service.ui import tokens
from service.ui.intents import Press
from service.ui.screens import spanish_suits

log = logging.getLogger("burro.whatsapp")
PLATFORM = "whatsapp"
Kind = Literal["text", "reply", "quick", "other"]
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
}


@dataclass(frozen=True)
class Inbound:
    """One message from a person, as the webhook read it."""

    wamid: str
    bsuid: str
    name: str
    at: float  # Meta's timestamp: when the person sent it
    kind: Kind
    text: str = ""  # what they typed, or the tapped button's title
    data: str = ""  # the tapped button's id, or the quick reply's payload
    phone: str | None = None
    context: str | None = None  # the wamid of the message they tapped


class Handler:
    """Reads a person's messages for the desk and sends its replies (`serve`)."""

    def __init__(self, svc: Services, client: redis.Redis, api: Graph, links: Links) -> None:
        self.svc, self.redis, self.api = svc, client, api
        forget = partial(privacy.forget, client)
        self.desk = Desk(svc, WhatsAppManual(), links, on_forget=forget)
        self.sending = Sending(svc, client, api)

    async def handle(self, message: Inbound) -> Outcome:
        """Handle one message (claimed by its wamid), and send the desk's reply."""
        sender = await asyncio.to_thread(self.sender, message)
        mark = keys.wa_update_id(message.wamid)
        own = await asyncio.to_thread(self.own_work, sender, message)
        if own is not None:  # WhatsApp's own: claimed and settled as an ask is
            return (await self.desk.handle_own(mark, [sender.player], own)).outcome
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
            return partial(asyncio.to_thread, self.show_part, sender, pick, message)
        if message.kind == "text" and self.late(sender.player, message.at):
            log.info("a typed message older than one handled: left alone")
            return partial(asyncio.sleep, 0)
        return None

    def sender(self, message: Inbound) -> Sender:
        """The person as a player (first seen: their id made, their language guessed);
        they wrote, so their 24-hour window is open."""
        bsuid = message.bsuid if Address.of(message.bsuid).kind == "bsuid" else None
        phone = message.phone or (None if bsuid else message.bsuid)
        player = people.player_of(self.redis, bsuid, phone, self.svc.store.people_ttl)
        known = self.svc.store.user(player)
        name = names.clean(message.name or "", names.clean(known.get("name") or "", "WhatsApp"))
        guess = known.get("lang_wa") or people.language_of(bsuid, phone)
        fields = {"name": name, "lang_wa": guess, "started": "1"}
        if message.phone:
            fields["phone"] = message.phone
        self.redis.hset(keys.user_key(player), mapping=fields)  # type: ignore[arg-type]
        self.redis.expire(keys.user_key(player), self.svc.store.people_ttl)
        window.note_inbound(self.redis, player, message.at)
        return Sender(player, name, guess, PLATFORM)

    # ----- asks ----------------------------------------------------------------------

    def ask_of(self, player: int, message: Inbound) -> Ask:
        if message.kind == "reply":
            return self.tapped(player, message)
        if message.kind == "quick":
            return CommandAsk("quiet" if message.data == templates.STOP else "resume")
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
        """Typed words: a move on the current prompt, a command word, or words."""
        press = typed_press(self.svc, player, message.text)
        if press is not None:
            return PressAsk(press, tapped=False)
        command = words.command_of(message.text)
        if command is not None:
            return self.command(player, command[0], command[1])
        return TypedAsk(message.text)

    def command(self, player: int, word: str, rest: str) -> Ask:
        name = COMMANDS.get(word)
        if name is None:
            return UnknownAsk()
        if name in ("play", "hello"):  # may deal a game at once: the family hint, once
            hints.offer(self.redis, player)
        return CommandAsk(name, tuple(rest.split()))

    def late(self, player: int, at: float) -> bool:
        """Whether a typed message comes after one the person sent later (Meta delivers
        out of order): a move typed then is not one for now."""
        key = keys.user_key(player)
        last = self.redis.hget(key, "typed_at")
        if last is not None and at < float(last):
            return True
        self.redis.hset(key, "typed_at", repr(at))
        return False

    # ----- WhatsApp's own ------------------------------------------------------------

    def show_part(self, sender: Sender, pick: render.Pick, message: Inbound) -> None:
        """A row that opens part of the prompt: that part, if the prompt is current;
        else the tap is an old prompt's."""
        room = self.svc.store.load(pick.room)
        screen = None if room is None else screen_for(room, sender.player, self.svc)
        current = screen is not None and any(
            isinstance(b.intent, Press) and b.intent.version == pick.version
            for row in screen.rows
            for b in row
        )
        lang = self.svc.user_lang(sender.player, sender.lang_hint)
        prompt = message.context or message.wamid
        if room is None or screen is None or not current:
            if room is not None and stale_prompt(self.svc, room, sender.player, prompt):
                said = _("That button is from an earlier turn: nothing was played.")
                self.sending.reply(sender, Reply.say(Translator(lang).gettext(said)))
            return
        self.sending.content(sender, render.render(screen, lang, part=pick.part))


def target_of(room: Room, player: int) -> str:
    """The target that shows the person their game."""
    return targets.TABLE if room.private else targets.hand(player)


def typed_press(svc: Services, player: int, said: str) -> Press | None:
    """The press typed words mean among the buttons of the person's current prompt."""
    prompt = current_prompt(svc, player)
    if prompt is None:
        return None
    room, screen = prompt
    deck = room.game.rules.deck if room.game is not None else ""
    spanish = spanish_suits(deck, table_games.rules_of(room.settings).suit_style) if deck else False
    return words.typed_press(said, (b for row in screen.rows for b in row), spanish)
