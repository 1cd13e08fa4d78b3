"""Invitations that work: "family" during a game against bots never hands out that
game's code (it asks first, then opens a family table in its place); an old link to a
game against bots shows its follower a way on and tells its owner; joining a table is
welcomed with whose table it is, where the cards will come and the way back.

The desk over fakeredis (no worker: what the outbox would send waits as pending)."""

from __future__ import annotations

import asyncio
import re
from itertools import count
from typing import Any

import fakeredis
import pytest
from pydantic import SecretStr

from service.desk.asks import CommandAsk, Place, Reply, Request, Sender, TypedAsk
from service.desk.desk import Desk
from service.infra import indexes, keys
from service.infra.store import Store, text
from service.platforms.links import ServiceLinks
from service.platforms.telegram.invite import group_link
from service.platforms.telegram.manual import TelegramManual
from service.platforms.whatsapp.manual import WhatsAppManual
from service.services import Services
from service.settings import Settings
from service.table import groups, lobby, targets
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room
from service.ui import invitations

ABUELA, ANA, CARLA = 501, 502, 503
GROUP = -1001234567890  # a supergroup: its messages have links
CODE = re.compile(r"(?:start=j|%20)([a-z0-9]{8})")


def services() -> Services:
    settings = Settings(
        telegram_token=SecretStr("123456:invitations"),
        webhook_secret=SecretStr("invitations-secret"),
        whatsapp_number="15550009999",
        rate_limits=False,
        bot_delay=0.0,
    )
    clock = count(1_700_000_000)
    return Services(settings, Store(fakeredis.FakeRedis(), 3600, 3600), lambda: next(clock))


class Family:
    """Abuela, Ana and Carla at the desk, each on the platform a test gives them."""

    def __init__(self) -> None:
        self.svc = services()
        self.links = ServiceLinks(self.svc)
        self.desks = {
            "whatsapp": Desk(self.svc, WhatsAppManual(), self.links),
            "telegram": Desk(self.svc, TelegramManual(), self.links),
        }
        self.marks = count(1)

    def ask(
        self,
        who: int,
        ask: Any,
        platform: str = "whatsapp",
        lang: str = "es",
        place: Place | None = None,
    ) -> Reply:
        name = {ABUELA: "Abuela", ANA: "Ana", CARLA: "Carla"}[who]
        self.svc.store.set_user_language(who, lang)
        sender = Sender(who, name, lang, platform=platform)
        where = place if place is not None else Place(who)
        request = Request(f"m{next(self.marks)}", sender, where, ask, edits=platform != "whatsapp")
        handled = asyncio.run(self.desks[platform].handle(request))
        assert handled.outcome == "ok", handled
        return handled.reply

    def own_room(self, who: int) -> Room:
        room = self.svc.store.room_in_chat(who, None)
        assert room is not None
        return room

    def pending(self, room_id: str) -> set[str]:
        """The targets of a room marked for the outbox."""
        members = indexes.members(self.svc.store.redis, keys.PENDING_SYNC)
        found = (m.partition("|") for m in members)
        return {target for room, _sep, target in found if room == room_id}


def text_of(reply: Reply) -> str:
    return "\n".join(line.text for line in reply.lines)


def choices_of(reply: Reply) -> list[tuple[str, str | None, str | None]]:
    return [(c.label, c.ask, c.url) for line in reply.lines for row in line.choices for c in row]


