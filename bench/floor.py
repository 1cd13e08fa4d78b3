"""The floor of the webhook stack: the least an update can cost on the same server.

    python -m bench.floor --port 8098 --redis redis://127.0.0.1:6379/0 [--cluster] [--wait 1]

A bare ASGI app under the same uvicorn settings as `burro serve` (cli/serve.py), with
the same Redis client (redis-py, sync, as `service.infra.redis_server.connect` makes it). Per
request it reads the body, parses the JSON, does one Redis read and one Redis write
(keyed by the update's chat, so the keys are as spread as the real ones) and answers
200. Everything `burro serve` does beyond that is our own cost.

With `--cluster`, `--redis` is a node of a Redis Cluster, read and written through a
cluster client (as `serve` reads the game state there); with `--wait N`, the write is
answered once N replicas have it (WAIT, pipelined with it on the key's node, as `serve`
does with BURRO_DURABLE_REPLICAS).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


WAIT_MS = 500  # as BURRO_DURABLE_WAIT_MS's default


def create_app(
    redis_url: str, cluster: bool = False, replicas: int = 0
) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    import redis

    from service.infra.redis_server import connect
    from service.infra.trips import node_client

    client: redis.Redis | redis.RedisCluster = (
        redis.RedisCluster.from_url(redis_url) if cluster else connect(redis_url)
    )

    def write(key: str, value: int) -> None:
        if not replicas:
            client.set(key, value)
            return
        with node_client(client, key).pipeline(transaction=False) as pipe:
            pipe.set(key, value)
            pipe.execute_command("WAIT", replicas, WAIT_MS)  # type: ignore[no-untyped-call]
            if int(pipe.execute()[1]) < replicas:
                raise RuntimeError(f"no replica confirmed {key} in {WAIT_MS} ms")

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        status, answer = 200, b"ok"
        if scope["path"] == "/healthz":
            client.ping()
        else:
            update = json.loads(body)
            query = update.get("callback_query") or {}
            chat = ((query.get("message") or {}).get("chat") or {}).get("id", 0)
            key = f"floor:{chat}"
            client.get(key)
            write(key, update["update_id"])
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(answer)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": answer})

    return app


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis", required=True)
    parser.add_argument("--cluster", action="store_true", help="--redis is a cluster's node")
    parser.add_argument("--wait", type=int, default=0, help="replicas that must have a write")
    args = parser.parse_args()
    # The same server settings as cli/serve.py.
    uvicorn.run(
        create_app(args.redis, args.cluster, args.wait),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        log_config=None,
        timeout_graceful_shutdown=20,
    )


if __name__ == "__main__":
    main()
