"""JSON POSTs to one origin over kept-alive HTTP/1.1 connections, for the workers' Bot
API calls: a worker makes one for every screen it changes, on the path of every move.
The standard library's http.client opens a connection (TLS, a proxy's tunnel); the
request and its answer are written and read here: http.client's own request building
and header parsing (through the email package) cost about four times the CPU of the
few lines a JSON POST needs (BENCHMARKS.md, issue #40), and httpx's layers more still.

One connection per thread, opened on first use and kept. An idle connection the server
has closed (its socket readable: end of file) is replaced before a request goes out,
as httpcore does; a request whose connection fails once it went out is not sent again
(a sendMessage may have been delivered): the caller gets a NetworkError. HTTPS and
HTTP proxies from the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) are honoured.
"""

from __future__ import annotations

import http.client
import select
import socket
import ssl
import threading
import urllib.request
from dataclasses import dataclass
from typing import BinaryIO, NamedTuple
from urllib.parse import urlsplit

# As http.client sends them (Accept-Encoding: identity, so no answer comes compressed)
_HEAD = (
    "POST {target} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: identity\r\n"
    "Content-Type: application/json\r\nAccept: application/json\r\n"
    "Content-Length: {length}\r\n\r\n"
)
_LINE = 65536  # longest status or header line taken (http.client's limit)
_HEADERS = 100  # most header lines taken (http.client's limit)


class NetworkError(Exception):
    """No answer: the connection was refused, reset or timed out, or the answer was not
    HTTP."""


class BadAnswer(Exception):
    """What came back is not an HTTP/1.x answer this client reads."""


class Answer(NamedTuple):
    status: int
    body: bytes


@dataclass
class Kept:
    """A kept connection: http.client's (it opened the socket) and our reader of it."""

    conn: http.client.HTTPConnection
    reader: BinaryIO

    @property
    def sock(self) -> socket.socket:
        return self.conn.sock


class JsonClient:
    def __init__(self, base_url: str, timeout: float, context: ssl.SSLContext) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {parts.scheme}://{parts.hostname}")
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.https else 80)
        self.prefix = parts.path.rstrip("/")
        self.timeout = timeout
        self.context = context
        self.proxy = _proxy_for(parts.scheme, self.host)
        named = f"[{self.host}]" if ":" in self.host else self.host  # IPv6 as in a URL
        default = self.port == (443 if self.https else 80)
        self.host_header = named if default else f"{named}:{self.port}"
        self._local = threading.local()

    def post(self, path: str, body: bytes) -> Answer:
        """POST `body` (JSON) to the origin's `path` (under the base URL's own path)."""
        target = self.prefix + path
        if self.proxy is not None and not self.https:  # a plain proxy takes the whole URL
            target = f"http://{self.host}:{self.port}{target}"
        head = _HEAD.format(target=target, host=self.host_header, length=len(body))
        try:
            kept = self._connection()
            kept.sock.sendall(head.encode() + body)
            status, data, will_close = read_answer(kept.reader)
        except (OSError, http.client.HTTPException, BadAnswer) as error:
            self.close()
            raise NetworkError(f"{type(error).__name__}: {error}") from error
        if will_close:
            self.close()
        return Answer(status, data)

    def close(self) -> None:
        """Close this thread's connection (the next call opens another)."""
        kept: Kept | None = getattr(self._local, "conn", None)
        if kept is not None:
            kept.reader.close()
            kept.conn.close()
            self._local.conn = None

    def _connection(self) -> Kept:
        kept: Kept | None = getattr(self._local, "conn", None)
        if kept is not None and _readable(kept.sock):
            self.close()  # closed by the server while idle: open another
            kept = None
        if kept is None:
            conn = self._open()
            conn.connect()
            kept = Kept(conn, conn.sock.makefile("rb"))
            self._local.conn = kept
        return kept

    def _open(self) -> http.client.HTTPConnection:
        host, port = self.proxy or (self.host, self.port)
        if not self.https:
            return http.client.HTTPConnection(host, port, timeout=self.timeout)
        conn = http.client.HTTPSConnection(host, port, timeout=self.timeout, context=self.context)
        if self.proxy is not None:
            conn.set_tunnel(self.host, self.port)
        return conn