@pytest.mark.parametrize("platform", ["whatsapp", "telegram"])
def test_family_during_a_game_against_bots_asks_then_opens_a_table(platform: str) -> None:
    """Abuela, mid-game against bots, asks for a family table: she is asked first (her
    game is not ended by a word), and no link carries her game's code; "keep playing"
    leaves the game as it was; the family table's choice ends it and opens a lobby in
    its place, whose links are the lobby's own."""
    family = Family()
    family.ask(ABUELA, CommandAsk("play"), platform)
    game = family.own_room(ABUELA)
    assert game.private and game.status == "playing"

    asked = family.ask(ABUELA, CommandAsk("family"), platform)
    assert "partida contra los bots" in text_of(asked)
    assert game.id not in text_of(asked) and "wa.me" not in text_of(asked)
    (yes_label, yes, _url), (keep_label, keep, _url2) = choices_of(asked)
    assert (yes_label, keep_label) == ("👪 Mesa familiar", "▶️ Seguir jugando")
    assert keep == "cmd:resume" and yes == "cmd:family:!spanish"

    family.ask(ABUELA, CommandAsk("resume"), platform)
    still = family.own_room(ABUELA)
    assert (still.id, still.status) == (game.id, "playing")

    told = family.ask(ABUELA, CommandAsk("family", (yes.split(":")[2],)), platform)
    table = family.own_room(ABUELA)
    assert table.id != game.id and not table.private and table.status == "lobby"
    assert family.svc.store.load(game.id).status == "cancelled"  # type: ignore[union-attr]
    codes = set(CODE.findall(text_of(told)))
    assert codes == {table.id}, text_of(told)  # the WhatsApp and the Telegram link
    assert text_of(told).startswith("Tu partida contra los bots ha terminado.")


def test_family_with_a_lobby_against_bots_opens_at_once() -> None:
    """A game against bots still being set up is no game to lose: no question."""
    family = Family()
    family.ask(ABUELA, CommandAsk("setup"))
    lobby = family.own_room(ABUELA)
    told = family.ask(ABUELA, CommandAsk("family"))
    table = family.own_room(ABUELA)
    assert not table.private and set(CODE.findall(text_of(told))) == {table.id}
    assert family.svc.store.load(lobby.id).status == "cancelled"  # type: ignore[union-attr]
    assert "terminado" not in text_of(told)


@pytest.mark.parametrize("platform", ["telegram", "whatsapp"])
def test_an_old_link_to_a_game_against_bots(platform: str) -> None:
    """Ana follows a link to Abuela's game against bots (as "family" once handed out):
    she is not seated, is told whose game it is and what she can do (play now, or a
    family table), and Abuela is told, once, in her own chat."""
    family = Family()
    family.ask(ABUELA, CommandAsk("play"))
    game = family.own_room(ABUELA)
    follow = (
        CommandAsk("start", (f"j{game.id}",))
        if platform == "telegram"
        else TypedAsk(f"unirme {game.id}")
    )
    said = family.ask(ANA, follow, platform)
    assert "Abuela" in text_of(said) and "mesa familiar" in text_of(said)
    assert [ask for _l, ask, _u in choices_of(said)] == ["cmd:play", "cmd:family"]
    assert family.own_room(ABUELA).seat_of(ANA) is None
    knock = targets.knock(ABUELA, ANA)
    assert knock in family.pending(game.id)
    again = family.ask(ANA, follow, platform)
    assert text_of(again) == text_of(said)
    indexes.clear(family.svc.store.redis, keys.PENDING_SYNC)
    family.ask(CARLA, follow, platform)  # a second visitor the same day: told once
    assert family.pending(game.id) == set()
    marks = [text(k) for k in family.svc.store.redis.scan_iter("cooldown:knock:*")]
    assert marks == [keys.knock_cooldown_key(game.id)]  # names no visitor
    assert family.svc.store.load(game.id).version == game.version  # type: ignore[union-attr]


def test_the_owners_own_link_shows_their_game() -> None:
    family = Family()
    family.ask(ABUELA, CommandAsk("play"), "telegram")
    game = family.own_room(ABUELA)
    said = family.ask(ABUELA, CommandAsk("start", (f"j{game.id}",)), "telegram")
    assert "bots" not in text_of(said)
    assert targets.TABLE_NEW in family.pending(game.id)


WELCOME_FAMILY = {
    "es": "👋 ¡Hola, Ana! Ya tienes sitio en la mesa de Abuela. La mesa y tus cartas "
    "llegarán aquí, a este chat, cuando empiece la partida.",
    "en": "👋 Welcome to Abuela's table, Ana! The table and your cards will come here, "
    "in this chat, when the game starts.",
}


