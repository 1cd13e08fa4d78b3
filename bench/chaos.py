"""The chaos soak: many games played to the end while processes die, Redis restarts and
updates arrive twice, out of order, at once, stale or forged; then the books are checked.

    python bench/chaos.py --games 300 [--seed 1] [--minutes 30] [--redis-kill]

Scripted players play every preset, one-to-one against bots and in groups (some join
through the deep link, some play through the inline query, some fall asleep so that
their turns time out; those who never opened the bot's chat ask for their cards in the
group, as a person would: the table's "🃏 My cards", else the reminder's, else `/hand`
typed there), through a local Telegram (bench.world, its own process) and the
real stack (cli.stack: Redis with its append-only file, `burro serve`, two `burro
worker`s; a second `serve` for direct deliveries). Meanwhile, at random moments:

- SIGKILL of `serve`, of the second `serve` and of each worker, then a restart;
- Redis restarted cleanly (SIGTERM: it writes its append-only file and exits) — the
  restart the product promises to survive with nothing lost; with `--redis-kill`,
  SIGKILL instead (not promised: with `appendfsync everysec` a machine crash can lose
  the last second; a killed process loses only what it had not yet written);
- updates the emulator delivered, delivered again: the same update (a retry), an old
  one after newer ones (out of order), an old press under a new update id (stale);
- two presses at once (the emulator's and the same press straight to the other serve),
  double taps, taps on old keyboards, forged presses (someone else's button, a future
  version, a card nobody holds, junk data);
- WhatsApp people (bench.chaos_whatsapp): one game in six is one's against bots (every
  preset and cuartetos, in turn; about half dealt at once by a greeting, the others set
  up in their lobby and, when short, played again once over), and one group table in
  three has one or two who joined by its code; the local WhatsApp delivers their
  messages twice, several in one POST and out of order (seeded), and they re-tap old
  prompts, tap twice, type moves instead of tapping, while notifications without a
  valid signature are posted;
- the chat changing under a group game, as Telegram's does: a basic group upgraded to a
  supergroup (a new chat id: the game must follow it), a game's forum topic closed or
  the bot removed from the group (the game must stop, not hang), the table message
  deleted by the group's admin (it must be posted again).

At the end, from Redis and the emulator's log: every game finished; every move a
player made applied exactly once, and no other (each decision of the game, replayed
from its seed, is either the player's own tap, a bot's choice — checked against the
bot — or a timeout, and each seat's timeout count equals its timed-out turns: a timer
fired twice would break that); every chat message the game should show exists and
shows the final state; a game whose topic closed or whose bot was removed is stopped,
and one whose group was upgraded lives in the new chat; no card hidden in a hand ever
shown to anyone else (checked while the games run); no traceback in any chat or popup;
no 5xx but 503. For WhatsApp people besides: every message they sent marked handled
(`update:wa:<wamid>`) and no forged one (each answered 403); a cuartetos seat's actions
each one the person tapped, none twice; no prompt they acted on naming a card in another
seat's hand; their chat told the end; no 5xx but 503 from /whatsapp/webhook. It prints
the counts and exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if __package__ in (None, ""):  # run as `python bench/chaos.py`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import redis

from bench.chaos_whatsapp import WA_PRESETS, WaPlayers, wa_names
from bench.games import follow_suit
from bench.procs import Procs
from cli.stack import SECRET, TOKEN, Stack, wait_http
from emulator.telegram.driver import ChatMessage, EmulatorDriver, EmulatorError
from emulator.whatsapp.driver import WhatsAppDriver, WhatsAppError
from engine.follow_suit.actions import decode
from engine.follow_suit.bots.registry import make_bot
from engine.follow_suit.game import GameState, apply, legal_actions, new_game, to_move
from engine.follow_suit.rules import PRESETS
from engine.follow_suit.views import player_view
from service.infra import indexes
from service.infra.keys import PENDING_SYNC, chat_key, msgs_key
from service.infra.redis_server import connect, free_port
from service.infra.store import decode_room, room_key, text
from service.platforms.telegram import callbacks
from service.platforms.telegram.render import message_params
from service.platforms.whatsapp.people import is_whatsapp
from service.table import games as table_games
from service.table.room import Room
from service.ui.follow_suit import FollowSuitPainter

if TYPE_CHECKING:
    from bench.chaos_cluster import ClusterBlows
    from service.infra.redis_cluster import LocalCluster

CLUSTER_KINDS = ("primary", "reshard", "maxmemory")  # bench.chaos_cluster's blows

BOT_ID = int(TOKEN.split(":")[0])
USER0 = 700_000
GROUP0 = -1_007_000_000_000
BASIC0 = -7_000_000  # basic groups (not yet supergroups) have short ids
# What happens to the chat of every group game in turn (None: nothing).
CHANGES = ("migrate", None, "topic", None, "remove_bot", None, None, None)
STOPPING = ("topic", "remove_bot")  # changes that end the game
LANGS = ("en", "es", "pt-br", "id", "pt")
TURN_TIMEOUT = 8  # seconds, for one-to-one tables (BURRO_TURN_TIMEOUT); sleepy ones keep it
REMINDER = 3  # seconds (BURRO_REMINDER_AFTER)
ACTIVE_TIMEOUT = 3600  # awake players' tables are set to at least this in the lobby
GROUP_SLEEPY_TIMEOUT = 60  # a group table's shortest turn time in the settings
# How long a member who plays from the group waits for a "🃏 My cards" to show in the
# group before they type /hand (long enough that a table the outbox owes them shows first).
NO_WAY_PATIENCE = 30.0
# How long their hand in the group may offer no move of their turn before they ask again.
STALE_HAND_PATIENCE = 10.0


# ----- the plan ------------------------------------------------------------------------


@dataclass
class Spec:
    """One game of the soak, decided up front from the seed."""

    n: int
    kind: str  # "private", "group" or "wa" (a WhatsApp person's one-to-one game)
    preset: str
    humans: list[int]  # user ids; the first opens the table
    bots: int
    sleepy: int | None = None  # a user who sleeps through their first turns
    naps: int = 1  # how many of their turns time out before they wake
    inline: set[int] = field(default_factory=set)  # users who play through inline queries
    strangers: set[int] = field(default_factory=set)  # never opened the bot's chat
    short: bool = True  # the goal set to one hand / one point
    bot_level: str = "heuristic"  # the level of the bots added in the lobby
    change: str | None = None  # what happens to the group's chat (CHANGES)
    change_at: int = 0  # at which room version
    table_deletes: int = 0  # how many times the admin deletes the table message
    wa: list[str] = field(default_factory=list)  # WhatsApp people at the table (names)
    # A WhatsApp one-to-one game dealt at once by a greeting (against three bots, with
    # the environment's settings: a full game, and turns that may time out), else set
    # up in its lobby first; `again`: once over, its "play again" taken (a second game).
    greeting: bool = False
    again: bool = False

    @property
    def chat(self) -> int:
        if self.kind == "private":
            return self.humans[0]
        return BASIC0 - self.n if self.change == "migrate" else GROUP0 - self.n


def make_plan(
    games: int,
    seed: int,
    full: float,
    group_naps: bool = True,
    changes: bool = True,
    whatsapp: bool = True,
) -> list[Spec]:
    """`full`: the share of games played to the preset's own goal (else one hand/point);
    `group_naps`: whether group players may fall asleep too (each nap is a minute, the
    shortest turn time a group table can choose); `changes`: whether group chats change
    under their games (CHANGES, in turn); `whatsapp`: whether one game in six is a
    WhatsApp person's against bots (WA_PRESETS in turn) and one group table in three
    has one or two WhatsApp people, who join by its code."""
    rnd = random.Random(seed)
    presets = sorted(PRESETS)
    specs = []
    next_user = itertools.count(USER0)
    groups = itertools.count()
    wa_games = itertools.count()
    wa_people = 0  # WhatsApp people so far (their countries go in turn)
    for n in range(games):
        preset = presets[n % len(presets)]
        low, high = PRESETS[preset].players
        if whatsapp and n % 6 == 4:
            specs.append(wa_spec(n, next(wa_games), wa_people, rnd, full))
            wa_people += 1
            continue
        if n % 3 == 0:
            kind, humans = "private", 1
            bots = rnd.randint(max(1, low - 1), min(3, high - 1))
        else:
            kind = "group"
            humans = rnd.randint(2, min(4, high))
            bots = rnd.randint(0, min(2, high - humans))
        users = [next(next_user) for _ in range(humans)]
        spec = Spec(n, kind, preset, users, bots, short=rnd.random() >= full)
        if bots:
            spec.bot_level = rnd.choices(["heuristic", "easy", "strong"], [6, 2, 1])[0]
        if rnd.random() < 0.2 and (kind == "private" or group_naps):
            spec.sleepy = rnd.choice(users)
            spec.naps = rnd.randint(1, 2)
        if kind == "group":
            spec.inline = {u for u in users[1:] if rnd.random() < 0.25}
            spec.strangers = {u for u in users[1:] if rnd.random() < 0.25}
            group = next(groups)
            if changes:
                plan_change(spec, CHANGES[group % len(CHANGES)], rnd)
            if whatsapp and group % 3 == 1:
                room_for = high - humans - spec.bots
                if room_for <= 0:
                    spec.bots, room_for = spec.bots - 1, 1
                count = min(room_for, rnd.randint(1, 2))
                spec.wa = wa_names(n, count, wa_people)
                wa_people += count
        specs.append(spec)
    return specs


def wa_spec(n: int, index: int, person: int, rnd: random.Random, full: float) -> Spec:
    """A WhatsApp person's one-to-one game against bots: about half of them (never
    cuartetos, whose live pace a greeting keeps) dealt at once by a greeting, each
    follow-suit preset in turn; the others set up first, and a short one played again."""
    preset = WA_PRESETS[index % len(WA_PRESETS)]
    if preset != "cuartetos" and (index + index // len(WA_PRESETS)) % 2 == 1:
        spec = Spec(n, "wa", preset, [], 3, short=False, greeting=True)
        spec.wa = wa_names(n, 1, person)
        return spec
    if preset == "cuartetos":
        bots, level = rnd.randint(2, 4), "heuristic"
    else:
        low, high = PRESETS[preset].players
        bots = rnd.randint(max(1, low - 1), min(3, high - 1))
        level = rnd.choices(["heuristic", "easy", "strong"], [6, 2, 1])[0]
    spec = Spec(n, "wa", preset, [], bots, short=rnd.random() >= full, bot_level=level)
    spec.again = spec.short
    spec.wa = wa_names(n, 1, person)
    return spec


def plan_change(spec: Spec, change: str | None, rnd: random.Random) -> None:
    spec.change, spec.change_at = change, rnd.randint(2, 6)
    spec.table_deletes = rnd.choice([0, 0, 1, 2])
    if change == "migrate":
        spec.inline = set()  # an inline query names its chat, which is about to change


def world_plan(specs: list[Spec]) -> dict[str, Any]:
    users, groups = [], []
    for spec in specs:
        if spec.kind == "wa":
            continue  # the local WhatsApp's people are added at the start (WaPlayers)
        for uid in spec.humans:
            users.append([uid, f"U{uid}", LANGS[uid % len(LANGS)], uid not in spec.strangers])
        if spec.kind == "group":
            kind = "group" if spec.change == "migrate" else "supergroup"
            groups.append([spec.chat, f"G{spec.n}", [f"U{uid}" for uid in spec.humans], kind])
    return {"users": users, "groups": groups}


def lobby_token(spec: Spec, room: Room, seats: int, setting: str | None = None) -> str:
    """The opener's next lobby button: settings to change (`setting`: one the caller
    chose, "" for none; else `setting_to_change`), then bots until `seats` are taken,
    then Start."""
    wanted = setting_to_change(spec, room) if setting is None else (setting or None)
    if wanted is None and len(room.seats) < seats:
        return "o:done" if room.settings_open else "B"
    if wanted is not None:
        return f"o:{wanted}" if room.settings_open else "C"
    return "o:done" if room.settings_open else "S"


def setting_to_change(spec: Spec, room: Room) -> str | None:
    settings = room.settings
    if spec.bots and settings.bot_level != spec.bot_level:
        return "bot"
    if spec.short and table_games.rules_of(settings).target != 1:
        return "target"
    if spec.sleepy is not None:
        if spec.kind == "group" and settings.turn_timeout != GROUP_SLEEPY_TIMEOUT:
            return "timeout"
        if settings.reminder_after >= settings.turn_timeout:
            return "remind"
    elif settings.turn_timeout < ACTIVE_TIMEOUT:
        return "timeout"
    return None


# ----- counts ----------------------------------------------------------------------------


class Books:
    """What the soak did and what it found; thread-safe counters."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.violations: list[str] = []
        self.lock = threading.Lock()

    def count(self, name: str, n: int = 1) -> None:
        with self.lock:
            self.counts[name] += n

    def violation(self, text: str) -> None:
        with self.lock:
            self.violations.append(text)


