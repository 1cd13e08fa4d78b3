"""The table's view on WhatsApp (service.platforms.whatsapp.view_link): a call-to-action
URL message whose link the view's door (`ViewAccess.whatsapp`) takes for its owner and
table only, and for no longer than it lasts; the "🖼 Table" row or button beside a
hand's moves where one fits; the words that ask for it in every language; and the
outbox's offer, once per table, only inside the person's window."""

from __future__ import annotations

from typing import Any

import fakeredis
import pytest
from pydantic import SecretStr

from emulator.whatsapp.validation import parse_request
from service.access.checks import Refusal, Refused, ViewGrant
from service.i18n import LANGUAGE_NAMES, Translator
from service.infra.keys import room_key
from service.infra.store import encode_room
from service.infra.view_links import revoke_links
from service.platforms.base import Chat
from service.platforms.whatsapp import people, view_link, window, words
from service.platforms.whatsapp.delivery import WhatsAppDelivery
from service.platforms.whatsapp.graph import Address
from service.platforms.whatsapp.manual import WhatsAppManual
from service.platforms.whatsapp.render import render
from service.settings import Settings
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from service.ui import games
from service.ui.intents import Move, OpenView, Press
from service.ui.screens import Button, Screen

ABUELA, NIETO = Actor(7001, "Abuela", "es"), Actor(7002, "Nieto", "en")
SECRET = "s" * 64
PUBLIC = "https://burro.example"
NOW = 1_800_000_000


class Clock:
    def __init__(self) -> None:
        self.now: float = NOW

    def __call__(self) -> float:
        return self.now


def settings(**changes: Any) -> Settings:
    values: dict[str, Any] = {
        "public_url": PUBLIC,
        "view_link_secret": SecretStr(SECRET),
        "telegram_token": None,
    }
    return Settings(**(values | changes), _env_file=None)  # type: ignore[call-arg]


def links(client: fakeredis.FakeRedis, clock: Clock) -> view_link.ViewLinks:
    found = view_link.links_of(client, settings(), clock)
    assert found is not None
    return found


def started(*people_: Actor, preset: str = "spanish") -> Room:
    """A one-to-one game of the first person's (a WhatsApp table), dealt."""
    first = people_[0]
    settings_ = RoomSettings(preset=preset)
    room = lobby.create_room(first.user_id, None, first, 0.0, private=True, settings=settings_)
    for person in people_[1:]:
        lobby.join(room, person)
    while len(room.seats) < 4:
        lobby.add_bot(room, first)
    play.start(room, 1.0, 0.0)
    return room


def token_of(message: dict[str, Any]) -> str:
    url = message["interactive"]["action"]["parameters"]["url"]
    assert url.startswith(f"{PUBLIC}/view#l=")
    return str(url.split("#l=", 1)[1])


# ----- the message and its link ------------------------------------------------------


@pytest.mark.parametrize("lang", sorted(LANGUAGE_NAMES))
def test_the_message_is_within_metas_limits_in_every_language(lang: str) -> None:
    message = view_link.cta(f"{PUBLIC}/view#l=x", "La mesa de Abuela" * 3, 30, lang)
    parse_request({"messaging_product": "whatsapp", "to": "34600000001", **message})
    label = message["interactive"]["action"]["parameters"]["display_text"]
    assert label.startswith("🖼") and not label.endswith("…")  # whole, not cut


def test_the_link_is_its_owners_for_that_table_only() -> None:
    client, clock = fakeredis.FakeRedis(), Clock()
    made = links(client, clock)
    url = made.url(ABUELA.user_id, "k3j9x0qa")
    assert url is not None
    token = url.split("#l=", 1)[1]
    assert made.access.whatsapp(token) == ViewGrant(ABUELA.user_id, "k3j9x0qa", NOW, NOW + 1800)
    person, table, rest = token.split(".", 2)
    assert made.url(NIETO.user_id, "k3j9x0qa") is not None  # he has a key of his own
    for forged in (f"{NIETO.user_id:x}.{table}.{rest}", f"{person}.z9z9z9z9.{rest}"):
        refused = made.access.whatsapp(forged)  # another person, another table: no
        assert isinstance(refused, Refused) and refused.reason in (
            Refusal.FORGED,
            Refusal.MALFORMED,
        )
    clock.now += 1
    assert made.url(ABUELA.user_id, "k3j9x0qa") != url  # every message a fresh link


