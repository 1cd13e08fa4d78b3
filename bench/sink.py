"""A null Bot API: answers every method at once with success, and counts the calls.

    python -m bench.sink --port 8099

Plain asyncio over HTTP/1.1 keep-alive (no framework), so that answering costs as
little CPU as possible beside the process under test. `getMe` names a bot, every `send…`
and `edit…` method returns a message, everything else returns `true`.
`GET /_sink/calls` returns the calls counted per method.

`GET /_sink/stream` (bench.move_e2e) keeps its connection and gets a line per call as it
arrives, `<time.monotonic()> <chat_id> <method>` (0 for a call without a chat), before
the call is answered; `GET /_sink/mark?<n>` writes `mark <n>` on it, so that a reader
knows it has every call the sink received before the mark. A method named `floor` is
answered as any other but neither counted nor streamed (bench.move_e2e's floor).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
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


class Sink:
    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self._message_ids = itertools.count(1)
        self.streams: list[asyncio.StreamWriter] = []

    def tell(self, line: str) -> None:
        """Write a line to every open stream (bench.move_e2e's call log)."""
        for stream in self.streams:
            stream.write(line.encode())

    def answer(self, method: str, body: bytes) -> bytes:
        if method == "floor":
            return b'{"ok": true, "result": true}'
        self.calls[method] += 1
        if self.streams:
            self.tell(f"{time.monotonic():.6f} {chat_of(body)} {method}\n")
        result: object = True
        if method == "getMe":
            result = BOT
        elif method.startswith(("send", "edit")):  # a message: sendWidget's too
            try:
                params = json.loads(body) if body else {}
            except ValueError:
                params = {}
            chat = params.get("chat_id", 1) if isinstance(params, dict) else 1
            result = {
                "message_id": next(self._message_ids),
                "date": 0,
                "chat": {"id": chat, "type": "private" if int(chat) > 0 else "supergroup"},
                "text": "…",
            }
        return json.dumps({"ok": True, "result": result}).encode()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                _verb, path, _version = lines[0].split(" ", 2)
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                body = await reader.readexactly(length) if length else b""
                if path.startswith("/_sink/stream"):
                    writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\n")
                    self.streams.append(writer)
                    await reader.read()  # until the reader hangs up
                    self.streams.remove(writer)
                    return
                if path.startswith("/_sink/mark"):
                    self.tell(f"mark {path.partition('?')[2]}\n")
                    payload = b"{}"
                elif path.startswith("/_sink/calls"):
                    payload = json.dumps(dict(self.calls)).encode()
                else:
                    method = path.rstrip("/").rsplit("/", 1)[-1]
                    payload = self.answer(method, body)
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                    b"content-length: " + str(len(payload)).encode() + b"\r\n\r\n" + payload
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()


def chat_of(body: bytes) -> int:
    """The `chat_id` of a call's JSON parameters (0: none, or not a number)."""
    try:
        params = json.loads(body) if body else {}
        return int(params.get("chat_id", 0)) if isinstance(params, dict) else 0
    except (ValueError, TypeError):
        return 0


async def serve(port: int) -> None:
    sink = Sink()
    server = await asyncio.start_server(sink.handle, "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    asyncio.run(serve(args.port))


if __name__ == "__main__":
    main()
