"""Cost per move: Redis round trips, Redis bytes per game, Bot API calls per move, and
the latency from a tap to the updated keyboard.

    python -m bench.cost [--games 3] [--taps 150] [--json out.json]
                         [--counts-only] [--live-window SECONDS] [--seed 1]

1. Counts (exact, in one process): the webhook app (`service.web.create_app`) served on
   a thread, the emulator on another, and the jobs run by an RQ worker in burst mode
   after each tap, each with a Redis client that counts its round trips
   (bench.counting). Whole games are played through the emulator: one-to-one against
   two bots, and a four-player group game. Per applied move (a player's or a bot's):
   serve's and the worker's round trips, the Bot API calls by method, the worker's CPU
   (its thread's own); the worker's fixed cost of a burst (its start and end, measured
   on an empty queue) is subtracted.
   Redis bytes (`MEMORY USAGE` of every key of the game, RQ jobs included) while the
   game is in play and once it is over. Being told (issue #14): the new messages per
   move, those that notify (a sendMessage without `disable_notification`; an edit never
   does), the people they notify (a group's message everyone in it but the bot), the
   group's messages per move (Telegram allows 20 a minute), and the share of a human's
   turns whose arrival notified them. The floor: the tap's answer plus one call per
   chat whose screen changed, the fewest calls any drawing of the same screens could
   make. Per turn as well: the calls over the cards played and passes of the group's
   games, forced ones included (a tap that forced moves follow is one applied move).
   The taps come at once (live play); with
   `--live-window 0` every turn counts as one after a pause (a game across a day).
2. Latency (real processes: `burro serve` and one `burro worker`, the emulator, Redis):
   in four-player group games, the time from a tap to the call that updates the
   tapper's chat and to the one that updates the table, from the emulator's call log
   (same clock): an editMessageText, or a sendMessage where the tap ended a hand (its
   news and the next hand come as new messages); in one-to-one games against a bot that
   moves at once, the time from a tap to the player's keyboard back in their hands
   (edited, or a new message at a hand's end).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any
from unittest.mock import patch

import httpx
import redis

from bench.counting import counting_aclient, counting_client, since, snapshot
from bench.games import follow_suit
from bench.procs import machine
from cli.stack import SECRET, TOKEN, Stack
from emulator import (
    ChatMessage,
    EmulatorDriver,
    RunningEmulator,
    ServerThread,
    running_emulator,
)
from engine.follow_suit.game import GameState, to_move
from engine.follow_suit.hand import DRAW, DRAW_LEFT, DRAW_RIGHT
from service.infra.keys import msgs_key, room_key
from service.infra.redis_server import RedisServer, connect
from service.infra.store import decode_room
from service.table.room import Room

GAME_ACTION = ("p", "d", "x")
FAMILY = ("Ana", "Ben", "Carla", "Dan")
GROUP = "Family"
GROUP_MESSAGES = ("sendMessage", "editMessageText")  # what Telegram's 20 a minute counts


def buttons_for(message: ChatMessage | None, version: int) -> list[str]:
    """The callback data of the message's game buttons for `version`."""
    if message is None:
        return []
    found = []
    for row in message.buttons:
        for button in row:
            value = str(button.value)
            parts = value.split(".")
            if (
                button.kind == "callback_data"
                and len(parts) == 3
                and parts[1] == str(version)
                and parts[2][:1] in GAME_ACTION
            ):
                found.append(value)
    return found


def action_data(message: ChatMessage | None, token: str) -> str | None:
    if message is None:
        return None
    for row in message.buttons:
        for button in row:
            if button.kind == "callback_data" and str(button.value).endswith(f".{token}"):
                return str(button.value)
    return None


def load(client: redis.Redis, room_id: str) -> Room:
    data = client.get(room_key(room_id))
    assert data is not None
    return decode_room(data)


def hand_message(emu: EmulatorDriver, client: redis.Redis, room: Room, user: int) -> ChatMessage:
    message_id = client.hget(msgs_key(room.id), f"hand:{user}")
    assert message_id is not None, f"no hand message for {user}"
    return emu.message(user, int(message_id))


def room_bytes(client: redis.Redis, room: Room) -> dict[str, int]:
    """MEMORY USAGE of the game's keys, by family (RQ jobs by kind)."""
    families: Counter[str] = Counter()
    keys = [*client.scan_iter(match=f"*{room.id}*", count=1000), f"chat:{room.chat_id}:0"]
    for key in keys:
        name = key.decode() if isinstance(key, bytes) else key
        size = client.memory_usage(name) or 0
        if name.startswith("rq:job:"):
            family = "rq:job:" + name[7:].split("-")[0]
        elif name.startswith("game:"):
            family = "game:" + name.split("}:", 1)[1].split(":")[0]
        else:
            family = name.split(":")[0]
        families[family] += size
    families["total"] = sum(families.values())
    return dict(families)