def test_an_expired_or_revoked_link_is_refused() -> None:
    client, clock = fakeredis.FakeRedis(), Clock()
    made = links(client, clock)
    url = made.url(ABUELA.user_id, "k3j9x0qa")
    assert url is not None
    token = url.split("#l=", 1)[1]
    clock.now += 1801
    assert made.access.whatsapp(token) == Refused(Refusal.EXPIRED)
    clock.now = NOW
    revoke_links(client, ABUELA.user_id)  # as /forget does, with the person's record
    assert made.access.whatsapp(token) == Refused(Refusal.REVOKED)


@pytest.mark.parametrize(
    "changes",
    [{"public_url": None}, {"view_link_secret": None}, {"view_link_secret": SecretStr("")}],
)
def test_no_links_without_a_public_url_and_a_secret(changes: dict[str, Any]) -> None:
    assert view_link.links_of(fakeredis.FakeRedis(), settings(**changes)) is None


# ----- the row beside the moves ------------------------------------------------------


VIEW = Button("🖼 Mesa", OpenView("k3j9x0qa", True))


def moves(n: int) -> tuple[tuple[Button, ...], ...]:
    cards = ("2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH")[:n]
    return tuple((Button(card, Press("k3j9x0qa", 3, Move(f"play:{card}"))),) for card in cards)


def offered(message: dict[str, Any]) -> list[tuple[str, str]]:
    """(id, title) of what a message offers to tap (none: a text)."""
    if message["type"] != "interactive":
        return []
    action = message["interactive"]["action"]
    if "buttons" in action:
        return [(b["reply"]["id"], b["reply"]["title"]) for b in action["buttons"]]
    return [(r["id"], r["title"]) for s in action["sections"] for r in s["rows"]]


@pytest.mark.parametrize(
    ("n", "added"), [(1, True), (2, True), (3, False), (4, True), (9, True), (10, False)]
)
def test_the_row_goes_only_where_it_fits_beside_every_move(n: int, added: bool) -> None:
    screen = Screen("Tu turno", (*moves(n), (VIEW,)))
    message = view_link.with_row(render(screen, "es"), screen)
    found = offered(message)
    assert (("view:k3j9x0qa", "🖼 Mesa") in found) is added
    assert len(found) == n + added  # no move left out for it
    parse_request({"messaging_product": "whatsapp", "to": "34600000001", **message})


@pytest.mark.parametrize("preset", ["spanish", "cuartetos"])
def test_a_real_hand_gets_its_row_where_it_fits(preset: str) -> None:
    room = started(ABUELA, preset=preset)
    screen = games.room_screen(room, games.painter(room, "es"))
    moves_only = len(offered(render(screen, "es")))
    message = view_link.with_row(render(screen, "es"), screen)
    fits = 0 < moves_only < 3 or 3 < moves_only < 10  # a text (no move) stays a text
    assert (("view:" + room.id, "🖼 Mesa") in offered(message)) is fits
    parse_request({"messaging_product": "whatsapp", "to": "34600000001", **message})


def test_a_tapped_row_names_its_table() -> None:
    assert view_link.asked_room("view:k3j9x0qa") == "k3j9x0qa"
    for other in ("view:", "view:K3J9X0QA", "k3j9x0qa.3.J", "pick:H:k3j9x0qa.3", "view:k3j9x0qa.1"):
        assert view_link.asked_room(other) is None


# ----- the words ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "said", ["table", "Mesa", "mesa!", "la mesa", "🖼 Mesa", "meja", "Lihat meja", "ver a mesa"]
)
def test_words_that_ask_for_the_view(said: str) -> None:
    assert words.view_asked(said)


def test_mesa_and_a_code_still_joins_and_table_words_inside_others_do_not_ask() -> None:
    assert not words.view_asked("mesa ABCD")
    assert words.command_of("mesa ABCD") == ("join", "abcd")
    assert not words.view_asked("nueva partida")
    assert not words.view_asked("7 de oros")


