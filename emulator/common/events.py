"""Live events for the web chat: a bus per half (Telegram's world, WhatsApp's), served
as Server-Sent Events."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import StreamingResponse

JSON = dict[str, Any]
HEARTBEAT_SECONDS = 15.0


class EventBus:
    """Live events for the web chat (Server-Sent Events); slow listeners drop events."""

    def __init__(self) -> None:
        self._queues: set[asyncio.Queue[JSON | None]] = set()
        self.closed = False

    def subscribe(self) -> asyncio.Queue[JSON | None]:
        """A queue of events; None in it means the bus closed (the server is stopping)."""
        queue: asyncio.Queue[JSON | None] = asyncio.Queue(maxsize=1000)
        if self.closed:
            queue.put_nowait(None)
        self._queues.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[JSON | None]) -> None:
        self._queues.discard(queue)

    def publish(self, event: JSON) -> None:
        for queue in list(self._queues):
            if queue.qsize() < 999:
                queue.put_nowait(event)

    def close(self) -> None:
        """End every stream, so that a stopping server need not wait for them."""
        self.closed = True
        for queue in list(self._queues):
            queue.put_nowait(None)


def event_stream(bus: EventBus) -> StreamingResponse:
    """The bus's events as Server-Sent Events, for the web chat (Telegram's and
    WhatsApp's alike); a comment when nothing happened for a while keeps the stream
    from being closed as idle."""
    queue = bus.subscribe()

    async def stream() -> AsyncIterator[str]:
        try:
            yield "retry: 1000\n\n"
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), HEARTBEAT_SECONDS)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                if event is None:
                    return
                yield f"data: {json.dumps(event)}\n\n"
        finally:
            bus.unsubscribe(queue)

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
