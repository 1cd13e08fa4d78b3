"""The store on both of the Redis it runs on: one node (the embedded default's server,
RQ on the same) and a 3-primary cluster with a replica each (RQ on a Redis of its own,
moves answered once a replica has them). Each test here runs on both."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from service.infra import trips
from service.infra.redis_cluster import LocalCluster
from service.infra.redis_server import RedisServer, connect
from service.infra.store import Store, text

BACKENDS = ("one node", "cluster")


@pytest.fixture(scope="session")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One Redis: the state on one node, or RQ's beside a cluster."""
    with RedisServer(tmp_path_factory.mktemp("node"), persist=False) as running:
        yield running


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(backend: str, request: pytest.FixtureRequest, node: RedisServer) -> Store:
    if backend == "one node":
        return Store(connect(node.url), 3600, 3600)
    cluster: LocalCluster = request.getfixturevalue("cluster")
    client: redis.Redis = cluster.client()  # type: ignore[assignment]
    return Store(client, 3600, 3600, jobs=connect(node.url), durable=trips.Durable(1, 2000))


def jobs_of(store: Store, prefix: str = "") -> list[str]:
    """The ids of the jobs queued on RQ's Redis (starting with `prefix`)."""
    ids = [text(i) for i in store.jobs.lrange("rq:queue:burro", 0, -1)]
    return [i for i in ids if i.startswith(prefix)]
