"""A null Bot API: answers every method at once with success, and counts the calls.

    python -m bench.sink --port 8099

A plain asyncio protocol over HTTP/1.1 keep-alive (no framework, no stream objects, no
JSON parsed on the common path), so that answering costs as little CPU as possible
beside the processes under test. `getMe` names a bot, every `send…` and `edit…` method
returns a message (as the workers' client and python-telegram-bot read it), everything
else returns `true`. `GET /_sink/calls` returns the calls counted per method.

`GET /_sink/stream` (bench.move_e2e) keeps its connection and gets a line per call,
`<time.monotonic()> <chat_id> <method>` (0 for a call without a chat), the time taken
as the call arrives; the lines written out once per turn of the event loop. A line
`mark <n>` sent on that connection comes back as `mark <n>` after the line of every call
the sink received before it, so that a reader knows it has them all. A method named
`floor` is answered as any other but neither counted nor streamed (bench.move_e2e's
floor).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import re
import time
from collections import Counter

BOT = {
    "id": 100000001,
    "is_bot": True,
    "first_name": "Burro",
    "username": "burro_bot",
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": True,
}
OK = b'{"ok":true,"result":true}'
GET_ME = json.dumps({"ok": True, "result": BOT}).encode()
MESSAGE = '{"ok":true,"result":{"message_id":%d,"date":0,"chat":{"id":%d,"type":"%s"},"text":"…"}}'
CHAT_ID = re.compile(rb'"chat_id"\s*:\s*"?(-?\d+)"?\s*[,}]')
HEAD_END = b"\r\n\r\n"


class Sink:
    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self._message_ids = itertools.count(1)
        self.streams: list[asyncio.Transport] = []
        self.lines: list[bytes] = []  # for the streams, at the end of this loop turn

    def tell(self, line: bytes) -> None:
        """Queue a line for every open stream, written once this turn of the loop ends
        (one write for the calls that arrived together); in order, marks included."""
        if not self.lines:
            asyncio.get_running_loop().call_soon(self.flush)
        self.lines.append(line)

    def flush(self) -> None:
        data, self.lines = b"".join(self.lines), []
        for stream in self.streams:
            stream.write(data)

    def answer(self, method: str, body: bytes) -> bytes:
        if method == "floor":
            return OK
        self.calls[method] += 1
        chat = chat_of(body)
        if self.streams:
            self.tell(b"%.6f %d %s\n" % (time.monotonic(), chat, method.encode()))
        if method == "getMe":
            return GET_ME
        if method.startswith(("send", "edit")):  # a message: sendWidget's too
            chat = chat or 1
            kind = "private" if chat > 0 else "supergroup"
            return (MESSAGE % (next(self._message_ids), chat, kind)).encode()
        return OK

    def protocol(self) -> Http:
        """A connection's protocol (for `loop.create_server`)."""
        return Http(self)

    def request(self, path: str, body: bytes, http: Http) -> bytes | None:
        """The answer's body to a request (None: the connection became a stream)."""
        if path.startswith("/_sink/stream"):
            http.transport.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n")
            self.streams.append(http.transport)
            http.stream = True
            return None
        if path.startswith("/_sink/calls"):
            return json.dumps(dict(self.calls)).encode()
        return self.answer(path.rstrip("/").rsplit("/", 1)[-1], body)


class Http(asyncio.Protocol):
    """One connection: its requests answered in order as they arrive (kept alive); once
    it asked for the stream, the marks it sends."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.buffer = b""
        self.stream = False
        self.transport: asyncio.Transport

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        if self.stream:
            self.sink.streams.remove(self.transport)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if self.stream:
            *marks, self.buffer = self.buffer.split(b"\n")
            for mark in marks:
                self.sink.tell(mark + b"\n")
            return
        while (end := self.buffer.find(HEAD_END)) >= 0:
            head = self.buffer[:end]
            start = end + len(HEAD_END)
            length = content_length(head)
            if len(self.buffer) < start + length:
                return  # the body is still to come
            body, self.buffer = self.buffer[start : start + length], self.buffer[start + length :]
            path = head[: head.find(b"\r\n")].split(b" ")[1].decode("latin-1")
            payload = self.sink.request(path, body, self)
            if payload is None:  # a stream: what follows are marks
                self.data_received(b"")
                return
            self.transport.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
                % (len(payload), payload)
            )


def content_length(head: bytes) -> int:
    """A request head's content-length (0 if none)."""
    at = head.lower().find(b"\r\ncontent-length:")
    if at < 0:
        return 0
    start = at + len(b"\r\ncontent-length:")
    end = head.find(b"\r\n", start)
    return int(head[start : end if end >= 0 else len(head)])


def chat_of(body: bytes) -> int:
    """The `chat_id` of a call's JSON parameters (0: none, or not a number). Found by a
    regular expression when the body names one chat_id (the common case), else parsed."""
    if body.count(b'"chat_id"') == 1 and (found := CHAT_ID.search(body)) is not None:
        return int(found[1])
    try:
        params = json.loads(body) if body else {}
        return int(params.get("chat_id", 0)) if isinstance(params, dict) else 0
    except (ValueError, TypeError):
        return 0


async def serve(port: int) -> None:
    sink = Sink()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(sink.protocol, "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    asyncio.run(serve(args.port))


if __name__ == "__main__":
    main()