# ----- the players -----------------------------------------------------------------------


@dataclass
class Game:
    spec: Spec
    room_id: str | None = None
    room: Room | None = None
    raw: bytes | None = None
    opened_at: float = 0.0
    taps: dict[int, tuple[int, str]] = field(default_factory=dict)  # version -> (seat, action)
    # Presses whose request failed in transit (a timeout): they may have landed all the same.
    unsure: dict[int, tuple[int, str]] = field(default_factory=dict)
    # version -> the callback queries of the player's taps through the local Telegram (a
    # double tap makes two), to tell from their answers whether the press was taken
    queries: dict[int, list[str]] = field(default_factory=dict)
    concurrent: set[int] = field(default_factory=set)  # versions also pressed straight to serve
    lobby_taps: dict[tuple[int, str], float] = field(default_factory=dict)
    link_opened: set[int] = field(default_factory=set)
    done: bool = False
    leak_checks: int = 0
    thread: int | None = None  # the forum topic the game lives in
    changed: bool = False  # its chat's change (Spec.change) has happened
    moved_to: int | None = None  # the supergroup its group became
    deletes: int = 0  # table messages deleted so far
    final_table_deleted: bool = False  # the admin deleted it just as the game ended
    wa_phases: dict[str, dict[int, float]] = field(default_factory=dict)  # person -> tapped
    hands_asked: dict[int, float] = field(default_factory=dict)  # user -> "🃏 My cards" tapped
    no_way: dict[int, float] = field(default_factory=dict)  # user -> since when no button shows
    # (user, version) -> since when their hand in the group has offered no move of it
    stale_since: dict[tuple[int, int], float] = field(default_factory=dict)
    follows: str | None = None  # a WhatsApp game played again: the finished room's id