# ----- 1. counts, in one process ---------------------------------------------------


class Counted:
    """Redis, the emulator, the webhook app on a thread, and a burst worker."""

    def __init__(self, redis_url: str, emu: RunningEmulator, live_window: float) -> None:
        import workers.runtime
        from service.infra.queue import QUEUE
        from service.settings import Settings
        from service.web import create_app
        from workers.worker import BurroWorker

        os.environ.update(
            BURRO_TELEGRAM_TOKEN=TOKEN,
            BURRO_WEBHOOK_SECRET=SECRET,
            BURRO_TELEGRAM_API_URL=emu.api_url,
            BURRO_REDIS_URL=redis_url,
            BURRO_BOT_DELAY="0",
            BURRO_RATE_LIMITS="0",
            BURRO_LIVE_WINDOW=str(live_window),
        )
        self.client = connect(redis_url)
        self.emu = emu
        # The jobs' own client (the outbox, the store, hints): counted as the worker's.
        workers.runtime.connect_state = lambda settings: counting_client(redis_url, "worker")  # type: ignore[attr-defined]
        workers.runtime.runtime.cache_clear()
        serve = counting_client(redis_url, "serve"), counting_aclient(redis_url, "serve")
        app = create_app(Settings(), client=serve[0], aclient=serve[1])
        self.server = ServerThread(app).start()
        httpx.post(
            f"{emu.api_url}/bot{TOKEN}/setWebhook",
            json={"url": f"{self.server.url}/telegram/webhook", "secret_token": SECRET},
            timeout=10,
        ).raise_for_status()
        connection = counting_client(redis_url, "worker")
        # The product's worker class: RQ's own round trips a job as deployed.
        self.worker = lambda: BurroWorker([QUEUE], connection=connection)
        self.burst_cost, self.burst_cpu = Counter[str](), 0.0
        before, cpu = snapshot(), time.thread_time()
        for _ in range(5):
            self.drain()
        # the start and end of a burst, with nothing to do
        self.burst_cost = Counter({k: v // 5 for k, v in since(before, "worker").items()})
        self.burst_cpu = (time.thread_time() - cpu) / 5

    def drain(self) -> float:
        """Run the queued jobs, and those they enqueue, in this process (this thread: the
        webhook app and the emulator have their own); the CPU seconds they took, beyond
        a burst's own."""
        cpu = time.thread_time()
        self.worker().work(burst=True, logging_level="WARNING", with_scheduler=False)  # type: ignore[no-untyped-call]
        return max(0.0, time.thread_time() - cpu - self.burst_cpu)

    def delivered(self, seq: int) -> None:
        """Wait until every update queued since `seq` was answered 200 by the webhook."""

        def done() -> bool | None:
            queued = {e["update_id"] for e in self.emu.log("update", since=seq)}
            answered = {
                e["update_id"] for e in self.emu.log("delivery", since=seq) if e["status"] == 200
            }
            return queued <= answered or None

        self.emu.wait_for(done, timeout=30, what="the webhook to answer")

    def act(self, action: Callable[[], object]) -> None:
        """A user's action, then everything it causes: the webhook, then the jobs."""
        seq = self.emu.last_seq()
        action()
        self.delivered(seq)
        self.drain()

    def close(self) -> None:
        self.server.stop()


@contextmanager
def counted(folder: Path, live_window: float) -> Iterator[Counted]:
    with RedisServer(folder / "redis", persist=False) as server, running_emulator() as emu:
        setup = Counted(server.url, emu, live_window)
        try:
            yield setup
        finally:
            setup.close()


class Tally:
    def __init__(self) -> None:
        self.moves = 0
        self.taps = 0
        self.serve: Counter[str] = Counter()
        self.worker: Counter[str] = Counter()
        self.worker_cpu = 0.0  # seconds
        self.calls: Counter[str] = Counter()
        self.told: Counter[str] = Counter()  # being told: see `tell`
        self.screens: Counter[str] = Counter()  # the chats a tap changed: see `screens_of`
        self.turns = 0  # cards played and passes, forced ones too (follow-suit games)

    def tell(self, setup: Counted, calls: list[dict[str, Any]], room_id: str) -> None:
        """Count the new messages of a tap's calls, those that notify and whom, and
        whether the player whose turn it is now was notified."""
        room = load(setup.client, room_id)
        for call in calls:
            params = call.get("params", {})
            chat = int(params.get("chat_id", 0) or 0)
            if chat < 0:
                self.told["group_messages"] += call["method"] in GROUP_MESSAGES
            if call["method"] != "sendMessage" or not call.get("ok"):
                continue
            self.told["new_messages"] += 1
            if str(params.get("disable_notification", "")).lower() not in ("true", "1"):
                self.told["notifying"] += 1
                self.told["notified_people"] += len(FAMILY) if chat < 0 else 1
        seat = to_move(room.game) if isinstance(room.game, GameState) else None
        user = room.seats[seat].user_id if seat is not None else None
        if user is not None and room.status == "playing":
            self.told["turns"] += 1
            self.told["turns_notified"] += any(
                c["method"] == "sendMessage"
                and int(c.get("params", {}).get("chat_id", 0) or 0) == user
                and str(c["params"].get("disable_notification", "")).lower() not in ("true", "1")
                for c in calls
            )

    def add(self, setup: Counted, play: Callable[[], object], room_id: str) -> None:
        before = snapshot()
        seq = setup.emu.last_seq()
        version = load(setup.client, room_id).version
        play()
        setup.delivered(seq)
        self.serve += since(before, "serve")
        self.worker_cpu += setup.drain()
        worker = since(before, "worker")
        worker.subtract(setup.burst_cost)
        self.worker += +worker
        calls = setup.emu.calls(since=seq)
        self.calls += Counter(c["method"] for c in calls)
        self.screens += screens_of(calls)
        self.tell(setup, calls, room_id)
        self.moves += load(setup.client, room_id).version - version
        self.taps += 1

    def report(self) -> dict[str, Any]:
        moves = max(1, self.moves)
        return {
            "taps": self.taps,
            "moves": self.moves,
            "serve_round_trips_per_tap": round(self.serve["round_trips"] / max(1, self.taps), 2),
            "serve_bytes_sent_per_tap": round(self.serve["bytes_sent"] / max(1, self.taps)),
            "worker_round_trips_per_move": round(self.worker["round_trips"] / moves, 2),
            "worker_bytes_sent_per_move": round(self.worker["bytes_sent"] / moves),
            "worker_cpu_ms_per_move": round(self.worker_cpu / moves * 1000, 3),
            "round_trips_per_move": round(
                (self.serve["round_trips"] + self.worker["round_trips"]) / moves, 2
            ),
            "bot_api_calls_per_move": round(sum(self.calls.values()) / moves, 2),
            "bot_api_calls_by_method": dict(self.calls),
            "bot_api_calls_by_chat_per_move": {
                kind: round(self.screens[f"{kind}_calls"] / moves, 2)
                for kind in ("answer", "private", "group")
            },
            "floor_per_move": floor(self.screens, moves),
            "bot_api_calls_per_turn": (
                round(sum(self.calls.values()) / self.turns, 2) if self.turns else None
            ),
            "new_messages_per_move": round(self.told["new_messages"] / moves, 3),
            "notifying_messages_per_move": round(self.told["notifying"] / moves, 3),
            "people_notified_per_move": round(self.told["notified_people"] / moves, 3),
            "group_messages_per_move": round(self.told["group_messages"] / moves, 3),
            "human_turns": self.told["turns"],
            "turns_notified_share": round(
                self.told["turns_notified"] / max(1, self.told["turns"]), 3
            ),
        }


def screens_of(calls: list[dict[str, Any]]) -> Counter[str]:
    """A tap's calls by where they went (its answer, private chats, the group) and the
    chats they changed: each changed chat needs a call, however the screens are drawn."""
    counts: Counter[str] = Counter()
    chats: set[int] = set()
    for call in calls:
        if call["method"] == "answerCallbackQuery":
            counts["answer_calls"] += 1
            continue
        chat = int(call.get("params", {}).get("chat_id", 0) or 0)
        counts["group_calls" if chat < 0 else "private_calls"] += 1
        chats.add(chat)
    counts["private_screens"] = sum(1 for chat in chats if chat > 0)
    counts["group_screens"] = sum(1 for chat in chats if chat < 0)
    return counts


def floor(screens: Counter[str], moves: int) -> dict[str, float]:
    """The fewest calls a move could make with a player's cards in their own chat: the
    tap's answer and one call per chat whose screen changed (the group's table counted,
    or left unchanged all game)."""
    private = screens["answer_calls"] + screens["private_screens"]  # one answer a tap
    return {
        "answer_and_private_chats": round(private / moves, 2),
        "with_the_group": round((private + screens["group_screens"]) / moves, 2),
    }


def turns_played(room: Room) -> int:
    """The cards played and passes of a finished follow-suit game, those played for a
    player (an only move, a draw's end) too: a move as a player counts it, where a tap
    that forced moves follow counts as one applied move above."""
    game = room.game
    assert isinstance(game, GameState)
    draws = (DRAW, DRAW_LEFT, DRAW_RIGHT)
    return sum(1 for hand in game.past for _seat, action in hand.actions if action not in draws)


def private_game(setup: Counted, preset: str, tally: Tally) -> dict[str, Any]:
    emu = setup.emu
    setup.act(lambda: emu.send_message("Carla", "Carla", f"/play {preset}"))
    lobby = emu.wait_for_message("Carla", lambda m: action_data(m, "S") is not None)
    setup.act(lambda: emu.tap("Carla", lobby, action_data(lobby, "B") or ""))
    lobby = emu.wait_for_message("Carla", lambda m: action_data(m, "S") is not None)
    room_id = (action_data(lobby, "S") or "").split(".")[0]
    setup.act(lambda: emu.tap("Carla", lobby, action_data(lobby, "S") or ""))
    sizes: dict[str, Any] = {}
    for _ in range(2000):
        room = load(setup.client, room_id)
        if room.status != "playing":
            break
        shown = setup.client.hget(msgs_key(room_id), "table")
        message = emu.message("Carla", int(shown)) if shown is not None else None
        data = buttons_for(message, room.version)
        assert message is not None and data, "Carla has no keyboard for the current version"
        tally.add(setup, partial(emu.tap, "Carla", message, data[0]), room_id)
        if tally.taps == 5:
            sizes["active"] = room_bytes(setup.client, load(setup.client, room_id))
    sizes["finished"] = room_bytes(setup.client, load(setup.client, room_id))
    return sizes


def group_game(setup: Counted, preset: str, tally: Tally) -> dict[str, Any]:
    emu, client = setup.emu, setup.client
    for name in FAMILY:
        setup.act(partial(emu.start, name))
    setup.act(lambda: emu.send_message("Ana", GROUP, f"/burro {preset}"))
    lobby = emu.wait_for_message(GROUP, lambda m: action_data(m, "J") is not None)
    room_id = (action_data(lobby, "J") or "").split(".")[0]
    for name in FAMILY[1:]:
        lobby = emu.wait_for_message(GROUP, lambda m: action_data(m, "J") is not None)
        setup.act(partial(emu.tap, name, lobby, action_data(lobby, "J") or ""))
    lobby = emu.wait_for_message(GROUP, lambda m: action_data(m, "S") is not None)
    setup.act(lambda: emu.tap("Ana", lobby, action_data(lobby, "S") or ""))
    sizes: dict[str, Any] = {}
    for _ in range(5000):
        room = load(client, room_id)
        if room.status != "playing":
            break
        assert room.game is not None
        seat = to_move(follow_suit(room))
        assert seat is not None
        user = room.seats[seat].user_id
        assert user is not None
        message = hand_message(emu, client, room, user)
        data = buttons_for(message, room.version)
        assert data, f"{user} has no keyboard for version {room.version}"
        tally.add(setup, partial(emu.tap, user, message, data[0]), room_id)
        if tally.taps == 5:
            sizes["active"] = room_bytes(client, load(client, room_id))
    sizes["finished"] = room_bytes(client, load(client, room_id))
    tally.turns += turns_played(load(client, room_id))
    return sizes


def rq_overhead(setup: Counted, jobs: int = 50) -> float:
    """A worker's round trips for one job that itself makes two (a sync of a room that
    is gone: one GET, one ZREM): what RQ adds around every job."""
    from rq import Queue

    from service.infra.queue import QUEUE, RESULT_TTL

    queue = Queue(QUEUE, connection=setup.client)
    for n in range(jobs):
        queue.enqueue_call(
            "workers.jobs.sync", args=(f"gone{n:04d}", "table"), result_ttl=RESULT_TTL
        )
    before = snapshot()
    setup.drain()
    spent = since(before, "worker")
    spent.subtract(setup.burst_cost)
    return round(spent["round_trips"] / jobs, 1)


@contextmanager
def dealt_from(seed: int) -> Iterator[None]:
    """Every room's key drawn from `seed` (0: fresh secret keys, as deployed): the same
    deals, so the same moves, in every run and in every tree compared."""
    from service.table import lobby
    from service.table.room import new_game_key

    if not seed:
        yield
        return
    draws = random.Random(seed)
    with patch.object(lobby, "new_game_key", lambda: new_game_key(draws.getrandbits)):
        yield


def counts(folder: Path, games: int, live_window: float = 60, seed: int = 1) -> dict[str, Any]:
    results: dict[str, Any] = {"live_window": live_window, "seed": seed}
    presets = ["spanish", "cangkul", "portuguese", "burro_em_pe", "brazilian", "spanish48"]
    with counted(folder, live_window) as setup, dealt_from(seed):
        for kind, play in (("one_to_one", private_game), ("group", group_game)):
            tally = Tally()
            sizes = [play(setup, presets[n % len(presets)], tally) for n in range(games)]
            results[kind] = tally.report()
            results[kind]["redis_bytes_active"] = statistics.median(
                s["active"]["total"] for s in sizes if "active" in s
            )
            results[kind]["redis_bytes_finished"] = statistics.median(
                s["finished"]["total"] for s in sizes
            )
            results[kind]["redis_bytes_detail"] = sizes[0]
        results["rq_round_trips_per_job"] = rq_overhead(setup)
        marks = [k for k in setup.client.scan_iter(match="update:*", count=1000)]
        results["dedupe_mark_bytes"] = setup.client.memory_usage(marks[0]) if marks else None
        results["burst_fixed_cost"] = dict(setup.burst_cost)
    return results


# ----- 2. latency, real processes ----------------------------------------------------


def first_call(
    emu: EmulatorDriver, since_seq: int, match: Callable[[dict[str, Any]], bool], timeout: float
) -> dict[str, Any]:
    return emu.wait_for(
        lambda: next((c for c in emu.calls(since=since_seq) if c.get("ok") and match(c)), None),
        timeout=timeout,
        what="the chat's update",
    )


def open_group_game(emu: EmulatorDriver, client: redis.Redis, preset: str) -> str:
    """Ana opens a table in the group, the others join, Ana starts; the room id."""
    emu.send_message("Ana", GROUP, f"/burro {preset}")
    lobby = emu.wait_for_message(GROUP, lambda m: action_data(m, "J") is not None)
    room_id = (action_data(lobby, "J") or "").split(".")[0]
    for name in FAMILY[1:]:
        # the lobby as it is now: a join edits it, and a gone button cannot be tapped
        message = emu.wait_for_message(GROUP, partial(lobby_now, client, room_id, "J"))
        emu.tap(name, message, action_data(message, "J") or "")
        emu.wait_for(partial(load_seated, client, room_id, name), what=f"{name} seated")
    message = emu.wait_for_message(GROUP, partial(lobby_now, client, room_id, "S"))
    emu.tap("Ana", message, action_data(message, "S") or "")
    emu.wait_for(lambda: load(client, room_id).status == "playing" or None, what="the start")
    return room_id


def lobby_now(client: redis.Redis, room_id: str, action: str, message: ChatMessage) -> bool:
    """The lobby's button of `action` as of the room's current version."""
    data = action_data(message, action)
    return data is not None and data.split(".")[1] == str(load(client, room_id).version)


def status_is(client: redis.Redis, room_id: str, status: str) -> bool | None:
    return load(client, room_id).status == status or None


def moved_past(client: redis.Redis, room_id: str, version: int) -> bool | None:
    return load(client, room_id).version > version or None


def load_seated(client: redis.Redis, room_id: str, name: str) -> bool | None:
    return any(s.name == name for s in load(client, room_id).seats) or None


def hand_keyboard(
    emu: EmulatorDriver, client: redis.Redis, room_id: str, user: int, version: int
) -> tuple[ChatMessage, str] | None:
    raw = client.hget(msgs_key(room_id), f"hand:{user}")
    if raw is None:
        return None
    message = emu.message(user, int(raw))
    data = buttons_for(message, version)
    return (message, data[0]) if data else None


SHOWS = ("editMessageText", "sendMessage")  # a chat's screen changed, or a new one came


def update_of(chat: int, version: int | None = None) -> Callable[[dict[str, Any]], bool]:
    """Matches an edit of or a new message to `chat` (whose buttons show a version after
    `version`). A tap that ends a hand edits nothing of its player's: the hand's news
    and the next hand come as new messages."""

    def match(call: dict[str, Any]) -> bool:
        params = call["params"]
        if call["method"] not in SHOWS or int(params.get("chat_id", 0)) != chat:
            return False
        if version is None:
            return True
        markup = json.dumps(params.get("reply_markup"))
        return any(f".{later}." in markup for later in range(version + 1, version + 50))

    return match


def timed_group_taps(
    emu: EmulatorDriver,
    client: redis.Redis,
    taps: int,
    until: Callable[[Room], bool] | None = None,
) -> dict[str, list[float]]:
    """Taps in four-player group games, each timed to the tapper's chat and to the
    group's; `taps` of them, or fewer once the room is as `until` wants (a test's)."""
    own: list[float] = []
    table: list[float] = []
    while len(own) < taps:
        room_id = open_group_game(emu, client, "spanish")
        while len(own) < taps:
            room = load(client, room_id)
            if until is not None and until(room):
                return {"group_tapper_keyboard": own, "group_table": table}
            if room.status != "playing" or room.game is None:
                break
            seat = to_move(follow_suit(room))
            user = room.seats[seat or 0].user_id or 0
            message, data = emu.wait_for(
                partial(hand_keyboard, emu, client, room_id, user, room.version),
                timeout=30,
                what="a keyboard",
            )
            seq, started = emu.last_seq(), time.time()
            emu.tap(user, message, data, wait=False)
            own.append(first_call(emu, seq, update_of(user), 30)["time"] - started)
            table.append(first_call(emu, seq, update_of(room.chat_id), 30)["time"] - started)
    return {"group_tapper_keyboard": own, "group_table": table}


def timed_private_taps(emu: EmulatorDriver, client: redis.Redis, taps: int) -> list[float]:
    """One-to-one against a bot that moves at once: tap -> my keyboard back."""
    back: list[float] = []
    while len(back) < taps:
        emu.send_message("Carla", "Carla", "/play spanish")
        lobby = emu.wait_for_message("Carla", lambda m: action_data(m, "S") is not None)
        room_id = (action_data(lobby, "S") or "").split(".")[0]
        emu.tap("Carla", lobby, action_data(lobby, "S") or "")
        emu.wait_for(partial(status_is, client, room_id, "playing"), what="start")
        while len(back) < taps:
            room = load(client, room_id)
            if room.status != "playing":
                break
            message = emu.last_message("Carla")
            data = buttons_for(message, room.version)
            if message is None or not data:
                time.sleep(0.01)  # the bot's move or the edit is on its way
                continue
            seq, started = emu.last_seq(), time.time()
            emu.tap("Carla", message, data[0], wait=False)
            back.append(first_call(emu, seq, update_of(100003, room.version), 30)["time"] - started)
            emu.wait_for(partial(moved_past, client, room_id, room.version))
    return back


@contextmanager
def latency_stack(folder: Path) -> Iterator[tuple[RunningEmulator, redis.Redis]]:
    """The real processes the latency is timed on, the family started in the emulator."""
    with running_emulator() as emu, Stack(
        folder / "stack", emulator_url=emu.api_url, flood_limits=False, bot_delay=0.0,
        persist=False, workers=1,
    ) as stack:  # fmt: skip
        for name in FAMILY:
            emu.start(name)
        yield emu, connect(stack.redis.url)


def latency(folder: Path, taps: int) -> dict[str, Any]:
    with latency_stack(folder) as (emu, client):
        samples = timed_group_taps(emu, client, taps)
        samples["one_to_one_keyboard_after_bot"] = timed_private_taps(emu, client, taps)

    def summary(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "taps": len(values),
            "p50_ms": round(ordered[len(ordered) // 2] * 1000, 1),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000, 1),
        }

    return {name: summary(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games of each kind counted")
    parser.add_argument("--taps", type=int, default=150, help="taps timed for the latency")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--counts-only", action="store_true", help="skip the latency runs")
    parser.add_argument(
        "--live-window", type=float, default=60, help="BURRO_LIVE_WINDOW (0: every turn paused)"
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="the deals' seed (0: fresh secret keys each run)"
    )
    args = parser.parse_args()
    from service.infra import logs

    logs.setup("bench", "console", "WARNING")  # the app and the jobs run in this process
    report: dict[str, Any] = {"machine": machine()}
    with tempfile.TemporaryDirectory(prefix="burro-cost-") as tmp:
        report["counts"] = counts(Path(tmp), args.games, args.live_window, args.seed)
        if not args.counts_only:
            report["latency"] = latency(Path(tmp), args.taps)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
