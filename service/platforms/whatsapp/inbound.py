"""What a WhatsApp person's message does: a tap on a prompt, a typed move or command,
a template's quick reply. Each is handled once (`webhook` claims its wamid); a change
to a room commits with the wamid's mark in one transaction, as a Telegram press does.

A tap names the press it was drawn for (service.ui.tokens), so a tap on an old prompt
(WhatsApp keeps every one, buttons and all) is refused by the table as stale: said
once per old prompt, with the current prompt posted again if it is no longer the last
message of the chat. A typed move is read against the current prompt (`words`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

import redis

from engine.kernel.errors import RulesError
from service.desk import opening
from service.i18n import LANGUAGE_NAMES, LANGUAGES, Translator, _
from service.infra.store import UpdateId, text
from service.platforms.telegram.callbacks import deep_link as telegram_link
from service.platforms.whatsapp import hints, invite, people, render, templates, window, words
from service.platforms.whatsapp.graph import Graph, GraphError
from service.desk.presses import change_for, is_command
from service.services import Services
from service.table import family, lobby, play, targets
from service.table.lobby import Actor
from service.table.outcome import Outcome, Popup
from service.table.room import LIVE, Room
from service.ui import games, tokens
from service.ui.intents import Press
from service.ui.screens import Screen, games_list, spanish_suits, stats_lines

log = logging.getLogger("burro.whatsapp")
PLATFORM = "whatsapp"
MAX_NAME = 32
ROOM_CODE = re.compile(r"^[a-z0-9]{8}$")  # a table's code (its room id)
Kind = Literal["text", "reply", "quick", "other"]


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
    """Handles inbound messages for `serve` (sync: Redis and the Graph API block)."""

    def __init__(self, svc: Services, client: redis.Redis, api: Graph) -> None:
        self.svc, self.redis, self.api = svc, client, api

    # ----- entry ---------------------------------------------------------------------

    def handle(self, message: Inbound) -> None:
        actor = self.actor(message)
        window.note_inbound(self.redis, actor.user_id, message.at)
        if message.kind == "reply":
            self.on_reply(actor, message)
        elif message.kind == "quick":
            self.on_quick(actor, message)
        elif message.kind == "text":
            if self.late(actor.user_id, message.at):
                log.info("a typed message older than one handled: left alone")
                return
            self.on_text(actor, message)
        else:
            self.say(actor, _("🫏 I read text and taps only: tap a button, or write 'help'."))

    def actor(self, message: Inbound) -> Actor:
        """The person as a player (first seen: their id made, their language guessed)."""
        player = people.player_id(self.redis, message.bsuid, self.svc.store.people_ttl)
        known = self.svc.store.user(player)
        name = (message.name or known.get("name") or "").strip()[:MAX_NAME] or "WhatsApp"
        guess = known.get("lang_wa") or people.language_of(message.bsuid, message.phone)
        fields = {"name": name, "lang_wa": guess, "started": "1"}
        if message.phone:
            fields["phone"] = message.phone
        self.redis.hset(f"user:{player}", mapping=fields)  # type: ignore[arg-type]
        self.redis.expire(f"user:{player}", self.svc.store.people_ttl)
        return Actor(player, name, known.get("lang") or guess, platform=PLATFORM)

    def late(self, player: int, at: float) -> bool:
        """Whether a typed message comes after one the person sent later (Meta delivers
        out of order): a move typed then is not one for now."""
        key = f"user:{player}"
        last = self.redis.hget(key, "typed_at")
        if last is not None and at < float(text(last)):
            return True
        self.redis.hset(key, "typed_at", repr(at))
        return False

    # ----- taps ----------------------------------------------------------------------

    def on_reply(self, actor: Actor, message: Inbound) -> None:
        pick = render.pick_of(message.data)
        if pick is not None:
            self.show_part(actor, pick, message)
            return
        if message.data.startswith("cmd:"):
            name, _sep, rest = message.data[4:].partition(":")
            self.command(actor, name, rest, message)
            return
        press = tokens.press(message.data)
        if press is None:
            self.say(actor, _("This button is not one of ours."))
            return
        self.on_press(actor, press, message, tapped=True)

    def on_press(self, actor: Actor, press: Press, message: Inbound, tapped: bool) -> None:
        room = self.svc.store.load(press.room)
        if room is None:
            self.say(actor, _("This game is over."))
            return
        if room.status == "cancelled":
            self.say(actor, _("The game was cancelled."))
            return
        if is_command(press, "rematch"):  # its one message: the new game's first prompt
            rematch = opening.rematch(self.svc, room, actor, mark(message), anew=False)
            if not rematch.changed:
                self.tell(actor, rematch)
            return
        if is_command(press, "rules"):
            self.say_text(actor, games.painter(room, actor.lang).rules_text())
            return
        change = change_for(room, press, actor, self.svc.now(), self.svc.settings.bot_delay)
        if isinstance(change, Outcome):
            self.refuse(actor, room, change, message, tapped)
            return
        result = self.svc.store.update(press.room, change, mark(message), loaded=room)
        if result is not None and not result[1].changed:
            self.refuse(actor, result[0], result[1], message, tapped)

    def refuse(
        self, actor: Actor, room: Room, outcome: Outcome, message: Inbound, tapped: bool
    ) -> None:
        """Say why a press did nothing; a stale tap once per old prompt, and the current
        prompt posted again when it is no longer the chat's last message."""
        popup = outcome.popup
        if popup is None:
            return
        if popup.message == play.STALE and tapped:
            once = f"wa:stale:{message.context or message.wamid}"
            if not self.redis.set(once, 1, nx=True, ex=self.svc.settings.dedupe_ttl):
                return
            self.say(actor, _("That button is from an earlier turn: nothing was played."))
            self.repost_if_buried(room, actor.user_id)
            return
        self.tell(actor, outcome)

    def repost_if_buried(self, room: Room, player: int) -> None:
        target = target_of(room, player)
        shown = self.redis.hget(f"game:{{{room.id}}}:msgs", target)
        latest = self.redis.get(f"wa:seq:{player}")
        if shown is not None and latest is not None and int(shown) < int(latest):
            self.svc.store.update(room.id, lambda r: Outcome(changed=True, sync={target + ":new"}))

    def show_part(self, actor: Actor, pick: render.Pick, message: Inbound) -> None:
        """A row that opens part of the prompt: that part, if the prompt is current."""
        room = self.svc.store.load(pick.room)
        screen = None if room is None else screen_for(room, actor.user_id, self.svc)
        current = screen is not None and any(
            isinstance(b.intent, Press) and b.intent.version == pick.version
            for row in screen.rows
            for b in row
        )
        if room is None or screen is None or not current:
            self.refuse(actor, room or Room(id="-", chat_id=0, creator=0), stale(), message, True)
            return
        self.send(actor, render.render(screen, actor.lang, part=pick.part))

    def on_quick(self, actor: Actor, message: Inbound) -> None:
        """The turn template's quick replies: play now (the person's game shown again,
        in the window the tap opened, as a greeting shows it), or no more reminders."""
        if message.data == templates.STOP:
            self.command(actor, "quiet", "", message)
            return
        room = self.active_room(actor.user_id)
        if room is None:
            self.welcome(actor)
        else:  # a table still in its lobby answers too: a tap is never left unanswered
            self.show_game(actor, room, message)

    # ----- typing --------------------------------------------------------------------

    def on_text(self, actor: Actor, message: Inbound) -> None:
        room = self.active_room(actor.user_id)
        if room is not None:
            press = typed_press(room, actor.user_id, message.text, self.svc)
            if press is not None:
                self.on_press(actor, press, message, tapped=False)
                return
        command = words.command_of(message.text)
        if command is not None:
            self.command(actor, command[0], command[1], message)
            return
        codes = (w for w in message.text.split() if ROOM_CODE.match(w))
        code = next((w for w in codes if self.svc.store.load(w)), None)
        if code is not None:
            self.command(actor, "join", code, message)
            return
        if room is not None:
            self.say(actor, _("🫏 Tap a button, or type your move (a card such as '7 oros')."))
            return
        self.welcome(actor)

    def active_room(self, player: int) -> Room | None:
        """The person's open game: their own against bots, else a table they sit at."""
        own = self.svc.store.room_in_chat(player, None)
        if own is not None and own.status in LIVE:
            return own
        rooms = [self.svc.store.load(r) for r in self.svc.store.rooms_of(player)]
        seated = [
            r for r in rooms if r is not None and r.status in LIVE and r.seat_of(player) is not None
        ]
        return max(seated, key=lambda r: r.updated, default=None)

    # ----- commands ------------------------------------------------------------------

    def command(self, actor: Actor, name: str, rest: str, message: Inbound) -> None:
        if name == "hello":
            self.hello(actor, rest, message)
        elif name in ("new", "setup"):
            self.new_game(actor, rest, message, at_once=name == "new")
        elif name == "family":
            self.family_table(actor, rest, message)
        elif name == "rules":
            room = self.active_room(actor.user_id)
            preset = room.settings.preset if room is not None else "spanish"
            self.say_text(actor, games.rules_text(rules_of(room, preset), Translator(actor.lang)))
        elif name == "language":
            self.language(actor, rest)
        elif name == "quiet":
            self.redis.hset(f"user:{actor.user_id}", "quiet", "1")
            self.say(actor, _("🔕 No more reminders. Write 'remind' to have them again."))
        elif name == "loud":
            self.redis.hdel(f"user:{actor.user_id}", "quiet")
            self.say(actor, _("🔔 I will remind you when it is your turn."))
        elif name == "stats":
            mine = self.svc.store.stats(f"stats:user:{actor.user_id}")
            self.say_text(actor, "\n".join(stats_lines(Translator(actor.lang), actor.name, mine)))
        elif name == "join":
            self.join(actor, rest.strip(), message)
        else:
            self.welcome(actor)

    def hello(self, actor: Actor, rest: str, message: Inbound) -> None:
        """A greeting: a new game against bots at once, or the person's game going on
        shown again."""
        room = self.active_room(actor.user_id)
        if room is None:
            self.new_game(actor, rest, message, at_once=True)
        else:
            self.show_game(actor, room, message)

    def show_game(self, actor: Actor, room: Room, message: Inbound) -> None:
        """The person's game going on, shown again as a fresh message: their own chat's
        table (a lobby there too), else their cards at a table elsewhere (in its lobby,
        word that they come when it starts)."""
        if room.chat_id == actor.user_id and (room.private or room.status == "lobby"):
            self.svc.store.update(room.id, opening.repost, mark(message))
            return
        change = partial(lobby.show_hand, user_id=actor.user_id)
        result = self.svc.store.update(room.id, change, mark(message))
        if result is not None and not result[1].changed:
            self.tell(actor, result[1])

    def new_game(self, actor: Actor, rest: str, message: Inbound, at_once: bool) -> None:
        """A game against bots: `at_once` against three, dealt now (the person's first
        message from it is their turn, with the family hint once); else a lobby with a
        bot, to set it up. Their game going on is shown again instead."""
        preset = family.preset_named(rest.split()[0]) if rest.split() else "spanish"
        if preset is None:
            tr = Translator(actor.lang)
            names = "\n" + games_list(tr)
            self.say_text(actor, tr.gettext(_("Unknown game. Choose one of: {names}"), names=names))
            return
        if at_once:
            hints.offer(self.redis, actor.user_id)
        bots = BOTS if at_once else 1
        popup = opening.against_bots(
            self.svc, actor.user_id, actor, preset, mark(message), bots, at_once
        )
        if popup is not None:
            self.tell(actor, Outcome(popup=popup))

    def family_table(self, actor: Actor, rest: str, message: Inbound) -> None:
        """A table for family and friends, opened here: its lobby, and the link the host
        pastes in their family's WhatsApp group (each player then plays in their own
        chat with us; Telegram players join by the table's deep link)."""
        preset = family.preset_named(rest.split()[0]) if rest.split() else "spanish"
        if preset is None:
            self.new_game(actor, rest, message, at_once=False)  # says which games there are
            return
        room = opening.family_table(self.svc, actor.user_id, actor, preset, mark(message))
        if isinstance(room, Popup):
            self.say_popup(actor, room)
            return
        number = self.svc.settings.whatsapp_number or ""
        self.say(
            actor,
            _("👪 Send this to your family's WhatsApp group: {link}\nOn Telegram: {telegram}"),
            link=invite.link(number, room.id, actor.lang),
            telegram=telegram_link(self.svc.bot_username, room.id, join=True),
        )

    def join(self, actor: Actor, code: str, message: Inbound) -> None:
        room = self.svc.store.load(code) if code else None
        if room is None or room.status not in LIVE:
            self.say(actor, _("No open table has that code."))
            return
        result = self.svc.store.update(room.id, lambda r: lobby.join(r, actor), mark(message))
        if result is not None:
            self.tell(actor, result[1])

    def language(self, actor: Actor, rest: str) -> None:
        wanted = rest.strip().replace("-", "_").lower()
        match = next((lang for lang in LANGUAGES if lang.lower() == wanted), None)
        if match is None:
            self.send(actor, language_list(Translator(actor.lang)))
            return
        self.svc.store.set_user_language(actor.user_id, match)
        for room_id in self.svc.store.rooms_of(actor.user_id):
            self.svc.store.update(room_id, lambda r: lobby.relabel(r, actor.user_id, match))
        now_spoken = Actor(actor.user_id, actor.name, match, platform=PLATFORM)
        self.say(now_spoken, _("I will speak {language} with you."), language=LANGUAGE_NAMES[match])

    def welcome(self, actor: Actor) -> None:
        tr = Translator(actor.lang)
        content = {
            "type": "interactive",
            "interactive": {
                "type": "button",
                "body": {"text": tr.gettext(WELCOME)},
                "action": {
                    "buttons": [
                        reply_button("cmd:new", tr.gettext(_("🎲 New game"))),
                        reply_button("cmd:family", tr.gettext(_("👪 Family table"))),
                        reply_button("cmd:language", tr.gettext(_("🌐 Language"))),
                    ]
                },
            },
        }
        self.send(actor, content)

    # ----- saying --------------------------------------------------------------------

    def tell(self, actor: Actor, outcome: Outcome) -> None:
        popup = outcome.popup
        if popup is not None:
            self.say_popup(actor, popup)

    def say_popup(self, actor: Actor, popup: Popup) -> None:
        self.say(actor, popup.message, **dict(popup.values))

    def say(self, actor: Actor, message: str, **values: object) -> None:
        self.say_text(actor, Translator(actor.lang).gettext(message, **values))

    def say_text(self, actor: Actor, words_: str) -> None:
        self.send(actor, {"type": "text", "text": {"body": render.short(words_, 4096)}})

    def send(self, actor: Actor, content: dict[str, Any]) -> None:
        """A direct answer to the person (they just wrote: their window is open)."""
        recipient = people.bsuid_of(self.redis, actor.user_id)
        if recipient is None:
            return
        window.pace(self.redis, actor.user_id, self.svc.now(), self.svc.settings.whatsapp_pair_rate)
        try:
            self.api.send(recipient, content)
        except GraphError as error:
            log.warning("whatsapp %s: an answer was not sent: %s", actor.user_id, error)


