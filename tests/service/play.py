"""Playing whole games through the emulator as the family, and checking secrecy."""

from __future__ import annotations

import re
from functools import lru_cache

import redis

from cli.stack import TOKEN, Stack
from emulator.server import RunningEmulator
from emulator.telegram.driver import Button, ChatMessage
from engine.follow_suit.game import GameState
from service.infra import indexes
from service.infra.keys import PENDING_PRESSES, PENDING_SYNC
from service.infra.redis_server import connect
from service.infra.store import Store, text
from service.table.room import Room
from service.ui.follow_suit import FollowSuitPainter
from tests.service.inproc import Hook

# Where a game is played: the product in processes (cli.stack) or in this one (inproc).
Backend = Stack | Hook

GAME_BUTTON = re.compile(r"^[a-z0-9]{8}\.\d+\.(p[0-9AJQK]{1,2}[SHDC]|pJK|d|dl|dr|x)$")
FAMILY = ("Ana", "Ben", "Carla", "Dan")
BOT_ID = int(TOKEN.split(":")[0])
GROUP = "Family"


def game_buttons(message: ChatMessage | None) -> list[Button]:
    if message is None:
        return []
    return [
        b
        for row in message.buttons
        for b in row
        if b.kind == "callback_data" and GAME_BUTTON.match(str(b.value))
    ]


def action_button(message: ChatMessage | None, token: str) -> str | None:
    """The data of the message's button for a compact action (`S` start, `B` add bot …),
    whatever the language of its label."""
    if message is None:
        return None
    for row in message.buttons:
        for b in row:
            if b.kind == "callback_data" and str(b.value).endswith(f".{token}"):
                return str(b.value)
    return None


@lru_cache(maxsize=8)
def _client(url: str, cluster: bool = False) -> redis.Redis:
    if cluster:  # typed as one Redis's, as Stack.state
        return redis.RedisCluster.from_url(url)  # type: ignore[return-value]
    return connect(url)


def client_of(stack: Backend) -> redis.Redis:
    """A client of the backend's game state (one per server, reused): its Redis, or the
    cluster it keeps the state on."""
    if isinstance(stack, Hook):
        return stack.redis
    if stack.cluster_url is not None:
        return _client(stack.cluster_url, cluster=True)
    return _client(stack.redis.url)


def jobs_of(stack: Backend) -> redis.Redis | None:
    """RQ's Redis when it is apart from the state's (None: the same)."""
    if isinstance(stack, Hook) or stack.cluster_url is None:
        return None
    return _client(stack.redis.url)


def waiting_work(client: redis.Redis, room_id: str) -> bool:
    """Whether a room has a press queued or a chat message waiting for the outbox."""
    pending = [*indexes.members(client, PENDING_PRESSES), *indexes.members(client, PENDING_SYNC)]
    return any(m.startswith(f"{room_id}|") for m in pending)


def presses_applied(emu: RunningEmulator, stack: Backend, timeout: float = 20) -> None:
    """Wait until every press answered and queued has been applied by a worker."""
    client = client_of(stack)
    emu.wait_for(lambda: indexes.count(client, PENDING_PRESSES) == 0 or None, timeout=timeout,
                 what="the queued presses to be applied")  # fmt: skip


def store_of(stack: Backend) -> Store:
    return Store(client_of(stack), 3600, 3600, jobs=jobs_of(stack))


def room_in(stack: Backend, chat_id: int) -> Room:
    room = store_of(stack).room_in_chat(chat_id, None)
    assert room is not None
    return room


def follow_suit_game(room: Room) -> GameState:
    """The room's game, of a follow-suit preset (not cuartetos)."""
    assert isinstance(room.game, GameState)
    return room.game


def shown_cards(room: Room, mask: int) -> set[str]:
    """How the room's screens name the cards of a bit set, in its players' languages (a
    Spanish preset shows Spanish suits: `As de oros`; the others `A♠`)."""
    game = room.game
    assert isinstance(game, GameState)
    codes = [code for code in game.table.codec.codes(mask) if code != "JK"]
    langs = {info.lang for info in room.seats} | {"en"}
    return {FollowSuitPainter(room, lang).card(code) for lang in langs for code in codes}