# What serve answered a version's taps of the player (press_told).
Told = Callable[["Game", int], str | None]


def press_update(user: int, chat: int, data: str, update_id: int) -> dict[str, Any]:
    """A callback query as Telegram sends it (for deliveries straight to serve)."""
    sender = {"id": user, "is_bot": False, "first_name": f"U{user}", "language_code": "en"}
    return {
        "update_id": update_id,
        "callback_query": {
            "id": str(random.getrandbits(62)),
            "from": sender,
            "chat_instance": str(chat),
            "data": data,
            "message": {
                "message_id": 1,
                "date": int(time.time()),
                "chat": {"id": user, "type": "private", "first_name": f"U{user}"},
                "from": {"id": BOT_ID, "is_bot": True, "first_name": "Burro"},
                "text": "…",
            },
        },
    }


class Players:
    """Drives every game through the emulator, one small step per game per round."""

    def __init__(
        self,
        emu: EmulatorDriver,
        client: redis.Redis,
        specs: list[Spec],
        books: Books,
        serve_urls: list[str],
        seed: int,
    ) -> None:
        self.emu = emu
        self.client = client
        self.games = [Game(spec) for spec in specs]
        self.books = books
        self.serve_urls = serve_urls
        self.rnd = random.Random(seed + 1)
        self.posts = ThreadPoolExecutor(max_workers=8)
        self.http = httpx.Client(timeout=15)
        self.update_ids = itertools.count(random.randrange(1 << 40, 1 << 41))
        self.seen_updates: list[dict[str, Any]] = []
        self.log_seq = 0

    # ----- reading -------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the rooms of the games in play (one pipeline)."""
        live = [g for g in self.games if not g.done and g.spec.kind != "wa"]
        with self.client.pipeline(transaction=False) as pipe:
            for game in live:
                if game.room_id is None:
                    pipe.get(chat_key(game.spec.chat, game.thread))
                else:
                    pipe.get(room_key(game.room_id))
            answers = pipe.execute()
        for game, raw in zip(live, answers, strict=True):
            if raw is None:
                continue
            if game.room_id is None:
                game.room_id = text(raw)
                continue
            if raw != game.raw:
                game.raw = raw
                game.room = decode_room(raw)

    def message(self, chat: int, target: str, room_id: str) -> ChatMessage | None:
        raw = self.client.hget(msgs_key(room_id), target)
        if raw is None:
            return None
        try:
            return self.emu.message(chat, int(raw))
        except (KeyError, EmulatorError):
            return None

    # ----- one round -------------------------------------------------------------------

    def step(self) -> int:
        """One action for each game that needs one; how many games are still going."""
        self.refresh()
        going = 0
        for game in self.games:
            if game.done or game.spec.kind == "wa":
                continue  # WhatsApp one-to-one games: WaPlayers
            going += 1
            try:
                self.advance(game)
            except (EmulatorError, httpx.HTTPError, TimeoutError, redis.RedisError):
                self.books.count("player_retries")  # a refused or slow action: next round
            except Exception as error:  # a bug in the soak or the service: report, go on
                self.books.count("player_errors")
                if self.books.counts["player_errors"] <= 5:
                    print(f"chaos: game {game.spec.n}: {error!r}", file=sys.stderr)
        return going

    def advance(self, game: Game) -> None:
        spec, room = game.spec, game.room
        if game.room_id is None:
            if time.time() - game.opened_at > 10:
                game.opened_at = time.time()
                opener = f"U{spec.humans[0]}"
                if spec.kind == "private":
                    self.emu.send_message(opener, opener, f"/play {spec.preset}")
                else:
                    command = f"/burro {spec.preset}"
                    self.emu.send_message(opener, spec.chat, command, thread_id=game.thread)
            return
        if room is None:
            return
        if room.status == "lobby":
            self.lobby(game, room)
        elif room.status == "playing":
            self.change_chat(game, room)
            self.play(game, room)
        else:
            game.done = True
            self.books.count(f"games_{room.status}")

    def lobby_tap(self, game: Game, room: Room, user: int, token: str) -> None:
        """Tap the lobby button `token` for the room's current version, once."""
        key = (room.version, token)
        if time.time() - game.lobby_taps.get(key, 0.0) < 5:
            return
        message = self.message(room.chat_id, "table", room.id)
        data = callbacks.encode(room.id, room.version, token)
        if message is None or data not in {str(b.value) for r in message.buttons for b in r}:
            return  # the message does not show this version yet
        game.lobby_taps[key] = time.time()
        tap = self.emu.tap(f"U{user}", message, data, wait=token == "J")
        if tap.answer is None or token != "J" or user in game.link_opened:
            return
        game.link_opened.add(user)
        if tap.answer.url:  # a stranger: join through the deep link
            self.emu.open_link(f"U{user}", tap.answer.url)
        elif tap.answer.show_alert:  # seated from the group: opens the bot's chat for cards
            self.emu.start(f"U{user}")

    def lobby(self, game: Game, room: Room) -> None:
        spec, creator = game.spec, game.spec.humans[0]
        seated = {s.user_id for s in room.seats if s.user_id is not None}
        for user in spec.humans:
            if user not in seated:
                self.lobby_tap(game, room, user, "J")
                return
        if sum(s.platform == "whatsapp" for s in room.seats) < len(spec.wa):
            return  # the WhatsApp family is still to join by the code (WaPlayers)
        seats = len(spec.humans) + len(spec.wa) + spec.bots
        self.lobby_tap(game, room, creator, lobby_token(spec, room, seats))

    def play(self, game: Game, room: Room) -> None:
        assert room.game is not None
        seat = to_move(follow_suit(room))
        if seat is None or room.is_bot_seat(seat) or room.version in game.taps:
            return
        user = room.seats[seat].user_id
        assert user is not None
        spec = game.spec
        if room.seats[seat].platform == "whatsapp":
            return  # WaPlayers plays it
        if user == spec.sleepy and room.seats[seat].timeouts < spec.naps:
            return  # asleep: this turn will time out
        self.maybe_check_leaks(game, room)
        if user in spec.inline:
            self.play_inline(game, room, seat, user)
            return
        if spec.kind == "group" and user in room.blocked:
            message = self.group_hand(game, room, user)
        else:
            chat, target = (user, f"hand:{user}") if spec.kind == "group" else (user, "table")
            message = self.message(chat, target, room.id)
        mark = f"{room.id}.{room.version}."
        data = [
            str(b.value)
            for r in (message.buttons if message else ())
            for b in r
            if str(b.value).startswith(mark) and callbacks.game_action(str(b.value)[len(mark) :])
        ]
        if message is None or not data:
            return  # the keyboard is not updated yet
        choice = self.rnd.choice(data)
        action = callbacks.game_action(choice[len(mark) :])
        assert action is not None
        game.taps[room.version] = (seat, action)
        pressed = self.mischief(game, room, user, message, choice)
        try:
            tap = self.emu.tap(f"U{user}", message, choice, wait=False)
            game.queries.setdefault(room.version, []).append(tap.query_id or "")
        except (EmulatorError, httpx.HTTPError) as error:
            if not pressed:  # no press surely went out: this turn may be played again
                unsure = game.taps.pop(room.version)
                if isinstance(error, httpx.HTTPError):
                    game.unsure[room.version] = unsure
            raise
        self.books.count("taps")

    def group_hand(self, game: Game, room: Room, user: int) -> ChatMessage | None:
        """The hand of a member seated from the group who never opened the bot's private
        chat (the room's `blocked`): shown in the group to them alone once they ask for it
        (again after 10 s while none shows, or while the one shown has offered no move of
        this turn for 10 s: its delivery is not guaranteed, the table's button shows it
        again), then kept current."""
        mark = f"{room.id}."
        shown = next(
            (
                message
                for message in reversed(self.emu.ephemeral_messages(f"U{user}", room.chat_id))
                if any(str(b.value).startswith(mark) for row in message.buttons for b in row)
            ),
            None,
        )
        if shown is not None:
            game.no_way.pop(user, None)
        if shown is not None and not stale_for(game, room, user, shown, STALE_HAND_PATIENCE):
            return shown
        if time.time() - game.hands_asked.get(user, 0.0) > 10:
            self.ask_hand(game, room, user)
        return shown

    def ask_hand(self, game: Game, room: Room, user: int) -> None:
        """Ask for the hand as a person would: "🃏 My cards" on the table, else on the
        reminder that named them (the admin may have deleted the table; Telegram never
        tells the bot); with neither in the group for a while, `/hand` typed there."""
        for target in ("table", "nudge"):
            message = self.message(room.chat_id, target, room.id)
            data = [str(b.value) for r in (message.buttons if message else ()) for b in r]
            mine = next((d for d in data if d.startswith(f"{room.id}.") and d.endswith(".H")), None)
            if message is not None and not message.deleted and mine is not None:
                game.hands_asked[user] = time.time()
                game.no_way.pop(user, None)
                self.emu.tap(f"U{user}", message, mine, wait=False)
                self.books.count(f"group_hands_asked_on_{target}")
                return
        since = game.no_way.setdefault(user, time.time())
        if time.time() - since > NO_WAY_PATIENCE:
            game.hands_asked[user] = time.time()
            self.emu.send_message(f"U{user}", room.chat_id, "/hand", thread_id=game.thread)
            self.books.count("group_hands_typed")

    def play_inline(self, game: Game, room: Room, seat: int, user: int) -> None:
        answer = self.emu.inline_query(f"U{user}", f"G{game.spec.n}", f"g{room.id}")
        mark = f"{room.id}.{room.version}."
        playable = [
            r.id
            for r in answer.results
            if r.id.startswith(mark) and callbacks.game_action(r.id[len(mark) :])
        ]
        if not playable:
            return
        choice = self.rnd.choice(playable)
        action = callbacks.game_action(choice[len(mark) :])
        assert action is not None
        game.taps[room.version] = (seat, action)
        try:
            self.emu.choose_inline_result(f"U{user}", answer, choice)
        except (EmulatorError, httpx.HTTPError) as error:
            unsure = game.taps.pop(room.version)
            if isinstance(error, httpx.HTTPError):
                game.unsure[room.version] = unsure
            raise
        self.books.count("inline_taps")

    # ----- the chat changing under the game --------------------------------------------

    def prepare(self) -> None:
        """Topics on in the groups whose games live in one, and each game's topic open."""
        for game in self.games:
            spec = game.spec
            if spec.change == "topic":
                owner = f"U{spec.humans[0]}"
                self.emu.set_forum(owner, spec.chat)
                game.thread = self.emu.create_topic(owner, spec.chat, f"Burro {spec.n}")

    def change_chat(self, game: Game, room: Room) -> None:
        """The group's admin deletes the table message now and then; once the game has
        reached its version, the chat changes as planned."""
        spec, owner = game.spec, f"U{game.spec.humans[0]}"
        if game.deletes < spec.table_deletes and self.rnd.random() < 0.02:
            message = self.message(room.chat_id, "table", room.id)
            if message is not None and not message.deleted:
                self.emu.delete_message(owner, room.chat_id, message.message_id)
                game.deletes += 1
                self.books.count("tables_deleted")
                # Read as playing a moment ago; if it has ended since, the table deleted
                # is the final one, and no change is left to show it again (Telegram
                # never tells a bot that a message was deleted).
                now = self.client.get(room_key(room.id))
                if now is None or decode_room(now).status != "playing":
                    game.final_table_deleted = True
                    self.books.count("final_tables_deleted")
        if spec.change is None or game.changed or room.version < spec.change_at:
            return
        game.changed = True
        if spec.change == "migrate":
            game.moved_to = self.emu.migrate_group(owner, spec.chat)
            self.books.count("groups_migrated")
        elif spec.change == "topic":
            assert game.thread is not None
            self.emu.close_topic(owner, spec.chat, game.thread)
            self.books.count("topics_closed")
        elif spec.change == "remove_bot":
            self.emu.remove_bot_from_group(owner, spec.chat)
            self.books.count("bots_removed")

    # ----- mischief --------------------------------------------------------------------

    def post(self, update: dict[str, Any], url: str | None = None) -> None:
        """Deliver an update straight to a serve (in the background)."""
        target = url or self.rnd.choice(self.serve_urls)

        def send() -> None:
            try:
                answer = self.http.post(
                    f"{target}/telegram/webhook",
                    json=update,
                    headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
                )
                self.books.count(f"direct_{answer.status_code}")
                if answer.status_code >= 500 and answer.status_code != 503:
                    self.books.violation(f"serve answered {answer.status_code} to a direct post")
            except httpx.HTTPError:
                self.books.count("direct_unanswered")  # that serve is down right now

        self.posts.submit(send)

    def mischief(self, game: Game, room: Room, user: int, message: ChatMessage, data: str) -> bool:
        """Sometimes, around a real tap: the same press at once, a double tap, forgeries.
        True when the player's own press already went out."""
        roll = self.rnd.random()
        if roll < 0.06:  # two presses at once: this one straight to the other serve
            self.post(press_update(user, user, data, next(self.update_ids)), self.serve_urls[-1])
            game.concurrent.add(room.version)  # its answer is not the emulator's to tell
            self.books.count("concurrent_presses")
            return True
        if roll < 0.10:  # a double tap on the same button
            try:
                tap = self.emu.tap(f"U{user}", message, data, wait=False)
            except (EmulatorError, httpx.HTTPError):
                return False
            game.queries.setdefault(room.version, []).append(tap.query_id or "")
            self.books.count("double_taps")
            return True
        if roll < 0.20:
            self.forge(game, room, user, data)
        return False

    def forge(self, game: Game, room: Room, user: int, data: str) -> None:
        """A press that must change nothing. Each is refused whatever happens meanwhile:
        a version a thousand moves ahead never becomes current, and a card another
        player holds never becomes this one's to play."""
        version = room.version
        stranger = USER0 - 1 - self.rnd.randrange(1000)
        others = [s.user_id for s in room.seats if s.user_id not in (None, user)]
        token = data.split(".")[2]
        state = follow_suit(room)
        seat = room.seat_of(user)
        held = [
            code
            for other in range(state.seats)
            if other != seat
            for code in state.table.codec.codes(state.hand.hands[other])
        ]
        foreign = f"p{self.rnd.choice(held)}" if held else "pZZ"
        forged = self.rnd.choice(
            [
                (stranger, data),  # someone not at the table
                (others[0] if others else stranger, data),  # another player, the mover's button
                (user, f"{room.id}.{version + 1000 + self.rnd.randrange(1000)}.{token}"),
                (user, f"{room.id}.{max(0, version - 1)}.{token}"),  # an old version
                (user, f"{room.id}.{version}.pZZ"),  # a card that does not exist
                (user, f"{room.id}.{version}.{foreign}"),  # a card someone else holds
                (user, f"zzzzzzzz.{version}.{token}"),  # no such room
                (user, "".join(self.rnd.choice("ab.:9-_x") for _ in range(20))),  # junk
                (user, "x" * 64),
            ]
        )
        self.post(press_update(forged[0], forged[0], forged[1], next(self.update_ids)))
        self.books.count("forged_presses")

    def redeliver(self) -> None:
        """Deliver again updates the emulator already delivered: as they were (a retry),
        older ones after newer (out of order), and old presses under new ids (stale)."""
        fresh = self.emu.log("update", since=self.log_seq)
        if fresh:
            self.log_seq = max(e["seq"] for e in fresh)
            self.seen_updates.extend(e["update"] for e in fresh)
            del self.seen_updates[:-5000]
        if len(self.seen_updates) < 10:
            return
        for _ in range(3):
            update = self.rnd.choice(self.seen_updates[-50:])
            self.post(update)
            self.books.count("redelivered")
        old = self.rnd.choice(self.seen_updates[: len(self.seen_updates) // 2])
        self.post(old)
        self.books.count("out_of_order")
        if "callback_query" in old:
            self.post({**old, "update_id": next(self.update_ids)})
            self.books.count("stale_presses")

    def stale_tap(self) -> None:
        """Tap a game button on an old message (a keyboard the game has moved past)."""
        playing = [
            g
            for g in self.games
            if g.room is not None and g.room.status == "playing" and g.spec.kind != "wa"
        ]
        if not playing:
            return
        game = self.rnd.choice(playing)
        assert game.room is not None
        user = self.rnd.choice(game.spec.humans)
        for message in self.emu.messages_in(user)[:-1]:
            old = [
                str(b.value)
                for r in message.buttons
                for b in r
                if str(b.value).startswith(f"{game.room.id}.")
                and str(b.value).split(".")[1] != str(game.room.version)
            ]
            if old:
                self.emu.tap(f"U{user}", message, old[0], wait=False)
                self.books.count("stale_taps")
                return

    # ----- secrecy ---------------------------------------------------------------------

    def maybe_check_leaks(self, game: Game, room: Room) -> None:
        if game.leak_checks >= 3 or self.rnd.random() > 0.15:
            return
        game.leak_checks += 1
        assert game.raw is not None
        leaks = hand_leaks(self.emu, room, game.raw, self.client)
        if leaks is None:
            return  # the game moved on while we looked: try another time
        self.books.count("leak_checks")
        for leak in leaks:
            self.books.violation(leak)


def stale_for(game: Game, room: Room, user: int, hand: ChatMessage, patience: float) -> bool:
    """Whether the hand shown to `user` has offered no move of the room's version for
    `patience` seconds (an edit lost: a worker killed between showing it and keeping
    where, say)."""
    now = f"{room.id}.{room.version}."
    if any(str(b.value).startswith(now) for row in hand.buttons for b in row):
        return False
    since = game.stale_since.setdefault((user, room.version), time.time())
    return time.time() - since > patience


def card_labels(room: Room, lang: str, mask: int) -> set[str]:
    assert room.game is not None
    painter = FollowSuitPainter(room, lang)
    codes = follow_suit(room).table.codec.codes(mask)
    return {painter.card(code) for code in codes if code != "JK"}


def hand_leaks(
    emu: EmulatorDriver, room: Room, raw: bytes, client: redis.Redis
) -> list[str] | None:
    """Cards hidden in a hand that a message of the game shows to someone else (None:
    the room changed while we looked). Only messages that show the room's current state
    are read: the ones the game keeps up to date (the table, each hand, the nudge), once
    their sync is done. A message it has replaced by a new one, or one whose update is
    still on its way, shows an earlier state, perhaps the last trick of an earlier hand,
    whose cards are dealt again."""
    game = follow_suit(room)
    kept = client.hgetall(msgs_key(room.id))
    creator = room.seat_of(room.creator)
    table_lang = room.settings.language or room.seats[creator or 0].lang
    shown: list[tuple[int, str, str]] = []  # (chat, language, what it shows)
    for target_raw, message_id in kept.items():
        target = text(target_raw).removesuffix(":new")
        if indexes.score(client, PENDING_SYNC, f"{room.id}|{target}") is not None:
            continue  # its update is on the way: it may still show the last hand's table
        if target.startswith("mine:"):
            continue  # a hand in the group shown to its player alone (Players.group_hand)
        if target.startswith("hand:"):
            chat = int(target.split(":")[1])
            if is_whatsapp(chat):
                continue  # a WhatsApp person's prompts: checked as they come (WaPlayers)
            seat = room.seat_of(chat)
            lang = room.seats[seat].lang if seat is not None else table_lang
        else:
            chat = room.chat_id
            lang = room.seats[creator or 0].lang if room.private else table_lang
        try:
            message = emu.message(chat, int(message_id))
        except KeyError:
            continue
        if shows_earlier_version(message, room):
            continue
        shown.append((chat, lang, message.text + " " + " ".join(message.button_texts)))
    if client.get(room_key(room.id)) != raw:
        return None
    found = []
    for index, seat_info in enumerate(room.seats):
        hidden_mask = game.hand.hands[index] & ~game.hand.known[index]
        if not hidden_mask:
            continue
        for chat, lang, body in shown:
            if chat == seat_info.user_id:
                continue
            leaked = {label for label in card_labels(room, lang, hidden_mask) if label in body}
            if leaked:
                found.append(f"room {room.id}: {seat_info.name}'s {leaked} shown in chat {chat}")
    return found


def presses(message: ChatMessage) -> list[callbacks.Press]:
    """What the message's buttons of ours would press."""
    decoded = (callbacks.decode(str(b.value)) for row in message.buttons for b in row)
    return [press for press in decoded if press is not None]


def shows_earlier_version(message: ChatMessage, room: Room) -> bool:
    """Whether the message's buttons were made for an earlier version of the room."""
    versions = {p.version for p in presses(message) if p.room == room.id}
    return bool(versions) and max(versions) < room.version


# ----- the chaos monkey ------------------------------------------------------------------


class Monkey(threading.Thread):
    """Kills and restarts processes, restarts Redis, at random moments."""

    def __init__(
        self,
        stack: Stack,
        serve2_port: int,
        books: Books,
        seed: int,
        kill_redis: bool,
        blows: ClusterBlows | None = None,
    ):
        super().__init__(daemon=True, name="monkey")
        self.blows = blows  # with the state on a cluster: its own blows too
        self.stack = stack
        self.serve2_port = serve2_port
        self.books = books
        self.rnd = random.Random(seed + 2)
        self.kill_redis = kill_redis
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        # Every kind of blow once early on (a short soak gets them all), then at random.
        self.script = ["serve", "worker0", "redis", "serve2", "worker1"]
        self.kinds, self.weights = (
            ["serve", "serve2", "worker0", "worker1", "redis"],
            [3, 2, 3, 3, 1],
        )
        if blows is not None:
            self.script += list(CLUSTER_KINDS)
            self.kinds += list(CLUSTER_KINDS)
            self.weights += [1] * len(CLUSTER_KINDS)

    def scripted_done(self) -> bool:
        """Whether every kind of blow has been dealt once (no lock: once() holds it
        through its sleeps, and reading a list's length is atomic)."""
        return not self.script

    def run(self) -> None:
        while not self.stopping.wait(self.rnd.uniform(1.5, 5.0)):
            with self.lock:
                try:
                    self.once()
                except Exception as error:  # the soak goes on; the end check will tell
                    self.books.count("monkey_errors")
                    print(f"chaos: monkey: {error!r}", file=sys.stderr)

    def once(self) -> None:
        choice = (self.script or self.rnd.choices(self.kinds, weights=self.weights))[0]
        if self.script:
            self.script.pop(0)
        if self.blows is not None and choice in CLUSTER_KINDS:
            self.blows.deal(choice, self.stack)
        elif choice == "redis":
            kill = self.kill_redis
            self.stack.redis.stop(kill=kill)
            time.sleep(self.rnd.uniform(0.1, 1.0))
            self.start_redis()
            self.books.count("redis_sigkills" if kill else "redis_restarts")
        else:
            if choice in self.stack.processes:
                self.stack.kill(choice)
                self.books.count(f"killed_{'worker' if choice.startswith('worker') else choice}")
            time.sleep(self.rnd.uniform(0.0, 0.5))
        self.revive()

    def start_redis(self, attempts: int = 5) -> None:
        """Start Redis again, trying again while it fails to (its port not free yet, its
        append-only file still being written): the soak is of the service, not of a
        redis-server that would not come back on a loaded machine."""
        for attempt in range(1, attempts + 1):
            try:
                self.stack.redis.start()
                return
            except RuntimeError as error:
                self.stack.redis.stop(kill=True)
                if attempt == attempts:
                    raise
                self.books.count("redis_start_retries")
                print(f"chaos: redis did not start ({error}); again", file=sys.stderr)
                time.sleep(0.5 * attempt)

    def revive(self) -> None:
        """Start whatever is not running (killed above, or exited on its own)."""
        for name in ("serve", "serve2", "worker0", "worker1"):
            process = self.stack.processes.get(name)
            if process is not None and process.poll() is None:
                continue
            if process is not None:
                self.stack.processes.pop(name)
                self.books.count(f"exited_{name}")  # died by itself (e.g. Redis went away)
            if name == "serve":
                self.stack.start_serve()
            elif name == "serve2":
                start_serve2(self.stack, self.serve2_port)
            else:
                self.stack.start_worker(int(name[-1]))

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=60)
        with self.lock:
            if self.stack.redis.process is None:
                self.start_redis()
            self.revive()


def start_serve2(stack: Stack, port: int) -> None:
    stack.spawn("serve2", "serve", "--port", str(port))
    wait_http(f"http://127.0.0.1:{port}/healthz")


# ----- the books -------------------------------------------------------------------------


def replay_decisions(room: Room) -> list[tuple[GameState, int, str, bool]]:
    """(state before, seat, action, decided) for every action of the game, replayed from
    its seed; `decided` is False for a forced move (the only legal one) played at once:
    not a human's first of a hand, which waits for their turn (service.table.play)."""
    assert room.game is not None
    final = follow_suit(room)
    state = new_game(final.rules, final.seats, final.seed, dealer=final.seats - 1)
    codec = final.table.codec
    humans = {s for s, info in enumerate(room.seats) if info.bot is None and not info.removed}
    out = []
    for hand in final.past if final.over else (*final.past, final.hand):
        seen: set[int] = set()  # the humans who have had their turn in this hand
        for seat, code in hand.actions:
            action = decode(code, codec)
            legal = legal_actions(state, seat)
            waited = seat in humans and seat not in seen
            decided = len(legal) > 1 or not room.settings.auto_forced or waited
            seen.update({seat} & humans if decided else set())
            out.append((state, seat, action, decided))
            state, _ = apply(state, seat, action)
    if state != final:
        raise AssertionError(f"room {room.id}: replaying its actions does not give its state")
    return out


def check_game(
    game: Game, books: Books, client: redis.Redis, emu: EmulatorDriver, liveness: bool = True
) -> None:
    """The books of one game. With `liveness`, it must have finished and its messages
    must show the end; without (a short soak), a game still waiting on a timer or a
    delayed job is counted, and only what it did so far is checked."""
    spec = game.spec
    raw = client.get(room_key(game.room_id)) if game.room_id else None
    if raw is None:
        books.violation(f"game {spec.n}: no room")
        return
    room = decode_room(raw)
    told = press_told(emu)
    if game.changed and not check_change(game, room, books, told):
        return
    finished = room.status == "over" and room.game is not None and room.game.over
    if not finished and room.status == "playing" and not liveness:
        if game.taps.get(room.version) is not None:
            books.violation(f"game {spec.n} ({room.id}): the tap at v{room.version} never applied")
        books.count("games_unfinished_waiting")
        check_moves(game, room, books, told)
        return
    if not finished:
        seat = to_move(follow_suit(room)) if room.game else None
        who = room.seats[seat] if seat is not None else None
        books.violation(
            f"game {spec.n} ({room.id}, {spec.kind}): not finished ({room.status}, v"
            f"{room.version}, to move: {who}, tapped {game.taps.get(room.version)}, "
            f"sleepy {spec.sleepy}, deadline in {(room.deadline or 0) - time.time():.0f} s)"
        )
        return
    books.count("games_finished")
    if check_moves(game, room, books, told):
        pending = [m for m in indexes.members(client, PENDING_SYNC) if m.startswith(room.id)]
        if pending and not liveness:
            books.count("games_with_messages_still_pending")
        else:
            check_messages(room, books, client, emu, game.final_table_deleted)


def check_change(game: Game, room: Room, books: Books, told: Told) -> bool:
    """A game whose chat changed: stopped (its topic closed, its bot removed), its moves
    until then each applied once; or living in the supergroup its group became. True
    when the usual checks are still to run."""
    spec = game.spec
    if spec.change == "migrate":
        if room.chat_id != game.moved_to:
            books.violation(f"game {spec.n} ({room.id}): still in {room.chat_id} after the upgrade")
        return True
    if room.status == "over":
        return True  # it ended just before the change
    if room.status != "cancelled":
        books.violation(f"game {spec.n} ({room.id}): {room.status} after {spec.change}")
        return False
    books.count("games_stopped")
    # Stopping took one version (service.table.groups.stop); a tap made as the game stopped is
    # refused, so it must not have been applied.
    last = room.model_copy(update={"version": room.version - 1})
    game.taps = {v: tap for v, tap in game.taps.items() if v < last.version}
    check_moves(game, last, books, told)
    return False


def press_told(emu: EmulatorDriver) -> Told:
    """What `serve` answered a version's taps of the player: "taken" (one answered with
    no popup: applied, or queued for a worker, which no timer may overtake), "refused"
    (every one answered with a popup: too late), or None (an answer missing, or the same
    press also went straight to a serve, whose answer the emulator never sees)."""

    def told(game: Game, version: int) -> str | None:
        ids = game.queries.get(version, [])
        if not ids or version in game.concurrent:
            return None
        answers = [emu.answer_so_far(query) if query else None for query in ids]
        if any(answer is not None and not answer.text for answer in answers):
            return "taken"
        return "refused" if all(answer is not None for answer in answers) else None

    return told


def untold(_game: Game, _version: int) -> str | None:
    """No answer to go by (a WhatsApp tap has none): a timer's equal move is unclear."""
    return None


def check_moves(game: Game, room: Room, books: Books, told: Told) -> bool:
    """Every decision so far: the player's own tap, the bot's choice or a timeout."""
    spec = game.spec
    try:
        steps = replay_decisions(room)
    except AssertionError as error:
        books.violation(str(error))
        return False
    decisions = [s for s in steps if s[3]]
    first_version = room.version - len(decisions)
    timeouts: Counter[int] = Counter()
    # A turn may time out while the player's tap is on its way (the sleepy player, awake
    # again, a greeting game's quick calls): a timer's move equal to the tap is told
    # from the tap by how serve answered it (`told`); without an answer it is unclear.
    unclear: Counter[int] = Counter()
    applied = 0
    for index, (state, seat, action, _decided) in enumerate(decisions):
        version = first_version + index
        info = room.seats[seat]
        books.count("moves")
        if info.bot is not None:
            books.count("bot_moves")
            if info.bot != "strong":  # the strong bot thinks against a clock
                expected = make_bot(info.bot, seed=room.bot_seed(seat)).choose(
                    player_view(state, seat)
                )
                if expected != action:
                    books.violation(
                        f"room {room.id} v{version}: bot seat {seat} played {action}, "
                        f"its bot chooses {expected} (a move applied twice or misplaced?)"
                    )
            continue
        tap = game.taps.get(version)
        if (seat, action) in (tap, game.unsure.get(version)):
            if timer_move(room, state, seat) == action:  # a timer would have played it too
                verdict = told(game, version)
                if verdict == "refused":  # the press came too late: a timer played it
                    timeouts[seat] += 1
                    continue
                unclear[seat] += verdict is None
            applied += 1
            continue
        timeouts[seat] += 1  # not the player's tap: a timeout played it (checked below)
        expected = timer_move(room, state, seat)
        if expected != action:
            books.violation(
                f"room {room.id} v{version}: {info.name} played {action}; they tapped "
                f"{tap}, a timeout would play {expected}"
            )
    books.count("player_moves_applied", applied)
    books.count("timeouts", sum(timeouts.values()))
    for seat, info in enumerate(room.seats):
        if info.user_id is None:
            continue
        if not 0 <= info.timeouts - timeouts[seat] <= unclear[seat]:
            books.violation(
                f"room {room.id}: {info.name} has {info.timeouts} timeouts recorded, "
                f"{timeouts[seat]} turns played by a timer ({unclear[seat]} unclear)"
            )
        if spec.greeting:
            books.count("wa_greeting_timeouts", info.timeouts)
        elif info.user_id != spec.sleepy and (timeouts[seat] or info.timeouts):
            books.violation(
                f"room {room.id}: {timeouts[seat]} of awake {info.name}'s moves lost "
                "(their turn was played by the timer)"
            )
    for version in game.taps:
        if not first_version <= version < room.version:
            books.violation(f"room {room.id}: a tap at v{version} outside the game")
    return True


def timer_move(room: Room, state: GameState, seat: int) -> str:
    """What a timeout plays for the seat: the heuristic bot's choice."""
    return make_bot("heuristic", seed=room.bot_seed(seat)).choose(player_view(state, seat))


def check_messages(
    room: Room,
    books: Books,
    client: redis.Redis,
    emu: EmulatorDriver,
    final_table_deleted: bool = False,
) -> None:
    """Every message the game keeps shows the final state; nothing is left to send. With
    `final_table_deleted`, the admin deleted the table as the game ended: it stays so."""
    from service.i18n import language_for

    pending = [m for m in indexes.members(client, PENDING_SYNC) if m.startswith(room.id)]
    if pending:
        books.violation(f"room {room.id}: messages never synced: {pending}")
    shown = client.hgetall(msgs_key(room.id))
    targets = {"table": room.chat_id}
    if not room.private:
        targets |= {
            f"hand:{s.user_id}": s.user_id
            for s in room.seats
            if s.user_id is not None
            and s.platform != "whatsapp"  # WaPlayers.check_told
            and s.user_id not in room.blocked  # their hand was in the group (group_hand)
        }
    creator = room.seat_of(room.creator)
    lang = room.settings.language or (
        room.seats[creator].lang if creator is not None else language_for(None)
    )
    for target, chat in targets.items():
        message_id = shown.get(target.encode())
        if message_id is None:
            books.violation(f"room {room.id}: no {target} message")
            continue
        try:
            message = emu.message(chat, int(message_id))
        except KeyError:
            books.violation(f"room {room.id}: the {target} message is gone")
            continue
        if message.deleted:
            if not (target == "table" and final_table_deleted):
                books.violation(f"room {room.id}: the {target} message was deleted")
            continue
        if target.startswith("hand:"):
            # A group player's hand is edited when their cards or their turn change: the
            # last edit may predate the end (found: BENCHMARKS.md), so it must exist and
            # offer no move any more.
            seat = room.seat_of(int(target.split(":")[1]))
            assert seat is not None
            screen = FollowSuitPainter(room, room.seats[seat].lang).hand(seat)
            if message.text.strip() != message_params(screen)["text"].strip():
                books.count("hand_messages_stale_at_end")
            if any(
                callbacks.game_action(p.action) and p.version == room.version
                for p in presses(message)
            ):
                books.violation(f"room {room.id}: {target} still offers a move")
            books.count("messages_checked")
            continue
        if room.private:
            human = next(i for i, s in enumerate(room.seats) if s.user_id is not None)
            screen = FollowSuitPainter(room, room.seats[human].lang).hand(human)
        else:
            screen = FollowSuitPainter(room, lang).table()
        params = message_params(screen)
        markup = message.raw.get("reply_markup") or None
        if message.text.strip() != params["text"].strip() or markup != params.get("reply_markup"):
            books.violation(
                f"room {room.id}: the {target} message does not show the end: "
                f"{difference(message.text, params['text'])} "
                f"{'' if markup == params.get('reply_markup') else 'keyboard differs'}"
            )
        books.count("messages_checked")


def difference(shown: str, wanted: str) -> str:
    """The first line that differs, to read in a violation."""
    for got, want in zip(shown.splitlines(), wanted.splitlines(), strict=False):
        if got != want:
            return f"shows {got!r} instead of {want!r}"
    return "" if shown == wanted else f"shows {len(shown)} characters, not {len(wanted)}"


def check_chats(emu: EmulatorDriver, games: list[Game], books: Books) -> None:
    """No traceback in any chat or popup; no 5xx answer but 503 to the emulator."""
    words = ("Traceback", "Exception", "Error:", "error:")
    for game in games:
        spec = game.spec
        if spec.kind == "wa":
            continue
        for chat in {spec.chat, *spec.humans, *([game.moved_to] if game.moved_to else [])}:
            for message in emu.messages_in(chat):
                body = message.text + " ".join(message.button_texts)
                if any(word in body for word in words):
                    books.violation(f"chat {chat}: {body[:120]!r}")
    for answer in emu.callback_answers():
        if answer.text and any(word in answer.text for word in words):
            books.violation(f"a popup says {answer.text[:120]!r}")
    for delivery in emu.deliveries():
        status = delivery.get("status")
        books.count(f"webhook_{status or 'unanswered'}")
        if status is not None and status >= 500 and status != 503:
            books.violation(f"the webhook answered {status} to update {delivery['update_id']}")


def quiesce(
    client: redis.Redis, books: Books, seconds: float, jobs: redis.Redis | None = None
) -> None:
    """Let the outbox catch up after the chaos stopped (the sweeper resends lost syncs)."""
    deadline = time.monotonic() + seconds
    queue = jobs if jobs is not None else client
    while time.monotonic() < deadline:
        try:
            if indexes.count(client, PENDING_SYNC) == 0 and queue.llen("rq:queue:burro") == 0:
                return
        except redis.RedisError:
            pass
        time.sleep(0.5)
    books.count("quiesce_timeouts")


# ----- the soak --------------------------------------------------------------------------


def soak(
    games: int,
    seed: int,
    minutes: float,
    kill_redis: bool,
    full: float,
    folder: Path,
    group_naps: bool = True,
    settle: float = 120.0,
    liveness: bool = True,
    bot_delay: float = 0.1,
    whatsapp: bool = True,
    cluster: LocalCluster | None = None,
    durable: bool = True,
) -> Books:
    """The soak (the module's docstring); with `cluster`, the game state on it, RQ on the
    stack's own Redis, and the cluster's blows too (bench.chaos_cluster); `durable`:
    moves answered once a replica has them."""
    books = Books()
    specs = make_plan(games, seed, full, group_naps, whatsapp=whatsapp)
    plan = folder / "plan.json"
    plan.write_text(json.dumps(world_plan(specs)))
    helpers = Procs(folder)
    emu_port = free_port()
    helpers.spawn("world", ["-m", "bench.world", "--plan", str(plan), "--port", str(emu_port)])
    emu_url = f"http://127.0.0.1:{emu_port}"
    env = {
        "BURRO_TURN_TIMEOUT": str(TURN_TIMEOUT),
        "BURRO_REMINDER_AFTER": str(REMINDER),
        "BURRO_SWEEP_EVERY": "3",
        "BURRO_SWEEP_GRACE": "3",
        "BURRO_LOG_LEVEL": "WARNING",
        "BURRO_WHATSAPP_PAIR_RATE": "0.3",  # Meta's pacing, but quicker
    }
    if cluster is not None and durable:
        env |= {"BURRO_DURABLE_REPLICAS": "1", "BURRO_DURABLE_WAIT_MS": "2000"}
    try:
        wait_http(f"{emu_url}/_emulator/state", timeout=60)
        stack = Stack(
            folder / "stack", emulator_url=emu_url, flood_limits=False, bot_delay=bot_delay,
            workers=2, persist=True, env=env,
            cluster_url=None if cluster is None else cluster.url,
        )  # fmt: skip
        with stack, EmulatorDriver(emu_url, timeout=5) as emu, WhatsAppDriver(emu_url) as wa:
            serve2_port = free_port()
            start_serve2(stack, serve2_port)
            client, jobs = stack.state(), connect(stack.redis.url)
            players = Players(
                emu, client, specs, books,
                [stack.serve_url, f"http://127.0.0.1:{serve2_port}"], seed,
            )  # fmt: skip
            players.prepare()
            family = WaPlayers(wa, client, players.games, books, players.serve_urls, seed)
            family.prepare(seed)
            blows = None
            if cluster is not None:
                from bench.chaos_cluster import ClusterBlows  # (it imports this module)

                blows = ClusterBlows(cluster, books, seed)
            monkey = Monkey(stack, serve2_port, books, seed, kill_redis, blows)
            monkey.start()
            deadline = time.monotonic() + minutes * 60
            rounds = 0
            try:
                while time.monotonic() < deadline:
                    try:
                        # All games over: stop, once every kind of blow has landed.
                        going = players.step() + family.step()
                        if going == 0 and monkey.scripted_done():
                            break
                        rounds += 1
                        if rounds % 10 == 0:
                            players.redeliver()
                        if rounds % 25 == 0:
                            players.stale_tap()
                        if rounds % 15 == 0:
                            family.stale_tap()
                        if rounds % 20 == 0:
                            family.forge()
                    except (redis.RedisError, httpx.HTTPError, EmulatorError, WhatsAppError):
                        time.sleep(0.2)  # Redis is restarting: the players wait
                    time.sleep(0.05)
            finally:
                monkey.stop()
            players.posts.shutdown(wait=True)
            quiesce(client, books, settle, jobs)
            books.count("rounds", rounds)
            with contextlib.suppress(TimeoutError):
                wa.wait_idle(timeout=30)
            quiesce(client, books, 10, jobs)
            for game in players.games:
                if game.spec.kind != "wa":
                    check_game(game, books, client, emu, liveness)
            check_chats(emu, players.games, books)
            family.check(liveness)
    finally:
        helpers.stop_all()
    books.count("games", len(specs))
    return books


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=30.0, help="give up after this long")
    parser.add_argument("--full", type=float, default=0.1, help="share of full-length games")
    parser.add_argument("--redis-kill", action="store_true", help="SIGKILL Redis, not SIGTERM")
    parser.add_argument("--keep", type=Path, default=None, help="keep logs and data here")
    args = parser.parse_args()
    started = time.monotonic()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        books = soak(args.games, args.seed, args.minutes, args.redis_kill, args.full, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="burro-chaos-") as tmp:
            books = soak(args.games, args.seed, args.minutes, args.redis_kill, args.full, Path(tmp))
    report = {
        "seconds": round(time.monotonic() - started),
        **dict(sorted(books.counts.items())),
        "violations": len(books.violations),
    }
    print(json.dumps(report, indent=1))
    for violation in books.violations[:50]:
        print("VIOLATION:", violation)
    sys.exit(1 if books.violations else 0)


if __name__ == "__main__":
    main()
