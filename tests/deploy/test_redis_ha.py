"""deploy/redis: the init script writes a redis.conf that a real Redis runs (pod 0
bootstraps as master, the others as its replicas), and HAProxy with deploy's config
sends clients to whichever Redis is master, following a fail-over."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service.infra.redis_server import RedisServer, free_port, server_binary
from tests.deploy.conftest import ROOT

REDIS_DIR = ROOT / "deploy" / "redis"
PASSWORD = "s3cret-pw"


def run_init(pod: str, folder: Path, data: Path | None = None) -> str:
    env = {
        "PATH": f"{Path(server_binary()).parent}:{os.environ['PATH']}",  # redis-cli
        "POD_NAME": pod,
        "REDIS_HEADLESS": "burro-redis-headless.invalid",  # no Sentinel answers: bootstrap
        "REDIS_PASSWORD": PASSWORD,
        "CONF_DIR": str(folder),
        "DATA_DIR": str(data or folder),
    }
    done = subprocess.run(["sh", str(REDIS_DIR / "init.sh")], env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_pod_zero_bootstraps_as_master_the_others_as_replicas(tmp_path: Path) -> None:
    said = run_init("burro-redis-0", tmp_path / "0")
    assert "starts as master" in said
    conf = (tmp_path / "0" / "redis.conf").read_text()
    assert "replicaof" not in conf
    assert "appendonly yes" in conf and "appendfsync everysec" in conf
    sentinel = (tmp_path / "0" / "sentinel.conf").read_text()
    assert "sentinel monitor burro burro-redis-0.burro-redis-headless.invalid 6379 2" in sentinel
    assert f"sentinel auth-pass burro {PASSWORD}" in sentinel
    run_init("burro-redis-2", tmp_path / "2")
    replica = (tmp_path / "2" / "redis.conf").read_text()
    assert "replicaof burro-redis-0.burro-redis-headless.invalid 6379" in replica
    assert "replica-announce-ip burro-redis-2.burro-redis-headless.invalid" in replica


def test_a_real_redis_runs_the_generated_config(tmp_path: Path) -> None:
    run_init("burro-redis-0", tmp_path / "conf", tmp_path)
    port = free_port()
    process = subprocess.Popen(
        [server_binary(), str(tmp_path / "conf" / "redis.conf"), "--port", str(port),
         "--bind", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        client = redis.Redis(port=port, password=PASSWORD, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while True:
            try:
                assert client.ping()
                break
            except redis.ConnectionError:
                assert time.monotonic() < deadline and process.poll() is None, "no Redis"
                time.sleep(0.05)
        assert client.info("replication")["role"] == "master"
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=port).ping()
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def two_redis(tmp_path: Path) -> Iterator[tuple[RedisServer, RedisServer]]:
    options = ("requirepass", PASSWORD), ("masterauth", PASSWORD)
    first, second = (RedisServer(tmp_path / name, persist=False) for name in ("a", "b"))
    for server in (first, second):
        server.start()
        client = redis.Redis(port=server.port)
        for key, value in options:
            client.config_set(key, value)
    redis.Redis(port=second.port, password=PASSWORD).replicaof("127.0.0.1", first.port)
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


@pytest.mark.skipif(shutil.which("haproxy") is None,
                    reason="haproxy not installed (apt-get install haproxy)")  # fmt: skip
def test_haproxy_follows_the_master(tmp_path: Path, two_redis: tuple[RedisServer, ...]) -> None:
    first, second = two_redis
    front, health = free_port(), free_port()
    config = (REDIS_DIR / "haproxy.cfg").read_text()
    for index, server in enumerate((first, second)):
        config = config.replace(
            f"burro-redis-{index}.burro-redis-headless.burro.svc.cluster.local:6379",
            f"127.0.0.1:{server.port}",
        )
    config = config.replace("burro-redis-2.burro-redis-headless.burro.svc.cluster.local:6379",
                            f"127.0.0.1:{free_port()}")  # a pod that is down  # fmt: skip
    config = config.replace("bind :6379", f"bind 127.0.0.1:{front}")
    config = config.replace("bind :8404", f"bind 127.0.0.1:{health}")
    (tmp_path / "haproxy.cfg").write_text(config)
    env = {**os.environ, "REDIS_PASSWORD": PASSWORD}
    check = subprocess.run(["haproxy", "-c", "-f", str(tmp_path / "haproxy.cfg")], env=env,
                           capture_output=True, text=True, timeout=30)  # fmt: skip
    assert check.returncode == 0, check.stderr
    proxy = subprocess.Popen(["haproxy", "-db", "-f", str(tmp_path / "haproxy.cfg")], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip

    def served_by() -> int | None:
        try:
            client = redis.Redis(port=front, password=PASSWORD, socket_timeout=1)
            return int(client.info("server")["tcp_port"])
        except redis.RedisError:
            return None

    def wait_for(port: int) -> None:
        """Until five connections in a row reach `port`: until the old master has failed
        two checks and the new one passed two (`inter 1s fall 2 rise 2`, ~3 s) the
        proxy may send a connection to either."""
        deadline = time.monotonic() + 15
        while [served_by() for _ in range(5)] != [port] * 5:
            assert time.monotonic() < deadline, f"the proxy never settled on {port}"
            time.sleep(0.2)

    def ready() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{health}/ready", timeout=1) as r:
                status: int = r.status  # urlopen is typed as returning Any
                return status == 200
        except OSError:  # refused while starting, 503 until one master is found
            return False

    try:
        deadline = time.monotonic() + 15
        while not ready():  # what the readiness probe waits for before clients come
            assert time.monotonic() < deadline, "the proxy never found the master"
            time.sleep(0.2)
        assert [served_by() for _ in range(5)] == [first.port] * 5
        redis.Redis(port=front, password=PASSWORD).set("k", "v")
        # A fail-over, as Sentinel does it: promote the replica, demote the old master.
        redis.Redis(port=second.port, password=PASSWORD).replicaof("NO", "ONE")
        redis.Redis(port=first.port, password=PASSWORD).replicaof("127.0.0.1", second.port)
        wait_for(second.port)
        assert redis.Redis(port=front, password=PASSWORD).get("k") == b"v"
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)
