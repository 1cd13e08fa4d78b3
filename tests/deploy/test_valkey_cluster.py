"""deploy/components/valkey-cluster, on loopback with the valkey binaries a package ships:
the init script writes a config six real Valkey nodes run in cluster mode, the Job's
script forms 3 primaries and 3 replicas from them (and, run again, changes nothing), and
after every node comes back on a new address the init script's look-up of its peers'
names lets the cluster find itself again; Burro's own client, given one node's URL as the
Secret gives it, reaches every primary by the names they announce."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis

from service.infra.redis_server import connect_state, free_port
from service.settings import Settings
from tests.deploy.conftest import ROOT

SCRIPTS = ROOT / "deploy" / "components" / "valkey-cluster"
PASSWORD = "v4lkey-pw"
SERVER, CLI = shutil.which("valkey-server"), shutil.which("valkey-cli")
pytestmark = pytest.mark.skipif(
    SERVER is None or CLI is None, reason="valkey not installed (apt-get install valkey-server)"
)


@dataclass
class Node:
    name: str  # the DNS name the node announces (a pod's, in Kubernetes)
    folder: Path
    port: int
    ip: str = "127.0.0.1"
    bus_port: int = field(default_factory=free_port)  # not port + 10000: it may pass 65535
    process: subprocess.Popen[bytes] | None = None

    def cluster(self, *args: str) -> Any:
        """A CLUSTER subcommand's answer, as redis-py parses it."""
        return self.client().execute_command(" ".join(("CLUSTER", *args)))  # type: ignore[no-untyped-call]

    def client(self) -> redis.Redis:
        return redis.Redis(
            host=self.ip, port=self.port, password=PASSWORD, socket_timeout=2, decode_responses=True
        )


