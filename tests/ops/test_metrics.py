"""Prometheus metrics: serve's /metrics counts updates by kind and outcome and times
them; the worker's counts jobs and Bot API calls (429s apart); both read the games in
play from Redis at scrape time; compare-and-set conflicts are counted where caught."""

from __future__ import annotations

import httpx
import redis

from cli.stack import SECRET, Stack
from emulator.server import RunningEmulator
from service.infra import indexes, metrics
from service.infra.keys import DUE_KEY, index_key
from service.infra.redis_server import connect
from service.infra.store import Store, room_key
from service.table import lobby
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room
from tests.ops.conftest import Samples, scrape, value, worker_metrics
from tests.service.play import GROUP, action_button, room_in

HEADER = "X-Telegram-Bot-Api-Secret-Token"


def test_serve_counts_updates_by_kind_and_outcome(emu: RunningEmulator, stack: Stack) -> None:
    before = scrape(stack.serve_url)
    emu.send_message("Ana", GROUP, "/burro")
    lobby_message = emu.wait_for_message(GROUP, lambda m: "✋" in " ".join(m.button_texts))
    emu.tap("Ben", lobby_message, lobby_message.buttons[0][0].text)  # Join: a callback query
    press = emu.updates()[-1]
    assert "callback_query" in press
    emu.wait_for(
        lambda: any(d["update_id"] == press["update_id"] and d["status"] == 200
                    for d in emu.deliveries()) or None,
        what="the button's update answered",
    )  # fmt: skip
    update = next(u for u in emu.updates() if u.get("message", {}).get("text") == "/burro")
    again = httpx.post(f"{stack.serve_url}/telegram/webhook", json=update,
                       headers={HEADER: SECRET})  # fmt: skip
    assert again.status_code == 200 and again.text == "duplicate"
    forged = httpx.post(f"{stack.serve_url}/telegram/webhook", json=update,
                        headers={HEADER: "wrong"})  # fmt: skip
    assert forged.status_code == 403
    after = scrape(stack.serve_url)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("burro_updates_total", kind="command", outcome="ok") == 1
    assert grew("burro_updates_total", kind="callback_query", outcome="ok") == 1
    assert grew("burro_updates_total", kind="command", outcome="duplicate") == 1
    assert grew("burro_updates_total", kind="invalid", outcome="forbidden") == 1
    assert grew("burro_update_seconds_count", kind="command") == 2
    assert grew("burro_update_seconds_count", kind="callback_query") == 1
    assert value(after, "burro_update_seconds_sum", kind="command") > 0
    assert value(after, "burro_updates_in_progress") == 0
    assert value(after, "burro_redis_up") == 1
    # serve's own Bot API calls: the answer to the Join press, in the webhook's answer
    calls = "burro_bot_api_calls_total"
    assert grew(calls, method="answerCallbackQuery", outcome="webhook_answer") == 1


def test_active_games_come_from_redis_on_every_process(emu: RunningEmulator, stack: Stack) -> None:
    client = stack.state()
    emu.send_message("Carla", "Carla", "/play spanish")
    lobby_message = emu.wait_for_message("Carla", lambda m: action_button(m, "S") is not None)
    start = action_button(lobby_message, "S")
    assert start is not None
    emu.tap("Carla", lobby_message, start)
    emu.wait_for(lambda: room_in(stack, lobby_message.chat_id).status == "playing" or None,
                 what="the game to start")  # fmt: skip
    playing = indexes.count(client, DUE_KEY)
    assert playing >= 1
    for url in (stack.serve_url, worker_metrics(stack)):
        assert value(scrape(url), "burro_active_games") == playing
    extra = index_key(DUE_KEY, "zzzzzzzz")
    client.zadd(extra, {"zzzzzzzz": 0})  # the gauge is read at scrape time, not cached
    try:
        assert value(scrape(stack.serve_url), "burro_active_games") == playing + 1
    finally:
        client.zrem(extra, "zzzzzzzz")


def idle(samples: Samples) -> Samples | None:
    """A worker's samples once no job is in progress (none, or the periodic sweep)."""
    return samples if value(samples, "burro_jobs_in_progress") == 0 else None


def test_worker_counts_jobs_and_bot_api_calls_and_429s(emu: RunningEmulator, stack: Stack) -> None:
    url = worker_metrics(stack)
    assert httpx.get(f"{url}/healthz").status_code == 200
    before = scrape(url)
    emu.inject_error("sendMessage", 429, retry_after=1)  # Telegram's flood limit, once
    emu.send_message("Dan", "Dan", "/play spanish")
    emu.wait_for_message("Dan", lambda m: action_button(m, "S") is not None, timeout=20)
    # The message shows once Telegram has it; the job that sent it counts itself after.
    after = emu.wait_for(lambda: idle(scrape(url)), what="the worker's jobs done")

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("burro_bot_api_calls_total", method="sendMessage", outcome="429") == 1
    assert grew("burro_bot_api_calls_total", method="sendMessage", outcome="ok") >= 1
    assert grew("burro_jobs_total", kind="sync", outcome="ok") >= 2  # refused, then sent
    assert grew("burro_job_seconds_count", kind="sync") >= 2
    assert value(after, "burro_jobs_total", kind="sync", outcome="failed") == 0
    for queue in ("burro", "burro-bots"):
        assert value(after, "burro_queue_jobs", queue=queue, state="failed") == 0
    assert ("burro_queue_jobs", frozenset({("queue", "burro-bots"), ("state", "queued")})) in after


def test_conflicts_and_retries_are_counted(redis_url: str) -> None:
    store = Store(connect(redis_url), 3600, 3600)
    ana = Actor(1, "Ana", "en")
    room = lobby.create_room(-42, None, ana, 0.0)
    assert store.create(room, Outcome(changed=True), None)
    rival = redis.Redis.from_url(redis_url)
    calls = 0

    def change(fresh: Room) -> Outcome:
        nonlocal calls
        calls += 1
        if calls == 1:  # another process writes the room between our read and our write
            rival.set(room_key(fresh.id), fresh.model_copy(update={"version": 7}).model_dump_json())
        fresh.version += 1
        return Outcome(changed=True)

    def count(name: str) -> float:
        return metrics.REGISTRY.get_sample_value(name, {"op": "update"}) or 0.0

    conflicts, retries = count("burro_redis_conflicts_total"), count("burro_redis_retries_total")
    result = store.update(room.id, change)
    assert result is not None and result[0].version == 8  # applied on the rival's state
    assert calls == 2
    assert count("burro_redis_conflicts_total") == conflicts + 1
    assert count("burro_redis_retries_total") == retries + 1
