"""The load benchmarks' games made on a cluster (bench.webhook --backends cluster): each
game's own slot written by one script, its jobs on RQ's Redis apart, and the load
generator's mirrors read back in batches."""

from __future__ import annotations

from pathlib import Path

import redis

from bench.games import load_mirrors, make_games
from service.infra import indexes
from service.infra.keys import DUE_KEY
from service.infra.redis_cluster import LocalCluster
from service.infra.redis_server import RedisServer, connect


def test_games_made_on_a_cluster_are_played_and_queue_their_jobs_apart(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    client: redis.Redis = cluster.client()  # type: ignore[assignment]
    with RedisServer(tmp_path / "jobs", persist=False) as jobs_server:
        jobs = connect(jobs_server.url)
        ids = make_games(client, 12, first=900_000, batch=5, jobs=jobs)
        assert len(set(ids)) == 12
        mirrors = load_mirrors(client, ids, batch=5)
        assert [m.room_id for m in mirrors] == ids
        assert all(not m.over and m.moves == 0 for m in mirrors)
        due = {member for member, _ in indexes.due(client, DUE_KEY, float("inf"), 10_000)}
        assert set(ids) <= due  # the index entries in the rooms' slots, with them
        assert jobs.llen("rq:queue:burro") > 0
        assert not client.exists("rq:queue:burro")
