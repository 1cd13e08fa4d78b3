"""The workers' two clients, CPU a call, beside what they replaced (issue #40):

    python -m bench.clients [--calls 3000] [--rounds 3]

- the Bot API client (`service.infra.json_client.JsonClient`, its request written and its
  answer read by hand) against http.client's own request and answer, each a JSON POST
  of an edited hand's size to the null Bot API (bench.sink);
- the Redis client (`service.infra.redis_server.connect`, commands packed in C) against
  redis-py's own packing, each a pipeline of 10 HSETs and a GET on a throwaway Redis.

CPU is this thread's own (`time.thread_time`): the sink and Redis run in their own
processes. The rounds take turns, so a busy machine weighs on both alike.
"""

from __future__ import annotations

import argparse
import http.client
import json
import ssl
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import redis

from bench.procs import machine, procs, start_sink
from service.infra.json_client import JsonClient
from service.infra.redis_server import RedisServer, connect

# An edited hand as the workers send it: a caption and a keyboard of cards.
BODY = json.dumps(
    {
        "chat_id": -1001234567890,
        "message_id": 4242,
        "caption": "🂡 Ana played the ace of cups. Your turn: follow cups. " * 4,
        "reply_markup": {
            "inline_keyboard": [
                [{"text": f"{n} 🏆", "callback_data": f"p:12345:{n}c:88"} for n in range(1, 5)]
                for _ in range(3)
            ]
        },
    }
).encode()
HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}


def per_call(call: Callable[[], object], calls: int) -> float:
    """This thread's CPU a call, in microseconds (after a first, untimed call)."""
    call()
    start = time.thread_time()
    for _ in range(calls):
        call()
    return (time.thread_time() - start) / calls * 1e6


def bot_api_calls(url: str) -> dict[str, Callable[[], object]]:
    ours = JsonClient(url, 5.0, ssl.create_default_context())
    port = int(url.rsplit(":", 1)[1])
    plain = http.client.HTTPConnection("127.0.0.1", port, timeout=5.0)

    def with_http_client() -> bytes:
        plain.request("POST", "/botTOKEN/editMessageCaption", BODY, HEADERS)
        return plain.getresponse().read()

    return {
        "http.client's request and answer": with_http_client,
        "ours": lambda: ours.post("/botTOKEN/editMessageCaption", BODY),
    }


def redis_calls(url: str) -> dict[str, Callable[[], object]]:
    def pipeline(client: redis.Redis) -> Callable[[], object]:
        def run() -> object:
            with client.pipeline(transaction=False) as pipe:
                for n in range(10):
                    pipe.hset("bench:marks", mapping={f"top:{n}": 4242 + n, "v": 1.5})
                pipe.get("bench:room")
                return pipe.execute()

        return run

    plain = redis.Redis.from_url(url, health_check_interval=30)
    return {"redis-py's packing": pipeline(plain), "ours": pipeline(connect(url))}


def measure(calls: dict[str, Callable[[], object]], count: int, rounds: int) -> dict[str, float]:
    taken: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            taken[name].append(per_call(call, count))
    return {name: statistics.median(values) for name, values in taken.items()}


def table(title: str, figures: dict[str, float]) -> None:
    base = next(iter(figures.values()))
    print(f"\n| {title} | CPU µs a call (median of rounds) | against the first |")
    print("| --- | ---: | ---: |")
    for name, value in figures.items():
        print(f"| {name} | {value:.0f} | {value / base:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(machine())
    with (
        tempfile.TemporaryDirectory() as folder,
        procs(Path(folder)) as running,
        RedisServer(Path(folder) / "redis", persist=False) as server,
    ):
        sink = start_sink(running)
        table("a Bot API call", measure(bot_api_calls(sink), args.calls, args.rounds))
        table("a pipeline of 11", measure(redis_calls(server.url), args.calls, args.rounds))


if __name__ == "__main__":
    main()