def names_in(text: str, names: set[str]) -> set[str]:
    """Which of the card names a text shows as a card (not inside a longer name)."""
    return {n for n in names if re.search(rf"(^|[\s:(]){re.escape(n)}($|[\s.,)])", text)}


def assert_no_hand_leaks(emu: RunningEmulator, stack: Backend, room: Room, group: int) -> None:
    """No message of this room now shown in the group or in a player's private chat shows
    a card that is still hidden in another player's hand."""
    client, room_id = client_of(stack), room.id

    def caught_up() -> bool | None:
        return not waiting_work(client, room_id) or None

    for _ in range(50):  # until the messages are read while the room stands still
        emu.wait_for(caught_up, what="the outbox to catch up")
        room = room_in(stack, group)  # the state the messages now show
        targets = room_messages(stack, room)  # and the messages, read with it
        shown = {key: emu.message(*key) for key in targets}
        if room_in(stack, group).version == room.version:  # a bot may have moved meanwhile
            break
    game = room.game
    assert isinstance(game, GameState)
    for seat, info in enumerate(room.seats):
        hidden = shown_cards(room, game.hand.hands[seat] & ~game.hand.known[seat])
        for key, message in shown.items():
            target = targets.get(key, "")
            if not hidden or target == f"hand:{info.user_id}":
                continue
            leaked = names_in(message.text, hidden)
            leaked |= {b.text for row in message.buttons for b in row} & hidden
            assert not leaked, f"{info.name}'s {leaked} shown to {target}: {message.text!r}"


def room_messages(stack: Backend, room: Room) -> dict[tuple[int, int], str]:
    """(chat, message id) -> target of every message the outbox keeps for the room."""
    raw = client_of(stack).hgetall(f"game:{{{room.id}}}:msgs")
    found = {}
    for target, message_id in raw.items():
        name = text(target)
        if name.startswith("mine:"):  # an ephemeral message's own id: not a message id
            continue
        chat = int(name.split(":")[1]) if name.startswith("hand:") else room.chat_id
        found[(chat, int(message_id))] = name
    return found


def assert_no_passing_leaks(emu: RunningEmulator, stack: Backend, group: int) -> None:
    """Passing game: no message of the room shows a card still in a hand except to the
    one who may know it: its holder, or whoever passed it to them (a player's screen
    names what they gave and got). Cards are matched by how the painter names them."""
    from engine.cuartetos import GameState as PassingGame
    from service.ui.cuartetos import CuartetosPainter

    client = client_of(stack)

    def settled() -> Room | None:
        """The room once the outbox has shown its current state (bots and windows may
        still move it on: then look again)."""
        before = room_in(stack, group)
        if waiting_work(client, before.id):
            return None
        after = room_in(stack, group)
        return after if after.version == before.version else None

    room = emu.wait_for(settled, timeout=30, what="the outbox to catch up")
    game = room.game
    assert isinstance(game, PassingGame)
    held = {card: seat for seat, hand in enumerate(game.hand.hands) for card in hand}
    for (chat, message_id), target in room_messages(stack, room).items():
        message = emu.message(chat, message_id)
        shown = message.text + " " + " ".join(b.text for row in message.buttons for b in row)
        viewer = room.seat_of(int(target.split(":")[1])) if target.startswith("hand:") else None
        if room.private and target.startswith("table"):  # the one-to-one game's one message
            viewer = next(i for i, s in enumerate(room.seats) if s.user_id is not None)
        knows: set[str] = set()
        if viewer is not None:
            hand = game.hand
            knows = {*hand.hands[viewer], *hand.passed[viewer], *hand.received[viewer]}
        for lang in {info.lang for info in room.seats} | {"en"}:
            painter = CuartetosPainter(room, lang)
            for card, seat in held.items():
                if card in knows:
                    continue
                label = painter.card(card)
                assert not re.search(rf"(^|[\s:(]){re.escape(label)}($|[\s.,)])", shown), (
                    f"{room.seats[seat].name}'s {label} shown to {target}: {shown!r}"
                )
