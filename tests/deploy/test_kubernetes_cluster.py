"""deploy/components, beyond one Redis: each choice the operator makes in
deploy/kustomization.yaml (one Redis; the state on a Valkey Cluster run here or on a
managed one; workers scaled by KEDA) builds with `kubectl kustomize` into manifests the
Kubernetes schemas take, with settings the service reads; the StatefulSet and the
scripts agree on the cluster's shape; KEDA watches RQ's own queue on the jobs Redis."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import kubernetes_validate  # type: ignore[import-untyped]  # ships neither hints nor stubs
import pytest
import yaml

from service.infra.queue import QUEUE
from tests.deploy.conftest import unknown_settings
from tests.deploy.test_kubernetes import (
    CUSTOM,
    DEPLOY,
    VERSIONS,
    Resource,
    applied,
    example_secrets,
    find,
    resources,
    workloads,
)

COMPONENTS = DEPLOY / "components"
CLUSTER_SCRIPTS = COMPONENTS / "valkey-cluster"
VARIANTS = {
    "one-redis": [],
    "valkey-cluster": ["valkey-cluster", "keda-workers"],
    "managed-cluster": ["state-on-cluster"],
}


def build(folder: Path, components: list[str]) -> list[Resource]:
    """What `kubectl apply -k deploy/` applies with these lines of deploy/kustomization.yaml's
    `components:` uncommented (in a copy: the tree stays untouched)."""
    copy = folder / "deploy"
    shutil.copytree(DEPLOY, copy)
    root = yaml.safe_load((copy / "kustomization.yaml").read_text())
    root["components"] = [f"components/{name}" for name in components] or None
    (copy / "kustomization.yaml").write_text(yaml.safe_dump(root))
    done = subprocess.run(["kubectl", "kustomize", str(copy)], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Resource]]:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl not installed (it builds kustomizations offline)")
    return {name: build(tmp_path_factory.mktemp(name), c) for name, c in VARIANTS.items()}


def named(docs: list[Resource], kind: str, name: str) -> Resource | None:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    return found[0] if found else None


def config_of(docs: list[Resource]) -> dict[str, str]:
    config = named(docs, "ConfigMap", "burro-config")
    assert config is not None
    data: dict[str, str] = config["data"]
    return data


def test_the_root_kustomization_offers_every_component() -> None:
    """A newcomer finds each choice in deploy/kustomization.yaml, commented out."""
    text = (DEPLOY / "kustomization.yaml").read_text()
    offered = set(re.findall(r"^\s*#\s*- (components/[\w-]+)", text, flags=re.MULTILINE))
    present = {f"components/{p.parent.name}" for p in COMPONENTS.glob("*/kustomization.yaml")}
    assert offered == present and present
    assert yaml.safe_load(text)["components"] is None  # one Redis unless one is chosen
    for kustomization in COMPONENTS.glob("*/kustomization.yaml"):
        assert yaml.safe_load(kustomization.read_text())["kind"] == "Component"


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_build_is_valid(built: dict[str, list[Resource]], variant: str) -> None:
    docs = built[variant]
    for doc in docs:
        if doc["apiVersion"] not in CUSTOM:
            for version in VERSIONS:
                kubernetes_validate.validate(doc, version, strict=True)
    assert not unknown_settings(config_of(docs))
    config_maps = {d["metadata"]["name"] for d in docs if d["kind"] == "ConfigMap"}
    for doc in docs:  # the generated ConfigMaps' hashed names reached every volume
        if doc["kind"] in ("Deployment", "StatefulSet", "Job"):
            for volume in doc["spec"]["template"]["spec"].get("volumes", []):
                if "configMap" in volume:
                    assert volume["configMap"]["name"] in config_maps, volume


def test_each_choice_sets_what_it_says(built: dict[str, list[Resource]]) -> None:
    one, cluster, managed = (built[v] for v in VARIANTS)
    assert "BURRO_REDIS_CLUSTER" not in config_of(one)
    for docs in (cluster, managed):
        assert config_of(docs)["BURRO_REDIS_CLUSTER"] == "1"
        assert named(docs, "StatefulSet", "burro-redis") is not None  # the jobs Redis stays
    assert named(cluster, "StatefulSet", "burro-valkey") is not None
    assert named(managed, "StatefulSet", "burro-valkey") is None
    # One autoscaler per workload: KEDA's takes the workers' over from their HPA.
    assert named(one, "HorizontalPodAutoscaler", "burro-worker") is not None
    assert named(cluster, "HorizontalPodAutoscaler", "burro-worker") is None
    assert named(cluster, "ScaledObject", "burro-worker") is not None
    assert named(cluster, "HorizontalPodAutoscaler", "burro-serve") is not None


def test_moves_wait_for_a_replica_that_every_state_redis_keeps() -> None:
    config = find("ConfigMap", "burro-config")["data"]
    replicas = int(config["BURRO_DURABLE_REPLICAS"])
    assert replicas >= 1 and int(config["BURRO_DURABLE_WAIT_MS"]) > 0
    assert find("StatefulSet", "burro-redis")["spec"]["replicas"] - 1 >= replicas
    assert int(script_default("create-cluster.sh", "REPLICAS")) >= replicas


def script_default(script: str, variable: str) -> str:
    text = (CLUSTER_SCRIPTS / script).read_text()
    found = re.search(rf'{variable}="\$\{{\w+:-([^}}]+)\}}"', text)
    assert found, (script, variable)
    return found[1]


def test_the_statefulset_is_the_cluster_the_scripts_form() -> None:
    valkey = find("StatefulSet", "burro-valkey")
    spec, pod = valkey["spec"], valkey["spec"]["template"]["spec"]
    nodes = int(script_default("create-cluster.sh", "COUNT"))
    per_primary = int(script_default("create-cluster.sh", "REPLICAS"))
    assert spec["replicas"] == nodes and nodes // (1 + per_primary) == 3  # 3 primaries
    assert spec["podManagementPolicy"] == "Parallel"  # all up before the Job forms them
    namespace = valkey["metadata"]["namespace"]
    headless = f"{spec['serviceName']}.{namespace}.svc.cluster.local"
    for script in ("init.sh", "create-cluster.sh"):  # the DNS names the nodes announce
        assert script_default(script, "SET") == valkey["metadata"]["name"]
        assert script_default(script, "HEADLESS") == headless
    service = find("Service", spec["serviceName"])
    assert service["spec"]["clusterIP"] == "None" and service["spec"]["publishNotReadyAddresses"]
    (container,) = pod["containers"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"valkey": 6379, "bus": 16379}  # the bus: the port + 10000
    env = {e["name"]: e for e in container["env"]}
    assert env["POD_IP"]["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"
    assert container["command"] == ["valkey-server", "/data/conf/valkey.conf"]
    (init,) = pod["initContainers"]
    assert init["command"] == ["sh", "/scripts/init.sh"]
    budget = find("PodDisruptionBudget", "burro-valkey")["spec"]
    assert budget["maxUnavailable"] == 1  # never a primary and its replica at once
    job = find("Job", "burro-valkey-create-cluster")["spec"]["template"]["spec"]
    assert job["containers"][0]["command"] == ["sh", "/scripts/create-cluster.sh"]
    generated = yaml.safe_load((CLUSTER_SCRIPTS / "kustomization.yaml").read_text())
    (scripts,) = generated["configMapGenerator"]
    assert set(scripts["files"]) == {"init.sh", "create-cluster.sh"}
    for volumes in (pod["volumes"], job["volumes"]):
        assert {"name": "scripts", "configMap": {"name": scripts["name"]}} in volumes


def test_the_cluster_keeps_the_state_safe_and_answers_by_name() -> None:
    """What init.sh writes (tests/deploy/test_valkey_cluster runs it under Valkey)."""
    init = (CLUSTER_SCRIPTS / "init.sh").read_text()
    for line in ("cluster-enabled yes", "appendonly yes", "appendfsync everysec",
                 "maxmemory-policy noeviction", "cluster-preferred-endpoint-type hostname",
                 "cluster-require-full-coverage no"):  # fmt: skip
        assert f"\n{line}\n" in init, line
    valkey = find("StatefulSet", "burro-valkey")["spec"]["template"]["spec"]["containers"][0]
    maxmemory = next(e["value"] for e in valkey["env"] if e["name"] == "VALKEY_MAXMEMORY")
    limit = valkey["resources"]["limits"]["memory"]
    assert maxmemory.endswith("mb") and limit.endswith("Gi")
    assert int(maxmemory[:-2]) < 0.8 * int(limit[:-2]) * 1024  # room for the AOF rewrite


def test_every_image_is_pinned() -> None:
    for workload in workloads():
        pod = workload["spec"]["template"]["spec"]
        for container in pod.get("initContainers", []) + pod["containers"]:
            image = container["image"]
            if image == "burro":  # kustomization.yaml's images: sets its name and tag
                continue
            name, _, tag = image.rpartition(":")
            assert name and re.match(r"\d+\.\d+\.\d+", tag), image


KEDA_SPEC = {"scaleTargetRef", "pollingInterval", "cooldownPeriod", "initialCooldownPeriod",
             "idleReplicaCount", "minReplicaCount", "maxReplicaCount", "fallback", "advanced",
             "triggers"}  # fmt: skip
KEDA_TRIGGER = {"type", "name", "metadata", "authenticationRef", "metricType", "useCachedMetrics"}
KEDA_REDIS = {"address", "host", "port", "usernameFromEnv", "passwordFromEnv", "listName",
              "listLength", "activationListLength", "enableTLS", "unsafeSsl", "databaseIndex",
              "addressFromEnv", "hostFromEnv", "portFromEnv"}  # fmt: skip


def jobs_redis_url() -> str:
    for _path, doc in resources():
        if doc["kind"] == "Secret" and "BURRO_JOBS_REDIS_URL" in doc["stringData"]:
            url: str = doc["stringData"]["BURRO_JOBS_REDIS_URL"]
            return url
    raise AssertionError("no example of BURRO_JOBS_REDIS_URL")


def test_keda_scales_the_workers_on_rqs_queue_in_the_jobs_redis() -> None:
    scaled = find("ScaledObject", "burro-worker")
    spec: dict[str, Any] = scaled["spec"]
    assert set(spec) <= KEDA_SPEC and scaled["apiVersion"] == "keda.sh/v1alpha1"
    assert spec["scaleTargetRef"] == {"name": "burro-worker"}
    assert find("Deployment", "burro-worker")
    assert 1 <= spec["minReplicaCount"] <= spec["maxReplicaCount"]  # the clock, the sweeper
    assert (
        spec["minReplicaCount"]
        >= find("PodDisruptionBudget", "burro-worker")["spec"]["minAvailable"]
    )
    (redis_trigger,) = [t for t in spec["triggers"] if t["type"] == "redis"]
    for trigger in spec["triggers"]:
        assert set(trigger) <= KEDA_TRIGGER
        assert all(isinstance(v, str) for v in trigger["metadata"].values())  # KEDA's schema
    meta = redis_trigger["metadata"]
    assert set(meta) <= KEDA_REDIS and int(meta["listLength"]) > 0
    assert meta["listName"] == f"rq:queue:{QUEUE}"
    jobs = urlsplit(jobs_redis_url())
    host, port = meta["address"].rsplit(":", 1)
    assert host.split(".")[0] == jobs.hostname and int(port) == (jobs.port or 6379)
    assert host in (jobs.hostname, f"{jobs.hostname}.burro.svc.cluster.local")
    assert meta["databaseIndex"] == (jobs.path.strip("/") or "0")
    service = find("Service", str(jobs.hostname))  # deploy/redis's HAProxy: the master
    assert service["spec"]["ports"][0]["port"] == int(port)
    auth = find("TriggerAuthentication", redis_trigger["authenticationRef"]["name"])
    (password,) = auth["spec"]["secretTargetRef"]
    assert password["parameter"] == "password"
    assert password["key"] in example_secrets()[password["name"]]


def test_the_components_settings_are_settings() -> None:
    for kustomization in COMPONENTS.glob("*/kustomization.yaml"):
        for patch in yaml.safe_load(kustomization.read_text()).get("patches", []):
            doc = yaml.safe_load(patch["patch"])
            if doc["kind"] == "ConfigMap":
                assert doc["data"] and not unknown_settings(doc["data"]), kustomization
    assert not unknown_settings(example_secrets()["burro-secrets"])
    assert any(d["kind"] == "Secret" for d in applied()) is False