@pytest.mark.parametrize("lang", ["es", "en"])
@pytest.mark.parametrize("platform", ["telegram", "whatsapp"])
def test_welcome_at_a_family_table(lang: str, platform: str) -> None:
    """Ana joins Abuela's family table (opened on WhatsApp) by its link or code: told
    whose table it is and that the table and her cards will come to her chat."""
    family = Family()
    family.ask(ABUELA, CommandAsk("family"))
    table = family.own_room(ABUELA)
    follow = (
        CommandAsk("start", (f"j{table.id}",))
        if platform == "telegram"
        else TypedAsk(f"join {table.id}")
    )
    said = family.ask(ANA, follow, platform, lang)
    assert text_of(said) == WELCOME_FAMILY[lang]
    assert family.own_room(ABUELA).seat_of(ANA) is not None


WELCOME_GROUP = {
    "es": "👋 ¡Hola, Carla! Ya tienes sitio en la mesa de Abuela. La mesa está en el "
    "grupo; tus cartas llegarán aquí, a este chat, cuando empiece la partida.",
    "en": "👋 Welcome to Abuela's table, Carla! The table is in the group; your cards "
    "will come here, in this chat, when the game starts.",
}
BACK = {"es": "↩️ Volver al grupo", "en": "↩️ Back to the group"}


@pytest.mark.parametrize("lang", ["es", "en"])
def test_welcome_at_a_group_table_with_the_way_back(lang: str) -> None:
    """Carla follows the group lobby's link to her private chat: welcomed to Abuela's
    table, told the table is in the group and her cards come here, with a button back
    to the table's message in the group."""
    family = Family()
    group = Place(GROUP, private=False)
    family.ask(ABUELA, CommandAsk("new"), "telegram", place=group)
    table = family.svc.store.room_in_chat(GROUP, None)
    assert table is not None
    family.svc.store.redis.hset(keys.msgs_key(table.id), "table", 77)
    said = family.ask(CARLA, CommandAsk("start", (f"j{table.id}",)), "telegram", lang)
    assert text_of(said) == WELCOME_GROUP[lang]
    assert choices_of(said) == [(BACK[lang], None, "https://t.me/c/1234567890/77")]


def test_welcome_names_the_group_when_its_title_is_known() -> None:
    family = Family()
    family.ask(ABUELA, CommandAsk("new"), "telegram", place=Place(GROUP, private=False))
    table = family.svc.store.room_in_chat(GROUP, None)
    assert table is not None
    family.svc.store.update(table.id, lambda r: groups.named(r, "Primos"))
    said = family.ask(CARLA, CommandAsk("start", (f"j{table.id}",)), "telegram", "en")
    assert "The table is in the group «Primos»; your cards will come here" in text_of(said)


def test_a_whatsapp_person_at_a_telegram_groups_table_is_not_sent_to_the_group() -> None:
    """Seated by the group's code from WhatsApp: the group is not theirs to open, so
    the table comes to their chat, and no link points to it."""
    family = Family()
    family.ask(ABUELA, CommandAsk("new"), "telegram", place=Place(GROUP, private=False))
    table = family.svc.store.room_in_chat(GROUP, None)
    assert table is not None
    said = family.ask(ANA, TypedAsk(f"unirme {table.id}"), "whatsapp")
    assert text_of(said) == WELCOME_FAMILY["es"]
    assert choices_of(said) == []


def test_a_group_link_is_a_supergroups_message() -> None:
    assert group_link(-1001234567890, 5) == "https://t.me/c/1234567890/5"
    assert group_link(-4242, 5) is None  # a basic group's messages have no links
    assert group_link(-1001234567890, None) is None
    assert group_link(-100, 5) is None