def read_answer(reader: BinaryIO) -> tuple[int, bytes, bool]:
    """An HTTP/1.x answer from `reader`: its status, its body, and whether the server
    closes the connection after it. Informational (1xx) answers are skipped."""
    version, status = _status_line(reader)
    headers = _headers(reader)
    while 100 <= status < 200:
        version, status = _status_line(reader)
        headers = _headers(reader)
    tokens = {token.strip() for token in headers.get("connection", "").lower().split(",")}
    will_close = "close" in tokens or (version == "HTTP/1.0" and "keep-alive" not in tokens)
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return status, _chunked(reader), will_close
    if status in (204, 304):
        return status, b"", will_close
    if "content-length" not in headers:
        return status, reader.read(), True  # the body runs to the connection's end
    length = _number(headers["content-length"].encode(), 10)
    body = reader.read(length)
    if len(body) != length:
        raise BadAnswer(f"the answer ended after {len(body)} of {length} bytes")
    return status, body, will_close


def _line(reader: BinaryIO) -> bytes:
    line = reader.readline(_LINE + 1)
    if len(line) > _LINE:
        raise BadAnswer("a line longer than 64 KiB")
    return line


def _number(text: bytes, base: int) -> int:
    """A length or a chunk's size: digits of `base` only (no sign, no spaces)."""
    try:
        if text and text.isalnum():
            return int(text, base)
    except ValueError:
        pass
    raise BadAnswer(f"not a length: {text[:40]!r}")


def _status_line(reader: BinaryIO) -> tuple[str, int]:
    line = _line(reader)
    if not line:
        raise BadAnswer("the connection closed without an answer")
    parts = line.decode("latin-1").split(None, 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise BadAnswer(f"not an HTTP/1.x status line: {line[:40]!r}")
    return parts[0], int(parts[1])


def _headers(reader: BinaryIO) -> dict[str, str]:
    """The header lines up to the blank one, by lower-case name: a name given twice
    keeps its last value, but Connection's and Transfer-Encoding's are joined."""
    found: dict[str, str] = {}
    for _ in range(_HEADERS + 1):
        line = _line(reader)
        if line in (b"\r\n", b"\n", b""):
            return found
        name, colon, value = line.decode("latin-1").partition(":")
        if not colon:
            raise BadAnswer(f"not a header line: {line[:40]!r}")
        name = name.strip().lower()
        value = value.strip()
        if name in found and name in ("connection", "transfer-encoding"):
            value = f"{found[name]}, {value}"
        found[name] = value
    raise BadAnswer(f"more than {_HEADERS} header lines")


def _chunked(reader: BinaryIO) -> bytes:
    parts: list[bytes] = []
    while True:
        size = _number(_line(reader).split(b";", 1)[0].strip(), 16)
        if size == 0:
            break
        chunk = reader.read(size)
        if len(chunk) != size or reader.read(2) != b"\r\n":
            raise BadAnswer("a chunk cut short")
        parts.append(chunk)
    while _line(reader) not in (b"\r\n", b"\n", b""):  # trailer lines
        pass
    return b"".join(parts)


def _readable(sock: socket.socket) -> bool:
    """Whether an idle connection's socket has something to read: the server's end of
    file (or bytes nobody asked for); either way the connection is done."""
    try:
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):  # closed under us
        return True


def _proxy_for(scheme: str, host: str) -> tuple[str, int] | None:
    """The environment's proxy for `scheme` URLs to `host`, as (host, port), if any."""
    proxy = urllib.request.getproxies_environment().get(scheme)
    if not proxy or urllib.request.proxy_bypass(host):
        return None
    parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    if not parts.hostname:
        return None
    return parts.hostname, parts.port or 80