# ----- the outbox's offer --------------------------------------------------------------


class Graph:
    """Meta's Graph API as the delivery calls it: what was sent, to whom."""

    def __init__(self) -> None:
        self.sent: list[tuple[Address, dict[str, Any]]] = []

    def send(self, address: Address, content: dict[str, Any]) -> str:
        self.sent.append((address, content))
        return f"wamid.{len(self.sent)}"


def delivery(
    client: fakeredis.FakeRedis, clock: Clock, with_links: bool = True
) -> tuple[WhatsAppDelivery, Graph]:
    api = Graph()
    made = links(client, clock) if with_links else None
    found = WhatsAppDelivery(api, client, clock, 3600, pair_rate=6.0, links=made)  # type: ignore[arg-type]
    return found, api


def known(client: fakeredis.FakeRedis, person: Actor, at: float) -> None:
    """A WhatsApp person with an address, who wrote at `at`."""
    client.hset(f"user:{person.user_id}", mapping={"wa": f"ES.{person.user_id}"})
    window.note_inbound(client, person.user_id, at)


def test_the_first_prompt_of_a_table_brings_the_view_once() -> None:
    client, clock = fakeredis.FakeRedis(), Clock()
    known(client, ABUELA, NOW - 60)
    room = started(ABUELA)
    client.set(room_key(room.id), encode_room(room))
    platform, api = delivery(client, clock)
    screen = games.room_screen(room, games.painter(room, "es"))
    rendered = platform.render(screen, "es")
    assert rendered["view"] == room.id
    chat = Chat(ABUELA.user_id, None)
    assert people.address_of(client, ABUELA.user_id) is not None
    platform.deliver(chat, rendered)
    assert [kind(c) for _a, c in api.sent] == [kind(rendered["message"]), "cta_url"]
    body = api.sent[-1][1]["interactive"]["body"]["text"]
    assert body.startswith("🖼 Mesa de Abuela:") and "30 minutos" in body
    assert platform.links is not None
    grant = platform.links.access.whatsapp(token_of(api.sent[-1][1]))
    assert isinstance(grant, ViewGrant) and (grant.person, grant.room_id) == (
        ABUELA.user_id,
        room.id,
    )
    clock.now += 10
    platform.deliver(chat, rendered)  # the next prompt: no second offer
    assert [kind(c) for _a, c in api.sent[2:]] == [kind(rendered["message"])]


def kind(content: dict[str, Any]) -> str:
    return (
        str(content["interactive"]["type"]) if content["type"] == "interactive" else content["type"]
    )


def test_no_offer_outside_the_window_nor_without_links() -> None:
    client, clock = fakeredis.FakeRedis(), Clock()
    known(client, ABUELA, NOW - window.WINDOW)  # a day ago: the window is closed
    room = started(ABUELA)
    platform, api = delivery(client, clock)
    screen = games.room_screen(room, games.painter(room, "es"))
    platform.deliver(Chat(ABUELA.user_id, None), platform.render(screen, "es"))
    assert "cta_url" not in [kind(c) for _a, c in api.sent]  # the turn's template alone
    assert not view_link.offered(client, ABUELA.user_id, room.id)  # offered once they write
    bare, bare_api = delivery(client, clock, with_links=False)
    window.note_inbound(client, ABUELA.user_id, NOW)
    rendered = bare.render(screen, "es")
    assert "view" not in rendered
    assert not any(row[0].startswith("view:") for row in offered(rendered["message"]))
    bare.deliver(Chat(ABUELA.user_id, None), rendered)
    assert [kind(c) for _a, c in bare_api.sent] == [kind(rendered["message"])]


@pytest.mark.parametrize("lang", sorted(LANGUAGE_NAMES))
def test_what_is_kept_for_the_links_is_said_in_every_language(lang: str) -> None:
    kept = WhatsAppManual().kept(Translator(lang)).split("\n")[-1]
    english = WhatsAppManual().kept(Translator("en")).split("\n")[-1]
    assert kept.startswith("• ") and (kept != english) is (lang != "en")
