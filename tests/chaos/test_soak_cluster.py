"""The short chaos soak (test_soak.py's games and checks) with the game state on a
3-primary cluster, a replica each, moves answered once a replica has them, and RQ on a
Redis of its own; besides the soak's blows, the cluster's (bench/chaos_cluster.py): a
primary SIGKILLed and its replica promoted, bucket slots moved under load, memory full
with a worker killed meanwhile. Nothing acknowledged may be lost, nothing doubled, no
game stuck (a game still waiting on RQ's scheduler at the end is counted, as there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.chaos import soak
from service.infra.redis_cluster import LocalCluster, cluster_binary

pytestmark = pytest.mark.e2e


def test_a_short_soak_on_a_cluster_loses_nothing(tmp_path: Path) -> None:
    try:
        cluster_binary()
    except FileNotFoundError as missing:
        pytest.skip(f"no server binary that runs a cluster: {missing}")
    with LocalCluster(tmp_path / "cluster") as cluster:
        books = soak(
            games=8, seed=11, minutes=2.5, kill_redis=False, full=0.0, folder=tmp_path,
            group_naps=False, settle=30.0, liveness=False, bot_delay=0.0, cluster=cluster,
        )  # fmt: skip
    counts = books.counts
    assert books.violations == [], "\n".join(books.violations[:20])
    ended = counts["games_finished"] + counts["games_stopped"]
    wa_ended = counts["wa_games_finished"] + counts["wa_games_unfinished_waiting"]
    assert ended + counts["games_unfinished_waiting"] + wa_ended == counts["games"] == 8
    assert counts["games_finished"] >= 4 and counts["player_moves_applied"] > 10
    # the cluster's own blows, each at least once, besides the soak's
    assert counts["primary_kills"] and counts["reshards"] and counts["maxmemory_windows"]
    assert counts["killed_serve"] and counts["killed_worker"] >= 2
