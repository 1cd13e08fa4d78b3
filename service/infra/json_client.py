"""JSON POSTs to one origin over kept-alive HTTP/1.1 connections (the standard library's
http.client), for the workers' Bot API calls: a worker makes one for every screen it
changes, and httpx's layers (auth, redirects, cookies, its request and response
models) cost about three times http.client's CPU a call, on the path of every move.

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
from typing import NamedTuple
from urllib.parse import urlsplit

HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}


class NetworkError(Exception):
    """No answer: the connection was refused, reset or timed out, or the answer was not
    HTTP."""


class Answer(NamedTuple):
    status: int
    body: bytes


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
        self._local = threading.local()

    def post(self, path: str, body: bytes) -> Answer:
        """POST `body` (JSON) to the origin's `path` (under the base URL's own path)."""
        conn = self._connection()
        target = self.prefix + path
        if self.proxy is not None and not self.https:  # a plain proxy takes the whole URL
            target = f"http://{self.host}:{self.port}{target}"
        try:
            conn.request("POST", target, body, HEADERS)
            response = conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise NetworkError(f"{type(error).__name__}: {error}") from error
        if response.will_close:
            self.close()
        return Answer(response.status, data)

    def close(self) -> None:
        """Close this thread's connection (the next call opens another)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _connection(self) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is not None and conn.sock is not None and _readable(conn.sock):
            conn.close()  # closed by the server while idle: http.client opens it again
        if conn is None:
            conn = self._open()
            self._local.conn = conn
        return conn

    def _open(self) -> http.client.HTTPConnection:
        host, port = self.proxy or (self.host, self.port)
        if not self.https:
            return http.client.HTTPConnection(host, port, timeout=self.timeout)
        conn = http.client.HTTPSConnection(host, port, timeout=self.timeout, context=self.context)
        if self.proxy is not None:
            conn.set_tunnel(self.host, self.port)
        return conn


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