def started_family_table(family: Family) -> Room:
    """Abuela's family table with Ana at it, its game started."""
    family.ask(ABUELA, CommandAsk("family"))
    table = family.own_room(ABUELA)
    family.ask(ANA, CommandAsk("start", (f"j{table.id}",)), "telegram")
    host = Actor(ABUELA, "Abuela", "es", platform="whatsapp")
    family.svc.store.update(table.id, lambda r: lobby.start(r, host, 1_700_000_000.0))
    started = family.own_room(ABUELA)
    assert started.status == "playing"
    return started


@pytest.mark.parametrize("platform", ["telegram", "whatsapp"])
def test_a_family_tables_link_followed_too_late(platform: str) -> None:
    """Carla follows the family table's link once its game started: told so, asked to
    get the next table's link, offered a game meanwhile; Abuela is told, once."""
    family = Family()
    table = started_family_table(family)
    follow = (
        CommandAsk("start", (f"j{table.id}",))
        if platform == "telegram"
        else TypedAsk(f"join {table.id}")
    )
    said = family.ask(CARLA, follow, platform, "en")
    assert text_of(said) == (
        "The game has already started.\n"
        "Ask Abuela to send you the link of their next table. Meanwhile:"
    )
    assert [ask for _l, ask, _u in choices_of(said)] == ["cmd:play", "cmd:family"]
    assert targets.knock(ABUELA, CARLA, targets.STARTED) in family.pending(table.id)
    assert family.own_room(ABUELA).seat_of(CARLA) is None


def test_a_family_tables_link_followed_once_it_is_over() -> None:
    family = Family()
    table = started_family_table(family)

    def over(room: Room) -> Outcome:
        room.status = "over"
        return Outcome(changed=True)

    family.svc.store.update(table.id, over)
    indexes.clear(family.svc.store.redis, keys.PENDING_SYNC)
    said = family.ask(CARLA, TypedAsk(f"join {table.id}"), "whatsapp", "en")
    assert text_of(said).startswith("This game is over.\nAsk Abuela to send you the link")
    assert family.pending(table.id) == set()  # an ended room is never written again


def test_a_group_tables_started_game_says_only_so() -> None:
    """In a group, the table is in sight of its members: no word to its opener."""
    family = Family()
    family.ask(ABUELA, CommandAsk("new"), "telegram", place=Place(GROUP, private=False))
    table = family.svc.store.room_in_chat(GROUP, None)
    assert table is not None
    family.ask(ANA, CommandAsk("start", (f"j{table.id}",)), "telegram")
    host = Actor(ABUELA, "Abuela", "es")
    family.svc.store.update(table.id, lambda r: lobby.start(r, host, 1_700_000_000.0))
    indexes.clear(family.svc.store.redis, keys.PENDING_SYNC)
    said = family.ask(CARLA, CommandAsk("start", (f"j{table.id}",)), "telegram", "en")
    assert text_of(said) == "The game has already started."
    assert family.pending(table.id) == set()


@pytest.mark.parametrize(
    ("why", "words"),
    [
        (targets.PRIVATE, "followed a link to your game against the bots"),
        (targets.STARTED, "its game had already started"),
        (targets.FULL, "the table was full"),
        (targets.OVER, "whose game is over"),
    ],
)
def test_the_owner_is_told_why(why: str, words: str) -> None:
    action = targets.Target.parse(targets.knock(ABUELA, CARLA, why)).action
    assert targets.knocked(action) == (CARLA, why)
    told = invitations.knocked("en", "Carla", why).text
    assert told.startswith("🔒 Carla ") and words in told
    assert invitations.knocked("en", "", why).text.startswith("🔒 Someone ")


def test_without_whatsapp_the_family_gets_the_one_link() -> None:
    """A service with no WhatsApp number: the family table's one link, nothing empty."""
    family = Family()
    family.svc.settings.whatsapp_number = None
    told = text_of(family.ask(ABUELA, CommandAsk("family"), "telegram", "en"))
    table = family.own_room(ABUELA)
    assert told == f"👪 Send this link to your family: https://t.me/burro_bot?start=j{table.id}"
