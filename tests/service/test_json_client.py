"""The workers' HTTP client (service.infra.json_client) against a small local server:
one kept connection, a connection the server closed while idle replaced unseen, a
request that failed once sent never sent twice, proxies from the environment."""

from __future__ import annotations

import io
import json
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from service.infra.json_client import BadAnswer, JsonClient, NetworkError, read_answer
from service.platforms.telegram.botapi import ApiError, BotApi


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.connections = 0
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.answer: bytes = b'{"ok":true,"result":1}'
        self.drop_next = False  # close the connection without answering, once
        self.close_after = False  # answer, then close the connection (no keep-alive)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    server: Server

    def setup(self) -> None:
        super().setup()
        self.server.connections += 1

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.requests.append((self.path, json.loads(body)))
        if self.server.drop_next:
            self.server.drop_next = False
            self.close_connection = True
            return
        answer = self.server.answer
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        if self.server.close_after:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[Server]:
    running = Server()
    thread = threading.Thread(target=running.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield running
    finally:
        running.shutdown()
        running.server_close()


def client(url: str) -> JsonClient:
    return JsonClient(url, 5.0, ssl.create_default_context())


def test_calls_share_one_connection(server: Server) -> None:
    api = BotApi("1:token", server.url + "/")
    for n in range(5):
        assert api.call("sendMessage", chat_id=n, text="¡Burro! 🫏") == 1
    assert server.connections == 1
    assert server.requests[-1] == ("/bot1:token/sendMessage", {"chat_id": 4, "text": "¡Burro! 🫏"})
    assert api.calls == 5


def test_a_base_url_with_a_path_keeps_it(server: Server) -> None:
    BotApi("1:token", server.url + "/local/").call("getMe")
    assert server.requests == [("/local/bot1:token/getMe", {})]


def test_a_connection_the_server_closed_is_replaced_before_sending(server: Server) -> None:
    server.close_after = True
    api = BotApi("1:token", server.url)
    api.call("getMe")
    server.close_after = False
    api.call("getMe")  # the old connection is gone: a new one, no error
    api.call("getMe")
    assert server.connections == 2 and len(server.requests) == 3


def test_an_idle_connection_closed_by_the_server_is_replaced(server: Server) -> None:
    http = client(server.url)
    http.post("/a", b"{}")
    http._local.conn.sock.shutdown(socket.SHUT_RD)  # reads end of file, as if closed
    assert http.post("/b", b"{}").status == 200
    assert server.connections == 2 and len(server.requests) == 2


def test_a_request_lost_once_sent_is_not_sent_again(server: Server) -> None:
    api = BotApi("1:token", server.url)
    api.call("getMe")
    server.drop_next = True
    with pytest.raises(NetworkError):
        api.call("sendMessage", chat_id=1, text="once")
    assert [p for p, _ in server.requests].count("/bot1:token/sendMessage") == 1
    assert api.call("getMe") == 1  # and the next call opens a new connection


def test_nobody_listening_is_a_network_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(NetworkError, match="Connection"):
        BotApi("1:token", f"http://127.0.0.1:{port}").call("getMe")


def test_telegrams_refusal_and_an_answer_not_json(server: Server) -> None:
    api = BotApi("1:token", server.url)
    server.answer = b'{"ok":false,"error_code":429,"description":"Too Many Requests",' + (
        b'"parameters":{"retry_after":7}}'
    )
    with pytest.raises(ApiError) as refused:
        api.call("sendMessage", chat_id=1, text="x")
    assert (refused.value.code, refused.value.retry_after) == (429, 7)
    server.answer = b"<html>Bad Gateway</html>"
    with pytest.raises(ApiError, match="Bad Gateway"):
        api.call("getMe")
    server.answer = b"[1, 2]"
    with pytest.raises(ApiError, match="not a Bot API answer"):
        api.call("getMe")


def test_each_thread_has_its_own_connection(server: Server) -> None:
    api = BotApi("1:token", server.url)
    threads = [threading.Thread(target=lambda: [api.call("getMe") for _ in range(3)]) for _ in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert server.connections == 2 and len(server.requests) == 6


def test_a_proxy_from_the_environment(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", server.url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    BotApi("1:token", "http://api.example:8081").call("getMe")
    assert server.requests[-1][0] == "http://api.example:8081/bot1:token/getMe"
    monkeypatch.setenv("NO_PROXY", "api.example")
    assert client("http://api.example:8081").proxy is None


def test_not_an_http_url() -> None:
    with pytest.raises(ValueError, match="not an http"):
        client("ftp://api.telegram.org")


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl for a certificate")
def test_https_checks_the_certificate_and_keeps_the_connection(
    server: Server, tmp_path: Path
) -> None:
    """Telegram is HTTPS: the connection is TLS, the server's certificate is checked
    against the context given, and it is kept between calls as over HTTP."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    files = ("-keyout", str(key), "-out", str(cert))
    name = ("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", *files, *name],
        check=True,
        capture_output=True,
    )
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(cert, key)
    server.socket = served.wrap_socket(server.socket, server_side=True)
    url = f"https://127.0.0.1:{server.server_address[1]}"
    trusting = ssl.create_default_context(cafile=str(cert))
    secure = JsonClient(url, 5.0, trusting)
    assert secure.post("/a", b"{}").status == 200
    assert secure.post("/b", b"{}").status == 200
    assert server.connections == 1
    with pytest.raises(NetworkError, match="CERTIFICATE_VERIFY_FAILED"):
        client(url).post("/c", b"{}")  # a certificate nobody vouches for


_OK = b'{"ok":true}'
_200, _LONG = b"HTTP/1.1 200 OK\r\n", b"Content-Length: 11\r\n\r\n" + _OK
_ANSWERS = {
    "kept": (_200 + _LONG, (200, _OK, False)),
    "close": (_200 + b"connection: Close\r\n" + _LONG.lower(), (200, _OK, True)),
    "1.0": (b"HTTP/1.0 200 OK\r\n" + _LONG, (200, _OK, True)),
    "1.0-keep-alive": (b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n" + _LONG, (200, _OK, False)),
    "to-the-end": (
        b"HTTP/1.1 502 Bad Gateway\r\nServer: nginx\r\n\r\n<html>",
        (502, b"<html>", True),
    ),
    "continue": (b"HTTP/1.1 100 Continue\r\n\r\n" + _200 + _LONG, (200, _OK, False)),
    "no-content": (b"HTTP/1.1 204 No Content\r\n\r\n", (204, b"", False)),
    "chunked": (
        _200 + b"Transfer-Encoding: chunked\r\n\r\n"
        b'4;x=y\r\n{"ok\r\n7\r\n":true}\r\n0\r\nX-Trailer: 1\r\n\r\n',
        (200, _OK, False),
    ),
}


@pytest.mark.parametrize(("raw", "expected"), _ANSWERS.values(), ids=_ANSWERS.keys())
def test_answers_as_servers_send_them(raw: bytes, expected: tuple[int, bytes, bool]) -> None:
    kept = not expected[2]
    following = b"HTTP/1.1 200 OK\r\n" if kept else b""  # a next answer's start, unread
    reader = io.BytesIO(raw + following)
    assert read_answer(reader) == expected
    assert reader.read() == following


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"SSH-2.0-OpenSSH\r\n",
        b'HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{"ok"',
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n" + b"X: 1\r\n" * 101 + b"\r\n",
        b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70_000 + b"\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\n{}",
        b"HTTP/1.1 200 OK\r\nContent-Length: eleven\r\n\r\n{}",
        b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n{}",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}",
    ],
    ids=[
        "nothing",
        "not-http",
        "cut-short",
        "bad-header",
        "too-many",
        "too-long",
        "bad-chunk",
        "bad-length",
        "negative-length",
        "bad-chunk-size",
    ],
)
def test_an_answer_that_is_not_http_is_refused(raw: bytes) -> None:
    with pytest.raises(BadAnswer):
        read_answer(io.BytesIO(raw))


def test_a_broken_answer_is_a_network_error_and_the_connection_goes() -> None:
    """A server that answers garbage: the caller gets a NetworkError, the next call a
    new connection."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        http = client(f"http://127.0.0.1:{listener.getsockname()[1]}")

        def answer(raw: bytes) -> None:
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(raw)

        talker = threading.Thread(target=answer, args=(b"garbage\r\n",))
        talker.start()
        with pytest.raises(NetworkError, match="BadAnswer"):
            http.post("/a", b"{}")
        talker.join()
        assert http._local.conn is None
        talker = threading.Thread(
            target=answer, args=(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",)
        )
        talker.start()
        assert http.post("/b", b"{}") == (200, b"{}")
        talker.join()