WELCOME = _(
    "🫏 Hi! I run games of Burro, the donkey card game.\n"
    "• New game (or just say hi): you against three bots, here, at once.\n"
    "• Family table: a table for your family, with a link to share.\n"
    "• 'settings': a game against bots that you set up first.\n"
    "• Type your moves or tap them; 'rules' explains the game."
)
BOTS = 3  # a game started at once: a table of four


def mark(message: Inbound) -> UpdateId:
    """The dedupe mark a change commits with: the message's wamid."""
    return f"wa:{message.wamid}"


def stale() -> Outcome:
    return Outcome().say(play.STALE)


def target_of(room: Room, player: int) -> str:
    """The target that shows the person their game."""
    return targets.TABLE if room.private else targets.hand(player)


def screen_for(room: Room, player: int, svc: Services) -> Screen | None:
    """The person's current screen of a room, as the outbox draws it for them."""
    seat = room.seat_of(player)
    if seat is None:
        return None
    painter = games.painter(room, room.seats[seat].lang, svc.bot_username)
    if room.private or room.status != "playing":
        return games.room_screen(room, painter)
    return painter.hand(seat, with_table=True)


def typed_press(room: Room, player: int, said: str, svc: Services) -> Press | None:
    screen = screen_for(room, player, svc)
    if screen is None:
        return None
    deck = room.game.rules.deck if room.game is not None else ""
    spanish = spanish_suits(deck, room.settings.rules().suit_style) if deck else False
    return words.typed_press(said, (b for row in screen.rows for b in row), spanish)


def rules_of(room: Room | None, preset: str) -> Any:
    if room is not None:
        try:
            return room.settings.rules()
        except RulesError:
            pass
    return family.rules_for(preset)


def reply_button(id_: str, title: str) -> dict[str, Any]:
    return {"type": "reply", "reply": {"id": id_, "title": render.short(title, 20)}}


def language_list(tr: Translator) -> dict[str, Any]:
    return {
        "type": "interactive",
        "interactive": {
            "type": "list",
            "body": {"text": tr.gettext(_("Choose your language:"))},
            "action": {
                "button": render.short(tr.gettext(_("Choose")), 20),
                "sections": [
                    {
                        "rows": [
                            {"id": f"cmd:language:{lang}", "title": LANGUAGE_NAMES[lang][:24]}
                            for lang in LANGUAGES
                        ]
                    }
                ],
            },
        },
    }
