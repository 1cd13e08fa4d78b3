"""WhatsApp as a `service.platforms.base.Platform`: what the outbox sends a person.

A chat here is one person's chat with the business, named by their player id
(`people`). Nothing can be edited or deleted: an update is a new message and an old
one stays (its taps are refused as stale by the table). Within the person's 24-hour
window the message goes as it is; outside it the turn template goes instead, naming the
table, once per window and never to someone who asked for no reminders (`window`,
`templates`), and the table is noted to be sent again once they write. Every
message to a person takes a slot of their pacing first (`budget`); the first prompt
after they started a game may carry a one-time hint (`hints`), and the first prompt of
each table is followed by a link to the table's view where links are set
(`view_link`). A person is sent to by
BSUID once known, else by phone (`people.address_of`). Every key about a person here
lapses `people_ttl` after it was last written, as their record does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import Any

import redis

from service.i18n import Translator
from service.infra import keys, trips
from service.infra.store import decode_room
from service.platforms.base import Capabilities, Chat, DeliveryFailed, Failure, Rendered
from service.platforms.whatsapp import graph, hints, people, templates, view_link, window
from service.platforms.whatsapp.graph import Address, Graph, GraphError
from service.platforms.whatsapp.render import render, room_of, short
from service.platforms.whatsapp.view_link import ViewLinks
from service.settings import Settings
from service.table.room import Room
from service.ui import spans
from service.ui.screens import Screen, table_name

log = logging.getLogger("burro.outbox")
TEMPLATE_EVERY = 20 * 3600  # at most one turn template per person in this many seconds
# When the service's clock says so (not Redis's): note the template's time and say yes.
_TEMPLATE_DUE = """
local last = tonumber(redis.call('GET', KEYS[1]) or '')
if last and tonumber(ARGV[1]) - last < tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', 2 * tonumber(ARGV[2]))
return 1
"""


def classify(error: GraphError) -> Failure:
    """How to take a refused Graph call."""
    if error.code in graph.RETRY_LATER:
        return Failure("retry", str(error), wait=graph.RETRY_LATER[error.code])
    if error.status == 0 or error.status >= 500:
        return Failure("retry", str(error), wait=5.0)
    if error.code in graph.UNREACHABLE:  # their chat refuses us: a warning, not a bug
        return Failure("blocked", str(error))
    return Failure("fatal", str(error))


class WhatsAppDelivery:
    name = "whatsapp"

    def __init__(
        self,
        api: Graph,
        client: redis.Redis,
        clock: Callable[[], float],
        people_ttl: int,
        pair_rate: float = 6.0,
        links: ViewLinks | None = None,
    ) -> None:
        self.api, self.redis, self.clock, self.pair_rate = api, client, clock, pair_rate
        self.people_ttl = people_ttl
        self.links = links  # the table's view (view_link); None: no links

    def capabilities(self) -> Capabilities:
        return Capabilities(
            edit=False,
            delete=False,
            max_buttons=10,
            max_row_buttons=3,
            max_label=20,
            inline=False,
            threads=False,
        )

    def render(self, screen: Screen, lang: str) -> Rendered:
        screen = replace(screen, text=spans.plain(screen.text))  # words, no marks to draw
        title = short(screen.text.split("\n", 1)[0], 60)  # the template's, lacking a room
        message = render(screen, lang)
        view = view_link.view_of(screen) if self.links is not None else None
        if view is not None:  # "🖼 Table": a row, and the view offered once per table
            message = view_link.with_row(message, screen)
        rendered = {"lang": lang, "title": title, "message": message}
        room = room_of(screen)  # the table it shows: noted when it cannot go
        rendered |= {"view": view[1]} if view is not None else {}
        return rendered | ({"room": room} if room is not None else {})

    def open_until(self, chat: Chat) -> float | None:
        last = window.last_inbound(self.redis, chat.id)
        return (last or 0.0) + window.WINDOW - window.MARGIN

    def budget(self, chat: Chat) -> float:
        return window.pace(self.redis, chat.id, self.clock(), self.pair_rate)

    def deliver(self, chat: Chat, message: Rendered, notify: bool = True) -> int:
        """Send the message (WhatsApp notifies every message: `notify` is moot), or the
        turn template outside the window; an id of ours that grows per chat."""
        address = people.address_of(self.redis, chat.id)
        if address is None:  # their record lapsed, or was forgotten
            raise DeliveryFailed(Failure("fatal", f"no WhatsApp person {chat.id}"))
        room, now = message.get("room"), self.clock()
        if window.is_open(self.redis, chat.id, now):
            content = hints.with_hint(self.redis, chat.id, message["lang"], message["message"])
            wamid = self.send(chat.id, address, content)
            if room is not None:
                window.note_sent(self.redis, chat.id, wamid, room)
            if message.get("view"):
                self.offer_view(chat.id, address, message["view"], message["lang"])
            return self.next_id(chat.id)
        if room is not None:  # sent again once they write (webhook: every turn unseen)
            window.note_unseen(self.redis, chat.id, room, now)
        if self.template_due(chat.id):
            table = self.table_of(room, message["lang"]) or message["title"]
            self.send(chat.id, address, templates.turn_message(message["lang"], table, room))
        return self.next_id(chat.id)

    def offer_view(self, player: int, address: Address, room_id: str, lang: str) -> None:
        """The table's view, once per table, after the person's first prompt of it (the
        window open: `deliver`); when their pace is spent, with a later prompt."""
        if self.links is None or view_link.offered(self.redis, player, room_id):
            return
        if window.pace(self.redis, player, self.clock(), self.pair_rate, ordered=False):
            return
        url = self.links.url(player, room_id)
        if url is None or not view_link.note_offered(self.redis, player, room_id):
            return
        table = self.table_of(room_id, lang) or ""
        try:
            self.send(player, address, view_link.cta(url, table, self.links.minutes, lang))
        except DeliveryFailed as error:  # the prompt went: the view is a word away
            log.warning("whatsapp %s: the table's view was not offered: %s", player, error)

    def table_of(self, room_id: str | None, lang: str) -> str | None:
        """The name of the table a message shows, for the template that goes instead (a
        person may sit at more than one): read once per window at most."""
        data = None if room_id is None else self.redis.get(keys.room_key(room_id))
        if data is None:
            return None
        return short(table_name(decode_room(data), Translator(lang)), 60)

    def next_id(self, player: int) -> int:
        """The next of our message ids in the person's chat (kept as long as they are)."""
        key = keys.wa_seq_key(player)
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.incr(key)
            pipe.expire(key, self.people_ttl)
            found, _ = pipe.execute()
        return int(found)

    def send(self, player: int, address: Address, content: dict[str, Any]) -> str:
        """Send to the person; DeliveryFailed if Meta refused (one warning line, no
        traceback, for a person who cannot be reached: nothing of ours is wrong)."""
        try:
            return self.api.send(address, content)
        except GraphError as error:
            failure = classify(error)
            if failure.kind == "blocked":
                log.warning(
                    "whatsapp %s (by %s) cannot be reached: %s", player, address.kind, error
                )
            raise DeliveryFailed(failure) from error

    def template_due(self, player: int) -> bool:
        """Whether the turn template may go to the person now: once per window (a tap on
        it opens a new one), and never after they asked for no reminders."""
        if self.redis.hget(window.user_key(player), "quiet"):
            return False
        key, now = keys.wa_template_key(player), repr(self.clock())
        return bool(trips.evaluate(self.redis, _TEMPLATE_DUE, [key], now, TEMPLATE_EVERY))

    def update(self, chat: Chat, message_id: int, message: Rendered) -> int:
        return self.deliver(chat, message)

    def retire(self, chat: Chat, message_id: int) -> None:
        """WhatsApp messages stay: an old prompt's taps are refused as stale."""

    def post(self, chat: Chat, text: str) -> None:
        try:
            self.say(chat, text)
        except DeliveryFailed as error:
            log.warning("whatsapp %s: a line was not said: %s", chat.id, error)

    def say(self, chat: Chat, text: str) -> None:
        address = people.address_of(self.redis, chat.id)
        if address is not None and window.is_open(self.redis, chat.id, self.clock()):
            self.send(chat.id, address, {"type": "text", "text": {"body": short(text, 4096)}})

    def show_to(self, chat: Chat, user: int, message: Rendered, answering: str) -> int:
        raise DeliveryFailed(Failure("fatal", "WhatsApp has no messages for one member"))

    def update_for(self, chat: Chat, user: int, message_id: int, message: Rendered) -> None:
        raise DeliveryFailed(Failure("fatal", "WhatsApp has no messages for one member"))

    def withdraw(self, chat: Chat, user: int, message_id: int) -> None:
        return None

    def tell_unreachable(
        self, room: Room, user_id: int, name: str, lang: str, keep: int
    ) -> int | None:
        """A WhatsApp table has no group to tell."""
        return None


@lru_cache(maxsize=4)
def graph_client(url: str, version: str, phone_id: str, token: str) -> Graph:
    """One Graph client per process (its connections are kept)."""
    return Graph(url, version, phone_id, token)


def graph_of(settings: Settings) -> Graph:
    if not settings.whatsapp:
        raise DeliveryFailed(Failure("fatal", "WhatsApp is not configured (BURRO_WHATSAPP_*)"))
    assert settings.whatsapp_token is not None and settings.whatsapp_phone_id is not None
    return graph_client(
        settings.whatsapp_api_url,
        settings.whatsapp_api_version,
        settings.whatsapp_phone_id,
        settings.whatsapp_token.get_secret_value(),
    )


def for_runtime(runtime: Any) -> WhatsAppDelivery:
    """The platform for a worker's runtime (workers.runtime.Runtime)."""
    settings = runtime.svc.settings
    return WhatsAppDelivery(
        graph_of(settings),
        runtime.redis,
        runtime.svc.now,
        runtime.svc.store.people_ttl,
        settings.whatsapp_pair_rate,
        view_link.links_of(runtime.redis, settings, runtime.svc.now),
    )