def fake_dns(folder: Path, nodes: list[Node]) -> dict[str, str]:
    """An environment whose `getent ahostsv4` answers the nodes' names with their IPs
    now (the cluster's DNS), the real getent for anything else."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(exist_ok=True)
    table = "\n".join(f"{n.name} {n.ip}" for n in nodes)
    getent = bin_dir / "getent"
    getent.write_text(
        "#!/bin/sh\n"
        f'ip=$(printf "%s\\n" "{table}" | awk -v n="$2" \'$1 == n {{ print $2 }}\')\n'
        'if [ -n "$ip" ]; then echo "$ip STREAM $2"; exit 0; fi\n'
        f'exec {shutil.which("getent")} "$@"\n'
    )
    getent.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{Path(str(CLI)).parent}:{os.environ['PATH']}"}


def run(script: str, env: dict[str, str], **extra: str) -> str:
    done = subprocess.run(["sh", str(SCRIPTS / script)], env={**env, **extra},
                          capture_output=True, text=True, timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def start(node: Node, env: dict[str, str]) -> None:
    said = run("init.sh", env, POD_NAME=node.name, ANNOUNCE_HOSTNAME=node.name,
               POD_IP=node.ip, VALKEY_PASSWORD=PASSWORD, DATA_DIR=str(node.folder),
               VALKEY_PORT=str(node.port), CLUSTER_NODE_TIMEOUT="1000",
               RESOLVE_SECONDS="2")  # fmt: skip
    assert node.name in said
    node.process = subprocess.Popen(
        [str(SERVER), str(node.folder / "conf" / "valkey.conf"), "--bind", node.ip,
         "--cluster-port", str(node.bus_port), "--logfile", str(node.folder / "valkey.log")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip


def stop(node: Node) -> None:
    """A node stopped: asked first, killed if a loaded machine keeps it past 30 s."""
    if node.process is not None and node.process.poll() is None:
        node.process.terminate()
        try:
            node.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            node.process.kill()
            node.process.wait()


def wait_for(what: str, condition: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            if condition():
                return
        except redis.RedisError:
            pass  # a node still starting
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.2)


def cluster_ok(nodes: list[Node]) -> bool:
    return all(n.cluster("INFO")["cluster_state"] == "ok" for n in nodes)


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[list[Node]]:
    made = [Node(f"burro-valkey-{i}.burro-valkey-headless.test", tmp_path / str(i), free_port(),
                 f"127.0.0.{11 + i}") for i in range(6)]  # fmt: skip
    try:
        yield made
    finally:
        for node in made:
            stop(node)


def create_env(env: dict[str, str], nodes: list[Node]) -> dict[str, str]:
    listed = " ".join(f"{n.name}:{n.port}" for n in nodes)
    return {**env, "VALKEY_NODES": listed, "VALKEY_PASSWORD": PASSWORD, "TIMEOUT_SECONDS": "180"}


def test_the_config_runs_valkey_in_cluster_mode_with_the_state_safe(tmp_path: Path) -> None:
    node = Node("burro-valkey-0.burro-valkey-headless.test", tmp_path, free_port())
    try:
        start(node, fake_dns(tmp_path, [node]))
        wait_for("the node answers", lambda: bool(node.client().ping()))
        client = node.client()
        assert client.info("cluster")["cluster_enabled"] == 1
        config = {k: client.config_get(k)[k] for k in ("appendonly", "appendfsync",
                  "maxmemory-policy", "cluster-announce-hostname",
                  "cluster-preferred-endpoint-type")}  # fmt: skip
        assert config == {"appendonly": "yes", "appendfsync": "everysec",
                          "maxmemory-policy": "noeviction", "cluster-announce-hostname": node.name,
                          "cluster-preferred-endpoint-type": "hostname"}  # fmt: skip
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(host=node.ip, port=node.port).ping()
    finally:
        stop(node)


def test_the_job_forms_three_primaries_with_a_replica_each_once(
    tmp_path: Path, nodes: list[Node]
) -> None:
    env = fake_dns(tmp_path, nodes)
    for node in nodes:
        start(node, env)
    said = run("create-cluster.sh", create_env(env, nodes))
    assert "cluster_state:ok on every node" in said and "already" not in said
    roles = [n.client().info("replication")["role"] for n in nodes]
    assert sorted(roles) == ["master"] * 3 + ["slave"] * 3
    shards = nodes[0].cluster("SHARDS")
    assert len(shards) == 3
    # Clients are sent to the nodes' DNS names (MOVED, CLUSTER SLOTS), not to pod IPs.
    endpoints = {m["endpoint"] for shard in shards for m in shard["nodes"]}
    assert endpoints == {n.name for n in nodes}
    # On the next apply the Job runs again and leaves the cluster as it is.
    ids = sorted(n.cluster("MYID") for n in nodes)
    again = run("create-cluster.sh", create_env(env, nodes))
    assert "already form a cluster" in again
    assert sorted(n.cluster("MYID") for n in nodes) == ids


def test_the_cluster_finds_itself_after_every_pod_moved(tmp_path: Path, nodes: list[Node]) -> None:
    env = fake_dns(tmp_path, nodes)
    for node in nodes:
        start(node, env)
    run("create-cluster.sh", create_env(env, nodes))
    key_node = nodes[0]
    wait_for("the cluster", lambda: cluster_ok(nodes))
    for node in nodes:
        stop(node)
    for node in nodes:  # every pod comes back with a new IP, as after a full restart
        node.ip = node.ip.replace("127.0.0.1", "127.0.0.2", 1)
    env = fake_dns(tmp_path, nodes)
    for node in nodes:
        start(node, env)
    wait_for("the cluster on the new addresses", lambda: cluster_ok(nodes), timeout=90)
    assert key_node.cluster("INFO")["cluster_known_nodes"] == "6"


def test_burros_client_follows_the_names_the_nodes_announce(tmp_path: Path) -> None:
    """The state's client, as `serve` and workers make it from the Secret's URL (one node),
    reaches every primary through the names in the slot map."""
    nodes = [Node("localhost", tmp_path / str(i), free_port()) for i in range(6)]
    try:
        env = fake_dns(tmp_path, nodes)
        for node in nodes:
            start(node, env)
        run("create-cluster.sh", create_env(env, nodes))
        url = f"redis://:{PASSWORD}@localhost:{nodes[0].port}"
        client = connect_state(Settings(redis_url=url, redis_cluster=True))
        keys = [f"{{b:{n:04}}}:probe" for n in range(30)]  # hash tags over every primary
        for key in keys:
            client.set(key, key)
        assert [client.get(k) for k in keys] == [k.encode() for k in keys]
        primaries = [n for n in nodes if n.client().info("replication")["role"] == "master"]
        assert len(primaries) == 3 and all(n.client().dbsize() > 0 for n in primaries)
    finally:
        for node in nodes:
            stop(node)
