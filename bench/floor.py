"""The floor of the webhook stack: the least an update can cost on the same server.

    python -m bench.floor --port 8098 --redis redis://127.0.0.1:6379/0

A bare ASGI app under the same uvicorn settings as `burro serve` (cli/serve.py), with
the same Redis client (redis-py, sync, as `service.infra.redis_server.connect` makes it). Per
request it reads the body, parses the JSON, does one Redis read and one Redis write
(keyed by the update's chat, so the keys are as spread as the real ones) and answers
200. Everything `burro serve` does beyond that is our own cost.
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


def create_app(redis_url: str) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    from service.infra.redis_server import connect

    client = connect(redis_url)

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
            client.set(key, update["update_id"])
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
    args = parser.parse_args()
    # The same server settings as cli/serve.py.
    uvicorn.run(
        create_app(args.redis),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        log_config=None,
        timeout_graceful_shutdown=20,
    )


if __name__ == "__main__":
    main()
